# mistake: mask-after-softmax
# file: masking.py
# mutant: masked_softmax takes the softmax of the raw scores, then writes -inf into the
# probabilities of the future (the fill meant for the scores, written after the softmax)
# (only what differs from the reference; it is appended to the reference's file)

def masked_softmax(scores: torch.Tensor) -> torch.Tensor:
    p = torch.softmax(scores, dim=-1)
    return p.masked_fill(~causal_mask(scores.shape[-1]), float("-inf"))
