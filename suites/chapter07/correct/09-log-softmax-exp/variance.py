import math

import torch


def _dot_products(d_k, n_samples, seed):
    g = torch.Generator()
    g.manual_seed(seed)
    k = torch.randn(n_samples, d_k, generator=g)  # k is drawn before q
    q = torch.randn(n_samples, d_k, generator=g)
    return torch.bmm(q.unsqueeze(1), k.unsqueeze(2)).flatten()


def dot_product_variance(d_k, n_samples=10000, seed=0):
    return _dot_products(d_k, n_samples, seed).var(unbiased=True).item()


def scaled_dot_product_variance(d_k, n_samples=10000, seed=0):
    return (_dot_products(d_k, n_samples, seed) / math.sqrt(d_k)).var().item()


def variance_table(dims, n_samples=10000, seed=0):
    table = []
    for d_k in dims:
        dots = _dot_products(d_k, n_samples, seed)
        var = dots.var().item()
        table.append({"d_k": d_k, "variance": var, "std": dots.std().item(),
                      "sqrt_d_k": math.sqrt(d_k), "scaled_variance": (dots / math.sqrt(d_k)).var().item()})
    return table
