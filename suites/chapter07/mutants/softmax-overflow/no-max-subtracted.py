# mistake: softmax-overflow
# file: softmax.py
# mutant: softmax exponentiates x directly
# (only what differs from the reference; it is appended to the reference's file)

def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    e = torch.exp(x)
    return e / e.sum(dim=dim, keepdim=True)
