# mistake: head-split-order
# file: scaling.py
# mutant: heads split with view(batch, n_heads, seq, d_k), no transpose
# (only what differs from the reference; it is appended to the reference's file)

def _split_heads(x: torch.Tensor, n_heads: int, d_k: int) -> torch.Tensor:
    batch, seq, _ = x.shape
    # GPT-2 splits the last axis into (n_heads, d_k), then moves heads in front of seq.
    # reshape rather than view so a non-contiguous input (e.g. a transposed tensor) works.
    return x.reshape(batch, n_heads, seq, d_k)
