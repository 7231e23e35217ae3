import math

import numpy as np
import torch


def head_dim(d_model, n_heads):
    if not (isinstance(d_model, (int, np.integer)) and isinstance(n_heads, (int, np.integer))):
        raise ValueError("ints only")
    if d_model <= 0 or n_heads <= 0 or d_model % n_heads:
        raise ValueError("d_model must be a positive multiple of a positive n_heads")
    return int(d_model // n_heads)


def scaling_factor(d_model, n_heads):
    return float(np.sqrt(head_dim(d_model, n_heads)))


def scale_scores(scores, d_k):
    return scores / np.sqrt(d_k)


def attention_scores(q, k):
    return q @ k.permute(*range(k.dim() - 2), k.dim() - 1, k.dim() - 2) / np.sqrt(q.shape[-1])


def multihead_attention_scores(q, k, n_heads):
    batch, seq, d_model = q.shape
    d_k = head_dim(d_model, n_heads)
    qh = q.reshape(batch, seq, n_heads, d_k).permute(0, 2, 1, 3)
    kh = k.reshape(batch, seq, n_heads, d_k).permute(0, 2, 3, 1)
    return torch.matmul(qh, kh) / math.sqrt(d_k)
