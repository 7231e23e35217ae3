# mistake: variance-ignores-seed
# file: variance.py
# mutant: the generator is always seeded with 0
# (only what differs from the reference; it is appended to the reference's file)

def _dots(d_k: int, n_samples: int, seed: int) -> torch.Tensor:
    gen = torch.Generator().manual_seed(0)
    # float64 so the sum over d_k terms adds no rounding noise to the estimate.
    q = torch.randn(n_samples, d_k, generator=gen, dtype=torch.float64)
    k = torch.randn(n_samples, d_k, generator=gen, dtype=torch.float64)
    return (q * k).sum(dim=1)
