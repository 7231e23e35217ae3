import math

import torch


def dot_product_variance(d_k: int, n_samples: int = 10000, seed: int = 0) -> float:
    torch.manual_seed(seed)
    q = torch.randn(n_samples, d_k)
    k = torch.randn(n_samples, d_k)
    return torch.var((q * k).sum(1), unbiased=False).item()


def scaled_dot_product_variance(d_k: int, n_samples: int = 10000, seed: int = 0) -> float:
    torch.manual_seed(seed)
    q = torch.randn(n_samples, d_k)
    k = torch.randn(n_samples, d_k)
    return torch.var((q * k).sum(1) / math.sqrt(d_k), unbiased=False).item()


def variance_table(dims, n_samples=10000, seed=0):
    rows = []
    for d in dims:
        var = dot_product_variance(d, n_samples, seed)
        rows.append({"d_k": d, "variance": var, "std": var ** 0.5, "sqrt_d_k": math.sqrt(d),
                     "scaled_variance": scaled_dot_product_variance(d, n_samples, seed)})
    return rows
