import numpy as np


def dot_product_variance(d_k, n_samples=10000, seed=0):
    rs = np.random.RandomState(seed)
    q = rs.randn(n_samples, d_k)
    k = rs.randn(n_samples, d_k)
    return float(np.var((q * k).sum(axis=1), ddof=1))


def scaled_dot_product_variance(d_k, n_samples=10000, seed=0):
    rs = np.random.RandomState(seed)
    q = rs.randn(n_samples, d_k)
    k = rs.randn(n_samples, d_k)
    return float(np.var((q * k).sum(axis=1) / np.sqrt(d_k), ddof=1))


def variance_table(dims, n_samples=10000, seed=0):
    return [{"d_k": d, "variance": dot_product_variance(d, n_samples, seed),
             "std": float(np.sqrt(dot_product_variance(d, n_samples, seed))), "sqrt_d_k": float(np.sqrt(d)),
             "scaled_variance": scaled_dot_product_variance(d, n_samples, seed)} for d in dims]
