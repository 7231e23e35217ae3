import math

import torch


def softmax(x, dim=-1):
    z = x - x.max(dim=dim, keepdim=True)[0]
    e = z.exp()
    return e / e.sum(dim, keepdim=True)


def softmax_with_temperature(x, temperature, dim=-1):
    if temperature <= 0:
        raise ValueError("temperature <= 0")
    return softmax(x / temperature, dim)


def compare_saturation(scores, d_k):
    values = [float(v) for v in scores]
    def top(vals):
        m = max(vals)
        ex = [math.exp(v - m) for v in vals]
        return max(ex) / sum(ex)
    return {"unscaled": top(values), "scaled": top([v / math.sqrt(d_k) for v in values])}


def softmax_jacobian(p):
    probs = [float(v) for v in p]
    return [[pi * ((1.0 if i == j else 0.0) - pj) for j, pj in enumerate(probs)]
            for i, pi in enumerate(probs)]


def attention(q, k, v):
    w = softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]))
    return w @ v
