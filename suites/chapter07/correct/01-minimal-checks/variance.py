import math

import torch


def dot_product_variance(d_k, n_samples=10000, seed=0):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(n_samples, d_k, generator=g)
    k = torch.randn(n_samples, d_k, generator=g)
    return (q * k).sum(dim=1).var().item()


def scaled_dot_product_variance(d_k, n_samples=10000, seed=0):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(n_samples, d_k, generator=g)
    k = torch.randn(n_samples, d_k, generator=g)
    return ((q * k).sum(dim=1) / math.sqrt(d_k)).var().item()


def variance_table(dims, n_samples=10000, seed=0):
    table = []
    for d in dims:
        var = dot_product_variance(d, n_samples, seed)
        table.append({"d_k": d, "variance": var, "std": math.sqrt(var), "sqrt_d_k": math.sqrt(d),
                      "scaled_variance": scaled_dot_product_variance(d, n_samples, seed)})
    return table
