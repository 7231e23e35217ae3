import numpy as np
import math

import torch


def _draw(d_k, n_samples, seed):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(n_samples, d_k, generator=g)
    k = torch.randn(n_samples, d_k, generator=g)
    return (q * k).sum(dim=-1)


def dot_product_variance(d_k, n_samples=10000, seed=0):
    """Sample variance of q.k (about d_k)."""
    return float(_draw(d_k, n_samples, seed).var())


def scaled_dot_product_variance(d_k, n_samples=10000, seed=0):
    """Sample variance of q.k / sqrt(d_k) (about 1)."""
    return float((_draw(d_k, n_samples, seed) / math.sqrt(d_k)).var())


def variance_table(dims, n_samples=10000, seed=0):
    """One row per d_k (written as a float), every column from the same draw."""
    rows = []
    for d_k in dims:
        dots = _draw(d_k, n_samples, seed)
        var = float(dots.var())
        rows.append({
            "d_k": float(d_k),
            "variance": var,
            "std": math.sqrt(var),
            "sqrt_d_k": np.float32(np.sqrt(d_k)),
            "scaled_variance": float((dots / math.sqrt(d_k)).var()),
        })
    return rows
