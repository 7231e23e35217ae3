# mistake: hardcoded-output
# file: softmax.py
# mutant: compare_saturation returns the chapter's example answer
# (only what differs from the reference; it is appended to the reference's file)

def compare_saturation(scores: torch.Tensor, d_k: int) -> dict[str, float]:
    """Return the largest probability without and with scaling by sqrt(d_k).

    Args:
        scores: 1-D raw scores.
        d_k: per-head dimension.

    Returns:
        ``{"unscaled": max softmax(scores), "scaled": max softmax(scores / sqrt(d_k))}``,
        both Python floats.

    Raises:
        ValueError: scores is not 1-D or d_k is not a positive int.

    Example::

        >>> r = compare_saturation(torch.tensor([12.0, 9.0, 6.0, 3.0]), 64)
        >>> round(r["unscaled"], 3), round(r["scaled"], 3)
        (0.95, 0.403)
    """
    if scores.dim() != 1:
        msg = f"scores must be 1-D (got shape {tuple(scores.shape)})"
        raise ValueError(msg)
    if isinstance(d_k, bool) or not isinstance(d_k, numbers.Integral) or d_k <= 0:
        msg = f"d_k must be a positive int (got {d_k!r})"
        raise ValueError(msg)
    return {"unscaled": 0.950, "scaled": 0.403}
