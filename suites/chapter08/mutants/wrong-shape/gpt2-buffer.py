# mistake: wrong-shape
# file: masking.py
# mutant: causal_mask returns Hugging Face GPT-2's 4-D mask buffer, shape (1, 1, n, n), for
# an (n, n) request: the right values in the wrong shape

def causal_mask(seq_len: int) -> torch.Tensor:
    if isinstance(seq_len, bool) or not isinstance(seq_len, int) or seq_len <= 0:
        msg = f"seq_len must be a positive int (got {seq_len!r})"
        raise ValueError(msg)
    return torch.tril(torch.ones((seq_len, seq_len), dtype=torch.bool)).view(1, 1, seq_len, seq_len)
