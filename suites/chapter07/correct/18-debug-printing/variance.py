import math

import numpy as np


def dot_product_variance(d_k, n_samples=10000, seed=0):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = (q * k).sum(axis=1)
    print(f"d_k={d_k}: mean {dots.mean():.3f}, var {dots.var():.3f}")
    return float(dots.var())


def scaled_dot_product_variance(d_k, n_samples=10000, seed=0):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = (q * k).sum(axis=1) / math.sqrt(d_k)
    print(f"d_k={d_k}: scaled var {dots.var():.3f}")
    return float(dots.var())


def variance_table(dims, n_samples=10000, seed=0):
    rows = []
    for d_k in dims:
        v = dot_product_variance(d_k, n_samples, seed)
        rows.append({"d_k": d_k, "variance": v, "std": math.sqrt(v), "sqrt_d_k": math.sqrt(d_k),
                     "scaled_variance": scaled_dot_product_variance(d_k, n_samples, seed)})
    print("table:", rows)
    return rows
