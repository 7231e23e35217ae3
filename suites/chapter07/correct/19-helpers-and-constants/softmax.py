"""Softmax family with a shared helper."""
from __future__ import annotations

import math

import torch

_KEEP = True


def _normalise(e: torch.Tensor, dim: int) -> torch.Tensor:
    return e / e.sum(dim=dim, keepdim=_KEEP)


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    return _normalise(torch.exp(x - x.amax(dim=dim, keepdim=_KEEP)), dim)


def _check_temperature(t: float) -> None:
    if t <= 0:
        raise ValueError(f"temperature must be > 0, got {t}")


def softmax_with_temperature(x: torch.Tensor, temperature: float, dim: int = -1) -> torch.Tensor:
    _check_temperature(temperature)
    return softmax(x / temperature, dim)


def _peak(scores: torch.Tensor) -> float:
    return float(softmax(scores).max())


def compare_saturation(scores: torch.Tensor, d_k: int) -> dict[str, float]:
    return {"unscaled": _peak(scores), "scaled": _peak(scores / math.sqrt(d_k))}


def softmax_jacobian(p: torch.Tensor) -> torch.Tensor:
    return torch.diag(p) - torch.outer(p, p)


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), -1) @ v
