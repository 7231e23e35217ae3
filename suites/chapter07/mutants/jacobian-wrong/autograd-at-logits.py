# mistake: jacobian-wrong
# file: softmax.py
# mutant: differentiates softmax at p as if p were the scores, so J belongs to softmax(p),
# not to p: no combination of p describes it, and the report shows the entries
# (only what differs from the reference; it is appended to the reference's file)

def softmax_jacobian(p: torch.Tensor) -> torch.Tensor:
    if p.dim() != 1:
        msg = f"p must be 1-D (got shape {tuple(p.shape)})"
        raise ValueError(msg)
    return torch.autograd.functional.jacobian(lambda z: torch.softmax(z, 0), p)
