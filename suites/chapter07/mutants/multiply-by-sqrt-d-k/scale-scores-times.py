# mistake: multiply-by-sqrt-d-k
# file: scaling.py
# mutant: scale_scores multiplies by sqrt(d_k)
# (only what differs from the reference; it is appended to the reference's file)

def scale_scores(scores: torch.Tensor, d_k: int) -> torch.Tensor:
    d_k = _positive_int(d_k, "d_k")
    return scores * math.sqrt(d_k)
