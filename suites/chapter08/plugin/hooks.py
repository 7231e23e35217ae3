"""Chapter 8's plug-in: recognising the causal-mask mistakes from behaviour, the heat-map figure.

Every recogniser reads weights, not source. The probes are chosen so that each mistake gives a
different matrix of attention weights W for the same scores S:

====================== ====================================================================
correct                softmax(S with -inf where j > i): rows sum to 1, W[j > i] == 0
mask-after-softmax     softmax(S) with W[j > i] set to 0 afterwards: rows sum to less than 1
mask-zero-not-inf      softmax(S with a finite c where j > i): W[j > i] = e^(c - ...) > 0;
                       c is read back as S[i, i] + log(W[i, j] / W[i, i])
mask-transposed        softmax(S with -inf where j < i): the last row is [0, ..., 0, 1]
mask-excludes-diagonal softmax(S with -inf where j >= i): row 0 is NaN
mask-not-applied       softmax(S): the future gets weight
====================== ====================================================================

``causal_attention`` is probed with v = the identity, so its output *is* its weight matrix; the
divisor it applied to q kᵀ is then read back from the ratios of allowed weights (chapter 7's
``no-scaling`` and ``sqrt-d-model``). Input modification is seen from the arguments as the call
left them (``Probe.args_after``).

This file ships with the public suite: it holds no answer the hidden suite or the quiz key keeps
secret. Expected values come from the reference when it is loaded, else from ``ORACLE`` (torch).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from grader.kit import Figure
from grader.kit import figure, png, style
from grader.kit import Finding, Probe, Raised, Unavailable, arr, close, describe_call, hardcoded, num, seeded_randn as randn, show, unrecognised

MASKING = "masking"
GPT2_D_MODEL, GPT2_HEADS = 768, 12
D_K = GPT2_D_MODEL // GPT2_HEADS  # 64: the chapter's head width
N = 5  # probe sequence length: small enough to quote a row, large enough for every pattern


# --------------------------------------------------------------------------- weights


def _future(n: int) -> np.ndarray:
    return np.triu(np.ones((n, n), dtype=bool), k=1)


def _softmax_rows(s: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        m = np.max(s, axis=-1, keepdims=True)
        e = np.exp(s - m)
        return np.asarray(e / e.sum(axis=-1, keepdims=True))


def _masked(s: np.ndarray, where: np.ndarray, fill: float = -np.inf) -> np.ndarray:
    out = np.array(s, dtype=np.float64, copy=True)
    out[np.broadcast_to(where, out.shape)] = fill
    return out


def variants(s: np.ndarray) -> dict[str, np.ndarray]:
    """The weights each mistake gives for scores ``s`` (..., n, n); ``""`` is the right answer."""
    n = s.shape[-1]
    fut = _future(n)
    plain = _softmax_rows(s)
    return {
        "": _softmax_rows(_masked(s, fut)),
        "mask-not-applied": plain,
        "mask-after-softmax": np.where(np.broadcast_to(fut, s.shape), 0.0, plain),
        "mask-transposed": _softmax_rows(_masked(s, np.tril(np.ones((n, n), dtype=bool), k=-1))),
        "mask-excludes-diagonal": _softmax_rows(_masked(s, ~np.tril(np.ones((n, n), dtype=bool), k=-1))),
    }


def _leak(w: np.ndarray) -> float:
    fut = np.broadcast_to(_future(w.shape[-1]), w.shape)
    return float(np.nan_to_num(np.where(fut, w, 0.0)).sum(axis=-1).max())


def _row(w: np.ndarray, i: int) -> str:
    row = w.reshape(-1, *w.shape[-2:])[0, i]
    return "[" + ", ".join(str(float(x)) if not math.isfinite(x) else f"{x:.3g}" for x in row) + "]"


def _fill_value(s: np.ndarray, w: np.ndarray) -> float | None:
    """The finite c written into the masked scores, when one c explains every future weight."""
    n = s.shape[-1]
    s2, w2 = s.reshape(-1, n, n), w.reshape(-1, n, n)
    cs = []
    for b in range(s2.shape[0]):
        for i in range(n - 1):
            for j in range(i + 1, n):
                if not (w2[b, i, j] > 0 and w2[b, i, i] > 0):
                    return None
                cs.append(s2[b, i, i] + math.log(w2[b, i, j] / w2[b, i, i]))
    if not cs:
        return None
    c = float(np.median(cs))
    if max(abs(x - c) for x in cs) > 1e-3 * max(1.0, abs(c)):
        return None
    return 0.0 if abs(c) < 1e-4 else c


def _written_after(w: np.ndarray, plain: np.ndarray) -> float | None:
    """The one value c (-inf, -1e9, ...; not 0, the plain mask-after-softmax) written over the
    future's probabilities when the rest of ``w`` is the softmax of the whole row; else None."""
    fut = np.broadcast_to(_future(w.shape[-1]), w.shape)
    if not fut.any():
        return None
    values = np.unique(w[fut])
    if values.size != 1 or np.isnan(values[0]) or values[0] == 0.0:
        return None
    kept = w[~fut]
    if not (np.all(np.isfinite(kept)) and np.allclose(kept, plain[~fut], rtol=1e-3, atol=1e-5)):
        return None
    return float(values[0])


def classify_weights(func: str, call: str, s: np.ndarray, got: Any, **extra: Any) -> Finding | None:
    """The mistake whose weights for scores ``s`` match ``got``; None when ``got`` is right."""
    w = arr(got)
    if w is None or w.shape != s.shape:
        return None
    forms = variants(s)
    if close(w, forms[""], rtol=1e-3, atol=1e-5):
        return None
    ev: dict[str, Any] = {"call": call, "n": s.shape[-1], **extra}
    if np.isnan(w.reshape(-1, *s.shape[-2:])[:, 0]).any():
        fine = np.isfinite(forms["mask-excludes-diagonal"])
        if np.allclose(w[fine], forms["mask-excludes-diagonal"][fine], rtol=1e-3, atol=1e-5):
            return Finding("mask-excludes-diagonal", func, {**ev, "row0": _row(w, 0)})
    for mid in ("mask-not-applied", "mask-after-softmax", "mask-transposed"):
        if close(w, forms[mid], rtol=1e-3, atol=1e-5):
            sums = w.sum(axis=-1).reshape(-1)
            return Finding(mid, func, {**ev, "leak": round(_leak(w), 4), "row0": _row(w, 0),
                                       "last_row": _row(w, s.shape[-1] - 1), "row_sum": round(float(sums[0]), 4),
                                       "min_row_sum": round(float(sums.min()), 4)})
    written = _written_after(w, forms["mask-not-applied"])
    if written is not None:
        allowed = np.where(np.broadcast_to(_future(s.shape[-1]), w.shape), 0.0, w).sum(axis=-1).reshape(-1)
        return Finding("mask-after-softmax", func, {**ev, "variant": "written", "fill": written, "row0": _row(w, 0),
                                                   "row_sum": float(f"{float(allowed[0]):.4g}"),
                                                   "min_row_sum": float(f"{float(allowed.min()):.4g}")})
    fill = _fill_value(s, w)
    if fill is not None and close(w, _softmax_rows(_masked(s, _future(s.shape[-1]), fill)), rtol=1e-3, atol=1e-5):
        leak = _leak(w)
        return Finding("mask-zero-not-inf", func, {**ev, "fill": round(fill, 4), "leak": float(f"{leak:.4g}"),
                                                   "variant": "default" if leak > 0 else "no-leak"})
    return None


def _wrong_shape(func: str, call: str, got: Any, want: np.ndarray) -> Finding | None:
    """The right values in another shape (GPT-2's (1, 1, n, n) mask buffer for an (n, n) mask)."""
    w = arr(got)
    if w is None or w.shape == want.shape or w.size != want.size:
        return None
    flat = w.reshape(want.shape)
    if want.dtype == bool:
        right = np.array_equal(flat != 0, want)
    else:  # masked scores hold -inf: those must match exactly, the rest to the tolerance
        fin = np.isfinite(want)
        right = (np.array_equal(np.isfinite(flat), fin) and np.array_equal(flat[~fin], want[~fin])
                 and bool(np.allclose(flat[fin], want[fin], rtol=1e-3, atol=1e-5)))
    if not right:
        return None
    extra = w.ndim - want.ndim
    ones = extra > 0 and w.shape[extra:] == want.shape and all(d == 1 for d in w.shape[:extra])
    return Finding("wrong-shape", func, {"call": call, "shape": str(tuple(w.shape)),
                                         "expected_shape": str(tuple(want.shape)),
                                         "variant": "leading-ones" if ones else "default"})


#: Scores of the probe that tells an overflow from a row renormalised after the softmax: 0
#: where a row may look and G where it may not. At G = 95, e^95 overflows float32 (beyond
#: ~88.7) while e^-95 is still a (subnormal) float32; at G = 120, e^-120 is 0 in float32.
_GAPS = (95.0, 120.0)


def _future_heavy(gap: float) -> torch.Tensor:
    return torch.from_numpy(np.where(_future(N), gap, 0.0).astype(np.float32)).expand(2, N, N).contiguous()


def _renormalised(func: str, weights_for: Callable[[torch.Tensor], tuple[Any, str]]) -> Finding | None:
    """mask-after-softmax, renormalised: NaN that is 0/0, not an overflow.

    ``weights_for(scores)`` returns (the student's weights for those scaled scores, the call). When nothing is non-finite at G = 95, where e^95 would overflow, but rows are NaN at
    G = 120, the NaN is the allowed weights underflowing to 0 in a softmax over the whole row
    and the renormalisation dividing 0 by 0.
    """
    first, _ = weights_for(_future_heavy(_GAPS[0]))
    w95 = arr(first)
    if w95 is None or not np.all(np.isfinite(w95)):
        return None
    got, call = weights_for(_future_heavy(_GAPS[1]))
    w = arr(got)
    if w is None or w.shape != (2, N, N):
        return None
    nan_rows = [i for i in range(N) if np.isnan(w[:, i]).any()]
    if not nan_rows or N - 1 in nan_rows:  # the last row has no future: it cannot be 0/0
        return None
    return Finding("mask-after-softmax", func, {
        "variant": "renormalised", "call": call, "gap": _GAPS[1], "rows": ", ".join(map(str, nan_rows)),
        "bad": int(np.isnan(w).sum()), "size": int(w.size), "row_sum": 1.0, "min_row_sum": 1.0, "row0": _row(w, 0)})


def _overflow(func: str, call: str, got: Any, magnitude: float) -> Finding | None:
    w = arr(got)
    if w is None or np.all(np.isfinite(w)):
        return None
    return Finding("softmax-overflow", func, {"call": call, "bad": int((~np.isfinite(w)).sum()),
                                              "size": int(w.size), "magnitude": magnitude})


def _changed_input(func: str, call: str, before: torch.Tensor, after: Any) -> Finding | None:
    if after is None or not after:
        return None
    a = arr(after[0])
    b = before.double().numpy()
    if a is None or a.shape != b.shape:
        return None
    differs = ~((a == b) | (np.isnan(a) & np.isnan(b)))
    if not differs.any():
        return None
    where = tuple(int(v) for v in np.argwhere(differs)[0])
    return Finding("mask-modifies-input", func, {"call": call, "changed": int(differs.sum()), "size": int(a.size),
                                                 "where": str(where), "before": f"{b[where]:.4g}",
                                                 "after": f"{a[where]:.4g}"})


# --------------------------------------------------------------------------- recognisers


def _causal_mask(p: Probe) -> list[Finding]:
    got = p("causal_mask", N)
    call = describe_call("causal_mask", N)
    m = arr(got)
    want = ~_future(N)
    if m is not None and m.shape == (N, N) and np.array_equal(m != 0, want):
        return []
    if m is not None and m.shape == (N, N):
        b = m != 0
        patterns = {
            "mask-transposed": np.triu(np.ones((N, N), dtype=bool)),
            "mask-excludes-diagonal": np.tril(np.ones((N, N), dtype=bool), k=-1),
            "mask-not-applied": np.ones((N, N), dtype=bool),
        }
        inverted = np.triu(np.ones((N, N), dtype=bool), k=1)
        for mid, pattern in patterns.items():
            if np.array_equal(b, pattern):
                return [Finding(mid, "causal_mask", {"call": call, "n": N, "row0": _row(m.astype(float), 0),
                                                     "last_row": _row(m.astype(float), N - 1)})]
        if np.array_equal(b, inverted):
            return [Finding("mask-transposed", "causal_mask", {"call": call, "n": N, "variant": "inverted",
                                                              "row0": _row(m.astype(float), 0)})]
    shaped = _wrong_shape("causal_mask", call, got, want)
    if shaped is not None:
        return [shaped]
    other = p("causal_mask", N + 2)
    found = hardcoded("causal_mask", call, got, describe_call("causal_mask", N + 2), other)
    return [found] if found else unrecognised("causal_mask", call=call, got=show(got))


def _apply_causal_mask(p: Probe) -> list[Finding]:
    x = randn(81, 2, N, N, scale=2.0)
    call = describe_call("apply_causal_mask", x)
    got, after = p.args_after("apply_causal_mask", x)
    changed = _changed_input("apply_causal_mask", call, x, after)
    g = arr(got)
    s = x.double().numpy()
    fut = np.broadcast_to(_future(N), s.shape)
    findings = [changed] if changed else []
    if g is None or g.shape != s.shape:
        shaped = _wrong_shape("apply_causal_mask", call, got, _masked(s, fut))
        if shaped is not None:
            return findings + [shaped]
        return findings or unrecognised("apply_causal_mask", call=call, got=show(got))
    neg = np.isneginf(g)
    kept_ok = np.allclose(np.where(neg, 0, g)[~neg], s[~neg], rtol=1e-6, atol=1e-6) if (~neg).any() else True
    if np.array_equal(neg, fut) and kept_ok:
        return findings
    ev = {"call": call, "n": N}
    lower = np.broadcast_to(np.tril(np.ones((N, N), dtype=bool), k=-1), s.shape)
    if kept_ok and np.array_equal(neg, lower):
        return findings + [Finding("mask-transposed", "apply_causal_mask", ev)]
    if kept_ok and np.array_equal(neg, fut | np.broadcast_to(np.eye(N, dtype=bool), s.shape)):
        return findings + [Finding("mask-excludes-diagonal", "apply_causal_mask", ev)]
    if not neg.any() and np.allclose(g[~fut], s[~fut], rtol=1e-6, atol=1e-6):
        fills = np.unique(g[fut])
        if np.allclose(g, s, rtol=1e-6, atol=1e-6):
            return findings + [Finding("mask-not-applied", "apply_causal_mask", ev)]
        if fills.size == 1:
            fill = float(fills[0])
            # The weight the future gets from these scores, measured in the input's float32.
            leak = _leak(torch.softmax(torch.from_numpy(g.astype(np.float32)), dim=-1).double().numpy())
            return findings + [Finding("mask-zero-not-inf", "apply_causal_mask",
                                       {**ev, "fill": round(fill, 4), "leak": float(f"{leak:.4g}"),
                                        "variant": "default" if leak > 0 else "no-leak"})]
    other = randn(82, 2, N, N, scale=2.0)
    found = hardcoded("apply_causal_mask", call, got, describe_call("apply_causal_mask", other),
                      p("apply_causal_mask", other))
    return findings + ([found] if found else unrecognised("apply_causal_mask", call=call))


def _masked_softmax(p: Probe) -> list[Finding]:
    x = randn(83, 2, N, N, scale=2.0)
    call = describe_call("masked_softmax", x)
    got, after = p.args_after("masked_softmax", x)
    findings = [f for f in [_changed_input("masked_softmax", call, x, after)] if f]
    s = x.double().numpy()
    found = classify_weights("masked_softmax", call, s, got)
    if found is not None:
        return findings + [found]
    if close(got, variants(s)[""], rtol=1e-3, atol=1e-5):
        big = x * 5e3
        big_call = describe_call("masked_softmax", big)
        over = _overflow("masked_softmax", big_call, p("masked_softmax", big), 1e4)
        if over is not None:
            over = _renormalised("masked_softmax", lambda x: (p("masked_softmax", x),
                                                              describe_call("masked_softmax", x))) or over
        return findings + ([over] if over else [])
    shaped = _wrong_shape("masked_softmax", call, got, variants(s)[""])
    if shaped is not None:
        return findings + [shaped]
    other = randn(84, 2, N, N, scale=2.0)
    same_out = hardcoded("masked_softmax", call, got, describe_call("masked_softmax", other),
                         p("masked_softmax", other))
    return findings + ([same_out] if same_out else unrecognised("masked_softmax", call=call))


def _attention_weights(p: Probe, d_k: int, scale: float = 1.0, seed: int = 85) -> tuple[Any, np.ndarray, str]:
    q, k = randn(seed, 2, N, d_k, scale=scale), randn(seed + 1, 2, N, d_k, scale=scale)
    v = torch.eye(N).expand(2, N, N).contiguous()
    call = describe_call("causal_attention", q, k, v)
    raw = (q.double() @ k.double().transpose(-2, -1)).numpy()
    return p("causal_attention", q, k, v), raw, call


def _attention_for(p: Probe, scores: torch.Tensor) -> tuple[Any, str]:
    """causal_attention with q, k chosen so that q kᵀ / √d_k is ``scores`` (..., n, n), v = I."""
    *lead, n, _ = scores.shape
    q = torch.zeros(*lead, n, D_K)
    q[..., :n] = torch.eye(n)
    k = torch.zeros(*lead, n, D_K)
    k[..., :n] = scores.transpose(-2, -1) * math.sqrt(D_K)
    v = torch.eye(n).expand(*lead, n, n).contiguous()
    return p("causal_attention", q, k, v), describe_call("causal_attention", q, k, v)


def _divisor(raw: np.ndarray, w: np.ndarray) -> float | None:
    """The c with W = softmax(mask(raw / c)), read from the allowed weights of rows 1..n-1."""
    n = raw.shape[-1]
    r2, w2 = raw.reshape(-1, n, n), w.reshape(-1, n, n)
    cs = []
    for b in range(r2.shape[0]):
        for i in range(1, n):
            for j in range(1, i + 1):
                if w2[b, i, j] > 0 and w2[b, i, 0] > 0 and abs(r2[b, i, j] - r2[b, i, 0]) > 1e-3:
                    lw = math.log(w2[b, i, j] / w2[b, i, 0])
                    if abs(lw) > 1e-9:
                        cs.append((r2[b, i, j] - r2[b, i, 0]) / lw)
    if len(cs) < 3:
        return None
    c = float(np.median(cs))
    return c if c > 0 and np.mean([abs(x / c - 1) < 1e-2 for x in cs]) >= 0.9 else None


def _written_via_masked_softmax(p: Probe, scores: np.ndarray, w: np.ndarray | None) -> Finding | None:
    """mask-after-softmax for causal_attention when the weights it multiplies v by hold a value
    written over the future (-inf): with v = I every row that has a future comes out NaN or
    -inf (-inf · 0, -inf · 1), the last row is right, and the student's own masked_softmax of the same scores
    shows the written value."""
    n = scores.shape[-1]
    if w is None or w.shape != scores.shape:
        return None
    rows = w.reshape(-1, n, n)
    if not ((~np.isfinite(rows[:, :-1])).all() and close(rows[:, -1], variants(scores)[""].reshape(-1, n, n)[:, -1])):
        return None
    x = torch.from_numpy(scores.astype(np.float32))
    try:
        got = p("masked_softmax", x)
    except (Raised, Unavailable):
        return None
    found = classify_weights("causal_attention", describe_call("masked_softmax", x), x.double().numpy(), got)
    if found is None or found.id != "mask-after-softmax" or found.evidence.get("variant") != "written":
        return None
    return found


def _causal_attention(p: Probe) -> list[Finding]:
    got, raw, call = _attention_weights(p, D_K)
    w = arr(got)
    expected = math.sqrt(D_K)
    found = classify_weights("causal_attention", call, raw / expected, got, d_k=D_K)
    if found is not None:
        return [found]
    if w is not None and close(w, variants(raw / expected)[""], rtol=1e-3, atol=1e-5):
        big, big_raw, big_call = _attention_weights(p, 16, scale=25.0, seed=87)
        over = _overflow("causal_attention", big_call, big, float(np.abs(big_raw).max() / 4.0))
        if over is not None:
            over = _renormalised("causal_attention", lambda x: _attention_for(p, x)) or over
        return [over] if over else []
    shaped = _wrong_shape("causal_attention", call, got, variants(raw / expected)[""])
    if shaped is not None:
        return [shaped]
    if w is not None and w.shape == raw.shape and np.all(np.isfinite(w)):
        c = _divisor(raw, w)
        if c is not None:
            ev = {"call": call, "divisor": round(c, 4), "expected_divisor": expected, "d_k": D_K,
                  "d_model": GPT2_D_MODEL, "n_heads": GPT2_HEADS}
            for target, mid in ((1.0, "no-scaling"), (math.sqrt(GPT2_D_MODEL), "sqrt-d-model")):
                if abs(c - target) <= 2e-3 * target and close(w, variants(raw / target)[""], rtol=1e-3, atol=1e-5):
                    return [Finding(mid, "causal_attention", ev)]
            inner = classify_weights("causal_attention", call, raw / c, got, d_k=D_K)
            if inner is not None:
                return [inner]
            return unrecognised("causal_attention", call=call, divisor=round(c, 4))
    via = _written_via_masked_softmax(p, raw / expected, w)
    if via is not None:
        return [via]
    other, _, other_call = _attention_weights(p, D_K, seed=95)
    same_out = hardcoded("causal_attention", call, got, other_call, other)
    return [same_out] if same_out else unrecognised("causal_attention", call=call)


def _future_leak(p: Probe) -> list[Finding]:
    w = torch.softmax(randn(89, 2, N, N, scale=2.0), dim=-1)
    call = describe_call("future_leak", w)
    got = num(p("future_leak", w))
    want = num(p.expect(MASKING, "future_leak", w))
    wn = w.double().numpy()
    if got is not None and want is not None and abs(got - want) <= 1e-5 + 1e-5 * abs(want):
        return []
    # Four significant digits, never four decimals: a leak of -1e-12 must not read as "-0".
    ev = {"call": call, "got": got if got is None else float(f"{got:.4g}"), "expected": float(f"{want or 0.0:.4g}")}
    sums = {
        "mask-transposed": np.where(np.tril(np.ones((N, N), dtype=bool), k=-1), wn, 0).sum(-1).max(),
        "mask-excludes-diagonal": np.where(np.triu(np.ones((N, N), dtype=bool)), wn, 0).sum(-1).max(),
    }
    for mid, value in sums.items():
        if got is not None and abs(got - float(value)) <= 1e-5:
            return [Finding(mid, "future_leak", {**ev, "variant": "leak"})]
    other = torch.softmax(randn(90, 2, N, N, scale=2.0), dim=-1)
    found = hardcoded("future_leak", call, p("future_leak", w), describe_call("future_leak", other),
                      p("future_leak", other))
    return [found] if found else unrecognised("future_leak", **ev)


RECOGNISERS = {
    "causal_mask": _causal_mask,
    "apply_causal_mask": _apply_causal_mask,
    "masked_softmax": _masked_softmax,
    "causal_attention": _causal_attention,
    "future_leak": _future_leak,
}


def _t_masked_softmax(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[-1]
    return torch.softmax(x.double().masked_fill(torch.from_numpy(_future(n)), float("-inf")), dim=-1)


ORACLE: dict[str, Callable[..., Any]] = {
    "causal_mask": lambda n: torch.from_numpy(~_future(n)),
    "apply_causal_mask": lambda x: x.double().masked_fill(torch.from_numpy(_future(x.shape[-1])), float("-inf")),
    "masked_softmax": _t_masked_softmax,
    "causal_attention": lambda q, k, v: F.scaled_dot_product_attention(q.double(), k.double(), v.double(),
                                                                       is_causal=True),
    "future_leak": lambda w: float(w.double().masked_fill(~torch.from_numpy(_future(w.shape[-1])), 0.0)
                                   .sum(-1).max()),
}


# --------------------------------------------------------------------------- plots

PLOT_N = 8
CAPTION = {
    "en": "Your attention weights (left) beside the reference's (right) for the same scores; a "
          "causal row may only use the cells on and below the diagonal. Cells above it that hold "
          "weight are outlined in red: that weight leaks from the future.",
    "ja": "同じスコアに対するあなたの注意の重み（左）と模範の重み（右）。因果的な行が使えるのは対角線"
          "とその下のマスだけです。対角線より上で重みを持つマスは赤枠で示しています。未来から漏れた重みです。",
}


def plot_data(session: Any, reference: Any) -> dict[str, Any]:
    """The student's masked_softmax of one fixed score matrix, and the right weights."""
    x = randn(2026, PLOT_N, PLOT_N, scale=1.5)
    want = _t_masked_softmax(x).numpy()
    try:
        got = arr(session.call(MASKING, "masked_softmax", [x], {}))
    except Exception:  # noqa: BLE001 - a failing student function just leaves its panel empty
        got = None
    student = got.tolist() if got is not None and got.shape == want.shape else None
    return {"attention": {"scores": x.double().numpy().round(6).tolist(), "student": student,
                          "reference": want.round(6).tolist()}}


HEAT_MAP_WORDS = {
    "en": {"yours": "yours", "leak": "yours: future weight up to {leak:.3f} a row",
           "reference": "reference (causal)", "key": "key position j", "query": "query position i",
           "none": "your masked_softmax gave no values", "weight": "attention weight"},
    "ja": {"yours": "あなたの重み", "leak": "あなたの重み（未来への重みは一行あたり最大 {leak:.3f}）",
           "reference": "模範（因果的）", "key": "キーの位置 j", "query": "クエリの位置 i",
           "none": "あなたの masked_softmax は値を返しませんでした", "weight": "注意の重み"},
}


def figures(plots: dict[str, Any], languages: Any) -> list[Figure]:
    """The heat map: the student's weights beside the reference's, leaked cells outlined."""
    data = plots.get("attention") if isinstance(plots, dict) else None
    if not isinstance(data, dict) or data.get("reference") is None:
        return []
    import matplotlib

    lang = next((x for x in languages if x in HEAT_MAP_WORDS), "en")
    with matplotlib.rc_context(style(lang)):
        png = _heat_map(data, HEAT_MAP_WORDS[lang])
    caption = {x: CAPTION[x] for x in languages if x in CAPTION}
    return [Figure(png, caption, "attention")] if png else []


def _heat_map(data: dict[str, Any], W: dict[str, str]) -> str | None:
    from matplotlib.patches import Rectangle

    ref = np.asarray(data["reference"], dtype=float)
    mine = np.asarray(data["student"], dtype=float) if data.get("student") is not None else None
    fig = figure(8.6, 4)
    axes = [fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)]
    leak = _leak(mine) if mine is not None and mine.shape == ref.shape else None
    mine_title = W["yours"] if leak is None else W["leak"].format(leak=leak)
    image = None
    for ax, values, title in ((axes[0], mine, mine_title), (axes[1], ref, W["reference"])):
        ax.set_title(title, fontsize=10)
        ax.set_xlabel(W["key"])
        ax.set_ylabel(W["query"])
        if values is None or values.shape != ref.shape:
            ax.text(0.5, 0.5, W["none"], ha="center", va="center", transform=ax.transAxes)
            ax.set_xticks([])
            ax.set_yticks([])
            continue
        shown = np.nan_to_num(values, nan=0.0)
        image = ax.imshow(shown, vmin=0.0, vmax=1.0, cmap="viridis")
        n = shown.shape[-1]
        for i, j in np.argwhere(_future(n) & (np.abs(shown) > 1e-6)):
            ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=2))
        for i, j in np.argwhere(np.isnan(values)):
            ax.text(j, i, "NaN", ha="center", va="center", color="white", fontsize=7)
    fig.tight_layout()
    if image is not None:
        fig.colorbar(image, ax=axes, shrink=0.8, label=W["weight"])
    return png(fig)


# --------------------------------------------------------------------------- expected values


def expected_values(reference: Any) -> dict[str, Any]:
    """The public suite's expected.json: only the quiz's question ids and types."""
    key = getattr(reference, "answers_key", None) or {}
    return {"quiz": [{"id": str(qid), "type": spec["type"],
                      **({"choices": ["a", "b", "c", "d"]} if spec["type"] == "choice" else {})}
                     for qid, spec in key.items()]}


# --------------------------------------------------------------------------- notebook, README

#: The mistake the student README names as an example of what ``grader check`` recognises.
def personal_handout(name: str, text: str, values: dict[str, Any]) -> str:
    """The quiz's questions about "token 3 of 6" ask about the student's own token and length, and
    the choices of positions follow them (the right letter stays the same); ids are unchanged."""
    if "query" not in values or "seq_len" not in values:
        return text
    q, n = int(values["query"]), int(values["seq_len"])

    def upto(k: int) -> str:
        return ", ".join(str(i) for i in range(k))

    upto_q, with_q, after = upto(q), upto(q + 1), ", ".join(str(i) for i in range(q, n))
    for old, new in (
        ("長さ 6 の系列で、トークン 3 (0 から数える)", f"長さ {n} の系列で、トークン {q} (0 から数える)"),
        ("In a sequence of 6 tokens, how many positions may token 3", f"In a sequence of {n} tokens, how many positions may token {q}"),
        ("In a sequence of 6 tokens, which positions may token 3", f"In a sequence of {n} tokens, which positions may token {q}"),
        ("#   a) 3 だけ / 3 only", f"#   a) {q} だけ / {q} only"),
        ("#   b) 0, 1, 2 / 0, 1, 2", f"#   b) {upto_q} / {upto_q}"),
        ("#   c) 0, 1, 2, 3 / 0, 1, 2, 3", f"#   c) {with_q} / {with_q}"),
        ("#   d) 3, 4, 5 / 3, 4, 5", f"#   d) {after} / {after}"),
    ):
        text = text.replace(old, new)
    return text


README_EXAMPLE = {"en": "writing 0 instead of -inf into the masked scores",
                  "ja": "マスクするスコアに -inf ではなく 0 を書いている"}

NOTEBOOK_INTRO = """\
# 第8章 因果マスク: 未来のトークンを見ない注意
# Chapter 8 -- The causal mask: attention that cannot see the future

このノートブックには `masking.py` と同じ関数が入っています。各関数の
`raise NotImplementedError(...)` を自分のコードに置き換え、最後の確認問題のセルに答えを
書き込んでください。関数名と引数は変えないでください。

This notebook holds the same functions as `masking.py`. Replace each
`raise NotImplementedError(...)` with your own code, then write your answers in the quiz cell
at the end. Keep the function names and arguments as they are.

採点では、このノートブックのコードセルが上から順に実行されます。試しに関数を呼ぶセルを
追加しても構いませんが、時間のかかる処理は避けてください。`future_leak` に自分の
`masked_softmax` の結果を渡すと、未来への重みが漏れていないか確かめられます。

When graded, the code cells run from top to bottom. You may add cells that try your
functions out, but keep them quick. Pass your `masked_softmax` output to `future_leak` to see
whether any weight leaks into the future.
"""
