# mistake: head-dim-not-int
# file: scaling.py
# mutant: head_dim uses / and returns 64.0
# (only what differs from the reference; it is appended to the reference's file)

def head_dim(d_model: int, n_heads: int) -> int:
    """Return the per-head dimension d_k = d_model / n_heads.

    Args:
        d_model: width of the embeddings, shared by all heads (GPT-2 small: 768).
        n_heads: number of attention heads (GPT-2 small: 12).

    Returns:
        d_k, an int (GPT-2 small: 768 / 12 = 64).

    Raises:
        ValueError: either argument is not a positive int (bools and floats included), or
            d_model is not divisible by n_heads.

    Example::

        >>> head_dim(768, 12)
        64
        >>> head_dim(4096, 32)
        128
    """
    d_model = _positive_int(d_model, "d_model")
    n_heads = _positive_int(n_heads, "n_heads")
    if d_model % n_heads != 0:
        msg = f"d_model={d_model} is not divisible by n_heads={n_heads}"
        raise ValueError(msg)
    return d_model / n_heads


def multihead_attention_scores(q: torch.Tensor, k: torch.Tensor, n_heads: int) -> torch.Tensor:
    """Split q and k into heads GPT-2 style and return each head's scaled scores.

    Args:
        q: queries, shape (batch, seq, d_model).
        k: keys, shape (batch, seq, d_model).
        n_heads: number of heads; d_k = d_model / n_heads.

    Returns:
        scores of shape (batch, n_heads, seq, seq), divided by sqrt(d_k), not sqrt(d_model).

    Raises:
        ValueError: q or k is not 3-D, their d_model differ, or head_dim rejects the sizes.

    Example::

        >>> q = torch.zeros(2, 5, 768)
        >>> multihead_attention_scores(q, q, 12).shape
        torch.Size([2, 12, 5, 5])
    """
    if q.dim() != 3 or k.dim() != 3:
        msg = f"q and k must be (batch, seq, d_model); got {tuple(q.shape)} and {tuple(k.shape)}"
        raise ValueError(msg)
    d_model = q.size(-1)
    if k.size(-1) != d_model:
        msg = f"q has d_model={d_model} but k has d_model={k.size(-1)}"
        raise ValueError(msg)
    head_dim(d_model, n_heads)  # validates the sizes
    d_k = d_model // n_heads
    qh = _split_heads(q, n_heads, d_k)
    kh = _split_heads(k, n_heads, d_k)
    return qh @ kh.transpose(-2, -1) / math.sqrt(d_k)
