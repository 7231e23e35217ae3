# mistake: mask-zero-not-inf
# file: masking.py
# mutant: apply_causal_mask writes 0 instead of -inf into the future

def apply_causal_mask(scores: torch.Tensor) -> torch.Tensor:
    return scores.masked_fill(~causal_mask(scores.shape[-1]), 0.0)
