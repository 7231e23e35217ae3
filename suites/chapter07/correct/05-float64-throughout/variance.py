import math

import torch


def _dots(d_k, n_samples, seed):
    g = torch.Generator().manual_seed(int(seed))
    q = torch.randn((n_samples, d_k), generator=g, dtype=torch.float64)
    k = torch.randn((n_samples, d_k), generator=g, dtype=torch.float64)
    return (q * k).sum(-1)


def dot_product_variance(d_k, n_samples=10000, seed=0):
    x = _dots(d_k, n_samples, seed)
    return float(((x - x.mean()) ** 2).mean())


def scaled_dot_product_variance(d_k, n_samples=10000, seed=0):
    x = _dots(d_k, n_samples, seed) / math.sqrt(d_k)
    return float(((x - x.mean()) ** 2).mean())


def variance_table(dims, n_samples=10000, seed=0):
    return [
        {
            "d_k": d,
            "variance": (v := dot_product_variance(d, n_samples, seed)),
            "std": math.sqrt(v),
            "sqrt_d_k": math.sqrt(d),
            "scaled_variance": scaled_dot_product_variance(d, n_samples, seed),
        }
        for d in dims
    ]
