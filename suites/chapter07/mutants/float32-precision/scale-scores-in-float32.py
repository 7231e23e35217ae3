# mistake: float32-precision
# file: scaling.py
# mutant: scale_scores computes in float32 and casts back to the input's dtype: right for
# float32 inputs, only float32-precise for float64 ones
# (only what differs from the reference; it is appended to the reference's file)

def scale_scores(scores: torch.Tensor, d_k: int) -> torch.Tensor:
    d_k = _positive_int(d_k, "d_k")
    return (scores.float() / math.sqrt(d_k)).to(scores.dtype)
