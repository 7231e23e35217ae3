# mistake: mask-after-softmax
# file: masking.py
# mutant: masks the probabilities after torch.softmax and renormalises each row (a well-known
# book's "simple" mask). Right on ordinary scores; on scores of magnitude 1e4 a row whose
# weight was all in the future comes out 0/0 = NaN. Nothing overflows, so it must not be
# named softmax-overflow.

def masked_softmax(scores: torch.Tensor) -> torch.Tensor:
    n = scores.shape[-1]
    weights = torch.softmax(scores, dim=-1)
    masked = weights * torch.tril(torch.ones(n, n))
    return masked / masked.sum(dim=-1, keepdim=True)
