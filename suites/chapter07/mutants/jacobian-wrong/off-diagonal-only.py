# mistake: jacobian-wrong
# file: softmax.py
# mutant: keeps only the off-diagonal outer-product term −p_i p_j (the diagonal is 0); no
# fixed wrong form is this one: it is recognised from what its numbers hold
# (only what differs from the reference; it is appended to the reference's file)

def softmax_jacobian(p: torch.Tensor) -> torch.Tensor:
    if p.dim() != 1:
        msg = f"p must be 1-D (got shape {tuple(p.shape)})"
        raise ValueError(msg)
    j = -torch.outer(p, p)
    return j - torch.diag(torch.diagonal(j))
