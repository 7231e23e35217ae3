import math

import torch


def head_dim(d_model: int, n_heads: int) -> int:
    """d_k = d_model / n_heads (GPT-2 small: 64)."""
    if not isinstance(d_model, int) or not isinstance(n_heads, int):
        raise ValueError("both sizes must be ints")
    if d_model <= 0:
        raise ValueError("d_model must be positive")
    if n_heads <= 0:
        raise ValueError("n_heads must be positive")
    if d_model % n_heads:
        raise ValueError("d_model must split evenly into heads")
    return d_model // n_heads


def scaling_factor(d_model: int, n_heads: int) -> float:
    """sqrt(d_k), computed in torch's default float32: a 0-d tensor, right to float32's digits."""
    return torch.sqrt(torch.tensor(float(head_dim(d_model, n_heads))))


def scale_scores(scores: torch.Tensor, d_k: int) -> torch.Tensor:
    """scores / sqrt(d_k)."""
    return scores.div(math.sqrt(d_k))


def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """q k^T / sqrt(d_k)."""
    return q.matmul(k.transpose(-2, -1)).div(math.sqrt(q.shape[-1]))


def multihead_attention_scores(q: torch.Tensor, k: torch.Tensor, n_heads: int) -> torch.Tensor:
    """Per-head scaled scores, (batch, n_heads, seq, seq)."""
    batch, seq, d_model = q.shape
    d_k = head_dim(d_model, n_heads)
    qh = torch.cat([c.unsqueeze(1) for c in torch.chunk(q, n_heads, dim=-1)], dim=1)
    kh = torch.cat([c.unsqueeze(1) for c in torch.chunk(k, n_heads, dim=-1)], dim=1)
    return qh.matmul(kh.transpose(-2, -1)).div(math.sqrt(d_k))
