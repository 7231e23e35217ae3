import math

import numpy as np
import torch


def softmax(x, dim=-1):
    a = np.asarray(x)
    a = a - np.max(a, axis=dim, keepdims=True)
    np.exp(a, out=a)
    a /= np.sum(a, axis=dim, keepdims=True)
    return torch.from_numpy(a)


def softmax_with_temperature(x, temperature, dim=-1):
    if temperature <= 0:
        raise ValueError("temperature must be > 0")
    return softmax(np.asarray(x) / temperature, dim)


def compare_saturation(scores, d_k):
    a = np.asarray(scores, dtype=np.float64)
    return {"unscaled": float(softmax(a).max()), "scaled": float(softmax(a / math.sqrt(d_k)).max())}


def softmax_jacobian(p):
    a = np.asarray(p)
    return torch.from_numpy(np.diag(a) - np.outer(a, a))


def attention(q, k, v):
    qa, ka, va = (np.asarray(t) for t in (q, k, v))
    w = softmax(qa @ np.swapaxes(ka, -1, -2) / math.sqrt(qa.shape[-1]), -1).numpy()
    return torch.from_numpy(w @ va)
