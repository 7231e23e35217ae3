# mistake: softmax-wrong-dim
# file: softmax.py
# mutant: the maximum is taken along dim, but the sum along a fixed last axis: right for
# dim=-1, a mixture of two axes for any other dim
# (only what differs from the reference; it is appended to the reference's file)

def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    return e / e.sum(dim=-1, keepdim=True)
