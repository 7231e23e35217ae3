"""Chapter 7, part 1 -- my solution (scaling)."""

import math

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
    """The scores are divided by the square root of the model dimension."""
    head_dim(d_model, n_heads)  # still validates the sizes
    return math.sqrt(d_model)


def scale_scores(scores: torch.Tensor, d_k: int) -> torch.Tensor:
    """Scores divided by sqrt(d_k)."""
    return scores / math.sqrt(d_k)


def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """q k^T / sqrt(d_k) with einsum."""
    return torch.einsum("...id,...jd->...ij", q, k) / math.sqrt(q.shape[-1])


def multihead_attention_scores(q: torch.Tensor, k: torch.Tensor, n_heads: int) -> torch.Tensor:
    """Per-head scores, GPT-2 head split."""
    batch, seq, d_model = q.shape
    scale = math.sqrt(q.size(-1))  # taken before the split: this is sqrt(d_model)
    d_k = head_dim(d_model, n_heads)
    qh = q.reshape(batch, seq, n_heads, d_k).transpose(1, 2)
    kh = k.reshape(batch, k.shape[1], n_heads, d_k).transpose(1, 2)
    return qh @ kh.transpose(-2, -1) / scale
