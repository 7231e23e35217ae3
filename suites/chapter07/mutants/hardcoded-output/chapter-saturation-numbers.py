# mistake: hardcoded-output
# file: softmax.py
# mutant: compare_saturation returns the chapter's example answer
# (only what differs from the reference; it is appended to the reference's file)

def compare_saturation(scores: torch.Tensor, d_k: int) -> dict[str, float]:
    if scores.dim() != 1:
        msg = f"scores must be 1-D (got shape {tuple(scores.shape)})"
        raise ValueError(msg)
    if isinstance(d_k, bool) or not isinstance(d_k, numbers.Integral) or d_k <= 0:
        msg = f"d_k must be a positive int (got {d_k!r})"
        raise ValueError(msg)
    return {"unscaled": 0.950, "scaled": 0.403}
