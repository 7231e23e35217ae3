"""Helpers for an assignment's report figures (its hooks' ``figures``, see :mod:`grader.hooks`).

Figures are drawn with matplotlib's Agg canvas (no pyplot state, no display) and embedded in
the HTML report as base64 PNG. Labels may be Japanese: :func:`style` gives the Japanese font
matplotlib-fontja ships (no system font needed); captions carry every language of the report.

Example::

    fig = figure(6, 4)
    fig.add_subplot(1, 1, 1).plot(series(data.get("student")) or [])
    return [Figure(png(fig), {"en": "...", "ja": "..."}, "heat-map")]
"""

from __future__ import annotations

import base64
import io
import math
from typing import Any

__all__ = ["figure", "png", "series", "style"]


def figure(width: float, height: float) -> Any:
    """A matplotlib ``Figure`` on the Agg canvas, ``width`` × ``height`` inches."""
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height))


def style(lang: str) -> dict[str, Any]:
    """matplotlib rc settings for labels in ``lang`` (a font with Japanese glyphs for ``ja``).

    Use as ``with matplotlib.rc_context(style(lang)): ...`` around the drawing.
    """
    from grader.report._text import plot_style

    return plot_style(lang)


def png(fig: Any) -> str:
    """The figure as base64 PNG text, cropped to what was drawn."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def series(values: Any) -> list[float] | None:
    """A list from a report's plot data as floats (unreadable entries NaN); None if nothing to plot."""
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
