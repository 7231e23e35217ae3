import math

import torch


def head_dim(d_model, n_heads):
    if not (isinstance(d_model, int) and isinstance(n_heads, int)):
        raise ValueError("d_model and n_heads must be ints")
    if n_heads < 1 or d_model < 1:
        raise ValueError("d_model and n_heads must be positive")
    if d_model % n_heads != 0:
        raise ValueError("d_model must be a multiple of n_heads")
    return d_model // n_heads


def scaling_factor(d_model, n_heads):
    return float(torch.tensor(head_dim(d_model, n_heads), dtype=torch.float64).sqrt())


def scale_scores(scores, d_k):
    return scores.double() / math.sqrt(d_k)


def attention_scores(q, k):
    q64, k64 = q.double(), k.double()
    return q64 @ k64.transpose(-2, -1) / math.sqrt(q.shape[-1])


def multihead_attention_scores(q, k, n_heads):
    b, s, d = q.shape
    d_k = head_dim(d, n_heads)
    qh = q.double().view(b, s, n_heads, d_k).permute(0, 2, 1, 3)
    kh = k.double().view(b, s, n_heads, d_k).permute(0, 2, 3, 1)  # already transposed for q @ k^T
    return qh @ kh / math.sqrt(d_k)
