# mistake: softmax-wrong-dim
# file: softmax.py
# mutant: the sum is taken along dim, but the maximum along a fixed last axis: each entry is
# shifted by its own row's maximum, so for dim=0 the columns sum to 1 yet hold other values
# (only what differs from the reference; it is appended to the reference's file)

def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    e = torch.exp(x - x.amax(dim=-1, keepdim=True))
    return e / e.sum(dim=dim, keepdim=True)
