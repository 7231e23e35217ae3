# mistake: divide-by-d-k
# file: scaling.py
# mutant: scale_scores divides by d_k
# (only what differs from the reference; it is appended to the reference's file)

def scale_scores(scores: torch.Tensor, d_k: int) -> torch.Tensor:
    d_k = _positive_int(d_k, "d_k")
    return scores / d_k
