# mistake: head-dim-not-int
# file: scaling.py
# mutant: head_dim uses / and returns 64.0
"""Reference for scaling.py: the per-head dimension d_k and scores divided by sqrt(d_k).

scaling.py の模範解答: 1ヘッドあたりの次元数 d_k と, sqrt(d_k) で割った注意スコア。

Written with plain torch operations in the same order as GPT-2's attention code, so that the
hidden tests can compare a student's values against it on any probe input.
"""

from __future__ import annotations

import math
import numbers

import torch

__all__ = [
    "attention_scores",
    "head_dim",
    "multihead_attention_scores",
    "scale_scores",
    "scaling_factor",
]


def _positive_int(value: object, name: str) -> int:
    # bool is a subclass of int, but head_dim(True, 1) is a bug in the caller, not "1".
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        msg = f"{name} must be a positive int (got {value!r}, a {type(value).__name__})"
        raise ValueError(msg)
    if value <= 0:
        msg = f"{name} must be a positive int (got {value!r})"
        raise ValueError(msg)
    return int(value)


def head_dim(d_model: int, n_heads: int) -> int:
    """Return the per-head dimension d_k = d_model / n_heads.

    Args:
        d_model: width of the embeddings, shared by all heads (GPT-2 small: 768).
        n_heads: number of attention heads (GPT-2 small: 12).

    Returns:
        d_k, an int (GPT-2 small: 768 / 12 = 64).

    Raises:
        ValueError: either argument is not a positive int (bools and floats included), or
            d_model is not divisible by n_heads.

    Example::

        >>> head_dim(768, 12)
        64
        >>> head_dim(4096, 32)
        128
    """
    d_model = _positive_int(d_model, "d_model")
    n_heads = _positive_int(n_heads, "n_heads")
    if d_model % n_heads != 0:
        msg = f"d_model={d_model} is not divisible by n_heads={n_heads}"
        raise ValueError(msg)
    return d_model / n_heads


def scaling_factor(d_model: int, n_heads: int) -> float:
    """Return sqrt(d_k), the number the attention scores are divided by.

    Args:
        d_model: width of the embeddings.
        n_heads: number of attention heads.

    Returns:
        sqrt(d_model / n_heads) as a float.

    Raises:
        ValueError: as for head_dim.

    Example::

        >>> scaling_factor(768, 12)
        8.0
        >>> round(scaling_factor(4096, 32), 4)
        11.3137
    """
    return math.sqrt(head_dim(d_model, n_heads))


def scale_scores(scores: torch.Tensor, d_k: int) -> torch.Tensor:
    """Divide every score by sqrt(d_k); order and signs are unchanged.

    Args:
        scores: raw scores q.k, any shape.
        d_k: per-head dimension.

    Returns:
        scores / sqrt(d_k), same shape and dtype.

    Raises:
        ValueError: d_k is not a positive int.

    Example::

        >>> scale_scores(torch.tensor([40.0, -24.0]), 64)
        tensor([ 5., -3.])
    """
    d_k = _positive_int(d_k, "d_k")
    return scores / math.sqrt(d_k)


def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """Return q k^T / sqrt(d_k), reading d_k from the last axis.

    Args:
        q: queries, shape (..., n_q, d_k).
        k: keys, shape (..., n_k, d_k); leading axes broadcast against q's.

    Returns:
        scores of shape (..., n_q, n_k).

    Raises:
        ValueError: q and k disagree on d_k.
    """
    d_k = q.size(-1)
    if k.size(-1) != d_k:
        msg = f"q has d_k={d_k} but k has d_k={k.size(-1)}"
        raise ValueError(msg)
    return q @ k.transpose(-2, -1) / math.sqrt(d_k)


def _split_heads(x: torch.Tensor, n_heads: int, d_k: int) -> torch.Tensor:
    batch, seq, _ = x.shape
    # GPT-2 splits the last axis into (n_heads, d_k), then moves heads in front of seq.
    # reshape rather than view so a non-contiguous input (e.g. a transposed tensor) works.
    return x.reshape(batch, seq, n_heads, d_k).transpose(1, 2)


def multihead_attention_scores(q: torch.Tensor, k: torch.Tensor, n_heads: int) -> torch.Tensor:
    """Split q and k into heads GPT-2 style and return each head's scaled scores.

    Args:
        q: queries, shape (batch, seq, d_model).
        k: keys, shape (batch, seq, d_model).
        n_heads: number of heads; d_k = d_model / n_heads.

    Returns:
        scores of shape (batch, n_heads, seq, seq), divided by sqrt(d_k), not sqrt(d_model).

    Raises:
        ValueError: q or k is not 3-D, their d_model differ, or head_dim rejects the sizes.

    Example::

        >>> q = torch.zeros(2, 5, 768)
        >>> multihead_attention_scores(q, q, 12).shape
        torch.Size([2, 12, 5, 5])
    """
    if q.dim() != 3 or k.dim() != 3:
        msg = f"q and k must be (batch, seq, d_model); got {tuple(q.shape)} and {tuple(k.shape)}"
        raise ValueError(msg)
    d_model = q.size(-1)
    if k.size(-1) != d_model:
        msg = f"q has d_model={d_model} but k has d_model={k.size(-1)}"
        raise ValueError(msg)
    head_dim(d_model, n_heads)  # validates the sizes
    d_k = d_model // n_heads
    qh = _split_heads(q, n_heads, d_k)
    kh = _split_heads(k, n_heads, d_k)
    return qh @ kh.transpose(-2, -1) / math.sqrt(d_k)
