# mistake: jacobian-diagonal-vector
# file: softmax.py
# mutant: the Jacobian returned as its diagonal p (1 - p), a vector, as if each p_i depended on
# its own x_i only (the derivative of an elementwise sigmoid)
# (only what differs from the reference; it is appended to the reference's file)

def softmax_jacobian(p: torch.Tensor) -> torch.Tensor:
    if p.dim() != 1:
        msg = f"p must be 1-D (got shape {tuple(p.shape)})"
        raise ValueError(msg)
    return p * (1 - p)
