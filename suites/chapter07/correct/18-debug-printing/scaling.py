import math

import torch

DEBUG = True


def head_dim(d_model, n_heads):
    print("head_dim called with", d_model, n_heads)
    if not isinstance(d_model, int) or not isinstance(n_heads, int):
        raise ValueError("need ints")
    if d_model <= 0 or n_heads <= 0 or d_model % n_heads:
        raise ValueError("need positive, divisible sizes")
    d_k = d_model // n_heads
    print("  -> d_k =", d_k)
    return d_k


def scaling_factor(d_model, n_heads):
    s = math.sqrt(head_dim(d_model, n_heads))
    if DEBUG:
        print(f"scaling factor {s:.4f}")
    return s


def scale_scores(scores, d_k):
    print("scale_scores:", tuple(scores.shape), "d_k =", d_k)
    return scores / math.sqrt(d_k)


def attention_scores(q, k):
    print("attention_scores: q", tuple(q.shape), "k", tuple(k.shape))
    return q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])


def multihead_attention_scores(q, k, n_heads):
    b, s, d = q.shape
    d_k = head_dim(d, n_heads)
    qh = q.view(b, s, n_heads, d_k).transpose(1, 2)
    kh = k.view(b, s, n_heads, d_k).transpose(1, 2)
    out = qh @ kh.transpose(-2, -1) / math.sqrt(d_k)
    print("multihead scores shape:", tuple(out.shape))
    return out
