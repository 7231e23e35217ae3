# mistake: multiply-by-sqrt-d-k
# file: scaling.py
# mutant: scale_scores multiplies by sqrt(d_k)
# (only what differs from the reference; it is appended to the reference's file)

def scale_scores(scores: torch.Tensor, d_k: int) -> torch.Tensor:
    """Divide every score by sqrt(d_k); order and signs are unchanged.

    Args:
        scores: raw scores q.k, any shape.
        d_k: per-head dimension.

    Returns:
        scores / sqrt(d_k), same shape and dtype.

    Raises:
        ValueError: d_k is not a positive int.

    Example::

        >>> scale_scores(torch.tensor([40.0, -24.0]), 64)
        tensor([ 5., -3.])
    """
    d_k = _positive_int(d_k, "d_k")
    return scores * math.sqrt(d_k)
