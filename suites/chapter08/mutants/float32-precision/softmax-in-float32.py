# mistake: float32-precision
# file: masking.py
# mutant: masked_softmax computes in float32 and casts back to the input's dtype: right for
# float32 scores, only float32-precise for float64 ones (and so is causal_attention, which
# calls it)
# (only what differs from the reference; it is appended to the reference's file)

def masked_softmax(scores: torch.Tensor) -> torch.Tensor:
    masked = apply_causal_mask(scores).float()
    shifted = masked - masked.amax(dim=-1, keepdim=True)
    e = torch.exp(shifted)
    return (e / e.sum(dim=-1, keepdim=True)).to(scores.dtype)
