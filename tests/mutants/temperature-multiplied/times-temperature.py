# mistake: temperature-multiplied
# file: softmax.py
# mutant: softmax_with_temperature multiplies by the temperature
# (only what differs from the reference; it is appended to the reference's file)

def softmax_with_temperature(x: torch.Tensor, temperature: float, dim: int = -1) -> torch.Tensor:
    """Return softmax(x / temperature) along ``dim``.

    Dividing by sqrt(d_k) before the softmax is the same as a fixed temperature of sqrt(d_k).

    Args:
        x: scores, any shape.
        temperature: a positive number; > 1 flattens the distribution, < 1 sharpens it.
        dim: the axis to normalise over.

    Returns:
        probabilities, same shape and dtype as x.

    Raises:
        ValueError: temperature is not > 0 (0, negative or nan).
    """
    # "not >" also rejects nan, which would otherwise turn every probability into nan.
    if not temperature > 0:
        msg = f"temperature must be > 0 (got {temperature!r})"
        raise ValueError(msg)
    return softmax(x * temperature, dim=dim)
