# mistake: wrong-divisor
# file: scaling.py
# mutant: scale_scores divides by the integer square root math.isqrt(d_k)
# (only what differs from the reference; it is appended to the reference's file)
# Exact where d_k is a square (64, 16); at d_k = 48 it divides by 6, not 6.93.

def scale_scores(scores: torch.Tensor, d_k: int) -> torch.Tensor:
    d_k = _positive_int(d_k, "d_k")
    return scores / math.isqrt(d_k)
