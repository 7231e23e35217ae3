# mistake: no-scaling
# file: scaling.py
# mutant: attention_scores returns q k^T unscaled
# (only what differs from the reference; it is appended to the reference's file)

def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    d_k = q.size(-1)
    if k.size(-1) != d_k:
        msg = f"q has d_k={d_k} but k has d_k={k.size(-1)}"
        raise ValueError(msg)
    return q @ k.transpose(-2, -1)
