# mistake: head-split-order
# file: scaling.py
# mutant: heads split by transposing first, then reshaping: x.transpose(1, 2).reshape(...)
# (only what differs from the reference; it is appended to the reference's file)

def _split_heads(x: torch.Tensor, n_heads: int, d_k: int) -> torch.Tensor:
    batch, seq, _ = x.shape
    return x.transpose(1, 2).reshape(batch, n_heads, seq, d_k)
