import math

import torch
import torch.nn.functional as F


def head_dim(d_model: int, n_heads: int) -> int:
    if not isinstance(d_model, int) or d_model <= 0:
        raise ValueError("d_model must be a positive int")
    if not isinstance(n_heads, int) or n_heads <= 0:
        raise ValueError("n_heads must be a positive int")
    if d_model % n_heads:
        raise ValueError("d_model must be divisible by n_heads")
    return d_model // n_heads


def scaling_factor(d_model: int, n_heads: int) -> float:
    return math.sqrt(d_model / n_heads) if head_dim(d_model, n_heads) else 1.0


def scale_scores(scores: torch.Tensor, d_k: int) -> torch.Tensor:
    return scores / torch.tensor(float(d_k), dtype=scores.dtype).sqrt()


def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    return scale_scores(q @ k.transpose(-2, -1), q.shape[-1])


def multihead_attention_scores(q: torch.Tensor, k: torch.Tensor, n_heads: int) -> torch.Tensor:
    b, t, c = q.shape
    hs = head_dim(c, n_heads)
    q = q.view(b, t, n_heads, hs).transpose(1, 2)
    k = k.view(b, t, n_heads, hs).transpose(1, 2)
    return (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
