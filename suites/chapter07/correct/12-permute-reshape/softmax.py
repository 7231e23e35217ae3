import numpy as np
import torch


def softmax(x, dim=-1):
    a = x.numpy() if isinstance(x, torch.Tensor) else np.asarray(x)
    e = np.exp(a - a.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


def softmax_with_temperature(x, temperature, dim=-1):
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    return softmax(x / temperature, dim)


def compare_saturation(scores, d_k):
    s = scores.numpy()
    return {"unscaled": float(softmax(s).max()), "scaled": float(softmax(s / np.sqrt(d_k)).max())}


def softmax_jacobian(p):
    a = p.numpy()
    return np.diag(a) - np.outer(a, a)


def attention(q, k, v):
    qa, ka, va = q.numpy(), k.numpy(), v.numpy()
    scores = qa @ np.swapaxes(ka, -1, -2) / np.sqrt(qa.shape[-1])
    return softmax(scores, -1) @ va
