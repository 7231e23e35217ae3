# mistake: temperature-multiplied
# file: softmax.py
# mutant: softmax_with_temperature multiplies by the temperature
"""Reference for softmax.py: a stable softmax, temperature, saturation and its Jacobian.

softmax.py の模範解答: 数値的に安定な softmax, 温度, 飽和の比較, ヤコビ行列, 注意の出力。
"""

from __future__ import annotations

import math
import numbers

import torch

__all__ = [
    "attention",
    "compare_saturation",
    "softmax",
    "softmax_jacobian",
    "softmax_with_temperature",
]


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Return exp(x) / sum(exp(x)) along ``dim``, computed without overflow.

    Subtracting the maximum first keeps every exponent <= 0, so inputs of magnitude 1e4 stay
    finite. A ``-inf`` entry (a masked position) gets probability exactly 0 as long as its
    slice holds at least one finite value.

    Args:
        x: scores, any shape, float32 or float64.
        dim: the axis to normalise over.

    Returns:
        probabilities, same shape and dtype as x, summing to 1 along ``dim``.

    Example::

        >>> softmax(torch.tensor([10.0, 8.0, 6.0]))
        tensor([0.8668, 0.1173, 0.0159])
    """
    shifted = x - x.amax(dim=dim, keepdim=True)
    e = torch.exp(shifted)
    return e / e.sum(dim=dim, keepdim=True)


def softmax_with_temperature(x: torch.Tensor, temperature: float, dim: int = -1) -> torch.Tensor:
    """Return softmax(x / temperature) along ``dim``.

    Dividing by sqrt(d_k) before the softmax is the same as a fixed temperature of sqrt(d_k).

    Args:
        x: scores, any shape.
        temperature: a positive number; > 1 flattens the distribution, < 1 sharpens it.
        dim: the axis to normalise over.

    Returns:
        probabilities, same shape and dtype as x.

    Raises:
        ValueError: temperature is not > 0 (0, negative or nan).
    """
    # "not >" also rejects nan, which would otherwise turn every probability into nan.
    if not temperature > 0:
        msg = f"temperature must be > 0 (got {temperature!r})"
        raise ValueError(msg)
    return softmax(x * temperature, dim=dim)


def compare_saturation(scores: torch.Tensor, d_k: int) -> dict[str, float]:
    """Return the largest probability without and with scaling by sqrt(d_k).

    Args:
        scores: 1-D raw scores.
        d_k: per-head dimension.

    Returns:
        ``{"unscaled": max softmax(scores), "scaled": max softmax(scores / sqrt(d_k))}``,
        both Python floats.

    Raises:
        ValueError: scores is not 1-D or d_k is not a positive int.

    Example::

        >>> r = compare_saturation(torch.tensor([12.0, 9.0, 6.0, 3.0]), 64)
        >>> round(r["unscaled"], 3), round(r["scaled"], 3)
        (0.95, 0.403)
    """
    if scores.dim() != 1:
        msg = f"scores must be 1-D (got shape {tuple(scores.shape)})"
        raise ValueError(msg)
    if isinstance(d_k, bool) or not isinstance(d_k, numbers.Integral) or d_k <= 0:
        msg = f"d_k must be a positive int (got {d_k!r})"
        raise ValueError(msg)
    return {
        "unscaled": float(softmax(scores).max()),
        "scaled": float(softmax(scores / math.sqrt(d_k)).max()),
    }


def softmax_jacobian(p: torch.Tensor) -> torch.Tensor:
    """Return the Jacobian of softmax at output p: J = diag(p) - p p^T.

    J[i, j] = d p_i / d x_j = p_i (1[i == j] - p_j). When p saturates (one entry near 1, the rest
    near 0) every entry of J goes to 0: the vanishing gradient of an unscaled softmax.

    Args:
        p: a 1-D probability vector, shape (n,).

    Returns:
        J, shape (n, n), same dtype as p.

    Raises:
        ValueError: p is not 1-D.
    """
    if p.dim() != 1:
        msg = f"p must be 1-D (got shape {tuple(p.shape)})"
        raise ValueError(msg)
    return torch.diag(p) - torch.outer(p, p)


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """Return softmax(q k^T / sqrt(d_k)) v, as torch's scaled_dot_product_attention does.

    Args:
        q: queries, shape (..., n_q, d_k).
        k: keys, shape (..., n_k, d_k).
        v: values, shape (..., n_k, d_v).

    Returns:
        the weighted values, shape (..., n_q, d_v).

    Raises:
        ValueError: q and k disagree on d_k, or k and v on n_k.
    """
    d_k = q.size(-1)
    if k.size(-1) != d_k:
        msg = f"q has d_k={d_k} but k has d_k={k.size(-1)}"
        raise ValueError(msg)
    if v.size(-2) != k.size(-2):
        msg = f"k has n_k={k.size(-2)} rows but v has {v.size(-2)}"
        raise ValueError(msg)
    weights = softmax(q @ k.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
    return weights @ v
