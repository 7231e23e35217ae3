import numpy as np


def dot_product_variance(d_k, n_samples=10000, seed=0):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal(size=(n_samples, d_k), dtype=np.float32)
    k = rng.standard_normal(size=(n_samples, d_k), dtype=np.float32)
    return float(np.var(np.sum(q.astype(np.float64) * k, axis=1)))


def scaled_dot_product_variance(d_k, n_samples=10000, seed=0):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal(size=(n_samples, d_k), dtype=np.float32)
    k = rng.standard_normal(size=(n_samples, d_k), dtype=np.float32)
    return float(np.var(np.sum(q.astype(np.float64) * k, axis=1) * d_k ** -0.5))


def variance_table(dims, n_samples=10000, seed=0):
    rows = []
    for d_k in dims:
        v = dot_product_variance(d_k, n_samples, seed)
        rows.append({"d_k": d_k, "variance": v, "std": v ** 0.5, "sqrt_d_k": d_k ** 0.5,
                     "scaled_variance": scaled_dot_product_variance(d_k, n_samples, seed)})
    return rows
