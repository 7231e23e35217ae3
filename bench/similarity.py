"""Benchmark: similarity and unknown-mistake clusters on a generated class (seeded).

The class: independent chapter-7 submissions written by a generator that picks, for every
function, one of several ways to write it (checks, operators, torch or numpy, helpers or
not, its own error messages and names); planted copies of some of them (identifiers renamed,
functions reordered, comments and blank lines changed, some turned into notebooks), in pairs
and in rings of 4; planted structural rewrites (a loop turned into a comprehension or back, a
helper inlined); and 5 wrong variants the catalogue does not know, each spelled 10 ways in
otherwise independent submissions.

It grades the class with ``grader batch -j 2`` (timed), then times the similarity and
clustering stage over the batch's reports and submissions, and prints: recall on planted
copies and on rewrites, false pairs per 100 students among independent submissions, cluster
purity and clusters per variant, and the stage's time as a fraction of the batch's.

    python bench/similarity.py -n 500 --seed 7
"""

from __future__ import annotations

import argparse
import ast
import itertools
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUBRIC = ROOT / "rubrics" / "chapter07.yaml"
sys.path.insert(0, str(ROOT / "bench"))
from run import warm_corpus_cache  # noqa: E402 - the corpus's finding cached before timing
ANSWERS = (ROOT / "suites" / "chapter07" / "correct" / "01-minimal-checks" / "answers.yaml").read_text()
API = {"head_dim", "scaling_factor", "scale_scores", "attention_scores", "multihead_attention_scores",
       "softmax", "softmax_with_temperature", "compare_saturation", "softmax_jacobian", "attention",
       "dot_product_variance", "scaled_dot_product_variance", "variance_table"}
WORDS = ("size", "value", "model", "heads", "width", "number", "dimension", "argument", "input", "count",
         "positive", "integer", "whole", "divisible", "split", "evenly", "must", "should", "be", "an", "bad",
         "wrong", "invalid", "expected", "got", "not", "cannot", "heads", "per", "head")


def _msg(r: random.Random) -> str:
    return " ".join(r.choice(WORDS) for _ in range(r.randint(3, 7)))


# --------------------------------------------------------------------------- independent styles


def scaling_py(r: random.Random, rewrite: str = "") -> str:
    m1, m2, m3 = _msg(r), _msg(r), _msg(r)
    check = r.choice([
        f"    if type(d_model) is not int or type(n_heads) is not int:\n        raise ValueError({m1!r})\n"
        f"    if d_model <= 0 or n_heads <= 0:\n        raise ValueError({m2!r})\n",
        f"    for v in (d_model, n_heads):\n        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:\n"
        f"            raise ValueError({m1!r})\n",
        f"    if not (isinstance(d_model, numbers.Integral) and isinstance(n_heads, numbers.Integral)) "
        f"or isinstance(d_model, bool) or isinstance(n_heads, bool):\n        raise ValueError({m1!r})\n"
        f"    if min(d_model, n_heads) < 1:\n        raise ValueError({m2!r})\n",
        f"    ok = type(d_model) == int and type(n_heads) == int and d_model > 0 and n_heads > 0\n"
        f"    if not ok:\n        raise ValueError({m1!r})\n",
    ])
    div = r.choice([
        f"    if d_model % n_heads != 0:\n        raise ValueError({m3!r})\n    return d_model // n_heads\n",
        f"    q, rem = divmod(d_model, n_heads)\n    if rem:\n        raise ValueError({m3!r})\n    return q\n",
        f"    if d_model % n_heads:\n        raise ValueError({m3!r})\n    return int(d_model // n_heads)\n",
    ])
    head = "def head_dim(d_model, n_heads):\n" + check + div
    sqrt = r.choice(["math.sqrt({})", "({}) ** 0.5", "float(np.sqrt({}))", "math.pow({}, 0.5)"])
    sf = r.choice([
        f"def scaling_factor(d_model, n_heads):\n    return {sqrt.format('head_dim(d_model, n_heads)')}\n",
        f"def scaling_factor(d_model, n_heads):\n    dk = head_dim(d_model, n_heads)\n    return {sqrt.format('dk')}\n",
    ])
    if rewrite == "inline":  # head_dim's body inlined into scaling_factor
        body = (check + div).replace("return d_model // n_heads", "d_k = d_model // n_heads") \
            .replace("return q", "d_k = q").replace("return int(d_model // n_heads)", "d_k = int(d_model // n_heads)")
        sf = "def scaling_factor(d_model, n_heads):\n" + body + f"    return {sqrt.format('d_k')}\n"
    ss = r.choice([
        f"def scale_scores(scores, d_k):\n    return scores / {sqrt.format('d_k')}\n",
        "def scale_scores(scores, d_k):\n    return scores * (1.0 / math.sqrt(d_k))\n",
        "def scale_scores(scores, d_k):\n    return scores * d_k ** -0.5\n",
        f"def scale_scores(scores, d_k):\n    factor = {sqrt.format('d_k')}\n    out = scores / factor\n    return out\n",
        "def scale_scores(scores, d_k):\n    return torch.div(scores, math.sqrt(d_k))\n",
    ])
    tr = r.choice(["k.transpose(-2, -1)", "k.transpose(-1, -2)", "k.mT", "torch.transpose(k, -2, -1)"])
    mm = r.choice(["q @ {}", "torch.matmul(q, {})"])
    dk = r.choice(["q.shape[-1]", "q.size(-1)", "k.shape[-1]"])
    at = r.choice([
        f"def attention_scores(q, k):\n    return scale_scores({mm.format(tr)}, {dk})\n",
        f"def attention_scores(q, k):\n    raw = {mm.format(tr)}\n    return raw / {sqrt.format(dk)}\n",
        f"def attention_scores(q, k):\n    d = {dk}\n    s = {mm.format(tr)}\n    return scale_scores(s, d)\n",
        "def attention_scores(q, k):\n    return torch.einsum('...id,...jd->...ij', q, k) / math.sqrt(q.shape[-1])\n",
    ])
    split = r.choice([
        "    qh = q.view(b, t, n_heads, dk).transpose(1, 2)\n    kh = k.view(b, t, n_heads, dk).transpose(1, 2)\n",
        "    qh = q.reshape(b, t, n_heads, dk).permute(0, 2, 1, 3)\n    kh = k.reshape(b, t, n_heads, dk).permute(0, 2, 1, 3)\n",
        "    def split(x):\n        return x.view(b, t, n_heads, dk).transpose(1, 2)\n    qh, kh = split(q), split(k)\n",
    ])
    mh = r.choice([
        "def multihead_attention_scores(q, k, n_heads):\n    b, t, d = q.shape\n    dk = head_dim(d, n_heads)\n" + split
        + "    return scale_scores(qh @ kh.transpose(-2, -1), dk)\n",
        "def multihead_attention_scores(q, k, n_heads):\n    b, t, d = q.shape\n    dk = head_dim(d, n_heads)\n" + split
        + f"    return torch.matmul(qh, kh.transpose(-1, -2)) / {sqrt.format('dk')}\n",
    ])
    imports = "import math\nimport numbers\n\nimport numpy as np\nimport torch\n"
    return imports + "\n\n" + "\n\n".join([head, sf, ss, at, mh])


def softmax_py(r: random.Random, rewrite: str = "") -> str:
    mt = _msg(r)
    sm = r.choice([
        "def softmax(x, dim=-1):\n    e = torch.exp(x - x.amax(dim=dim, keepdim=True))\n    return e / e.sum(dim=dim, keepdim=True)\n",
        "def softmax(x, dim=-1):\n    return torch.softmax(x, dim=dim)\n",
        "def softmax(x, dim=-1):\n    return x.softmax(dim)\n",
        "def softmax(x, dim=-1):\n    return torch.log_softmax(x, dim=dim).exp()\n",
        "def softmax(x, dim=-1):\n    m = torch.max(x, dim=dim, keepdim=True).values\n    z = torch.exp(x - m)\n    return z / torch.sum(z, dim=dim, keepdim=True)\n",
        "def softmax(x, dim=-1):\n    return F.softmax(x, dim=dim)\n",
    ])
    chk = r.choice([f"    if temperature <= 0:\n        raise ValueError({mt!r})\n",
                    f"    if not temperature > 0:\n        raise ValueError({mt!r})\n"])
    tp = r.choice([
        "def softmax_with_temperature(x, temperature, dim=-1):\n" + chk + "    return softmax(x / temperature, dim)\n",
        "def softmax_with_temperature(x, temperature, dim=-1):\n" + chk + "    return softmax(x / temperature, dim=dim)\n",
        "def softmax_with_temperature(x, temperature, dim=-1):\n" + chk + "    scaled = x / temperature\n    return torch.softmax(scaled, dim=dim)\n",
    ])
    if rewrite == "inline":  # softmax inlined
        tp = ("def softmax_with_temperature(x, temperature, dim=-1):\n" + chk
              + "    y = x / temperature\n    e = torch.exp(y - y.amax(dim=dim, keepdim=True))\n"
                "    return e / e.sum(dim=dim, keepdim=True)\n")
    cs = r.choice([
        "def compare_saturation(scores, d_k):\n    return {'unscaled': softmax(scores).max().item(),\n            'scaled': softmax(scores / math.sqrt(d_k)).max().item()}\n",
        "def compare_saturation(scores, d_k):\n    a = float(softmax(scores).max())\n    b = float(softmax(scores / math.sqrt(d_k)).max())\n    return {'unscaled': a, 'scaled': b}\n",
        "def compare_saturation(scores, d_k):\n    out = {}\n    out['unscaled'] = torch.softmax(scores, -1).max().item()\n    out['scaled'] = torch.softmax(scores / d_k ** 0.5, -1).max().item()\n    return out\n",
    ])
    jac = r.choice([
        "def softmax_jacobian(p):\n    return torch.diag(p) - torch.outer(p, p)\n",
        "def softmax_jacobian(p):\n    return torch.diag_embed(p) - p.unsqueeze(1) * p.unsqueeze(0)\n",
        "def softmax_jacobian(p):\n    n = p.shape[0]\n    return p[:, None] * torch.eye(n, dtype=p.dtype) - p[:, None] * p[None, :]\n",
        "def softmax_jacobian(p):\n    col = p.reshape(-1, 1)\n    return torch.diagflat(p) - col @ col.T\n",
    ])
    att = r.choice([
        "def attention(q, k, v):\n    w = softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]))\n    return w @ v\n",
        "def attention(q, k, v):\n    return torch.softmax(torch.matmul(q, k.transpose(-1, -2)) / q.size(-1) ** 0.5, dim=-1) @ v\n",
        "def attention(q, k, v):\n    scores = q @ k.mT\n    scores = scores / math.sqrt(k.shape[-1])\n    return softmax(scores, dim=-1) @ v\n",
    ])
    return "import math\n\nimport torch\nimport torch.nn.functional as F\n\n\n" + "\n\n".join([sm, tp, cs, jac, att])


def variance_py(r: random.Random, rewrite: str = "") -> str:
    dots = r.choice([
        "    g = torch.Generator().manual_seed(seed)\n    q = torch.randn(n_samples, d_k, generator=g)\n    k = torch.randn(n_samples, d_k, generator=g)\n    s = (q * k).sum(dim=1)\n",
        "    gen = torch.Generator()\n    gen.manual_seed(seed)\n    q = torch.randn((n_samples, d_k), generator=gen, dtype=torch.float64)\n    k = torch.randn((n_samples, d_k), generator=gen, dtype=torch.float64)\n    s = torch.einsum('nd,nd->n', q, k)\n",
        "    rng = np.random.default_rng(seed)\n    q = rng.standard_normal((n_samples, d_k))\n    k = rng.standard_normal((n_samples, d_k))\n    s = torch.from_numpy((q * k).sum(axis=1))\n",
    ])
    helper = r.random() < 0.5
    out = []
    if helper:
        out.append("def _dots(d_k, n_samples, seed):\n" + dots + "    return s\n")
        dv = "def dot_product_variance(d_k, n_samples=10000, seed=0):\n    return _dots(d_k, n_samples, seed).var().item()\n"
        sv = "def scaled_dot_product_variance(d_k, n_samples=10000, seed=0):\n    return (_dots(d_k, n_samples, seed) / math.sqrt(d_k)).var().item()\n"
    else:
        dv = "def dot_product_variance(d_k, n_samples=10000, seed=0):\n" + dots + "    return s.var().item()\n"
        sv = "def scaled_dot_product_variance(d_k, n_samples=10000, seed=0):\n" + dots + "    return (s / math.sqrt(d_k)).var().item()\n"
    loop = r.random() < 0.5
    if rewrite in ("loop", "comprehension"):
        loop = rewrite == "loop"
    row = ("{'d_k': d, 'variance': v, 'std': math.sqrt(v), 'sqrt_d_k': math.sqrt(d), "
           "'scaled_variance': scaled_dot_product_variance(d, n_samples, seed)}")
    if loop:
        vt = ("def variance_table(dims, n_samples=10000, seed=0):\n    table = []\n    for d in dims:\n"
              "        v = dot_product_variance(d, n_samples, seed)\n        table.append(" + row + ")\n    return table\n")
    else:
        vt = ("def variance_table(dims, n_samples=10000, seed=0):\n    vs = [dot_product_variance(d, n_samples, seed) for d in dims]\n"
              "    return [" + row.replace("d,", "d,") + " for d, v in zip(dims, vs)]\n")
    out += [dv, sv, vt]
    return "import math\n\nimport numpy as np\nimport torch\n\n\n" + "\n\n".join(out)


# --------------------------------------------------------------------------- the 5 unknown variants


def _replace_def(code: str, name: str, new: str) -> str:
    tree = ast.parse(code)
    lines = code.splitlines()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return "\n".join(lines[:node.lineno - 1] + new.rstrip().splitlines() + lines[node.end_lineno:]) + "\n"
    raise ValueError(name)


#: variant -> (file, function, 10 spellings of the same wrong behaviour)
VARIANTS = {
    "clamped-scores": ("scaling.py", "scale_scores", [
        "def scale_scores(scores, d_k):\n    return (scores / math.sqrt(d_k)).clamp(-4, 4)\n",
        "def scale_scores(scores, d_k):\n    return torch.clamp(scores / d_k ** 0.5, min=-4.0, max=4.0)\n",
        "def scale_scores(scores, d_k):\n    s = scores * (1 / math.sqrt(d_k))\n    return torch.clip(s, -4, 4)\n",
        "def scale_scores(scores, d_k):\n    s = scores / math.sqrt(d_k)\n    return s.clamp(min=-4).clamp(max=4)\n",
        "def scale_scores(scores, d_k):\n    s = scores / np.sqrt(d_k)\n    return torch.maximum(torch.minimum(s, torch.tensor(4.0)), torch.tensor(-4.0))\n",
        "def scale_scores(scores, d_k):\n    limit = 4\n    out = scores / math.sqrt(d_k)\n    return out.clip(-limit, limit)\n",
        "def scale_scores(scores, d_k):\n    s = torch.div(scores, math.sqrt(d_k))\n    s = torch.where(s > 4, torch.full_like(s, 4), s)\n    return torch.where(s < -4, torch.full_like(s, -4), s)\n",
        "def scale_scores(scores, d_k):\n    return (scores * d_k ** -0.5).clamp(-4.0, 4.0)\n",
        "def scale_scores(scores, d_k):\n    y = scores / float(np.sqrt(d_k))\n    y = torch.clamp(y, max=4)\n    return torch.clamp(y, min=-4)\n",
        "def scale_scores(scores, d_k):\n    CAP = 4.0\n    return torch.clamp(scores / math.pow(d_k, 0.5), -CAP, CAP)\n",
    ]),
    "shifted-scores": ("scaling.py", "scale_scores", [
        "def scale_scores(scores, d_k):\n    return scores / math.sqrt(d_k) + 1\n",
        "def scale_scores(scores, d_k):\n    return 1 + scores / d_k ** 0.5\n",
        "def scale_scores(scores, d_k):\n    s = scores * (1 / math.sqrt(d_k))\n    return s + 1.0\n",
        "def scale_scores(scores, d_k):\n    out = scores / math.sqrt(d_k)\n    out = out + torch.ones_like(out)\n    return out\n",
        "def scale_scores(scores, d_k):\n    return torch.add(torch.div(scores, math.sqrt(d_k)), 1)\n",
        "def scale_scores(scores, d_k):\n    bias = 1\n    return scores / np.sqrt(d_k) + bias\n",
        "def scale_scores(scores, d_k):\n    return (scores + math.sqrt(d_k)) / math.sqrt(d_k)\n",
        "def scale_scores(scores, d_k):\n    f = math.sqrt(d_k)\n    return scores / f + 1\n",
        "def scale_scores(scores, d_k):\n    return scores * d_k ** -0.5 + 1.0\n",
        "def scale_scores(scores, d_k):\n    y = torch.div(scores, math.pow(d_k, 0.5))\n    return y.add(1)\n",
    ]),
    "variance-plus-one": ("variance.py", "dot_product_variance", [
        "def dot_product_variance(d_k, n_samples=10000, seed=0):\n    g = torch.Generator().manual_seed(seed)\n    q = torch.randn(n_samples, d_k, generator=g)\n    k = torch.randn(n_samples, d_k, generator=g)\n    return (q * k).sum(dim=1).var().item() + 1\n",
        "def dot_product_variance(d_k, n_samples=10000, seed=0):\n    g = torch.Generator().manual_seed(seed)\n    q = torch.randn(n_samples, d_k, generator=g)\n    k = torch.randn(n_samples, d_k, generator=g)\n    return 1 + torch.var((q * k).sum(1)).item()\n",
        "def dot_product_variance(d_k, n_samples=10000, seed=0):\n    g = torch.Generator().manual_seed(seed)\n    q = torch.randn(n_samples, d_k, generator=g)\n    k = torch.randn(n_samples, d_k, generator=g)\n    s = torch.einsum('nd,nd->n', q, k)\n    return s.var().item() + 1.0\n",
        "def dot_product_variance(d_k, n_samples=10000, seed=0):\n    g = torch.Generator().manual_seed(seed)\n    q = torch.randn(n_samples, d_k, generator=g)\n    k = torch.randn(n_samples, d_k, generator=g)\n    s = (q * k).sum(dim=-1)\n    return float(torch.var(s)) + 1\n",
        "def dot_product_variance(d_k, n_samples=10000, seed=0):\n    g = torch.Generator().manual_seed(seed)\n    q = torch.randn(n_samples, d_k, generator=g)\n    k = torch.randn(n_samples, d_k, generator=g)\n    s = (q * k).sum(1)\n    v = s.var()\n    return (v + 1).item()\n",
        "def dot_product_variance(d_k, n_samples=10000, seed=0):\n    g = torch.Generator().manual_seed(seed)\n    q = torch.randn(n_samples, d_k, generator=g)\n    k = torch.randn(n_samples, d_k, generator=g)\n    dots = torch.sum(q * k, dim=1)\n    offset = 1.0\n    return dots.var().item() + offset\n",
        "def dot_product_variance(d_k, n_samples=10000, seed=0):\n    g = torch.Generator().manual_seed(seed)\n    q = torch.randn(n_samples, d_k, generator=g)\n    k = torch.randn(n_samples, d_k, generator=g)\n    s = (q * k).sum(dim=1)\n    return ((s - s.mean()) ** 2).sum().item() / (n_samples - 1) + 1\n",
        "def dot_product_variance(d_k, n_samples=10000, seed=0):\n    g = torch.Generator().manual_seed(seed)\n    q = torch.randn(n_samples, d_k, generator=g)\n    k = torch.randn(n_samples, d_k, generator=g)\n    return torch.add(torch.var(torch.einsum('ij,ij->i', q, k)), 1).item()\n",
        "def dot_product_variance(d_k, n_samples=10000, seed=0):\n    g = torch.Generator().manual_seed(seed)\n    q = torch.randn(n_samples, d_k, generator=g)\n    k = torch.randn(n_samples, d_k, generator=g)\n    s = (q * k).sum(1)\n    return s.var(unbiased=True).item() + 1.0\n",
        "def dot_product_variance(d_k, n_samples=10000, seed=0):\n    g = torch.Generator().manual_seed(seed)\n    q = torch.randn(n_samples, d_k, generator=g)\n    k = torch.randn(n_samples, d_k, generator=g)\n    v = (q * k).sum(dim=1).var().item()\n    v += 1\n    return v\n",
    ]),
    "temperature-squared": ("softmax.py", "softmax_with_temperature", [
        "def softmax_with_temperature(x, temperature, dim=-1):\n    if temperature <= 0:\n        raise ValueError('t')\n    return softmax(x / temperature ** 2, dim)\n",
        "def softmax_with_temperature(x, temperature, dim=-1):\n    if temperature <= 0:\n        raise ValueError('bad temperature')\n    return torch.softmax(x / (temperature * temperature), dim=dim)\n",
        "def softmax_with_temperature(x, temperature, dim=-1):\n    if not temperature > 0:\n        raise ValueError('temperature must be > 0')\n    return softmax(x / temperature / temperature, dim=dim)\n",
        "def softmax_with_temperature(x, temperature, dim=-1):\n    if temperature <= 0:\n        raise ValueError('no')\n    t2 = temperature ** 2\n    return torch.softmax(x / t2, dim)\n",
        "def softmax_with_temperature(x, temperature, dim=-1):\n    if temperature <= 0:\n        raise ValueError('positive please')\n    return F.softmax(x / math.pow(temperature, 2), dim=dim)\n",
        "def softmax_with_temperature(x, temperature, dim=-1):\n    if temperature <= 0:\n        raise ValueError('temperature')\n    y = x / temperature\n    return softmax(y / temperature, dim)\n",
        "def softmax_with_temperature(x, temperature, dim=-1):\n    if temperature <= 0:\n        raise ValueError('must be positive')\n    return (x / temperature ** 2).softmax(dim)\n",
        "def softmax_with_temperature(x, temperature, dim=-1):\n    if temperature <= 0:\n        raise ValueError('t > 0')\n    return torch.softmax(x * (1 / temperature ** 2), dim=dim)\n",
        "def softmax_with_temperature(x, temperature, dim=-1):\n    if temperature <= 0:\n        raise ValueError('bad t')\n    s = temperature * temperature\n    return softmax(x / s, dim=dim)\n",
        "def softmax_with_temperature(x, temperature, dim=-1):\n    if temperature <= 0:\n        raise ValueError('temperature <= 0')\n    return torch.log_softmax(x / temperature ** 2, dim=dim).exp()\n",
    ]),
    "variance-of-abs": ("variance.py", "dot_product_variance", [
        "def dot_product_variance(d_k, n_samples=10000, seed=0):\n    g = torch.Generator().manual_seed(seed)\n    q = torch.randn(n_samples, d_k, generator=g)\n    k = torch.randn(n_samples, d_k, generator=g)\n    return (q * k).sum(dim=1).abs().var().item()\n",
        "def dot_product_variance(d_k, n_samples=10000, seed=0):\n    g = torch.Generator().manual_seed(seed)\n    q = torch.randn(n_samples, d_k, generator=g)\n    k = torch.randn(n_samples, d_k, generator=g)\n    return torch.abs((q * k).sum(1)).var().item()\n",
        "def dot_product_variance(d_k, n_samples=10000, seed=0):\n    gen = torch.Generator()\n    gen.manual_seed(seed)\n    q = torch.randn((n_samples, d_k), generator=gen)\n    k = torch.randn((n_samples, d_k), generator=gen)\n    s = torch.einsum('nd,nd->n', q, k)\n    return s.abs().var().item()\n",
        "def dot_product_variance(d_k, n_samples=10000, seed=0):\n    g = torch.Generator().manual_seed(seed)\n    q = torch.randn(n_samples, d_k, generator=g)\n    k = torch.randn(n_samples, d_k, generator=g)\n    s = (q * k).sum(dim=-1)\n    return float(torch.var(torch.abs(s)))\n",
        "def dot_product_variance(d_k, n_samples=10000, seed=0):\n    g = torch.Generator().manual_seed(seed)\n    q = torch.randn(n_samples, d_k, generator=g)\n    k = torch.randn(n_samples, d_k, generator=g)\n    s = (q * k).sum(1)\n    s = torch.where(s < 0, -s, s)\n    return s.var().item()\n",
        "def dot_product_variance(d_k, n_samples=10000, seed=0):\n    g = torch.Generator().manual_seed(seed)\n    q = torch.randn(n_samples, d_k, generator=g)\n    k = torch.randn(n_samples, d_k, generator=g)\n    return ((q * k).sum(dim=1) ** 2).sqrt().var().item()\n",
        "def dot_product_variance(d_k, n_samples=10000, seed=0):\n    g = torch.Generator().manual_seed(seed)\n    q = torch.randn(n_samples, d_k, generator=g)\n    k = torch.randn(n_samples, d_k, generator=g)\n    mag = torch.abs(torch.sum(q * k, dim=1))\n    return mag.var(unbiased=True).item()\n",
        "def dot_product_variance(d_k, n_samples=10000, seed=0):\n    g = torch.Generator().manual_seed(seed)\n    a = torch.randn(n_samples, d_k, generator=g)\n    b = torch.randn(n_samples, d_k, generator=g)\n    return (a * b).sum(1).abs().var().item()\n",
        "def dot_product_variance(d_k, n_samples=10000, seed=0):\n    g = torch.Generator().manual_seed(seed)\n    q = torch.randn(n_samples, d_k, generator=g)\n    k = torch.randn(n_samples, d_k, generator=g)\n    d = (q * k).sum(dim=1).abs()\n    return ((d - d.mean()) ** 2).sum().item() / (n_samples - 1)\n",
        "def dot_product_variance(d_k, n_samples=10000, seed=0):\n    g = torch.Generator().manual_seed(seed)\n    q = torch.randn(n_samples, d_k, generator=g)\n    k = torch.randn(n_samples, d_k, generator=g)\n    return torch.abs(torch.einsum('ij,ij->i', q, k)).var().item()\n",
    ]),
}


# --------------------------------------------------------------------------- copies


class _Rename(ast.NodeTransformer):
    """Every name the student chose gets another: locals, arguments stay (the API's keywords)."""

    def __init__(self, r: random.Random) -> None:
        self.r = r
        self.names: dict[str, str] = {}

    def new(self, old: str) -> str:
        if old not in self.names:
            self.names[old] = f"{self.r.choice(['tmp', 'val', 'x', 'my', 'res', 'aux'])}_{len(self.names)}"
        return self.names[old]

    def visit_Name(self, node: ast.Name) -> ast.AST:
        keep = node.id in API or node.id in {"math", "np", "torch", "F", "numbers", "float", "int", "min", "max",
                                              "isinstance", "type", "bool", "divmod", "zip", "range", "ValueError",
                                              "d_model", "n_heads", "scores", "d_k", "q", "k", "v", "x", "dim",
                                              "temperature", "p", "n_samples", "seed", "dims", "len"}
        if not keep:
            node.id = self.new(node.id)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        if node.name not in API:
            node.name = self.new(node.name)
        self.generic_visit(node)
        return node


def disguise(code: str, r: random.Random) -> str:
    """Rename, reorder the functions, change comments and blank lines."""
    tree = _Rename(r).visit(ast.parse(code))
    imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    defs = [n for n in tree.body if not isinstance(n, (ast.Import, ast.ImportFrom))]
    r.shuffle(defs)
    out = [ast.unparse(n) for n in imports]
    for d in defs:
        out.append("\n" * r.randint(1, 3) + f"# {_msg(r)}\n" + ast.unparse(d))
    return "\n".join(out) + "\n"


def write_folder(folder: Path, files: dict[str, str]) -> None:
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "answers.yaml").write_text(ANSWERS, encoding="utf-8")


def write_notebook(path: Path, files: dict[str, str]) -> None:
    import nbformat

    nb = nbformat.v4.new_notebook()
    cells = [nbformat.v4.new_markdown_cell("# chapter 7")]
    for text in files.values():
        cells += [nbformat.v4.new_code_cell(part.strip()) for part in text.split("\n\n\n") if part.strip()]
    cells.append(nbformat.v4.new_raw_cell("# answers.yaml\n" + ANSWERS))
    nb.cells = cells
    nbformat.write(nb, str(path))


# --------------------------------------------------------------------------- the class


def make_class(root: Path, n: int, seed: int) -> dict:
    """Write the class under root/src; return what was planted."""
    r = random.Random(seed)
    src = root / "src"
    src.mkdir(parents=True)
    truth: dict = {"copies": [], "rewrites": [], "variants": {}, "independent": []}
    n_unknown = 50
    ring_members, pair_copies, rewrites = 3 * 3, 25, 10
    n_indep = n - n_unknown - ring_members - pair_copies - rewrites
    students: dict[str, dict[str, str]] = {}
    seeds: dict[str, int] = {}
    for i in range(n_indep):
        name = f"s{i:03d}"
        seeds[name] = r.randrange(2**31)
        rr = random.Random(seeds[name])
        students[name] = {"scaling.py": scaling_py(rr), "softmax.py": softmax_py(rr), "variance.py": variance_py(rr)}
        write_folder(src / name, students[name])
        truth["independent"].append(name)
    originals = r.sample(truth["independent"], 25 + 3 + 10)
    for j, orig in enumerate(originals[:25]):  # pairs: original + one disguised copy
        name = f"c{j:03d}"
        files = {f: disguise(t, r) for f, t in students[orig].items()}
        if j % 3 == 0:
            write_notebook(src / f"{name}.ipynb", files)
        else:
            write_folder(src / name, files)
        truth["copies"].append([orig, name])
    for j, orig in enumerate(originals[25:28]):  # rings of 4: the original and three copies
        ring = [orig]
        for m in range(3):
            name = f"r{j}{m}"
            files = {f: disguise(t, r) for f, t in students[orig].items()}
            if m == 2:
                write_notebook(src / f"{name}.ipynb", files)
            else:
                write_folder(src / name, files)
            ring.append(name)
        truth["copies"] += [list(p) for p in itertools.combinations(ring, 2)]
    for j, orig in enumerate(originals[28:38]):  # structural rewrites of the original's own choices
        rr = random.Random(seeds[orig])
        kind = ["inline", "loop", "comprehension"][j % 3]
        files = {"scaling.py": scaling_py(rr, "inline" if kind == "inline" else ""),
                 "softmax.py": softmax_py(rr, "inline" if kind == "inline" else ""),
                 "variance.py": variance_py(rr, "" if kind == "inline" else kind)}
        if files == students[orig]:  # the rewrite must change something: flip the loop form
            files["variance.py"] = variance_py(random.Random(seeds[orig]), "comprehension" if "for d in dims" in students[orig]["variance.py"] else "loop")
        name = f"w{j:03d}"
        write_folder(src / name, files)
        truth["rewrites"].append([orig, name])
    k = 0
    for variant, (file, func, spellings) in VARIANTS.items():
        truth["variants"][variant] = []
        for spelling in spellings:
            name = f"u{k:03d}"
            k += 1
            rr = random.Random(r.randrange(2**31))
            files = {"scaling.py": scaling_py(rr), "softmax.py": softmax_py(rr), "variance.py": variance_py(rr)}
            files[file] = _replace_def(files[file], func, spelling)
            write_folder(src / name, files)
            truth["variants"][variant].append(name)
    return truth


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=500, help="students in the class (at least 150)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", default=None, help="keep the class and the batch output in this folder")
    args = ap.parse_args()
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="grader-similarity-"))
    if root.exists() and args.keep:
        shutil.rmtree(root)
    truth = make_class(root, args.n, args.seed)
    warm_corpus_cache(root, RUBRIC)
    out = root / "out"
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "grader", "batch", str(root / "src"), "--out", str(out),
                           "--rubric", str(RUBRIC), "-j", str(args.jobs), "--no-progress", "--no-table",
                           "--seed", "1"], capture_output=True, text=True, check=False)
    batch_s = time.perf_counter() - started
    if proc.returncode not in (0, 1):
        print(proc.stderr[-3000:])
        return 1

    from grader.insight import unknown_mistakes as grouping
    from grader.insight import similarity
    from grader.spec.rubric.load import load_rubric
    from grader.insight.similarity import submissions_in

    rubric = load_rubric(RUBRIC)
    reports = grouping.read_reports(out)
    subs = submissions_in(str(root / "src"), out, rubric)  # the batch holds these already
    t0 = time.perf_counter()
    result = similarity.compute(out, rubric, submissions=subs, reports=reports)
    groups = grouping.clusters(reports)
    grouping.write_clusters(groups, out)
    stage_s = time.perf_counter() - t0

    flagged = {frozenset((p.a, p.b)) for p in result.pairs}
    copies = [frozenset(p) for p in truth["copies"]]
    rewrites = [frozenset(p) for p in truth["rewrites"]]
    planted = set(copies) | set(rewrites)
    independent = set(truth["independent"]) | {m for ms in truth["variants"].values() for m in ms}
    false = [p for p in flagged if p not in planted and p <= independent]
    other = [p for p in flagged if p not in planted and not p <= independent]
    print(f"class: {args.n} students ({len(truth['independent'])} independent, {len(copies)} planted copy pairs "
          f"incl. 3 rings of 4, {len(rewrites)} rewrites, 5 unknown variants x 10), seed {args.seed}")
    print(f"recall on planted copies:     {sum(p in flagged for p in copies)}/{len(copies)} = "
          f"{100 * sum(p in flagged for p in copies) / len(copies):.1f} %  (target >= 95 %)")
    print(f"recall on structural rewrites: {sum(p in flagged for p in rewrites)}/{len(rewrites)} = "
          f"{100 * sum(p in flagged for p in rewrites) / len(rewrites):.1f} %  (target >= 70 %)")
    print(f"false pairs among independent submissions: {len(false)} = {100 * len(false) / args.n:.2f} per 100 "
          f"students  (target <= 1); other flagged pairs (a planted copy with a third student): {len(other)}")
    where = {m.submission: c.number for c in groups for m in c.members}
    by_number = {c.number: c for c in groups}
    worst_ok = True
    for variant, members in truth["variants"].items():
        numbers = sorted({where[m] for m in members if m in where}, key=lambda c: -by_number[c].size)
        purities = []
        for c in numbers:
            names = {m.submission for m in by_number[c].members}
            purities.append(len(names & set(members)) / len(names))
        missing = [m for m in members if m not in where]
        ok = len(numbers) <= 2 and all(p >= 0.95 for p in purities) and not missing
        worst_ok &= ok
        print(f"variant {variant:20s}: {len(numbers)} cluster(s), purity {', '.join(f'{p:.2f}' for p in purities)}"
              + (f", not clustered: {len(missing)}" if missing else "") + ("" if ok else "  <- misses the target"))
    print(f"unknown variants: {'all' if worst_ok else 'not all'} in <= 2 clusters of purity >= 0.95; "
          f"{len(groups)} clusters in all")
    print(f"time: batch {batch_s:.1f} s, similarity + clusters {stage_s:.2f} s = {stage_s / batch_s:.3f} x the batch "
          "(target <= 0.1)")
    (root / "truth.json").write_text(json.dumps(truth, indent=1))
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
