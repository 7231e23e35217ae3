import numpy as np


def _sample(d_k, n_samples, seed):
    rng = np.random.default_rng(seed)
    k = rng.normal(0.0, 1.0, size=(n_samples, d_k))  # k first, then q
    q = rng.normal(0.0, 1.0, size=(n_samples, d_k))
    return np.einsum("ij,ij->i", q, k)


def dot_product_variance(d_k, n_samples=10000, seed=0):
    return float(_sample(d_k, n_samples, seed).var(ddof=1))


def scaled_dot_product_variance(d_k, n_samples=10000, seed=0):
    return float((_sample(d_k, n_samples, seed) / np.sqrt(d_k)).var(ddof=1))


def variance_table(dims, n_samples=10000, seed=0):
    result = []
    for d_k in dims:
        var = dot_product_variance(d_k, n_samples, seed)
        result.append({"d_k": int(d_k), "variance": var, "std": float(np.sqrt(var)),
                       "sqrt_d_k": float(np.sqrt(d_k)),
                       "scaled_variance": scaled_dot_product_variance(d_k, n_samples, seed)})
    return result
