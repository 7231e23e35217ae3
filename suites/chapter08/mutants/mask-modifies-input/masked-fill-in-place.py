# mistake: mask-modifies-input
# file: masking.py
# mutant: apply_causal_mask uses the in-place masked_fill_ and returns its argument

def apply_causal_mask(scores: torch.Tensor) -> torch.Tensor:
    return scores.masked_fill_(~causal_mask(scores.shape[-1]), float("-inf"))
