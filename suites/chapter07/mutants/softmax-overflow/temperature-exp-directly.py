# mistake: softmax-overflow
# file: softmax.py
# mutant: softmax_with_temperature exponentiates x / temperature without subtracting the maximum
# (only what differs from the reference; it is appended to the reference's file)

def softmax_with_temperature(x: torch.Tensor, temperature: float, dim: int = -1) -> torch.Tensor:
    if not temperature > 0:
        msg = f"temperature must be > 0 (got {temperature})"
        raise ValueError(msg)
    e = torch.exp(x / temperature)
    return e / e.sum(dim=dim, keepdim=True)
