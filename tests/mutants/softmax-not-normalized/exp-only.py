# mistake: softmax-not-normalized
# file: softmax.py
# mutant: softmax returns exp(x - max) without dividing by the sum
# (only what differs from the reference; it is appended to the reference's file)

def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Return exp(x) / sum(exp(x)) along ``dim``, computed without overflow.

    Subtracting the maximum first keeps every exponent <= 0, so inputs of magnitude 1e4 stay
    finite. A ``-inf`` entry (a masked position) gets probability exactly 0 as long as its
    slice holds at least one finite value.

    Args:
        x: scores, any shape, float32 or float64.
        dim: the axis to normalise over.

    Returns:
        probabilities, same shape and dtype as x, summing to 1 along ``dim``.

    Example::

        >>> softmax(torch.tensor([10.0, 8.0, 6.0]))
        tensor([0.8668, 0.1173, 0.0159])
    """
    shifted = x - x.amax(dim=dim, keepdim=True)
    e = torch.exp(shifted)
    return e
