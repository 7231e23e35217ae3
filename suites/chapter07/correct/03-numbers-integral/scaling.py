import math
import numbers

import torch


def _check(value, name):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be a positive integer")


def head_dim(d_model, n_heads):
    _check(d_model, "d_model")
    _check(n_heads, "n_heads")
    d_k, rest = divmod(d_model, n_heads)
    if rest:
        raise ValueError(f"d_model={d_model} does not split into {n_heads} heads")
    return int(d_k)


def scaling_factor(d_model, n_heads):
    return head_dim(d_model, n_heads) ** 0.5


def scale_scores(scores, d_k):
    return scores * (1.0 / math.sqrt(d_k))


def attention_scores(q, k):
    return torch.einsum("...id,...jd->...ij", q, k) / math.sqrt(q.shape[-1])


def multihead_attention_scores(q, k, n_heads):
    b, s, d = q.shape
    d_k = head_dim(d, n_heads)
    qh = q.reshape(b, s, n_heads, d_k)
    kh = k.reshape(b, s, n_heads, d_k)
    return torch.einsum("bqhd,bkhd->bhqk", qh, kh) / math.sqrt(d_k)
