import numpy as np


def dot_product_variance(d_k, n_samples=10000, seed=0):
    rng = np.random.default_rng(seed)
    qk = rng.standard_normal((2, n_samples, d_k))  # one draw for q and k
    return float(np.var(np.sum(qk[0] * qk[1], axis=-1)))


def scaled_dot_product_variance(d_k, n_samples=10000, seed=0):
    return dot_product_variance(d_k, n_samples, seed) / d_k


def variance_table(dims, n_samples=10000, seed=0):
    rows = []
    for d_k in dims:
        variance = dot_product_variance(d_k, n_samples, seed)
        rows.append({"d_k": d_k, "variance": variance, "std": float(np.sqrt(variance)),
                     "sqrt_d_k": float(np.sqrt(d_k)), "scaled_variance": variance / d_k})
    return rows
