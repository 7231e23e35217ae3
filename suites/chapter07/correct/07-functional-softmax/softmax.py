import math

import torch
import torch.nn.functional as F


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    return F.softmax(x, dim=dim)


def softmax_with_temperature(x: torch.Tensor, temperature: float, dim: int = -1) -> torch.Tensor:
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    return F.softmax(x / temperature, dim=dim)


def compare_saturation(scores: torch.Tensor, d_k: int) -> dict:
    return {"unscaled": F.softmax(scores, -1).max().item(),
            "scaled": softmax_with_temperature(scores, math.sqrt(d_k)).max().item()}


def softmax_jacobian(p: torch.Tensor) -> torch.Tensor:
    return torch.diag(p) - p.outer(p)


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return F.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)), dim=-1) @ v
