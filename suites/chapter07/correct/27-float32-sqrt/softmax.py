import math

import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Numerically stable softmax."""
    exps = torch.exp(x - x.max(dim=dim, keepdim=True).values)
    return exps / exps.sum(dim=dim, keepdim=True)


def softmax_with_temperature(x: torch.Tensor, temperature: float, dim: int = -1) -> torch.Tensor:
    """softmax(x / T)."""
    if temperature <= 0:
        raise ValueError("temperature must be > 0")
    return softmax(torch.div(x, temperature), dim=dim)


def compare_saturation(scores: torch.Tensor, d_k: int) -> dict:
    """Largest probability before and after scaling."""
    before = softmax(scores).max()
    after = softmax(scores / math.sqrt(d_k)).max()
    return {"unscaled": before.item(), "scaled": after.item()}


def softmax_jacobian(p: torch.Tensor) -> torch.Tensor:
    """diag(p) - p p^T."""
    return torch.diag(p) - torch.matmul(p.view(-1, 1), p.view(1, -1))


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """softmax(q k^T / sqrt(d_k)) v."""
    return torch.matmul(softmax(torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])), v)
