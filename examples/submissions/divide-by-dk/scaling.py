"""Chapter 7, part 1 -- my solution (scaling)."""

import torch


def head_dim(d_model: int, n_heads: int) -> int:
    """d_k = d_model / n_heads, checked."""
    for name, value in (("d_model", d_model), ("n_heads", n_heads)):
        if type(value) is not int or value < 1:
            raise ValueError(f"{name} must be a positive int: {value!r}")
    if d_model % n_heads:
        raise ValueError(f"{d_model} is not divisible by {n_heads}")
    return d_model // n_heads


def scaling_factor(d_model: int, n_heads: int) -> float:
    """The scores get divided by d_k."""
    return float(head_dim(d_model, n_heads))


def scale_scores(scores: torch.Tensor, d_k: int) -> torch.Tensor:
    """Scores divided by d_k."""
    return scores / d_k


def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """q k^T / d_k with einsum."""
    return torch.einsum("...id,...jd->...ij", q, k) / q.shape[-1]


def multihead_attention_scores(q: torch.Tensor, k: torch.Tensor, n_heads: int) -> torch.Tensor:
    """Per-head scores, GPT-2 head split."""
    d_k = head_dim(q.shape[-1], n_heads)
    qh = q.unflatten(-1, (n_heads, d_k)).permute(0, 2, 1, 3)
    kh = k.unflatten(-1, (n_heads, d_k)).permute(0, 2, 1, 3)
    return attention_scores(qh, kh)
