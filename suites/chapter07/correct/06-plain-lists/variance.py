import math
import statistics

import numpy as np


def _dots(d_k, n_samples, seed):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    return [float(x) for x in (q * k).sum(axis=1)]


def dot_product_variance(d_k, n_samples=10000, seed=0):
    return statistics.pvariance(_dots(d_k, n_samples, seed))


def scaled_dot_product_variance(d_k, n_samples=10000, seed=0):
    r = math.sqrt(d_k)
    return statistics.pvariance([x / r for x in _dots(d_k, n_samples, seed)])


def variance_table(dims, n_samples=10000, seed=0):
    rows = []
    for d_k in dims:
        v = dot_product_variance(d_k, n_samples, seed)
        rows.append({"d_k": d_k, "variance": v, "std": v ** 0.5, "sqrt_d_k": d_k ** 0.5,
                     "scaled_variance": scaled_dot_product_variance(d_k, n_samples, seed)})
    return rows
