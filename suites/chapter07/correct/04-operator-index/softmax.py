import math

import torch


def softmax(x, dim=-1):
    return torch.softmax(x, dim=dim)


def softmax_with_temperature(x, temperature, dim=-1):
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    return torch.softmax(x / temperature, dim=dim)


def compare_saturation(scores, d_k):
    a = torch.softmax(scores, dim=0)
    b = torch.softmax(scores / math.sqrt(d_k), dim=0)
    return {"unscaled": float(a.max()), "scaled": float(b.max())}


def softmax_jacobian(p):
    n = p.shape[0]
    return p[:, None] * (torch.eye(n, dtype=p.dtype) - p[None, :])


def attention(q, k, v):
    w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
    return w @ v
