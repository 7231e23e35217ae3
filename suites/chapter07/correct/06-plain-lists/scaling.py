"""Returns plain Python values where the contract allows: ints, floats, nested lists."""
import math


def head_dim(d_model, n_heads):
    if isinstance(d_model, bool) or isinstance(n_heads, bool):
        raise ValueError("a bool is not a size")
    if not isinstance(d_model, int) or not isinstance(n_heads, int):
        raise ValueError("sizes must be int")
    if d_model <= 0 or n_heads <= 0:
        raise ValueError("sizes must be positive")
    if d_model % n_heads:
        raise ValueError("not divisible")
    return d_model // n_heads


def scaling_factor(d_model, n_heads):
    return math.sqrt(head_dim(d_model, n_heads))


def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)


def attention_scores(q, k):
    return (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])


def multihead_attention_scores(q, k, n_heads):
    batch, seq, d_model = q.shape
    d_k = head_dim(d_model, n_heads)
    out = []
    for b in range(batch):
        heads = []
        for h in range(n_heads):
            qs = q[b, :, h * d_k:(h + 1) * d_k]
            ks = k[b, :, h * d_k:(h + 1) * d_k]
            heads.append((qs @ ks.T / math.sqrt(d_k)).tolist())
        out.append(heads)
    return out
