# mistake: sqrt-d-model
# file: masking.py
# mutant: causal_attention divides by sqrt(768), GPT-2 small's d_model, whatever d_k is

def causal_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return masked_softmax(q @ k.transpose(-2, -1) / math.sqrt(768)) @ v
