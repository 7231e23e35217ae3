# mistake: missing-value-error
# file: scaling.py
# mutant: head_dim divides without checking its arguments
# (only what differs from the reference; it is appended to the reference's file)

def head_dim(d_model: int, n_heads: int) -> int:
    return d_model // n_heads
