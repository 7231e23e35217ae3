# mistake: sqrt-d-model
# file: scaling.py
# mutant: scaling_factor returns sqrt(d_model) after checking the sizes
# (only what differs from the reference; it is appended to the reference's file)

def scaling_factor(d_model: int, n_heads: int) -> float:
    """Return sqrt(d_k), the number the attention scores are divided by.

    Args:
        d_model: width of the embeddings.
        n_heads: number of attention heads.

    Returns:
        sqrt(d_model / n_heads) as a float.

    Raises:
        ValueError: as for head_dim.

    Example::

        >>> scaling_factor(768, 12)
        8.0
        >>> round(scaling_factor(4096, 32), 4)
        11.3137
    """
    head_dim(d_model, n_heads)
    return math.sqrt(d_model)
