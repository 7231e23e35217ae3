import math

import torch


def _dots(d_k, n_samples, seed):
    g = torch.Generator().manual_seed(seed)
    qk = torch.randn(n_samples, 2 * d_k, generator=g)
    q, k = qk[:, :d_k], qk[:, d_k:]
    return (q * k).sum(-1)


def dot_product_variance(d_k, n_samples=10000, seed=0):
    return _dots(d_k, n_samples, seed).var(unbiased=False).item()


def scaled_dot_product_variance(d_k, n_samples=10000, seed=0):
    return (_dots(d_k, n_samples, seed) * torch.rsqrt(torch.tensor(float(d_k)))).var(unbiased=False).item()


def variance_table(dims, n_samples=10000, seed=0):
    rows = []
    for d_k in dims:
        v = dot_product_variance(d_k, n_samples, seed)
        rows.append({"d_k": d_k, "variance": v, "std": math.sqrt(v), "sqrt_d_k": math.sqrt(d_k),
                     "scaled_variance": scaled_dot_product_variance(d_k, n_samples, seed)})
    return rows
