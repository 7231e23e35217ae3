import math

import numpy as np


def _dots(d_k, n_samples, seed):
    rng = np.random.default_rng(seed)
    both = rng.standard_normal((n_samples, 2, d_k))
    return (both[:, 0, :] * both[:, 1, :]).sum(axis=-1)


def dot_product_variance(d_k, n_samples=10000, seed=0):
    d = _dots(d_k, n_samples, seed)
    return float(np.mean(d ** 2) - np.mean(d) ** 2)


def scaled_dot_product_variance(d_k, n_samples=10000, seed=0):
    d = _dots(d_k, n_samples, seed) / math.sqrt(d_k)
    return float(np.mean(d ** 2) - np.mean(d) ** 2)


def variance_table(dims, n_samples=10000, seed=0):
    rows = []
    for d_k in dims:
        v = dot_product_variance(d_k, n_samples, seed)
        rows.append({"d_k": d_k, "variance": v, "std": math.sqrt(v), "sqrt_d_k": math.sqrt(d_k),
                     "scaled_variance": scaled_dot_product_variance(d_k, n_samples, seed)})
    return rows
