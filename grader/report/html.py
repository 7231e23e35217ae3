"""HTML writer: one self-contained page (inline CSS, plots as base64 PNG, no scripts).

The page shows the score, the parts, the mistakes, every test, and two plots drawn from
``report.plots`` (see :mod:`grader.report.plotdata`): the student's softmax of the same scores
without and with scaling beside the reference's, and the measured variance of q·k against
d_k on log-log axes with the lines d_k and 1. Plot labels are ASCII English (a Japanese font
may be missing where the report is rendered); the page text follows the rubric's languages.
"""

from __future__ import annotations

import base64
import io
import math
from typing import Any

import jinja2

from grader import sinks
from grader.report import _text
from grader.report.model import GradeReport

_ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("grader", "templates"),
    autoescape=jinja2.select_autoescape(["html", "j2"]),
    trim_blocks=True,
    lstrip_blocks=True,
    finalize=sinks.jinja_finalize,  # then autoescaped: sinks.html, done by Jinja
)


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _series(values: Any) -> list[float] | None:
    if not isinstance(values, list) or not values:
        return None
    out = []
    for v in values:
        try:
            x = float(v)
        except (TypeError, ValueError):
            x = math.nan
        out.append(x)
    return out if any(math.isfinite(x) for x in out) else None


def softmax_figure(data: dict[str, Any], lang: str = "en") -> str | None:
    """Base64 PNG: softmax without and with scaling, student bars beside reference bars."""
    scores = _series(data.get("scores"))
    if scores is None:
        return None
    import matplotlib

    with matplotlib.rc_context(_text.plot_style(lang)):
        return _softmax_figure(data, scores, lang)


def _softmax_figure(data: dict[str, Any], scores: list[float], lang: str) -> str:
    from matplotlib.figure import Figure  # the Agg canvas, no pyplot state or display

    W = lambda key, **kw: _text.plot_word(key, lang, **kw)  # noqa: E731 - a local shorthand
    fig = Figure(figsize=(9, 3.4))
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

    with matplotlib.rc_context(_text.plot_style(lang)):
        return _variance_figure(data, dims, lang)


def _variance_figure(data: dict[str, Any], dims: list[float], lang: str) -> str:
    from matplotlib.figure import Figure

    W = lambda key: _text.plot_word(key, lang)  # noqa: E731 - a local shorthand
    fig = Figure(figsize=(6, 4))
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


def figures(report: GradeReport, langs: list[str], draw: Any = None) -> list[tuple[str, list[str], str]]:
    """The report's plots as ``(base64 PNG, caption lines, name)``, in page order.

    ``draw(plots, langs)`` is the assignment's hook drawing its figures
    (:class:`grader.hooks.Figure` each); without it the built-in figures are drawn.
    """
    plots = report.plots or {}
    images = []
    if draw is not None:
        return [(f.png, _text.each(dict(f.caption), langs), f.name) for f in draw(plots, langs) if f.png]
    if plots.get("softmax"):
        png = softmax_figure(plots["softmax"], langs[0])
        if png:
            images.append((png, _text.each(_text.LABELS["softmax_plot"], langs), "softmax"))
    if plots.get("variance"):
        png = variance_figure(plots["variance"], langs[0])
        if png:
            images.append((png, _text.each(_text.LABELS["variance_plot"], langs), "variance"))
    return images


def render(report: GradeReport, opts: Any = None, lang: str = "en", *, draw: Any = None) -> str:
    """The report as one self-contained HTML page (``draw``: the assignment's figures hook)."""
    langs = _text.order(lang, _text.languages_of(report, opts))
    images = figures(report, langs, draw)
    template = _ENV.get_template("report.html.j2")
    return template.render(
        r=report,
        langs=langs,
        lang=langs[0],
        L=lambda key: _text.label(key, langs),
        pick=lambda text: _text.pick(text, langs),
        each=lambda text: _text.each(text, langs),
        title_of=lambda t: _text.title_of(t, langs),
        status_word=lambda s: _text.pick(_text.STATUS_WORDS[s], langs),
        say=lambda text: _text.sentence(text, langs),
        num=_text.num,
        verdict=_text.verdict(report, langs),
        images=images,
    )
