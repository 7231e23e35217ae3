import math

import torch


def head_dim(d_model, n_heads):
    if not isinstance(d_model, int) or not isinstance(n_heads, int) or d_model < 1 or n_heads < 1:
        raise ValueError("d_model and n_heads must be positive ints")
    d_k, r = divmod(d_model, n_heads)
    if r != 0:
        raise ValueError("d_model is not a multiple of n_heads")
    return d_k


def scaling_factor(d_model, n_heads):
    return math.sqrt(head_dim(d_model, n_heads))


def scale_scores(scores, d_k):
    return torch.einsum("...,->...", scores, torch.tensor(1.0 / math.sqrt(d_k), dtype=scores.dtype))


def attention_scores(q, k):
    return torch.einsum("...qd,...kd->...qk", q, k) / math.sqrt(q.shape[-1])


def multihead_attention_scores(q, k, n_heads):
    b, s, d = q.shape
    d_k = head_dim(d, n_heads)
    return torch.einsum("bshd,bthd->bhst", q.view(b, s, n_heads, d_k), k.view(b, s, n_heads, d_k)) / math.sqrt(d_k)
