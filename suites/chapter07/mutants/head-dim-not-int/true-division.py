# mistake: head-dim-not-int
# file: scaling.py
# mutant: head_dim uses / and returns 64.0
# (only what differs from the reference; it is appended to the reference's file)

def head_dim(d_model: int, n_heads: int) -> int:
    d_model = _positive_int(d_model, "d_model")
    n_heads = _positive_int(n_heads, "n_heads")
    if d_model % n_heads != 0:
        msg = f"d_model={d_model} is not divisible by n_heads={n_heads}"
        raise ValueError(msg)
    return d_model / n_heads


def multihead_attention_scores(q: torch.Tensor, k: torch.Tensor, n_heads: int) -> torch.Tensor:
    if q.dim() != 3 or k.dim() != 3:
        msg = f"q and k must be (batch, seq, d_model); got {tuple(q.shape)} and {tuple(k.shape)}"
        raise ValueError(msg)
    d_model = q.size(-1)
    if k.size(-1) != d_model:
        msg = f"q has d_model={d_model} but k has d_model={k.size(-1)}"
        raise ValueError(msg)
    head_dim(d_model, n_heads)  # validates the sizes
    d_k = d_model // n_heads
    qh = _split_heads(q, n_heads, d_k)
    kh = _split_heads(k, n_heads, d_k)
    return qh @ kh.transpose(-2, -1) / math.sqrt(d_k)
