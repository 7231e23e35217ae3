import math

import torch


def softmax(x, dim=-1):
    x = x.double()
    shifted = x - x.max(dim=dim, keepdim=True).values
    w = shifted.exp()
    return w / w.sum(dim=dim, keepdim=True)


def softmax_with_temperature(x, temperature, dim=-1):
    if temperature <= 0.0:
        raise ValueError("temperature must be greater than zero")
    return softmax(x.double() / float(temperature), dim=dim)


def compare_saturation(scores, d_k):
    s = scores.double()
    return {"unscaled": float(softmax(s).max()), "scaled": float(softmax(s / math.sqrt(d_k)).max())}


def softmax_jacobian(p):
    p = p.double()
    return torch.diag(p) - torch.outer(p, p)


def attention(q, k, v):
    q, k, v = q.double(), k.double(), v.double()
    return softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])) @ v
