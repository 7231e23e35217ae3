import math


def head_dim(d_model, n_heads):
    if type(d_model) is not int or type(n_heads) is not int:
        raise ValueError("sizes must be ints")
    if d_model <= 0 or n_heads <= 0 or d_model % n_heads:
        raise ValueError("bad sizes")
    return d_model // n_heads


def scaling_factor(d_model, n_heads):
    return math.sqrt(head_dim(d_model, n_heads))


def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)


def attention_scores(q, k):
    return q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])


def multihead_attention_scores(q, k, n_heads):
    b, t, d = q.shape
    dk = head_dim(d, n_heads)
    qh = q.view(b, t, n_heads, dk).transpose(1, 2)
    kh = k.view(b, t, n_heads, dk).transpose(1, 2)
    return qh @ kh.transpose(-2, -1) / math.sqrt(dk)
