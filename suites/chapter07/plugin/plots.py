"""Chapter 7's report figures: the numbers behind them, gathered after the tests, and the drawing.

:func:`plot_data` calls the student's functions through the sandbox session (plain data back,
as for the tests) on fixed inputs, and computes the reference values here with torch, on the
trusted side. A function that is missing, raises or times out leaves its series as ``None``;
:func:`figures` then plots what there is: the student's softmax of the same scores without and
with scaling beside the reference's, and the measured variance of q·k against d_k on log-log
axes with the lines d_k and 1.

Example::

    report.plots = plot_data(session, reference)
    report.plots["variance"]["d_k"]      # [1, 4, 16, 64, 256, 1024]
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

from grader.kit import Figure
from grader.kit import figure as _figure
from grader.kit import png as _png
from grader.kit import series as _series
from grader.kit import style as _style
from grader.kit import PLOT_ITEMS

D_K = 64
DIMS = [1, 4, 16, 64, 256, 1024]
N_SAMPLES = 4000
SEED = 7


def _floats(value: Any) -> list[float] | None:
    try:
        import numpy as np

        arr = np.asarray(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        return None
    if arr.size == 0 or arr.size > PLOT_ITEMS:  # (more than any plot draws: never turned into a list)
        return None
    return [float(x) if math.isfinite(float(x)) else float("nan") for x in arr]


def _float(value: Any) -> float | None:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _try(session: Any, part: str, func: str, *args: Any) -> Any:
    try:
        return session.call(part, func, list(args), {})
    except Exception:  # noqa: BLE001 - whatever the student's code did, the plot goes on without it
        return None


def plot_data(session: Any, reference: Any = None) -> dict[str, Any]:
    """Student and reference values for the softmax and variance plots.

    Args:
        session: an open :class:`grader.sandbox.child.SubmissionSession` (or anything with
            ``call(part, func, args, kwargs)``).
        reference: unused; the reference values are torch's.

    Returns:
        ``{"softmax": {"d_k", "scores", "student_unscaled", "student_scaled",
        "reference_unscaled", "reference_scaled"}, "variance": {"d_k", "student", "scaled",
        "reference", "reference_scaled"}}``; plain lists of floats (or ``None``).
    """
    import torch

    gen = torch.Generator().manual_seed(SEED)
    # Raw q.k scores for d_k = 64 have a standard deviation of about 8: softmax saturates.
    scores = (torch.randn(8, generator=gen, dtype=torch.float64) * math.sqrt(D_K)).to(torch.float32)
    scaled_ref = scores / math.sqrt(D_K)
    student_scaled_in = _try(session, "scaling", "scale_scores", scores, D_K)
    scaled_in = scaled_ref
    if student_scaled_in is not None and _floats(student_scaled_in) is not None:
        values = _floats(student_scaled_in)
        if values is not None and len(values) == scores.numel():
            scaled_in = torch.tensor(values, dtype=torch.float32)
    softmax = {
        "d_k": D_K,
        "scores": [float(x) for x in scores],
        "student_unscaled": _floats(_try(session, "softmax", "softmax", scores)),
        "student_scaled": _floats(_try(session, "softmax", "softmax", scaled_in)),
        "reference_unscaled": [float(x) for x in torch.softmax(scores, dim=-1)],
        "reference_scaled": [float(x) for x in torch.softmax(scaled_ref, dim=-1)],
    }
    ref_gen = torch.Generator().manual_seed(SEED)
    reference, reference_scaled = [], []
    for d in DIMS:
        q = torch.randn(N_SAMPLES, d, generator=ref_gen, dtype=torch.float64)
        k = torch.randn(N_SAMPLES, d, generator=ref_gen, dtype=torch.float64)
        dots = (q * k).sum(dim=1)
        reference.append(float(dots.var()))
        reference_scaled.append(float((dots / math.sqrt(d)).var()))
    variance = {
        "d_k": list(DIMS),
        "student": [_float(_try(session, "variance", "dot_product_variance", d, N_SAMPLES, SEED)) for d in DIMS],
        "scaled": [_float(_try(session, "variance", "scaled_dot_product_variance", d, N_SAMPLES, SEED)) for d in DIMS],
        "reference": reference,
        "reference_scaled": reference_scaled,
    }
    return {"softmax": softmax, "variance": variance}


# --------------------------------------------------------------------------- drawing

CAPTIONS = {
    "softmax": {
        "en": "Softmax of the same scores without and with scaling by √d_k, yours beside the reference.",
        "ja": "同じスコアの softmax（√d_k で割る前と後）。あなたの結果と模範の値を並べています。",
    },
    "variance": {
        "en": "Measured variance of q·k against d_k (log-log). Unscaled it follows the line d_k; "
              "scaled it stays at 1.",
        "ja": "q·k の分散の測定値と d_k の関係（両対数）。スケーリングなしでは直線 d_k に沿い、"
              "スケーリングすると 1 のままです。",
    },
}


#: Words on the figures, per language.
FIGURE_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "softmax_unscaled": "softmax(scores), d_k = {d_k}",
        "softmax_scaled": "softmax(scores / sqrt(d_k)), sqrt(d_k) = {root}",
        "reference": "reference", "yours": "yours", "no_values": "your softmax gave no values",
        "key_position": "key position", "probability": "probability",
        "ref_unscaled": "reference, unscaled", "ref_scaled": "reference, scaled",
        "yours_var": "yours: Var(q.k)", "yours_scaled": "yours: Var(q.k / sqrt(d_k))",
        "measured_variance": "measured variance", "variance_title": "Variance of the dot product q.k",
    },
    "ja": {
        "softmax_unscaled": "softmax(scores)（d_k = {d_k}、スケーリングなし）",
        "softmax_scaled": "softmax(scores / sqrt(d_k))（sqrt(d_k) = {root}）",
        "reference": "模範", "yours": "あなたの結果", "no_values": "あなたの softmax は値を返しませんでした",
        "key_position": "キーの位置", "probability": "確率",
        "ref_unscaled": "模範（スケーリングなし）", "ref_scaled": "模範（スケーリングあり）",
        "yours_var": "あなたの Var(q.k)", "yours_scaled": "あなたの Var(q.k / sqrt(d_k))",
        "measured_variance": "分散の測定値", "variance_title": "内積 q.k の分散",
    },
}


def _word(key: str, lang: str, **slots: Any) -> str:
    return (FIGURE_WORDS.get(lang) or FIGURE_WORDS["en"])[key].format(**slots)


def softmax_figure(data: dict[str, Any], lang: str = "en") -> str | None:
    """Base64 PNG: softmax without and with scaling, student bars beside reference bars."""
    scores = _series(data.get("scores"))
    if scores is None:
        return None
    import matplotlib

    with matplotlib.rc_context(_style(lang)):
        return _softmax_figure(data, scores, lang)


def _softmax_figure(data: dict[str, Any], scores: list[float], lang: str) -> str:
    W = functools.partial(_word, lang=lang)
    fig = _figure(9, 3.4)
    d_k = data.get("d_k", 64)
    panels = (("unscaled", W("softmax_unscaled", d_k=d_k)),
              ("scaled", W("softmax_scaled", root=f"{math.sqrt(float(d_k)):g}")))
    x = list(range(len(scores)))
    for i, (key, title) in enumerate(panels):
        ax = fig.add_subplot(1, 2, i + 1)
        ref = _series(data.get(f"reference_{key}"))
        mine = _series(data.get(f"student_{key}"))
        if ref is not None:
            ax.bar([v - 0.2 for v in x], ref, width=0.4, color="#9aa5b1", label=W("reference"))
        if mine is not None and len(mine) == len(x):
            ax.bar([v + 0.2 for v in x], mine, width=0.4, color="#d9480f", label=W("yours"))
        else:
            ax.text(0.5, 0.5, W("no_values"), transform=ax.transAxes,
                    ha="center", va="center", color="#d9480f")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel(W("key_position"))
        ax.set_ylabel(W("probability"))
        ax.set_ylim(0, 1.05)
        ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    return _png(fig)


def variance_figure(data: dict[str, Any], lang: str = "en") -> str | None:
    """Base64 PNG: measured Var(q.k) and Var(q.k / sqrt(d_k)) against d_k, log-log."""
    dims = _series(data.get("d_k"))
    if dims is None:
        return None
    import matplotlib

    with matplotlib.rc_context(_style(lang)):
        return _variance_figure(data, dims, lang)


def _variance_figure(data: dict[str, Any], dims: list[float], lang: str) -> str:
    W = functools.partial(_word, lang=lang)
    fig = _figure(6, 4)
    ax = fig.add_subplot(1, 1, 1)
    ax.plot(dims, dims, "--", color="#495057", linewidth=1, label="d_k")
    ax.plot(dims, [1.0] * len(dims), ":", color="#495057", linewidth=1, label="1")
    for key, style, colour, name in (
        ("reference", "s", "#9aa5b1", W("ref_unscaled")),
        ("reference_scaled", "D", "#9aa5b1", W("ref_scaled")),
        ("student", "o", "#d9480f", W("yours_var")),
        ("scaled", "^", "#1971c2", W("yours_scaled")),
    ):
        ys = _series(data.get(key))
        if ys is None or len(ys) != len(dims):
            continue
        pts = [(d, y) for d, y in zip(dims, ys) if math.isfinite(y) and y > 0]
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, color=colour,
                    markersize=5 if key.startswith("reference") else 7, label=name,
                    fillstyle="none" if key.startswith("reference") else "full")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("d_k")
    ax.set_ylabel(W("measured_variance"))
    ax.set_title(W("variance_title"), fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    return _png(fig)


def figures(plots: dict[str, Any], languages: Sequence[str]) -> list[Figure]:
    """The softmax and variance figures of one report, each where its data is there."""
    out = []
    for name, draw in (("softmax", softmax_figure), ("variance", variance_figure)):
        data = plots.get(name) if isinstance(plots, dict) else None
        png = draw(data, languages[0] if languages else "en") if isinstance(data, dict) and data else None
        if png:
            out.append(Figure(png, {lang: CAPTIONS[name][lang] for lang in languages if lang in CAPTIONS[name]}, name))
    return out
