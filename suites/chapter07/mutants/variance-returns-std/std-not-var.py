# mistake: variance-returns-std
# file: variance.py
# mutant: dot_product_variance returns the standard deviation
# (only what differs from the reference; it is appended to the reference's file)

def dot_product_variance(d_k: int, n_samples: int = 10000, seed: int = 0) -> float:
    _check(d_k, n_samples)
    return float(_dots(d_k, n_samples, seed).std(correction=1))
