"""Chapter 7, part 3 -- my solution (variance), with numpy's random generator."""

import math

import numpy as np


def _dots(d_k, n_samples, seed):
    rng = np.random.default_rng(seed)
    pairs = rng.standard_normal((2, n_samples, d_k))
    return np.einsum("nd,nd->n", pairs[0], pairs[1])


def dot_product_variance(d_k: int, n_samples: int = 10000, seed: int = 0) -> float:
    """Sample variance of q.k, about d_k."""
    return float(np.var(_dots(d_k, n_samples, seed), ddof=1))


def scaled_dot_product_variance(d_k: int, n_samples: int = 10000, seed: int = 0) -> float:
    """Sample variance of q.k / d_k."""
    return float(np.var(_dots(d_k, n_samples, seed) / d_k, ddof=1))


def variance_table(dims: list[int], n_samples: int = 10000, seed: int = 0) -> list[dict]:
    """The chapter's table, measured."""
    table = []
    for d_k in dims:
        dots = _dots(d_k, n_samples, seed)
        var = float(dots.var(ddof=1))
        table.append(
            {
                "d_k": d_k,
                "variance": var,
                "std": math.sqrt(var),
                "sqrt_d_k": math.sqrt(d_k),
                "scaled_variance": float((dots / d_k).var(ddof=1)),
            }
        )
    return table
