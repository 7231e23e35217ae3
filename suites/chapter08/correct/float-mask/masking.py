"""A correct submission with an additive float mask (0 / -inf), as GPT-2 implementations often do."""

import math

import torch


def causal_mask(seq_len: int) -> torch.Tensor:
    if not isinstance(seq_len, int) or isinstance(seq_len, bool) or seq_len <= 0:
        raise ValueError(seq_len)
    i = torch.arange(seq_len).unsqueeze(1)
    j = torch.arange(seq_len).unsqueeze(0)
    return j <= i


def apply_causal_mask(scores: torch.Tensor) -> torch.Tensor:
    n = scores.size(-1)
    bias = torch.zeros(n, n, dtype=scores.dtype).masked_fill(~causal_mask(n), float("-inf"))
    return scores + bias


def masked_softmax(scores: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.softmax(apply_causal_mask(scores), dim=-1)


def causal_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return masked_softmax(torch.einsum("...qd,...kd->...qk", q, k) / math.sqrt(q.size(-1))) @ v


def future_leak(attn_weights: torch.Tensor) -> float:
    n = attn_weights.shape[-1]
    return (attn_weights * (~causal_mask(n))).sum(-1).max().item()
