def head_dim(d_model, n_heads):
    if not isinstance(d_model, int) or not isinstance(n_heads, int):
        raise ValueError("int required")
    if d_model <= 0 or n_heads <= 0:
        raise ValueError("positive required")
    if d_model % n_heads:
        raise ValueError("divisible required")
    return d_model // n_heads


def scaling_factor(d_model, n_heads):
    return head_dim(d_model, n_heads) ** 0.5


def scale_scores(scores, d_k):
    return scores * d_k ** -0.5


def attention_scores(q, k):
    return (q @ k.transpose(-2, -1)) * q.shape[-1] ** -0.5


def multihead_attention_scores(q, k, n_heads):
    B, T, C = q.shape
    hd = head_dim(C, n_heads)
    q = q.view(B, T, n_heads, hd).transpose(1, 2)
    k = k.view(B, T, n_heads, hd).transpose(1, 2)
    return (q @ k.transpose(-2, -1)) * hd ** -0.5
