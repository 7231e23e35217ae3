import numpy as np


def _dots(d_k, n_samples, seed):
    rng = np.random.default_rng(seed)
    pair = rng.standard_normal((2, n_samples, d_k))
    q, k = pair
    return (q * k).sum(axis=1)


def dot_product_variance(d_k, n_samples=10000, seed=0):
    return float(np.var(_dots(d_k, n_samples, seed)))


def scaled_dot_product_variance(d_k, n_samples=10000, seed=0):
    return float(np.var(_dots(d_k, n_samples, seed) / np.sqrt(d_k)))


def variance_table(dims, n_samples=10000, seed=0):
    rows = []
    for d_k in dims:
        dots = _dots(d_k, n_samples, seed)
        rows.append({"d_k": d_k, "variance": float(dots.var()), "std": float(dots.std()),
                     "sqrt_d_k": float(np.sqrt(d_k)), "scaled_variance": float((dots / np.sqrt(d_k)).var())})
    return rows
