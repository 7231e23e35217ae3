"""A correct submission with loops for the mask and torch's own attention for causal_attention."""

import torch
import torch.nn.functional as F


def causal_mask(seq_len):
    if not isinstance(seq_len, int) or isinstance(seq_len, bool) or seq_len <= 0:
        raise ValueError("causal_mask needs a positive int")
    m = torch.zeros(seq_len, seq_len, dtype=torch.bool)
    for i in range(seq_len):
        for j in range(i + 1):
            m[i, j] = True
    return m


def apply_causal_mask(scores):
    out = scores.clone()
    n = scores.shape[-1]
    for i in range(n):
        out[..., i, i + 1:] = float("-inf")
    return out


def masked_softmax(scores):
    return torch.softmax(apply_causal_mask(scores.double()), dim=-1).to(scores.dtype)


def causal_attention(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def future_leak(attn_weights):
    n = attn_weights.shape[-1]
    worst = 0.0
    flat = attn_weights.reshape(-1, n, n)
    for b in range(flat.shape[0]):
        for i in range(n):
            worst = max(worst, float(flat[b, i, i + 1:].sum()))
    return worst
