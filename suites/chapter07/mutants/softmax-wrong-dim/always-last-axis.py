# mistake: softmax-wrong-dim
# file: softmax.py
# mutant: softmax ignores dim and normalises over the last axis
# (only what differs from the reference; it is appended to the reference's file)

def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    shifted = x - x.amax(dim=-1, keepdim=True)
    e = torch.exp(shifted)
    return e / e.sum(dim=-1, keepdim=True)
