# mistake: temperature-multiplied
# file: softmax.py
# mutant: softmax_with_temperature multiplies by the temperature
# (only what differs from the reference; it is appended to the reference's file)

def softmax_with_temperature(x: torch.Tensor, temperature: float, dim: int = -1) -> torch.Tensor:
    # "not >" also rejects nan, which would otherwise turn every probability into nan.
    if not temperature > 0:
        msg = f"temperature must be > 0 (got {temperature!r})"
        raise ValueError(msg)
    return softmax(x * temperature, dim=dim)
