# mistake: not-implemented
# file: masking.py
# mutant: future_leak still raises NotImplementedError

def future_leak(attn_weights: torch.Tensor) -> float:
    raise NotImplementedError("future_leak: まだ実装されていません / not implemented yet")
