# mistake: softmax-not-normalized
# file: softmax.py
# mutant: softmax returns exp(x - max) without dividing by the sum
# (only what differs from the reference; it is appended to the reference's file)

def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    shifted = x - x.amax(dim=dim, keepdim=True)
    e = torch.exp(shifted)
    return e
