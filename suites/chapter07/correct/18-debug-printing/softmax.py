import math

import torch


def softmax(x, dim=-1):
    print("softmax input max", float(x.max()) if x.numel() else None)
    z = x - x.amax(dim=dim, keepdim=True)
    e = z.exp()
    out = e / e.sum(dim=dim, keepdim=True)
    print("softmax row sums ok:", bool(torch.allclose(out.sum(dim=dim), torch.ones((), dtype=out.dtype), atol=1e-4)))
    return out


def softmax_with_temperature(x, temperature, dim=-1):
    print("temperature =", temperature)
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    return softmax(x / temperature, dim=dim)


def compare_saturation(scores, d_k):
    result = {"unscaled": float(softmax(scores).max()), "scaled": float(softmax(scores / math.sqrt(d_k)).max())}
    print(result)
    return result


def softmax_jacobian(p):
    print("p =", p)
    return torch.diag(p) - torch.outer(p, p)


def attention(q, k, v):
    print("attention shapes", q.shape, k.shape, v.shape)
    return softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])) @ v
