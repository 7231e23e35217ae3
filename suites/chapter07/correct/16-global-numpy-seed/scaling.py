import math

import torch

GPT2_D_MODEL = 768
GPT2_HEADS = 12


def _positive_int(x, what):
    if isinstance(x, int) and not isinstance(x, bool) and x > 0:
        return x
    raise ValueError(f"{what} must be a positive integer, got {x!r}")


def head_dim(d_model=GPT2_D_MODEL, n_heads=GPT2_HEADS):
    d_model, n_heads = _positive_int(d_model, "d_model"), _positive_int(n_heads, "n_heads")
    if d_model % n_heads:
        raise ValueError(f"{d_model} % {n_heads} != 0")
    return d_model // n_heads


def scaling_factor(d_model=GPT2_D_MODEL, n_heads=GPT2_HEADS):
    return math.sqrt(head_dim(d_model, n_heads))


def scale_scores(scores, d_k):
    factor = math.sqrt(d_k)
    return scores / factor


def attention_scores(q, k):
    return scale_scores(torch.matmul(q, torch.transpose(k, -2, -1)), q.size(-1))


def _heads(x, n_heads):
    b, s, d = x.shape
    return x.view(b, s, n_heads, head_dim(d, n_heads)).transpose(1, 2)


def multihead_attention_scores(q, k, n_heads):
    return attention_scores(_heads(q, n_heads), _heads(k, n_heads))
