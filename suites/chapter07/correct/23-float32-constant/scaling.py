import torch


def head_dim(d_model, n_heads):
    if type(d_model) is not int or type(n_heads) is not int:
        raise ValueError("d_model and n_heads must be of type int")
    if n_heads <= 0 or d_model <= 0:
        raise ValueError("sizes must be positive")
    if d_model % n_heads:
        raise ValueError("uneven split")
    return d_model // n_heads


def scaling_factor(d_model, n_heads):
    d_k = torch.tensor(head_dim(d_model, n_heads), dtype=torch.float64)
    return (1.0 / torch.rsqrt(d_k)).item()


def scale_scores(scores, d_k):
    # 1/sqrt(d_k) made as a float32 tensor whatever the dtype of the scores
    return scores * torch.rsqrt(torch.tensor(float(d_k)))


def attention_scores(q, k):
    d = q.shape[-1]
    return (q @ k.transpose(-2, -1)) * torch.rsqrt(torch.tensor(float(d)))


def multihead_attention_scores(q, k, n_heads):
    b, s, d = q.shape
    d_k = head_dim(d, n_heads)
    qh = q.reshape(b, s, n_heads, d_k).transpose(1, 2)
    kh = k.reshape(b, s, n_heads, d_k).transpose(1, 2)
    return scale_scores(qh @ kh.transpose(-2, -1), d_k)
