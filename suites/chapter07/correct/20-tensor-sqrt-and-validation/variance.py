import math

import numpy as np


def _products(d_k, n_samples, seed):
    if d_k <= 0 or n_samples <= 1:
        raise ValueError("d_k must be positive and n_samples at least 2")
    rng = np.random.default_rng(seed)
    k = rng.standard_normal((n_samples, d_k))
    q = rng.standard_normal((n_samples, d_k))
    return np.einsum("nd,nd->n", q, k)


def dot_product_variance(d_k, n_samples=10000, seed=0):
    return float(np.var(_products(d_k, n_samples, seed), ddof=0))


def scaled_dot_product_variance(d_k, n_samples=10000, seed=0):
    return float(np.var(_products(d_k, n_samples, seed), ddof=0) / d_k)


def variance_table(dims, n_samples=10000, seed=0):
    return [{"d_k": int(d), "variance": dot_product_variance(d, n_samples, seed),
             "std": math.sqrt(dot_product_variance(d, n_samples, seed)), "sqrt_d_k": math.sqrt(d),
             "scaled_variance": scaled_dot_product_variance(d, n_samples, seed)} for d in dims]
