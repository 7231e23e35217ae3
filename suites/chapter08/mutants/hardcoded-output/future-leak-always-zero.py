# mistake: hardcoded-output
# file: masking.py
# mutant: future_leak returns 0.0, the answer for a correct causal attention, whatever it is given

def future_leak(attn_weights: torch.Tensor) -> float:
    return 0.0
