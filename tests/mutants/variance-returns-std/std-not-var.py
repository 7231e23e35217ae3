# mistake: variance-returns-std
# file: variance.py
# mutant: dot_product_variance returns the standard deviation
# (only what differs from the reference; it is appended to the reference's file)

def dot_product_variance(d_k: int, n_samples: int = 10000, seed: int = 0) -> float:
    """Return the sample variance of n_samples dot products q.k with N(0, 1) entries.

    Each term q_i k_i has mean 0 and variance 1 and the d_k terms are independent, so the
    variance of the sum is d_k.

    Args:
        d_k: length of q and k.
        n_samples: number of (q, k) pairs.
        seed: seeds the generator; the same seed gives the same value.

    Returns:
        the unbiased sample variance, close to d_k.

    Raises:
        ValueError: d_k < 1 or n_samples < 2 (or either is not an int).

    Example::

        >>> 60 < dot_product_variance(64) < 68
        True
    """
    _check(d_k, n_samples)
    return float(_dots(d_k, n_samples, seed).std(correction=1))
