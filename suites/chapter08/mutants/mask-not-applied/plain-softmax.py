# mistake: mask-not-applied
# file: masking.py
# mutant: masked_softmax forgets the mask (causal_attention, built on it, too)

def masked_softmax(scores: torch.Tensor) -> torch.Tensor:
    shifted = scores - scores.amax(dim=-1, keepdim=True)
    e = torch.exp(shifted)
    return e / e.sum(dim=-1, keepdim=True)
