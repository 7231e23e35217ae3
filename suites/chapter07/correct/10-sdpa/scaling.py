import math

import torch


def head_dim(d_model, n_heads):
    if not isinstance(d_model, int) or not isinstance(n_heads, int):
        raise ValueError("d_model and n_heads must be int")
    if d_model <= 0 or n_heads <= 0:
        raise ValueError("d_model and n_heads must be > 0")
    if d_model % n_heads != 0:
        raise ValueError("n_heads must divide d_model")
    return d_model // n_heads


def scaling_factor(d_model, n_heads):
    return math.sqrt(head_dim(d_model, n_heads))


def scale_scores(scores, d_k):
    return scores / scaling_factor(d_k, 1)


def attention_scores(q, k):
    return q @ k.transpose(-2, -1) / scaling_factor(q.shape[-1], 1)


def multihead_attention_scores(q, k, n_heads):
    batch, seq, d_model = q.shape
    d_k = head_dim(d_model, n_heads)
    qh = torch.stack(q.split(d_k, dim=-1), dim=1)
    kh = torch.stack(k.split(d_k, dim=-1), dim=1)
    return attention_scores(qh, kh)
