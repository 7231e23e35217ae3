# mistake: jacobian-wrong
# file: softmax.py
# mutant: the Jacobian lacks the outer-product term
# (only what differs from the reference; it is appended to the reference's file)

def softmax_jacobian(p: torch.Tensor) -> torch.Tensor:
    if p.dim() != 1:
        msg = f"p must be 1-D (got shape {tuple(p.shape)})"
        raise ValueError(msg)
    return torch.diag(p)
