# mistake: no-scaling
# file: masking.py
# mutant: causal_attention masks q k^T without dividing by sqrt(d_k)

def causal_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return masked_softmax(q @ k.transpose(-2, -1)) @ v
