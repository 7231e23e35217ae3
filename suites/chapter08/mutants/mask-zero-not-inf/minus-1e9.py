# mistake: mask-zero-not-inf
# file: masking.py
# mutant: apply_causal_mask writes -1e9 instead of -inf (the Annotated Transformer's mask).
# e^-1e9 is exactly 0, so no weight leaks; the id stands (the contract asks for -inf), but
# the message must not claim a leak.

def apply_causal_mask(scores: torch.Tensor) -> torch.Tensor:
    return scores.masked_fill(~causal_mask(scores.shape[-1]), -1e9)
