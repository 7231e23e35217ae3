"""Variance experiments with constants for the defaults."""
from __future__ import annotations

import math

import torch

N_SAMPLES = 10_000
SEED = 0


def _generator(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _dot_products(d_k: int, n_samples: int, seed: int) -> torch.Tensor:
    g = _generator(seed)
    q = torch.randn(n_samples, d_k, generator=g)
    k = torch.randn(n_samples, d_k, generator=g)
    return torch.sum(q * k, dim=1)


def _variance(x: torch.Tensor) -> float:
    return float(torch.var(x, unbiased=False))


def dot_product_variance(d_k: int, n_samples: int = N_SAMPLES, seed: int = SEED) -> float:
    return _variance(_dot_products(d_k, n_samples, seed))


def scaled_dot_product_variance(d_k: int, n_samples: int = N_SAMPLES, seed: int = SEED) -> float:
    return _variance(_dot_products(d_k, n_samples, seed) / math.sqrt(d_k))


def variance_table(dims: list[int], n_samples: int = N_SAMPLES, seed: int = SEED) -> list[dict]:
    def row(d_k: int) -> dict:
        v = dot_product_variance(d_k, n_samples, seed)
        return {"d_k": d_k, "variance": v, "std": math.sqrt(v), "sqrt_d_k": math.sqrt(d_k),
                "scaled_variance": scaled_dot_product_variance(d_k, n_samples, seed)}

    return [row(d) for d in dims]
