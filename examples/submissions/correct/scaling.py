"""Chapter 7, part 1 -- my solution (scaling)."""

import math

import torch


def head_dim(d_model: int, n_heads: int) -> int:
    """d_k = d_model / n_heads, checked."""
    for name, value in (("d_model", d_model), ("n_heads", n_heads)):
        if type(value) is not int or value < 1:
            raise ValueError(f"{name} は正の整数にしてください / {name} must be a positive int: {value!r}")
    if d_model % n_heads:
        raise ValueError(f"{d_model} は {n_heads} で割り切れません / {d_model} is not divisible by {n_heads}")
    return d_model // n_heads


def scaling_factor(d_model: int, n_heads: int) -> float:
    """sqrt of the per-head dimension."""
    return head_dim(d_model, n_heads) ** 0.5


def scale_scores(scores: torch.Tensor, d_k: int) -> torch.Tensor:
    """Scores divided by sqrt(d_k)."""
    return scores * (1.0 / math.sqrt(d_k))


def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """q k^T / sqrt(d_k) with einsum."""
    d_k = q.shape[-1]
    return torch.einsum("...id,...jd->...ij", q, k) / math.sqrt(d_k)


def multihead_attention_scores(q: torch.Tensor, k: torch.Tensor, n_heads: int) -> torch.Tensor:
    """Per-head scores, GPT-2 head split."""
    d_k = head_dim(q.shape[-1], n_heads)
    # (batch, seq, d_model) -> (batch, seq, heads, d_k) -> (batch, heads, seq, d_k)
    qh = q.unflatten(-1, (n_heads, d_k)).permute(0, 2, 1, 3)
    kh = k.unflatten(-1, (n_heads, d_k)).permute(0, 2, 1, 3)
    return attention_scores(qh, kh)
