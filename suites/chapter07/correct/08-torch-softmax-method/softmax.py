import math

import torch


def softmax(x, dim=-1):
    return x.softmax(dim=dim)


def softmax_with_temperature(x, temperature, dim=-1):
    if temperature <= 0:
        raise ValueError("the temperature must be positive")
    return (x / temperature).softmax(dim)


def compare_saturation(scores, d_k):
    return {"unscaled": scores.softmax(0).max().item(), "scaled": (scores / d_k ** 0.5).softmax(0).max().item()}


def softmax_jacobian(p):
    return p.diag() - p[:, None] @ p[None, :]


def attention(q, k, v):
    return (q @ k.mT / math.sqrt(q.shape[-1])).softmax(-1) @ v
