import math

import torch


def _dots(d_k, n_samples, seed):
    gen = torch.Generator()
    gen.manual_seed(seed)
    qk = torch.randn(2, n_samples, d_k, generator=gen)  # q and k in one draw
    return torch.einsum("nd,nd->n", qk[0], qk[1])


def dot_product_variance(d_k, n_samples=10000, seed=0):
    return float(torch.var(_dots(d_k, n_samples, seed), unbiased=False))


def scaled_dot_product_variance(d_k, n_samples=10000, seed=0):
    return float(torch.var(_dots(d_k, n_samples, seed) / math.sqrt(d_k), unbiased=False))


def variance_table(dims, n_samples=10000, seed=0):
    rows = []
    for d in dims:
        v = dot_product_variance(d, n_samples, seed)
        s = scaled_dot_product_variance(d, n_samples, seed)
        rows.append(dict(d_k=d, variance=v, std=v ** 0.5, sqrt_d_k=d ** 0.5, scaled_variance=s))
    return rows
