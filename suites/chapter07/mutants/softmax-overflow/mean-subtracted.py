# mistake: softmax-overflow
# file: softmax.py
# mutant: softmax subtracts the mean instead of the maximum
# (only what differs from the reference; it is appended to the reference's file)
# Finite on large rows of nearly equal entries, so it once showed only through attention,
# whose scores lie far apart; softmax's own probes must blame softmax.

def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    e = torch.exp(x - x.mean(dim=dim, keepdim=True))
    return e / e.sum(dim=dim, keepdim=True)
