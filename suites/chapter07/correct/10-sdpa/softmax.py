import math

import torch
import torch.nn.functional as F


def softmax(x, dim=-1):
    m = x.max(dim, keepdim=True).values
    e = torch.exp(x - m)
    return e / e.sum(dim, keepdim=True)


def softmax_with_temperature(x, temperature, dim=-1):
    if temperature <= 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    return softmax(x / temperature, dim=dim)


def compare_saturation(scores, d_k):
    return {"unscaled": float(softmax(scores).max()), "scaled": float(softmax(scores / math.sqrt(d_k)).max())}


def softmax_jacobian(p):
    return torch.diag(p) - torch.ger(p, p)


def attention(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False)
