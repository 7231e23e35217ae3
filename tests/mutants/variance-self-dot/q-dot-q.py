# mistake: variance-self-dot
# file: variance.py
# mutant: the dot products are q.q
"""Reference for variance.py: the variance of q.k grows like d_k; dividing by sqrt(d_k) fixes it.

variance.py の模範解答: q.k の分散は d_k に比例し, sqrt(d_k) で割ると 1 前後に揃う。

Each function draws from its own ``torch.Generator`` seeded with ``seed``, so a call never
touches (or depends on) torch's global random state.
"""

from __future__ import annotations

import math
import numbers

import torch

__all__ = ["dot_product_variance", "scaled_dot_product_variance", "variance_table"]


def _check(d_k: object, n_samples: object) -> None:
    for name, value, least in (("d_k", d_k, 1), ("n_samples", n_samples, 2)):
        # Two samples is the fewest an unbiased variance can be computed from.
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < least:
            msg = f"{name} must be an int >= {least} (got {value!r})"
            raise ValueError(msg)


def _dots(d_k: int, n_samples: int, seed: int) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    # float64 so the sum over d_k terms adds no rounding noise to the estimate.
    q = torch.randn(n_samples, d_k, generator=gen, dtype=torch.float64)
    k = torch.randn(n_samples, d_k, generator=gen, dtype=torch.float64)
    return (q * q).sum(dim=1)


def dot_product_variance(d_k: int, n_samples: int = 10000, seed: int = 0) -> float:
    """Return the sample variance of n_samples dot products q.k with N(0, 1) entries.

    Each term q_i k_i has mean 0 and variance 1 and the d_k terms are independent, so the
    variance of the sum is d_k.

    Args:
        d_k: length of q and k.
        n_samples: number of (q, k) pairs.
        seed: seeds the generator; the same seed gives the same value.

    Returns:
        the unbiased sample variance, close to d_k.

    Raises:
        ValueError: d_k < 1 or n_samples < 2 (or either is not an int).

    Example::

        >>> 60 < dot_product_variance(64) < 68
        True
    """
    _check(d_k, n_samples)
    return float(_dots(d_k, n_samples, seed).var(correction=1))


def scaled_dot_product_variance(d_k: int, n_samples: int = 10000, seed: int = 0) -> float:
    """Return the sample variance of q.k / sqrt(d_k), close to 1 for every d_k.

    Args:
        d_k: length of q and k.
        n_samples: number of (q, k) pairs.
        seed: seeds the generator.

    Returns:
        the unbiased sample variance of the scaled dot products.

    Raises:
        ValueError: as for dot_product_variance.

    Example::

        >>> 0.9 < scaled_dot_product_variance(1024) < 1.1
        True
    """
    _check(d_k, n_samples)
    return float((_dots(d_k, n_samples, seed) / math.sqrt(d_k)).var(correction=1))


def variance_table(dims: list[int], n_samples: int = 10000, seed: int = 0) -> list[dict]:
    """Measure the chapter's table: one row per d_k, in the order given.

    Every row is drawn with the same ``seed``, so a row does not depend on which other
    dimensions are in ``dims``.

    Args:
        dims: the d_k values, e.g. [64, 128, 256, 1024].
        n_samples: number of (q, k) pairs per row.
        seed: seeds the generator of every row.

    Returns:
        rows ``{"d_k": int, "variance": float, "std": float, "sqrt_d_k": float,
        "scaled_variance": float}``; std is the square root of the measured variance.

    Raises:
        ValueError: as for dot_product_variance, for any entry of dims.
    """
    rows = []
    for d_k in dims:
        variance = dot_product_variance(d_k, n_samples, seed)
        rows.append(
            {
                "d_k": int(d_k),
                "variance": variance,
                "std": math.sqrt(variance),
                "sqrt_d_k": math.sqrt(d_k),
                "scaled_variance": scaled_dot_product_variance(d_k, n_samples, seed),
            }
        )
    return rows
