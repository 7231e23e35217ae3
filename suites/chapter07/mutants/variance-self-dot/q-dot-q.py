# mistake: variance-self-dot
# file: variance.py
# mutant: the dot products are q.q
# (only what differs from the reference; it is appended to the reference's file)

def _dots(d_k: int, n_samples: int, seed: int) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    # float64 so the sum over d_k terms adds no rounding noise to the estimate.
    q = torch.randn(n_samples, d_k, generator=gen, dtype=torch.float64)
    k = torch.randn(n_samples, d_k, generator=gen, dtype=torch.float64)
    return (q * q).sum(dim=1)
