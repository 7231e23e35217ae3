import math

import numpy as np


def head_dim(d_model, n_heads):
    if not isinstance(d_model, int) or not isinstance(n_heads, int):
        raise ValueError("ints please")
    if d_model <= 0 or n_heads <= 0:
        raise ValueError("positive please")
    if d_model % n_heads:
        raise ValueError("divisible please")
    return d_model // n_heads


def scaling_factor(d_model, n_heads):
    return float(np.sqrt(head_dim(d_model, n_heads)))


def scale_scores(scores, d_k):
    return np.asarray(scores) / np.sqrt(d_k)


def attention_scores(q, k):
    qa, ka = np.asarray(q), np.asarray(k)
    return np.matmul(qa, np.swapaxes(ka, -1, -2)) / math.sqrt(qa.shape[-1])


def multihead_attention_scores(q, k, n_heads):
    qa, ka = np.asarray(q), np.asarray(k)
    b, s, d = qa.shape
    d_k = head_dim(d, n_heads)
    qh = qa.reshape(b, s, n_heads, d_k).transpose(0, 2, 1, 3)
    kh = ka.reshape(b, s, n_heads, d_k).transpose(0, 2, 1, 3)
    return qh @ kh.transpose(0, 1, 3, 2) / math.sqrt(d_k)
