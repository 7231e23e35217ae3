"""Softmax with the max taken by torch.max(...).values."""
import math

import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    m = torch.max(x, dim=dim, keepdim=True).values
    ex = torch.exp(x - m)
    return ex / torch.sum(ex, dim=dim, keepdim=True)


def softmax_with_temperature(x: torch.Tensor, temperature: float, dim: int = -1) -> torch.Tensor:
    if not temperature > 0:
        raise ValueError("temperature must be > 0")
    return softmax(x / temperature, dim=dim)


def compare_saturation(scores: torch.Tensor, d_k: int) -> dict:
    unscaled = float(torch.max(softmax(scores, dim=0)))
    scaled = float(torch.max(softmax(scores / math.sqrt(d_k), dim=0)))
    return {"unscaled": unscaled, "scaled": scaled}


def softmax_jacobian(p: torch.Tensor) -> torch.Tensor:
    return torch.diag_embed(p) - p.unsqueeze(1) * p.unsqueeze(0)


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(k.size(-1))
    return torch.matmul(softmax(scores, dim=-1), v)
