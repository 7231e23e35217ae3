# mistake: softmax-not-normalized
# file: softmax.py
# mutant: softmax divides by 1 + the sum (rows add up to less than 1); compare_saturation,
# which calls it, is wrong only through it and must be named with it, not "unrecognised"
# (only what differs from the reference; it is appended to the reference's file)

def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    return e / (1.0 + e.sum(dim=dim, keepdim=True))
