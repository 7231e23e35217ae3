import math

import numpy as np


def dot_product_variance(d_k, n_samples=10000, seed=0):
    np.random.seed(seed)
    q = np.random.randn(n_samples, d_k)
    k = np.random.randn(n_samples, d_k)
    return float((q * k).sum(1).var())


def scaled_dot_product_variance(d_k, n_samples=10000, seed=0):
    np.random.seed(seed)
    q = np.random.randn(n_samples, d_k)
    k = np.random.randn(n_samples, d_k)
    return float(((q * k).sum(1) / math.sqrt(d_k)).var())


def variance_table(dims, n_samples=10000, seed=0):
    rows = []
    for d_k in dims:
        v = dot_product_variance(d_k, n_samples, seed)
        rows.append({"d_k": d_k, "variance": v, "std": math.sqrt(v), "sqrt_d_k": math.sqrt(d_k),
                     "scaled_variance": scaled_dot_product_variance(d_k, n_samples, seed)})
    return rows
