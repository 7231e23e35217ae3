"""Variance with numpy's default_rng, q drawn first."""
import numpy as np


def _dots(d_k, n, seed):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n, d_k))
    k = rng.standard_normal((n, d_k))
    return (q * k).sum(axis=1)


def dot_product_variance(d_k, n_samples=10000, seed=0):
    return float(np.var(_dots(d_k, n_samples, seed)))


def scaled_dot_product_variance(d_k, n_samples=10000, seed=0):
    return float(np.var(_dots(d_k, n_samples, seed) / np.sqrt(d_k)))


def variance_table(dims, n_samples=10000, seed=0):
    out = []
    for d_k in dims:
        dots = _dots(d_k, n_samples, seed)
        v = float(dots.var())
        out.append({"d_k": d_k, "variance": v, "std": float(dots.std()), "sqrt_d_k": float(np.sqrt(d_k)),
                    "scaled_variance": float((dots / np.sqrt(d_k)).var())})
    return out
