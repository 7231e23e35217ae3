# mistake: mask-excludes-diagonal
# file: masking.py
# mutant: causal_mask drops the diagonal (tril with diagonal=-1)

def causal_mask(seq_len: int) -> torch.Tensor:
    if isinstance(seq_len, bool) or not isinstance(seq_len, int) or seq_len <= 0:
        raise ValueError(f"seq_len must be a positive int (got {seq_len!r})")
    return torch.ones(seq_len, seq_len, dtype=torch.bool).tril(diagonal=-1)
