import torch


def softmax(x, dim=-1):
    shifted = x - x.max(dim=dim, keepdim=True).values
    return shifted.exp() / shifted.exp().sum(dim=dim, keepdim=True)


def softmax_with_temperature(x, temperature, dim=-1):
    if temperature <= 0:
        raise ValueError("temperature must be strictly positive")
    return softmax(x / temperature, dim)


def compare_saturation(scores, d_k):
    return {"unscaled": softmax(scores).max().item(), "scaled": softmax(scores * d_k ** -0.5).max().item()}


def softmax_jacobian(p):
    return torch.diag(p) - torch.outer(p, p)


def attention(q, k, v):
    return softmax(q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5) @ v
