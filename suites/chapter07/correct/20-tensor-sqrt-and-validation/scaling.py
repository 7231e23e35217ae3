import torch


def head_dim(d_model, n_heads):
    if not all(isinstance(n, int) for n in (d_model, n_heads)):
        raise ValueError("d_model and n_heads must both be int")
    if d_model <= 0 or n_heads <= 0:
        raise ValueError("d_model and n_heads must both be positive")
    q, r = divmod(d_model, n_heads)
    if r:
        raise ValueError(f"{d_model} / {n_heads} leaves a remainder of {r}")
    return q


def scaling_factor(d_model, n_heads):
    return torch.sqrt(torch.tensor(float(head_dim(d_model, n_heads)), dtype=torch.float64)).item()


def scale_scores(scores, d_k):
    if not isinstance(scores, torch.Tensor):
        scores = torch.as_tensor(scores)
    return scores / torch.sqrt(torch.tensor(d_k, dtype=scores.dtype))


def attention_scores(q, k):
    if q.shape[-1] != k.shape[-1]:
        raise ValueError("q and k need the same last dimension")
    return scale_scores(q @ k.transpose(-2, -1), q.shape[-1])


def multihead_attention_scores(q, k, n_heads):
    if q.dim() != 3 or q.shape != k.shape:
        raise ValueError("q and k must both be (batch, seq, d_model)")
    batch, seq, d_model = q.shape
    d_k = head_dim(d_model, n_heads)
    qh = q.contiguous().view(batch, seq, n_heads, d_k).transpose(1, 2)
    kh = k.contiguous().view(batch, seq, n_heads, d_k).transpose(1, 2)
    return scale_scores(qh @ kh.transpose(-2, -1), d_k)
