"""Chapter 7, part 2 -- my solution (softmax)."""

import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Shift by the row maximum first so exp never sees a large positive number."""
    z = x - x.max(dim=dim, keepdim=True).values
    e = z.exp()
    return e / e.sum(dim=dim, keepdim=True)


def softmax_with_temperature(x: torch.Tensor, temperature: float, dim: int = -1) -> torch.Tensor:
    """softmax(x / T)."""
    if temperature <= 0:
        raise ValueError(f"temperature must be positive, got {temperature}")
    return softmax(x / temperature, dim=dim)


def compare_saturation(scores: torch.Tensor, d_k: int) -> dict:
    """Largest probability before and after scaling by d_k."""
    return {
        "unscaled": softmax(scores).max().item(),
        "scaled": softmax(scores / d_k).max().item(),
    }


def softmax_jacobian(p: torch.Tensor) -> torch.Tensor:
    """J[i, j] = p_i * (delta_ij - p_j)."""
    return torch.diag_embed(p) - p[:, None] * p[None, :]


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """softmax(q k^T / d_k) v."""
    d_k = q.shape[-1]
    weights = softmax(torch.einsum("...id,...jd->...ij", q, k) / d_k, dim=-1)
    return torch.einsum("...ij,...jd->...id", weights, v)
