# mistake: wrong-divisor
# file: scaling.py
# mutant: scale_scores divides by the chapter's 8 whatever d_k is
# (only what differs from the reference; it is appended to the reference's file)

def scale_scores(scores: torch.Tensor, d_k: int) -> torch.Tensor:
    d_k = _positive_int(d_k, "d_k")
    return scores / 8.0
