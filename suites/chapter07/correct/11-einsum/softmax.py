import math

import torch


def softmax(x, dim=-1):
    return torch.exp(x - torch.logsumexp(x, dim=dim, keepdim=True))


def softmax_with_temperature(x, temperature, dim=-1):
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    return softmax(x / temperature, dim=dim)


def compare_saturation(scores, d_k):
    return {"unscaled": softmax(scores, 0).max().item(), "scaled": softmax(scores / math.sqrt(d_k), 0).max().item()}


def softmax_jacobian(p):
    return torch.einsum("ij,i->ij", torch.eye(len(p), dtype=p.dtype), p) - torch.einsum("i,j->ij", p, p)


def attention(q, k, v):
    w = softmax(torch.einsum("...qd,...kd->...qk", q, k) / math.sqrt(q.shape[-1]), dim=-1)
    return torch.einsum("...qk,...kd->...qd", w, v)
