import math

import torch

NEG_INF = float("-inf")


def _stable_exp(x, dim):
    top = torch.amax(x, dim=dim, keepdim=True)
    top = torch.where(torch.isfinite(top), top, torch.zeros_like(top))
    return torch.exp(x - top)


def softmax(x, dim=-1):
    e = _stable_exp(x, dim)
    return e / e.sum(dim=dim, keepdim=True)


def softmax_with_temperature(x, temperature, dim=-1):
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    return softmax(x / temperature, dim=dim)


def compare_saturation(scores, d_k):
    return {"unscaled": float(softmax(scores).max()),
            "scaled": float(softmax_with_temperature(scores, math.sqrt(d_k)).max())}


def softmax_jacobian(p):
    n = p.numel()
    eye = torch.eye(n, dtype=p.dtype)
    return p.view(n, 1) * eye - p.view(n, 1) * p.view(1, n)


def attention(q, k, v):
    return softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])) @ v
