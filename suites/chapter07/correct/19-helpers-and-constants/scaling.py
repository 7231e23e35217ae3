"""Scaling with small helpers and named constants."""
from __future__ import annotations

import math
from numbers import Integral

import torch

D_MODEL_GPT2 = 768
N_HEADS_GPT2 = 12
_SEQ_AXIS, _HEAD_AXIS = 1, 2


def _require_positive_integer(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise ValueError(f"{name} must be an integer, got {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"{name} must be positive, got {value}")
    return int(value)


def head_dim(d_model: int, n_heads: int) -> int:
    d_model = _require_positive_integer("d_model", d_model)
    n_heads = _require_positive_integer("n_heads", n_heads)
    if d_model % n_heads:
        raise ValueError(f"d_model ({d_model}) is not divisible by n_heads ({n_heads})")
    return d_model // n_heads


def scaling_factor(d_model: int, n_heads: int) -> float:
    return math.sqrt(head_dim(d_model, n_heads))


def _divide(x: torch.Tensor, d_k: int) -> torch.Tensor:
    return x / math.sqrt(d_k)


def scale_scores(scores: torch.Tensor, d_k: int) -> torch.Tensor:
    return _divide(scores, d_k)


def _qkT(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    return q @ k.transpose(-2, -1)


def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    return _divide(_qkT(q, k), q.shape[-1])


def _split(x: torch.Tensor, n_heads: int) -> torch.Tensor:
    batch, seq, d_model = x.shape
    return x.view(batch, seq, n_heads, head_dim(d_model, n_heads)).transpose(_SEQ_AXIS, _HEAD_AXIS)


def multihead_attention_scores(q: torch.Tensor, k: torch.Tensor, n_heads: int) -> torch.Tensor:
    return attention_scores(_split(q, n_heads), _split(k, n_heads))
