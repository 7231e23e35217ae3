import math

import torch


def softmax(x, dim=-1):
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    return e / e.sum(dim=dim, keepdim=True)


def softmax_with_temperature(x, temperature, dim=-1):
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    return softmax(x / temperature, dim)


def compare_saturation(scores, d_k):
    return {"unscaled": softmax(scores).max().item(),
            "scaled": softmax(scores / math.sqrt(d_k)).max().item()}


def softmax_jacobian(p):
    return torch.diag(p) - torch.outer(p, p)


def attention(q, k, v):
    return softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])) @ v
