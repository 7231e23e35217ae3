"""Chapter 7's plug-in: recognising the scaling mistakes from behaviour (see grader.kit.hooks).

Recognition is by behaviour only: the probes call the student's functions on inputs chosen so
that every known mistake gives a different answer, and compare what came back with the
reference (or, without it, with torch computed here) and with the known-wrong variants. Where
a quantity explains more than a match, it is inferred: the divisor actually applied to the
scores, the axis a softmax normalised over, the temperature it used, the ratio of a reported
variance to d_k, whether the output moves with the seed and with the input. So ``/ 27.71``,
``/ math.sqrt(q.size(-1))`` before the head split, ``* d_model ** -0.5`` and a numpy version are
all the same ``sqrt-d-model``.

Within a failing part each function gets a short screen (1–3 calls); only a function that
fails it gets the deeper probes. What each id means to the student, and its message
templates, live in ``mistakes.yaml`` next to this file (see :mod:`grader.spec.catalogue`); the
report's figures in ``plots.py``; the public suite's expected values in ``expected.py``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any, cast

import numpy as np
import torch

from grader.kit import Finding
from grader.kit import Probe as _Probe
from grader.kit import Raised as _Raised
from grader.kit import arr as _arr
from grader.kit import close as _close
from grader.kit import hardcoded as _hardcoded
from grader.kit import num as _num
from grader.kit import pick as _pick
from grader.kit import seeded_randn as _randn
from grader.kit import ratio as _ratio
from grader.kit import same as _same
from grader.kit import show as _show
from grader.kit import UNRECOGNISED as _UNRECOGNISED
from grader.kit import NotImplementedByStudent as _NotImplemented
from grader.kit import Unavailable as _Unavailable
from grader.kit import unrecognised as _unrecognised
from grader.kit import describe_call

from . import expected, plots

#: The chapter's model, assumed when a function sees only d_k = 64 (GPT-2 small).
GPT2_D_MODEL, GPT2_HEADS = 768, 12
_SEEDS = (1234, 4321)  # probe seeds for the variance functions
_N = 1000  # samples per variance probe: ~5 % relative error at d_k = 16, ample to tell forms apart


# --------------------------------------------------------------------------- inference


def _divisor_finding(func: str, call: str, r: float, d_k: int, *, d_model: int | None = None,
                     n_heads: int | None = None, rel: float = 2e-3) -> Finding | None:
    """Classify the divisor ``r`` actually applied; None when it is √d_k."""
    expected = math.sqrt(d_k)
    if d_model is None and d_k == GPT2_D_MODEL // GPT2_HEADS:
        d_model, n_heads = GPT2_D_MODEL, GPT2_HEADS  # a bare d_k = 64 is the chapter's model
    ev: dict[str, Any] = {"call": call, "divisor": round(r, 4), "expected_divisor": round(expected, 4),
                          "d_k": d_k}
    if d_model is not None:
        ev.update(d_model=d_model, n_heads=n_heads)

    def near(a: float, b: float) -> bool:
        return abs(a - b) <= rel * abs(b)

    if near(r, expected):
        return None
    if d_model is not None and d_model != d_k and near(r, math.sqrt(d_model)):
        return Finding("sqrt-d-model", func, ev)
    for target, mid in ((float(d_k), "divide-by-d-k"), (1.0, "no-scaling"),
                        (1.0 / expected, "multiply-by-sqrt-d-k")):
        if near(r, target):
            return Finding(mid, func, ev)
    ev["divisor_squared"] = round(r * r, 4)
    return Finding("wrong-divisor", func, ev)


def _own(p: _Probe) -> tuple[int, int, int, int] | None:
    """The student's own (d_model, n_heads, d_k, seq_len) when they have a variant, else None."""
    v = p.variant
    try:
        return (int(cast(Any, v)["d_model"]), int(cast(Any, v)["n_heads"]), int(cast(Any, v)["d_k"]),
                int(cast(Any, v)["seq_len"])) if v else None
    except (KeyError, TypeError, ValueError):
        return None


def _model_of(p: _Probe, d_k: int) -> dict[str, int]:
    """The student's own d_model and n_heads for a probe of their own d_k (a finding quotes them)."""
    own = _own(p)
    return {"d_model": own[0], "n_heads": own[1]} if own and own[2] == d_k else {}


# --------------------------------------------------------------------------- oracle


def _softmax64(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    return torch.softmax(x.double(), dim=dim)


def _split(x: torch.Tensor, n_heads: int, layout: str = "gpt2") -> torch.Tensor:
    b, s, d = x.shape
    d_k = d // n_heads
    if layout == "gpt2":
        return x.reshape(b, s, n_heads, d_k).transpose(1, 2)
    if layout == "no-transpose":
        return x.reshape(b, n_heads, s, d_k)
    if layout == "transpose-reshape":
        return x.transpose(1, 2).reshape(b, n_heads, s, d_k)
    return x.reshape(b, s, d_k, n_heads).permute(0, 3, 1, 2)  # "strided"


def _mh_raw(q: torch.Tensor, k: torch.Tensor, n_heads: int, layout: str = "gpt2") -> np.ndarray:
    qh, kh = _split(q.double(), n_heads, layout), _split(k.double(), n_heads, layout)
    return np.asarray((qh @ kh.transpose(-2, -1)).numpy())


ORACLE: dict[str, Callable[..., Any]] = {
    "head_dim": lambda d_model, n_heads: d_model // n_heads,
    "scaling_factor": lambda d_model, n_heads: math.sqrt(d_model // n_heads),
    "scale_scores": lambda x, d_k: x.double() / math.sqrt(d_k),
    "attention_scores": lambda q, k: q.double() @ k.double().transpose(-2, -1) / math.sqrt(q.shape[-1]),
    "multihead_attention_scores": lambda q, k, h: torch.from_numpy(_mh_raw(q, k, h)) / math.sqrt(q.shape[-1] // h),
    "softmax": _softmax64,
    "softmax_with_temperature": lambda x, t, dim=-1: _softmax64(x.double() / t, dim),
    "compare_saturation": lambda s, d_k: {"unscaled": float(_softmax64(s).max()),
                                          "scaled": float(_softmax64(s.double() / math.sqrt(d_k)).max())},
    "softmax_jacobian": lambda p: torch.diag(p.double()) - torch.outer(p.double(), p.double()),
    "attention": lambda q, k, v: _softmax64(q.double() @ k.double().transpose(-2, -1) / math.sqrt(q.shape[-1])) @ v.double(),
}


# --------------------------------------------------------------------------- scaling.py


def _head_dim(p: _Probe) -> list[Finding]:
    cases = [(768, 12), (4096, 32), (60, 5)]
    outs = [p("head_dim", *c) for c in cases]
    ok = [_num(o) is not None and _num(o) == p.expect("scaling", "head_dim", *c) for o, c in zip(outs, cases)]
    if not all(ok):
        if _same(outs[0], outs[1]) and _same(outs[1], outs[2]):
            return [Finding("hardcoded-output", "head_dim", {
                "call": describe_call("head_dim", *cases[1]), "other_call": describe_call("head_dim", *cases[2]),
                "value": _show(outs[0])})]
        bad = ok.index(False)
        return _unrecognised("head_dim", call=describe_call("head_dim", *cases[bad]), returned=_show(outs[bad]))
    if any(type(o) is not int for o in outs):
        return [Finding("head-dim-not-int", "head_dim", {"call": describe_call("head_dim", *cases[0]),
                                                          "returned": repr(outs[0])})]
    bad_inputs = [
        ((768, 10), {"en": "768 is not divisible by 10", "ja": "768 は 10 で割り切れません"}),
        ((768, 0), {"en": "n_heads must be a positive int", "ja": "n_heads は正の int でなければなりません"}),
        ((-768, 12), {"en": "d_model must be a positive int", "ja": "d_model は正の int でなければなりません"}),
        ((768.0, 12), {"en": "768.0 is a float, not an int", "ja": "768.0 は int ではなく float です"}),
    ]
    for args, reason in bad_inputs:
        call = describe_call("head_dim", *args)
        try:
            got = p("head_dim", *args)
        except _Raised as exc:
            if exc.type_name == "ValueError":
                continue
            return [Finding("missing-value-error", "head_dim", {
                "variant": "other-error", "call": call, "raised": exc.type_name, "reason": reason})]
        return [Finding("missing-value-error", "head_dim", {
            "variant": "returned", "call": call, "returned": _show(got), "reason": reason})]
    return []


#: (d_model, n_heads) of the scaling_factor probes: d_k = 64, 128, 256, 48, 200; the
#: non-squares tell √d_k from math.isqrt(d_k) and round(√d_k).
_SF_CASES = ((768, 12), (4096, 32), (1024, 4), (960, 20), (2400, 12))


def _scaling_factor(p: _Probe) -> list[Finding]:
    own = _own(p)
    mine = ((own[0], own[1]),) if own else ()
    cases = mine + _SF_CASES  # the student's own model first: a finding quotes its sizes
    outs = [p("scaling_factor", *c) for c in cases]
    vals = [_num(o) for o in outs]
    if all(v is not None and math.isclose(v, p.expect("scaling", "scaling_factor", *c), rel_tol=1e-6)
           for v, c in zip(vals, cases)):
        return []
    if any(v is None or not math.isfinite(v) or v == 0 for v in vals):
        return _unrecognised("scaling_factor", returned=_show(outs[0]))
    found = []
    for v, (d_model, n_heads) in zip(vals, cases):
        assert v is not None
        found.append(_divisor_finding("scaling_factor", describe_call("scaling_factor", d_model, n_heads),
                                      v, d_model // n_heads, d_model=d_model, n_heads=n_heads, rel=1e-4))
    ids = {f.id if f else None for f in found}
    if len(ids) == 1 and None not in ids:
        return _pick(found)
    a, b = len(mine) + 1, len(mine) + 2
    hard = _hardcoded("scaling_factor", describe_call("scaling_factor", *cases[a]), outs[a],
                      describe_call("scaling_factor", *cases[b]), outs[b])
    return [hard] if hard else _pick(found)


_SCORES = torch.tensor([[40.0, -24.0, 10.0, 8.0, 6.0], [-3.5, 17.0, -50.0, 2.5, 12.0]])
#: d_k probed for a divisor: the chapter's 64 and 16 first (their numbers go in the message),
#: then non-squares where √d_k, math.isqrt(d_k) and round(√d_k) differ (48: 6.93 / 6 / 7;
#: 128: 11.31 / 11 / 11; 200: 14.14 / 14 / 14), so an integer-rounded divisor shows.
_DIVISOR_D_K = (64, 16, 48, 128, 200)


def _scores_probe(p: _Probe, func: str, probes: list[tuple[tuple[Any, ...], np.ndarray, int, str]],
                  other: tuple[Any, ...]) -> list[Finding]:
    """Shared by scale_scores / attention_scores: args, raw scores, d_k, call."""
    outs = [p(func, *args) for args, _, _, _ in probes]
    wants = [p.expect("scaling", func, *args) for args, _, _, _ in probes]
    if all(_close(o, w, rtol=1e-4, atol=1e-5) for o, w in zip(outs, wants)):
        return []
    # A fixed answer can look like a fixed divisor on one input; a second input tells them apart.
    hard = _hardcoded(func, probes[-1][3], outs[-1], describe_call(func, *other), p(func, *other))
    if hard:
        return [hard]
    found: list[Finding | None] = []
    for out, (_, raw, d_k, call) in zip(outs, probes):
        r = _ratio(raw, out)
        if r is None:
            return _unrecognised(func, call=call, returned=_show(out))
        found.append(_divisor_finding(func, call, r, d_k, **_model_of(p, d_k)))
    return _pick(found) or _unrecognised(func, call=probes[0][3])


def _scale_scores(p: _Probe) -> list[Finding]:
    x = _SCORES
    own = _own(p)
    d_ks = ((own[2],) if own else ()) + _DIVISOR_D_K
    probes = [((x, d_k), x.double().numpy(), d_k, describe_call("scale_scores", x, d_k=d_k)) for d_k in d_ks]
    return _scores_probe(p, "scale_scores", probes, (x * 0.5 + 1.0, 16))


#: (leading axes, n_q, n_k, d_k) of the attention_scores probes: one per d_k of _DIVISOR_D_K
_AS_CONFIGS = (((2,), 3, 4, 64), ((), 3, 5, 16), ((), 2, 3, 48), ((), 2, 3, 128), ((2,), 2, 2, 200))


def _attention_scores(p: _Probe) -> list[Finding]:
    probes = []
    own = _own(p)
    mine: tuple[tuple[tuple[int, ...], int, int, int], ...] = (((), own[3], own[3], own[2]),) if own else ()
    for seed, (lead, n_q, n_k, d_k) in enumerate(mine + _AS_CONFIGS):
        q, k = _randn(10 + seed, *lead, n_q, d_k), _randn(20 + seed, *lead, n_k, d_k)
        raw = (q.double() @ k.double().transpose(-2, -1)).numpy()
        probes.append(((q, k), raw, d_k, describe_call("attention_scores", q, k)))
    q2, k2 = _randn(30, 3, 16), _randn(31, 5, 16)
    return _scores_probe(p, "attention_scores", probes, (q2, k2))


_WRONG_SPLITS: tuple[tuple[str, dict[str, str]], ...] = (
    ("no-transpose", {"en": "x.view(batch, n_heads, seq, d_k) without a transpose",
                      "ja": "転置なしの x.view(batch, n_heads, seq, d_k)"}),
    ("strided", {"en": "x.view(batch, seq, d_k, n_heads) moved to (batch, n_heads, seq, d_k)",
                 "ja": "(batch, n_heads, seq, d_k) の順に並べ替えた x.view(batch, seq, d_k, n_heads)"}),
    ("transpose-reshape", {"en": "x.transpose(1, 2).reshape(batch, n_heads, seq, d_k) (transposed before the split)",
                           "ja": "分割の前に転置した x.transpose(1, 2).reshape(batch, n_heads, seq, d_k)"}),
)


#: (batch, seq, d_model, n_heads) probed: the chapter's model; then √d_k = 4, √d_model = 9.8;
#: then non-square d_k = 48 and 128 (an integer-rounded divisor) with other d_model / n_heads
#: pairs. seq > 1 and n_heads > 1 everywhere, so the wrong splits differ from the right one
#: and from each other.
_MH_CONFIGS = ((1, 3, 768, 12), (2, 4, 96, 6), (1, 3, 384, 8), (1, 2, 512, 4))


def _multihead(p: _Probe) -> list[Finding]:
    func = "multihead_attention_scores"
    own = _own(p)
    configs = (((1, own[3], own[0], own[1]),) if own else ()) + _MH_CONFIGS
    outs, inputs = [], []
    for i, (b, s, d, h) in enumerate(configs):
        q, k = _randn(40 + i, b, s, d), _randn(50 + i, b, s, d)
        inputs.append((q, k, h))
        outs.append(p(func, q, k, h))
    if all(_close(o, p.expect("scaling", func, *a), rtol=1e-4, atol=1e-5) for o, a in zip(outs, inputs)):
        return []
    found: list[Finding] = []
    for out, (q, k, h), (b, s, d, _) in zip(outs, inputs, configs):
        d_k = d // h
        call = describe_call(func, q, k, n_heads=h)
        r = _ratio(_mh_raw(q, k, h), out)
        if r is not None:
            f = _divisor_finding(func, call, r, d_k, d_model=d, n_heads=h)
            if f is not None:
                found.append(f)
                break
            continue
        for layout, shown in _WRONG_SPLITS:
            r = _ratio(_mh_raw(q, k, h, layout), out)
            if r is not None:
                found.append(Finding("head-split-order", func, {"call": call, "layout": shown, "n_heads": h,
                                                                "d_k": d_k, "d_model": d}))
                extra = _divisor_finding(func, call, r, d_k, d_model=d, n_heads=h)
                if extra is not None:
                    found.append(extra)
                return found
        q2 = q * 0.5 + 0.25
        hard = _hardcoded(func, call, out, describe_call(func, q2, k, n_heads=h), p(func, q2, k, h))
        return [hard] if hard else _unrecognised(func, call=call, returned=_show(out))
    return found or _unrecognised(func)


# --------------------------------------------------------------------------- softmax.py


_X = torch.tensor([[1.0, -0.5, 2.0, 0.3, -1.2], [0.7, 1.9, -2.1, 0.0, 0.4], [-0.3, 0.2, 1.1, -1.7, 2.4]])
_BIG = torch.tensor([[1e4], [-1e4]]) + torch.tensor([[0.0, -1.5, 2.0, 0.5], [1.0, -2.0, 0.0, 3.0]])
#: Rows of magnitude up to 1e4 whose entries are far apart, with the maximum first, in the
#: middle and last: exp(x - mean), exp(x - x[0]) and exp(x - global max) all overflow or
#: underflow here, though they pass on _BIG (whose rows are nearly constant).
_SPREAD = torch.tensor([[1e4, 9999.0, 9997.5, 0.0, -1e4, 5e3],
                        [-1e4, -9997.0, 5e3, 4998.0, 0.0, -5e3],
                        [2.5e3, -7.5e3, 9999.0, 1e4, -2e3, 3e3]])


def _divided(z: torch.Tensor, by: float) -> torch.Tensor:
    """``z / by``: a softmax-like result's input as the student scaled it."""
    return z / by


def _distribution_findings(func: str, call: str, out: Any, x: torch.Tensor, dim: int,
                           transform: Callable[[torch.Tensor], torch.Tensor]) -> Finding | None:
    """wrong-dim / not-normalised for a softmax-like result ``out`` of ``transform(x)``."""
    o = _arr(out)
    if o is None or o.shape != tuple(x.shape):
        return None
    z = transform(x.double())
    axis = dim % x.dim()
    for other in range(x.dim()):
        if other != axis and _close(o, _softmax64(z, other).numpy()):
            return Finding("softmax-wrong-dim", func, {"call": call, "dim": dim, "normalised_axis": other,
                                                       "shape": list(x.shape)})
    whole = torch.softmax(z.reshape(-1), 0).reshape(z.shape).numpy()
    if _close(o, whole, atol=1e-8):
        return Finding("softmax-wrong-dim", func, {"call": call, "dim": dim, "normalised_axis": "all",
                                                   "shape": list(x.shape)})
    mixed = _mixed_axes(o, z, axis)
    if mixed is not None:
        max_axis, sum_axis = mixed
        along = o.sum(axis=axis).reshape(-1)
        shown = "[" + ", ".join(f"{v:.4g}" for v in along[:3]) + (", ...]" if along.size > 3 else "]")
        return Finding("softmax-wrong-dim", func, {"variant": "mixed-axes", "call": call, "dim": dim,
                                                   "max_axis": max_axis, "sum_axis": sum_axis,
                                                   "normalised_axis": sum_axis, "shape": list(x.shape),
                                                   "sums": shown})
    sums = o.sum(axis=axis, keepdims=True)
    if np.all(np.isfinite(o)) and np.all(sums > 0) and not np.allclose(sums, 1.0, atol=1e-3):
        if _close(o / sums, _softmax64(z, axis).numpy()):
            shown = ", ".join(f"{s:.4g}" for s in sums.reshape(-1)[:3]) + (", ..." if sums.size > 3 else "")
            return Finding("softmax-not-normalized", func, {"call": call, "sums": shown})
    return None


def _mixed_axes(o: np.ndarray, z: torch.Tensor, axis: int) -> tuple[int, int] | None:
    """(max axis, sum axis) when ``o`` is exp(z − max along one axis) / sum along another, one of
    them ``axis``: a softmax with ``dim`` in one place and a fixed axis in the other."""
    zn = z.numpy()
    for max_axis in range(zn.ndim):
        e = np.exp(zn - zn.max(axis=max_axis, keepdims=True))
        for sum_axis in range(zn.ndim):
            if max_axis == sum_axis or axis not in (max_axis, sum_axis):
                continue
            if _close(o, e / e.sum(axis=sum_axis, keepdims=True)):
                return max_axis, sum_axis
    return None


def _overflow(func: str, call: str, out: Any) -> Finding | None:
    o = _arr(out)
    if o is None:
        return None
    bad = int((~np.isfinite(o)).sum())
    if bad:
        return Finding("softmax-overflow", func, {"call": call, "magnitude": 1e4, "nonfinite": bad,
                                                  "total": int(o.size)})
    return None


def _softmax(p: _Probe) -> list[Finding]:
    func = "softmax"
    outs = {dim: p(func, _X, dim=dim) for dim in (-1, 0)}
    bad = [d for d in (-1, 0) if not _close(outs[d], p.expect("softmax", func, _X, d))]
    if not bad:
        big = p(func, _BIG, dim=-1)
        if _close(big, p.expect("softmax", func, _BIG, -1), rtol=2e-3):
            for xs, d in ((_SPREAD, -1), (_SPREAD.T.contiguous(), 0)):
                out = p(func, xs, dim=d)
                if not _close(out, p.expect("softmax", func, xs, d), rtol=2e-3):
                    f = _overflow(func, describe_call(func, xs, dim=d), out)
                    return [f] if f else _unrecognised(func, call=describe_call(func, xs, dim=d), returned=_show(out))
            x3 = _randn(60, 2, 3, 4)
            out3 = p(func, x3, dim=1)
            if _close(out3, p.expect("softmax", func, x3, 1)):
                return []
            f = _distribution_findings(func, describe_call(func, x3, dim=1), out3, x3, 1, lambda z: z)
            return [f] if f else _unrecognised(func, call=describe_call(func, x3, dim=1))
        f = _overflow(func, describe_call(func, _BIG, dim=-1), big)
        return [f] if f else _unrecognised(func, call=describe_call(func, _BIG, dim=-1), returned=_show(big))
    for d in bad:
        f = _distribution_findings(func, describe_call(func, _X, dim=d), outs[d], _X, d, lambda z: z)
        if f:
            return [f]
    x2 = _X.flip(0) * 0.5
    hard = _hardcoded(func, describe_call(func, _X, dim=-1), outs[-1], describe_call(func, x2, dim=-1),
                      p(func, x2, dim=-1))
    return [hard] if hard else _unrecognised(func, call=describe_call(func, _X, dim=bad[0]))


def _temperature(p: _Probe) -> list[Finding]:
    func = "softmax_with_temperature"
    cases = [(2.0, -1), (0.5, 0)]
    outs = [p(func, _X, t, dim=d) for t, d in cases]
    wants = [p.expect("softmax", func, _X, t, d) for t, d in cases]
    if all(_close(o, w) for o, w in zip(outs, wants)):
        # Magnitudes up to 1e4 / 0.5, at temperatures below, at and above 1.
        for xs, t in ((_BIG, 1.0), (_SPREAD, 0.5), (_SPREAD, 8.0)):
            big = p(func, xs, t, dim=-1)
            if not _close(big, p.expect("softmax", func, xs, t, -1), rtol=2e-3):
                f = _overflow(func, describe_call(func, xs, t, dim=-1), big)
                return [f] if f else _unrecognised(func, call=describe_call(func, xs, t, dim=-1))
        for t in (0.0, -1.0):
            call = describe_call(func, _X, t)
            reason = {"en": f"the temperature must be > 0 (got {t:g})", "ja": f"温度は 0 より大きくなければなりません（{t:g} が渡されました）"}
            try:
                got = p(func, _X, t)
            except _Raised as exc:
                if exc.type_name == "ValueError":
                    continue
                return [Finding("missing-value-error", func, {"variant": "other-error", "call": call,
                                                              "raised": exc.type_name, "reason": reason})]
            return [Finding("missing-value-error", func, {"variant": "returned", "call": call,
                                                          "returned": _show(got), "reason": reason})]
        return []
    if all(_close(o, _softmax64(_X * t, d).numpy()) for o, (t, d) in zip(outs, cases)):
        return [Finding("temperature-multiplied", func, {"call": describe_call(func, _X, 2.0), "temperature": 2.0,
                                                         "effective_temperature": 0.5})]
    for out, (t, d) in zip(outs, cases):
        f = _distribution_findings(func, describe_call(func, _X, t, dim=d), out, _X, d, functools.partial(_divided, by=t))
        if f:
            return [f]
    x2 = _X.flip(0) * 0.5
    hard = _hardcoded(func, describe_call(func, _X, 2.0), outs[0], describe_call(func, x2, 2.0),
                      p(func, x2, 2.0, dim=-1))
    return [hard] if hard else _unrecognised(func, call=describe_call(func, _X, 2.0), returned=_show(outs[0]))


def _max_prob_divisor(scores: np.ndarray, m: float) -> float | None:
    """The divisor s > 0 with max softmax(scores / s) = m (bisection; None if impossible)."""
    n = scores.size
    if not (1.0 / n + 1e-9 < m < 1.0 - 1e-12):
        return None

    def f(log_s: float) -> float:
        z = scores / math.exp(log_s)
        e = np.exp(z - z.max())
        return float(e.max() / e.sum())

    lo, hi = -12.0, 12.0
    if not (f(lo) >= m >= f(hi)):
        return None
    for _ in range(80):
        mid = (lo + hi) / 2
        if f(mid) > m:
            lo = mid
        else:
            hi = mid
    return math.exp((lo + hi) / 2)


def _via_softmax(p: _Probe, func: str, cases: list[tuple[torch.Tensor, int]],
                 got: list[tuple[float | None, float | None]]) -> list[Finding] | None:
    """The student's own softmax's mistake, when ``func`` returned the maxima of that softmax.

    compare_saturation is wrong only because the softmax it calls is: the values it returned
    are max(softmax(s)) and max(softmax(s / √d_k)) of the student's softmax, which has a
    named mistake. That id is then named for both (the report lists compare_saturation beside
    softmax), not "unrecognised". None when the values are not the softmax's or it is right.
    """
    try:
        for (scores, d_k), (u, s) in zip(cases, got):
            mine = (_arr(p("softmax", scores)), _arr(p("softmax", scores / math.sqrt(d_k))))
            if u is None or s is None or any(m is None or m.size == 0 for m in mine):
                return None
            assert mine[0] is not None and mine[1] is not None
            if not (math.isclose(u, float(mine[0].max()), rel_tol=1e-4, abs_tol=1e-9)
                    and math.isclose(s, float(mine[1].max()), rel_tol=1e-4, abs_tol=1e-9)):
                return None
        found = [f for f in _softmax(p) if f.id != _UNRECOGNISED]
    except (_Raised, _NotImplemented, _Unavailable):  # no softmax of the student's to blame
        return None
    if not found:
        return None
    return [Finding(f.id, func, {**f.evidence, "via": "softmax"}) for f in found]


def _compare_saturation(p: _Probe) -> list[Finding]:
    func = "compare_saturation"
    cases = [(torch.tensor([12.0, 9.0, 6.0, 3.0]), 64), (torch.tensor([2.0, 7.0, 4.0, -1.0, 5.0]), 16)]
    outs = [p(func, s, d) for s, d in cases]
    wants = [p.expect("softmax", func, s, d) for s, d in cases]

    def pair(out: Any) -> tuple[float | None, float | None]:
        if not isinstance(out, dict):
            return None, None
        return _num(out.get("unscaled")), _num(out.get("scaled"))

    got = [pair(o) for o in outs]
    right = [g[0] is not None and g[1] is not None and math.isclose(g[0], w["unscaled"], rel_tol=1e-4)
             and math.isclose(g[1], w["scaled"], rel_tol=1e-4) for g, w in zip(got, wants)]
    calls = [describe_call(func, s, d_k=d) for s, d in cases]
    if all(right):
        big = torch.tensor([1000.0, 990.0, 980.0, 970.0])
        out = p(func, big, 64)
        u, s = pair(out)
        if u is not None and s is not None and math.isfinite(u) and math.isfinite(s):
            return []
        if u is None and s is None:
            return _unrecognised(func, returned=_show(out))
        nonfinite = sum(1 for v in (u, s) if v is None or not math.isfinite(v))
        return [Finding("softmax-overflow", func, {"call": describe_call(func, big, d_k=64), "magnitude": 1000.0,
                                                   "nonfinite": nonfinite, "total": 2})]
    inherited = _via_softmax(p, func, cases, got)
    if inherited is not None:
        return inherited
    # An unnormalised exp(x - max) has maximum exactly 1 for every input: a known form, so
    # it is checked before "the same value whatever the input".
    for (u, s), call in zip(got, calls):
        if u is not None and s is not None and (u > 1.0 + 1e-6 or s > 1.0 + 1e-6 or (u == 1.0 and s == 1.0)):
            return [Finding("softmax-not-normalized", func, {"call": call, "sums": f"{u:.4g}, {s:.4g}"})]
    hard = _hardcoded(func, calls[0], outs[0], calls[1], outs[1])
    if hard:
        return [hard]
    for (u, s), call in zip(got, calls):
        if u is None or s is None:
            return _unrecognised(func, call=call, returned=_show(outs[0]))
    found: list[Finding | None] = []
    for (u, s), (scores, d_k), call, want in zip(got, cases, calls, wants):
        assert u is not None and s is not None
        if not math.isclose(u, want["unscaled"], rel_tol=1e-4):
            return _unrecognised(func, call=call, returned=_show(outs[0]))
        r = _max_prob_divisor(scores.double().numpy(), s)
        if r is None:
            return _unrecognised(func, call=call, returned=_show(outs[0]))
        found.append(_divisor_finding(func, call, r, d_k, rel=5e-3))
    return _pick(found) or _unrecognised(func, call=calls[0])


#: Wrong Jacobians that no a·p_i + b·p_i² / c·p_i p_j describes, worded by what went wrong
#: (an operator taken for another); any other wrong Jacobian is described by measurement.
def _operator_mixups(prob: torch.Tensor) -> list[tuple[dict[str, str], torch.Tensor]]:
    pd = prob.double()
    diag = torch.diag(pd)
    return [
        ({"en": "diag(p) − p·p (the inner product, a number, instead of the outer product p pᵀ)",
          "ja": "diag(p) − p·p（外積 p pᵀ ではなく、数である内積）"}, diag - pd @ pd),
        ({"en": "diag(p) − p ⊙ p (p² subtracted from every row instead of p pᵀ)",
          "ja": "diag(p) − p ⊙ p（p pᵀ ではなく p² を各行から引いたもの）"}, diag - pd * pd),
    ]


def _term(c: float, term: str) -> str:
    if abs(c - 1) < 1e-3:
        return term
    if abs(c + 1) < 1e-3:
        return f"−{term}"
    return f"{c:.3g} {term}".replace("-", "−")


def _sum_of(terms: list[str]) -> str:
    out = " + ".join(t for t in terms if t).replace("+ −", "− ")
    return out or "0"


def _measured_form(o: np.ndarray, prob: np.ndarray) -> dict[str, str] | None:
    """The student's Jacobian described from its own numbers: a·p_i + b·p_i² on the diagonal,
    c·p_i p_j off it; None when either part is no such combination."""
    n = prob.size
    d = np.diag(o)
    basis = np.stack([prob, prob * prob], axis=1)
    (a, b), *_ = np.linalg.lstsq(basis, d, rcond=None)
    a, b = (0.0 if abs(v) < 1e-3 else float(v) for v in (a, b))
    off = ~np.eye(n, dtype=bool)
    outer = np.outer(prob, prob)[off]
    c = float(np.dot(o[off], outer) / np.dot(outer, outer))
    c = 0.0 if abs(c) < 1e-3 else c
    scale = max(float(np.abs(o).max()), 1e-12)
    if (np.abs(basis @ np.array([a, b]) - d).max() > 1e-4 * scale
            or np.abs(c * outer - o[off]).max() > 1e-4 * scale):
        return None
    diag_text = _sum_of([_term(a, "p_i") if a else "", _term(b, "p_i²") if b else ""])
    off_text = _term(c, "p_i p_j") if c else "0"
    return {"en": f"a matrix with {diag_text} on the diagonal and {off_text} off it",
            "ja": f"対角成分が {diag_text}、非対角成分が {off_text} の行列"}


#: What the jacobian-wrong message says of a row that does sum to 0 (to rounding).
_ROW_SUM_RIGHT = {"en": "its rows do sum to 0, as they must", "ja": "行の和は正しく 0 になっています"}

_JACOBIAN_P = torch.softmax(torch.tensor([1.0, 0.2, -0.5, 2.0]), 0)


def _jacobian(p: _Probe) -> list[Finding]:
    """Any wrong (n, n) Jacobian is jacobian-wrong: what it holds is measured from its numbers."""
    func = "softmax_jacobian"
    prob = _JACOBIAN_P
    out = p(func, prob)
    want = p.expect("softmax", func, prob)
    if _close(out, want):
        return []
    o = _arr(out)
    call = describe_call(func, prob)
    n = prob.numel()
    p2 = torch.softmax(torch.tensor([0.1, 1.5, -1.0, 0.4]), 0)
    hard = _hardcoded(func, call, out, describe_call(func, p2), p(func, p2))
    if hard:
        return [hard]
    if o is not None and o.size == n and o.shape != (n, n) and _close(o.reshape(-1), want.diagonal()):
        # p ⊙ (1 − p): the diagonal alone, as for an elementwise function such as a sigmoid
        return [Finding("jacobian-diagonal-vector", func, {
            "call": call, "shape": str(tuple(o.shape)), "n": n, "values": _show(o.reshape(-1)).split(" (shape")[0],
            "expected_entry": float(f"{float(want[0, 1]):.4g}")})]
    if o is None or o.shape != (n, n) or not np.all(np.isfinite(o)):
        return _unrecognised(func, call=call, returned=_show(out))
    form = next((shown for shown, value in _operator_mixups(prob) if _close(out, value.numpy())), None)
    form = form or _measured_form(o.astype(np.float64), prob.double().numpy())
    row_sum = float(o[0].sum())
    # A row that sums to 0 up to rounding is said to: "sums to -1e-12 instead of 0" (or, rounded,
    # "-0 instead of 0") would claim a wrong sum where the sum is right.
    sums_right = abs(row_sum) <= 1e-6 * max(float(np.abs(o[0]).max()), 1e-12)
    ev: dict[str, Any] = {"call": call, "entry": float(f"{float(o[0, 1]):.6g}"),
                          "expected_entry": float(f"{float(want[0, 1]):.6g}"),
                          "diagonal_entry": float(f"{float(o[0, 0]):.6g}"),
                          "expected_diagonal_entry": float(f"{float(want[0, 0]):.6g}"),
                          "row_sum": 0.0 if sums_right else float(f"{row_sum:.6g}"),
                          "row_sum_said": _ROW_SUM_RIGHT if sums_right else {
                              "en": f"row 0 sums to {row_sum:.4g} instead of 0",
                              "ja": f"0 行目の和が 0 ではなく {row_sum:.4g} です"}}
    if form is None:
        ev["variant"] = "measured"
    else:
        ev["form"] = form
    return [Finding("jacobian-wrong", func, ev)]


def _attention(p: _Probe) -> list[Finding]:
    func = "attention"
    probes = []
    for i, (lead, n_q, n_k, d_k) in enumerate([((), 4, 5, 64), ((2,), 3, 5, 16)]):
        q, k = _randn(70 + i, *lead, n_q, d_k, scale=0.3), _randn(80 + i, *lead, n_k, d_k, scale=0.3)
        v = torch.eye(n_k).expand(*lead, n_k, n_k).contiguous()
        probes.append((q, k, v, d_k))
    outs = [p(func, q, k, v) for q, k, v, _ in probes]
    if all(_close(o, p.expect("softmax", func, q, k, v), atol=1e-5) for o, (q, k, v, _) in zip(outs, probes)):
        qb, kb = _randn(90, 3, 16, scale=40.0), _randn(91, 5, 16, scale=40.0)
        vb = _randn(92, 5, 2)
        big = p(func, qb, kb, vb)
        if _close(big, p.expect("softmax", func, qb, kb, vb), rtol=2e-3, atol=1e-3):
            return []
        f = _overflow(func, describe_call(func, qb, kb, vb), big)
        if f is not None:
            f.evidence["magnitude"] = float(
                (qb.double() @ kb.double().T / 4.0).abs().max().round())
        return [f] if f else _unrecognised(func, call=describe_call(func, qb, kb, vb))
    found: list[Finding | None] = []
    for out, (q, k, v, d_k) in zip(outs, probes):
        call = describe_call(func, q, k, v)
        raw = q.double() @ k.double().transpose(-2, -1)
        o = _arr(out)
        if o is None or o.shape != tuple(raw.shape) or not np.all(np.isfinite(o)):
            return _unrecognised(func, call=call, returned=_show(out))
        sums = o.sum(axis=-1)
        if not np.allclose(sums, 1.0, atol=1e-4):
            f = _distribution_findings(func, call, out, raw, -1, functools.partial(_divided, by=math.sqrt(d_k)))
            if f is None:
                return _unrecognised(func, call=call, returned=_show(out))
            if f.id == "softmax-wrong-dim":
                f.evidence.update(dim=-1, normalised_axis=-2)
                f.evidence["call"] = call
            return [f]
        logs = np.log(np.clip(o, 1e-300, None))
        dl = logs - logs[..., :1]
        ds = (raw.numpy() - raw.numpy()[..., :1])
        mask = (np.abs(dl) > 1e-3) & (o > 1e-30) & (o[..., :1] > 1e-30)
        if mask.sum() < 2:
            return _unrecognised(func, call=call)
        ratios = ds[mask] / dl[mask]
        r = float(np.median(ratios))
        if not (np.abs(ratios / r - 1) < 1e-2).mean() >= 0.9:
            return _unrecognised(func, call=call, returned=_show(out))
        found.append(_divisor_finding(func, call, r, d_k, rel=1e-2))
    return _pick(found) or _unrecognised(func, call=describe_call(func, *probes[0][:3]))


# --------------------------------------------------------------------------- variance.py


# Forms of a reported variance, as ratios to the right value: (ratio, id, evidence).
_VARIANCE_FORMS: tuple[tuple[float, str, dict[str, Any]], ...] = (
    (2.0, "variance-self-dot", {}),
    (7 / 144, "variance-uniform", {"distribution": "[0, 1)"}),
    (1 / 9, "variance-uniform", {"distribution": "[-1, 1)"}),
    (1 / 144, "variance-uniform", {"distribution": "[-0.5, 0.5)"}),
)
_LOG_TOL = 0.3  # ≈ 6 standard errors of a variance from 1000 samples at d_k = 16


def _near_ratio(value: float, target: float) -> bool:
    return value > 0 and target > 0 and abs(math.log(value / target)) < _LOG_TOL


def _variance_form(func: str, values: dict[int, float], expected: Callable[[int], float],
                   calls: dict[int, str], *, std_form: bool, scaled: bool) -> list[Finding] | None:
    """Classify variances measured at several d_k; [] when right, None when unexplained."""
    if all(_near_ratio(v, expected(d)) for d, v in values.items()):
        return []
    d0 = next(iter(values))
    v0 = values[d0]
    if std_form and all(_near_ratio(v, math.sqrt(d)) for d, v in values.items()):
        return [Finding("variance-returns-std", func, {"call": calls[d0], "value": round(v0, 4), "d_k": d0,
                                                       "sqrt_d_k": round(math.sqrt(d0), 4)})]
    for ratio, mid, extra in _VARIANCE_FORMS:
        if all(_near_ratio(v, ratio * expected(d)) for d, v in values.items()):
            return [Finding(mid, func, {"call": calls[d0], "value": round(v0, 4), "expected": expected(d0),
                                        "ratio": round(v0 / expected(d0), 4), **extra})]
    if scaled and all(v > 0 for v in values.values()):
        divisors = {d: math.sqrt(d / v) for d, v in values.items()}
        found = [_divisor_finding(func, calls[d], s, d, rel=0.2) for d, s in divisors.items()]
        ids = {f.id if f else None for f in found}
        s0 = divisors[d0]
        consistent = all(abs(math.log(s / s0)) < 0.2 for s in divisors.values())
        if len(ids) == 1 and None not in ids and (ids != {"wrong-divisor"} or consistent):
            f = found[0]
            assert f is not None
            # A measured divisor is noisy: name the exact one it matched, keep the estimate.
            exact = {"divide-by-d-k": float(d0), "no-scaling": 1.0, "multiply-by-sqrt-d-k": 1 / math.sqrt(d0)}
            f.evidence["estimated_divisor"] = round(s0, 3)
            f.evidence["divisor"] = round(exact.get(f.id, s0), 4)
            if f.id == "wrong-divisor":
                f.evidence["divisor_squared"] = round(s0 * s0, 3)
            return [f]
    return None


def _seed_findings(func: str, a: Any, a_again: Any, b: Any, seeds: tuple[int, int]) -> list[Finding]:
    if not _same(a, a_again):
        return [Finding("variance-ignores-seed", func, {"variant": "not-reproducible", "value_a": _num(a),
                                                        "value_b": _num(a_again), "seed_a": seeds[0],
                                                        "seed_b": seeds[0]})]
    if _same(a, b):
        return [Finding("variance-ignores-seed", func, {"variant": "unused", "value_a": _num(a), "value_b": _num(b),
                                                        "seed_a": seeds[0], "seed_b": seeds[1]})]
    return []


def _variance_function(p: _Probe, func: str, *, scaled: bool) -> list[Finding]:
    s1, s2 = _SEEDS
    dims = (16, 4)
    first = {d: p(func, d, _N, s1) for d in dims}
    values = {d: _num(v) for d, v in first.items()}
    calls = {d: describe_call(func, d, _N, s1) for d in dims}
    other = p(func, 16, _N, s2)
    if any(v is None or not math.isfinite(v) for v in values.values()):
        return _unrecognised(func, call=calls[16], returned=_show(first[16]))
    if _same(first[16], other) and _same(first[16], first[4]):
        return [Finding("hardcoded-output", func, {"call": calls[16], "other_call": describe_call(func, 4, _N, s1),
                                                   "value": _show(first[16])})]
    expected: Callable[[int], float] = (lambda d: 1.0) if scaled else (lambda d: float(d))
    clean = {d: v for d, v in values.items() if v is not None}
    form = _variance_form(func, clean, expected, calls, std_form=not scaled, scaled=scaled)
    again = p(func, 16, _N, s1)
    seed = _seed_findings(func, first[16], again, other, _SEEDS)
    if form is None:
        return seed + _unrecognised(func, call=calls[16], returned=_show(first[16]))
    return form + seed


def _dot_product_variance(p: _Probe) -> list[Finding]:
    return _variance_function(p, "dot_product_variance", scaled=False)


def _scaled_dot_product_variance(p: _Probe) -> list[Finding]:
    return _variance_function(p, "scaled_dot_product_variance", scaled=True)


_ROW_KEYS = ("d_k", "variance", "std", "sqrt_d_k", "scaled_variance")


def _variance_table(p: _Probe) -> list[Finding]:
    func = "variance_table"
    dims = [16, 4]
    s1, s2 = _SEEDS
    call = describe_call(func, dims, _N, s1)
    rows = p(func, dims, _N, s1)
    if not (isinstance(rows, list) and len(rows) == len(dims)
            and all(isinstance(r, dict) and all(k in r for k in _ROW_KEYS) for r in rows)):
        return _unrecognised(func, call=call, returned=_show(rows) if not isinstance(rows, list) else "a list")
    try:
        table = [{k: float(r[k]) for k in _ROW_KEYS} for r in cast("list[dict[str, Any]]", rows)]  # (checked above)
    except (TypeError, ValueError):
        return _unrecognised(func, call=call)
    if any(t["d_k"] != d or not math.isclose(t["sqrt_d_k"], math.sqrt(d), rel_tol=1e-6)
           for t, d in zip(table, dims)):
        return _unrecognised(func, call=call)
    found: list[Finding] = []
    variances = {d: t["variance"] for t, d in zip(table, dims)}
    form = _variance_form(func, variances, float, {d: call for d in dims}, std_form=True, scaled=False)
    scaled = {d: t["scaled_variance"] for t, d in zip(table, dims)}
    form_s = _variance_form(func, scaled, lambda d: 1.0, {d: call for d in dims}, std_form=False, scaled=True)
    if form is None or form_s is None:
        return _unrecognised(func, call=call)
    for f in form + form_s:
        if f.id not in {g.id for g in found}:
            found.append(f)
    if not all(math.isclose(t["std"], math.sqrt(t["variance"]), rel_tol=2e-3) for t in table if t["variance"] > 0):
        return found or _unrecognised(func, call=call)
    rows_b = p(func, dims, _N, s2)
    if _same(rows, rows_b):
        if all(t["variance"] == d for t, d in zip(table, dims)):
            found.append(Finding("hardcoded-output", func, {"call": call, "other_call": describe_call(func, dims, _N, s2),
                                                            "value": "d_k, √d_k, 1 (the theoretical table)"}))
        else:
            found.append(Finding("variance-ignores-seed", func, {"variant": "unused", "value_a": table[0]["variance"],
                                                                 "value_b": table[0]["variance"], "seed_a": s1,
                                                                 "seed_b": s2}))
    return found


RECOGNISERS: dict[str, Callable[[_Probe], list[Finding]]] = {
    "head_dim": _head_dim,
    "scaling_factor": _scaling_factor,
    "scale_scores": _scale_scores,
    "attention_scores": _attention_scores,
    "multihead_attention_scores": _multihead,
    "softmax": _softmax,
    "softmax_with_temperature": _temperature,
    "compare_saturation": _compare_saturation,
    "softmax_jacobian": _jacobian,
    "attention": _attention,
    "dot_product_variance": _dot_product_variance,
    "scaled_dot_product_variance": _scaled_dot_product_variance,
    "variance_table": _variance_table,
}


# --------------------------------------------------------------------------- quiz


def quiz_findings(answers: dict[str, Any], variant: dict[str, Any] | None = None) -> list[Finding]:
    """The divisor question answered with √d_model or d_k names the same mistake as code would.

    With a variant the question asks about the student's own model (their d_model and n_heads)."""
    entry = answers.get("divisor-4096-32") if isinstance(answers, dict) else None
    given = entry.get("answer") if isinstance(entry, dict) else entry
    try:
        value = float(given) if given is not None and not isinstance(given, bool) else None
    except (TypeError, ValueError):
        value = None
    if value is None or not math.isfinite(value) or value <= 0:
        return []
    d_model, n_heads = 4096, 32
    if variant:
        try:
            d_model, n_heads = int(variant["d_model"]), int(variant["n_heads"])
        except (KeyError, TypeError, ValueError):
            pass
    f = _divisor_finding("divisor-4096-32", "divisor-4096-32", value, d_model // n_heads, d_model=d_model,
                         n_heads=n_heads, rel=5e-3)
    if f is None or f.id not in ("sqrt-d-model", "divide-by-d-k"):
        return []
    f.evidence.update(variant="answer", question="divisor-4096-32", answer=given)
    return [f]


# --------------------------------------------------------------------------- a student's own handout


def personal_handout(name: str, text: str, values: dict[str, Any]) -> str:
    """The quiz's model questions ask about the student's own model (their d_model and n_heads);
    the question ids stay as they are, so every answers file reads the same way."""
    if "d_model" not in values or "n_heads" not in values:
        return text
    d, h = values["d_model"], values["n_heads"]
    for old, new in (
        ("埋め込み次元 4096、ヘッド数 32 のモデルで、", f"あなたのモデル (埋め込み次元 {d}、ヘッド数 {h}) で、"),
        ("A model has d_model = 4096 and 32 heads.", f"Your model has d_model = {d} and {h} heads."),
        ("同じモデル (d_model = 4096、32 ヘッド) で、", f"同じモデル (d_model = {d}、{h} ヘッド) で、"),
        ("For the same model (d_model = 4096, 32 heads),", f"For the same model (d_model = {d}, {h} heads),"),
    ):
        text = text.replace(old, new)
    return text


# --------------------------------------------------------------------------- report, suite, notebook

plot_data = plots.plot_data
figures = plots.figures
expected_values = expected.build

#: The mistake the student README names as an example of what ``grader check`` recognises.
README_EXAMPLE = {"en": "dividing by √d_model", "ja": "√d_model で割っている"}

NOTEBOOK_INTRO = """\
# 第7章 スケーリング: なぜ sqrt(d_k) で割るのか
# Chapter 7 -- Scaling: why divide by sqrt(d_k)

このノートブックには `scaling.py`, `softmax.py`, `variance.py` と同じ関数が入っています。
各関数の `raise NotImplementedError(...)` を自分のコードに置き換え、最後の確認問題の
セルに答えを書き込んでください。関数名と引数は変えないでください。

This notebook holds the same functions as `scaling.py`, `softmax.py` and `variance.py`.
Replace each `raise NotImplementedError(...)` with your own code, then write your answers in
the quiz cell at the end. Keep the function names and arguments as they are.

採点では、このノートブックのコードセルが上から順に実行されます。試しに関数を呼ぶセルを
追加しても構いませんが、時間のかかる処理は避けてください。

When graded, the code cells run from top to bottom. You may add cells that try your
functions out, but keep them quick.
"""
