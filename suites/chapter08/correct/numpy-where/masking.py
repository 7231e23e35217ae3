"""A correct submission written with numpy: np.tril, np.where, a hand-written stable softmax."""

import numpy as np
import torch


def causal_mask(seq_len):
    if type(seq_len) is not int or seq_len < 1:
        raise ValueError("seq_len must be a positive integer")
    return torch.from_numpy(np.tril(np.ones((seq_len, seq_len), dtype=bool)))


def apply_causal_mask(scores):
    s = scores.detach().numpy()
    n = s.shape[-1]
    return torch.from_numpy(np.where(np.tril(np.ones((n, n), dtype=bool)), s, -np.inf).astype(s.dtype))


def masked_softmax(scores):
    s = apply_causal_mask(scores).numpy()
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return torch.from_numpy(e / e.sum(axis=-1, keepdims=True))


def causal_attention(q, k, v):
    d_k = q.shape[-1]
    w = masked_softmax(torch.matmul(q, k.transpose(-1, -2)) * d_k ** -0.5)
    return torch.matmul(w, v)


def future_leak(attn_weights):
    w = np.asarray(attn_weights, dtype=np.float64)
    n = w.shape[-1]
    return float(np.triu(w, k=1).sum(axis=-1).max())
