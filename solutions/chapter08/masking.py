"""Reference solution for chapter 8, the causal mask (instructors only; never shipped)."""

import math

import torch


def causal_mask(seq_len: int) -> torch.Tensor:
    """Bool (seq_len, seq_len): True where position j may be attended from position i (j <= i)."""
    if isinstance(seq_len, bool) or not isinstance(seq_len, int) or seq_len <= 0:
        raise ValueError(f"seq_len must be a positive int (got {seq_len!r})")
    return torch.ones(seq_len, seq_len, dtype=torch.bool).tril()


def apply_causal_mask(scores: torch.Tensor) -> torch.Tensor:
    """A copy of scores (..., n, n) with every entry j > i set to -inf."""
    n = scores.shape[-1]
    return scores.masked_fill(~causal_mask(n), float("-inf"))


def masked_softmax(scores: torch.Tensor) -> torch.Tensor:
    """Softmax over the last axis after the causal mask; stable for large magnitudes."""
    masked = apply_causal_mask(scores)
    shifted = masked - masked.amax(dim=-1, keepdim=True)
    e = torch.exp(shifted)
    return e / e.sum(dim=-1, keepdim=True)


def causal_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """softmax(mask(q k^T / sqrt(d_k))) v."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    return masked_softmax(scores) @ v


def future_leak(attn_weights: torch.Tensor) -> float:
    """The largest total weight any row gives to the positions after itself."""
    n = attn_weights.shape[-1]
    future = attn_weights.masked_fill(causal_mask(n), 0.0)
    return float(future.sum(dim=-1).max()) if future.numel() else 0.0
