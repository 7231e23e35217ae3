import math

import torch


def _pairs(d_k, n_samples, seed):
    gen = torch.Generator().manual_seed(seed)
    q = torch.randn(n_samples, d_k, generator=gen, dtype=torch.float64)
    k = torch.randn(n_samples, d_k, generator=gen, dtype=torch.float64)
    return torch.einsum("nd,nd->n", q, k)


def dot_product_variance(d_k, n_samples=10000, seed=0):
    return float(_pairs(d_k, n_samples, seed).var(correction=0))


def scaled_dot_product_variance(d_k, n_samples=10000, seed=0):
    return float((_pairs(d_k, n_samples, seed) / math.sqrt(d_k)).var(correction=0))


def variance_table(dims, n_samples=10000, seed=0):
    rows = []
    for d_k in dims:
        dots = _pairs(d_k, n_samples, seed)
        var = float(dots.var(correction=0))
        rows.append({"d_k": d_k, "variance": var, "std": math.sqrt(var), "sqrt_d_k": math.sqrt(d_k),
                     "scaled_variance": float((dots / math.sqrt(d_k)).var(correction=0))})
    return rows
