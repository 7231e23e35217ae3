import math

import torch
import torch.nn.functional as F


def softmax(x, dim=-1):
    return F.softmax(x, dim=dim)


def softmax_with_temperature(x, temperature, dim=-1):
    if temperature <= 0:
        raise ValueError(f"temperature {temperature} is not positive")
    return F.softmax(x / temperature, dim=dim)


def compare_saturation(scores, d_k):
    return {
        "unscaled": F.softmax(scores, dim=-1).max().item(),
        "scaled": F.softmax(scores / math.sqrt(d_k), dim=-1).max().item(),
    }


def softmax_jacobian(p):
    return torch.diagflat(p) - torch.einsum("i,j->ij", p, p)


def attention(q, k, v):
    return F.scaled_dot_product_attention(q, k, v)
