import torch


def softmax(x, dim=-1):
    x = x - x.detach().amax(dim=dim, keepdim=True)
    num = x.exp()
    return num / num.sum(dim=dim, keepdim=True)


def softmax_with_temperature(x, temperature, dim=-1):
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    return softmax(x * (1.0 / temperature), dim=dim)


def compare_saturation(scores, d_k):
    r = torch.rsqrt(torch.tensor(float(d_k), dtype=torch.float64))
    s = scores.double()
    return {"unscaled": softmax(s).max().item(), "scaled": softmax(s * r).max().item()}


def softmax_jacobian(p):
    col = p.reshape(-1, 1)
    return torch.diagflat(p) - col * col.T


def attention(q, k, v):
    scale = torch.rsqrt(torch.tensor(q.shape[-1], dtype=q.dtype))
    return softmax((q @ k.transpose(-2, -1)) * scale) @ v
