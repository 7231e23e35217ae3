"""head_dim accepts anything operator.index accepts (ints, numpy ints) and nothing else."""
import math
import operator

import torch


def _as_index(value, name):
    try:
        n = operator.index(value)
    except TypeError:
        raise ValueError(f"{name} must be an int, not {type(value).__name__}") from None
    if n <= 0:
        raise ValueError(f"{name} must be positive")
    return n


def head_dim(d_model, n_heads):
    d_model = _as_index(d_model, "d_model")
    n_heads = _as_index(n_heads, "n_heads")
    if d_model % n_heads:
        raise ValueError("d_model must be divisible by n_heads")
    return d_model // n_heads


def scaling_factor(d_model, n_heads):
    return math.sqrt(head_dim(d_model, n_heads))


def scale_scores(scores, d_k):
    return scores / d_k ** 0.5


def attention_scores(q, k):
    return q.matmul(k.mT) / q.shape[-1] ** 0.5


def multihead_attention_scores(q, k, n_heads):
    batch, seq, width = q.shape
    d_k = head_dim(width, n_heads)
    qh = q.unflatten(-1, (n_heads, d_k)).transpose(1, 2)
    kh = k.unflatten(-1, (n_heads, d_k)).transpose(1, 2)
    return qh.matmul(kh.mT) / math.sqrt(d_k)
