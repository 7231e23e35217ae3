import math

import torch


def softmax(x, dim=-1):
    if not torch.is_tensor(x):
        x = torch.as_tensor(x)
    m = x.max(dim=dim, keepdim=True).values
    y = torch.exp(x - m)
    return y / y.sum(dim=dim, keepdim=True)


def softmax_with_temperature(x, temperature, dim=-1):
    if not (temperature > 0):
        raise ValueError("temperature has to be positive")
    return softmax(x / temperature, dim=dim)


def compare_saturation(scores, d_k):
    if scores.dim() != 1:
        raise ValueError("scores must be 1-D")
    return {"unscaled": float(softmax(scores, dim=0).max()),
            "scaled": float(softmax(scores / math.sqrt(d_k), dim=0).max())}


def softmax_jacobian(p):
    if p.dim() != 1:
        raise ValueError("p must be 1-D")
    return torch.diag(p) - p.unsqueeze(1) * p.unsqueeze(0)


def attention(q, k, v):
    if k.shape[-2] != v.shape[-2]:
        raise ValueError("k and v must have the same number of keys")
    return softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1) @ v
