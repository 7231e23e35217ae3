# mistake: jacobian-wrong
# file: softmax.py
# mutant: the Jacobian lacks the outer-product term
# (only what differs from the reference; it is appended to the reference's file)

def softmax_jacobian(p: torch.Tensor) -> torch.Tensor:
    """Return the Jacobian of softmax at output p: J = diag(p) - p p^T.

    J[i, j] = d p_i / d x_j = p_i (1[i == j] - p_j). When p saturates (one entry near 1, the rest
    near 0) every entry of J goes to 0: the vanishing gradient of an unscaled softmax.

    Args:
        p: a 1-D probability vector, shape (n,).

    Returns:
        J, shape (n, n), same dtype as p.

    Raises:
        ValueError: p is not 1-D.
    """
    if p.dim() != 1:
        msg = f"p must be 1-D (got shape {tuple(p.shape)})"
        raise ValueError(msg)
    return torch.diag(p)
