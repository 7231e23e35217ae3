import math

import torch


def head_dim(d_model, n_heads):
    ok = all(isinstance(v, int) and v > 0 for v in (d_model, n_heads))
    if not ok or d_model % n_heads != 0:
        raise ValueError(f"cannot split d_model={d_model!r} into n_heads={n_heads!r} heads")
    return d_model // n_heads


def scaling_factor(d_model, n_heads):
    return math.sqrt(float(head_dim(d_model, n_heads)))


def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)


def attention_scores(q, k):
    d_k = k.shape[-1]
    return torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_k)


def multihead_attention_scores(q, k, n_heads):
    batch, seq, d_model = q.shape
    d_k = head_dim(d_model, n_heads)
    q = q.view(batch, seq, n_heads, d_k).transpose(1, 2).contiguous()
    k = k.view(batch, seq, n_heads, d_k).transpose(1, 2).contiguous()
    return attention_scores(q, k)
