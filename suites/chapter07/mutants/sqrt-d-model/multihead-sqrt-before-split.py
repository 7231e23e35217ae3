# mistake: sqrt-d-model
# file: scaling.py
# mutant: the scale is taken from q.size(-1) before the heads are split, i.e. sqrt(d_model)
# (only what differs from the reference; it is appended to the reference's file)

def multihead_attention_scores(q: torch.Tensor, k: torch.Tensor, n_heads: int) -> torch.Tensor:
    if q.dim() != 3 or k.dim() != 3:
        msg = f"q and k must be (batch, seq, d_model); got {tuple(q.shape)} and {tuple(k.shape)}"
        raise ValueError(msg)
    d_model = q.size(-1)
    if k.size(-1) != d_model:
        msg = f"q has d_model={d_model} but k has d_model={k.size(-1)}"
        raise ValueError(msg)
    scale = math.sqrt(q.size(-1))
    d_k = head_dim(d_model, n_heads)
    qh = _split_heads(q, n_heads, d_k)
    kh = _split_heads(k, n_heads, d_k)
    return qh @ kh.transpose(-2, -1) / scale
