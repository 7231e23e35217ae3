import math


def head_dim(d_model, n_heads):
    if not isinstance(d_model, int) or not isinstance(n_heads, int):
        raise ValueError("expected ints")
    if min(d_model, n_heads) <= 0:
        raise ValueError("expected positive sizes")
    if d_model % n_heads:
        raise ValueError(f"{n_heads} heads do not divide {d_model}")
    return d_model // n_heads


def scaling_factor(d_model, n_heads):
    return head_dim(d_model, n_heads) ** 0.5


def scale_scores(scores, d_k):
    return scores / (d_k ** 0.5)


def attention_scores(q, k):
    return q @ k.swapaxes(-1, -2) / q.shape[-1] ** 0.5


def multihead_attention_scores(q, k, n_heads):
    b, s, d = q.shape
    dk = head_dim(d, n_heads)
    qh = q.reshape(b, s, n_heads, dk).swapaxes(1, 2)
    kh = k.reshape(b, s, n_heads, dk).swapaxes(1, 2)
    return qh @ kh.swapaxes(-1, -2) / dk ** 0.5
