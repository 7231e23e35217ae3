import math

import torch


def softmax(x, dim=-1):
    return torch.log_softmax(x, dim=dim).exp()


def softmax_with_temperature(x, temperature, dim=-1):
    if temperature <= 0:
        raise ValueError("temperature must be > 0")
    return torch.log_softmax(x / temperature, dim=dim).exp()


def compare_saturation(scores, d_k):
    plain = softmax(scores)
    scaled = softmax(scores / math.sqrt(d_k))
    return {"unscaled": plain.max().item(), "scaled": scaled.max().item()}


def softmax_jacobian(p):
    outer = p.unsqueeze(-1) @ p.unsqueeze(0)
    return torch.diag(p) - outer


def attention(q, k, v):
    logits = q @ k.transpose(-1, -2) / math.sqrt(q.size(-1))
    return torch.log_softmax(logits, dim=-1).exp() @ v
