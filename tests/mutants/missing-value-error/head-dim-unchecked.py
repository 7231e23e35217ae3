# mistake: missing-value-error
# file: scaling.py
# mutant: head_dim divides without checking its arguments
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
    return d_model // n_heads
