# mistake: softmax-overflow
# file: masking.py
# mutant: masked_softmax exponentiates without subtracting the row maximum

def masked_softmax(scores: torch.Tensor) -> torch.Tensor:
    e = torch.exp(apply_causal_mask(scores))
    return e / e.sum(dim=-1, keepdim=True)
