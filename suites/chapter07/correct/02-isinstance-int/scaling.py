"""Scaling, with isinstance checks (True counts as an int, as Python says)."""
import math

import torch


def head_dim(d_model: int, n_heads: int) -> int:
    for name, value in (("d_model", d_model), ("n_heads", n_heads)):
        if not isinstance(value, int) or value <= 0:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    if d_model % n_heads != 0:
        raise ValueError(f"{d_model} is not divisible by {n_heads}")
    return d_model // n_heads


def scaling_factor(d_model: int, n_heads: int) -> float:
    return float(math.sqrt(d_model // n_heads)) if head_dim(d_model, n_heads) else 0.0


def scale_scores(scores: torch.Tensor, d_k: int) -> torch.Tensor:
    return torch.div(scores, math.sqrt(d_k))


def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    d_k = q.size(-1)
    return torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d_k)


def multihead_attention_scores(q: torch.Tensor, k: torch.Tensor, n_heads: int) -> torch.Tensor:
    batch, seq, d_model = q.size()
    d_k = head_dim(d_model, n_heads)

    def split(x):
        return x.reshape(batch, seq, n_heads, d_k).transpose(1, 2)

    return attention_scores(split(q), split(k))
