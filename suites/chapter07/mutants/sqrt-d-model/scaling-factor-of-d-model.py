# mistake: sqrt-d-model
# file: scaling.py
# mutant: scaling_factor returns sqrt(d_model) after checking the sizes
# (only what differs from the reference; it is appended to the reference's file)

def scaling_factor(d_model: int, n_heads: int) -> float:
    head_dim(d_model, n_heads)
    return math.sqrt(d_model)
