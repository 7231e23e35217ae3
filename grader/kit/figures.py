"""Helpers for an assignment's report figures (its hooks' ``figures``, see :mod:`grader.kit.hooks`).

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
import functools
import io
import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.figure import Figure as MatplotlibFigure
    from matplotlib.typing import RcKeyType

#: matplotlib rc settings, as ``matplotlib.rc_context`` takes them (its values are matplotlib's Any).
RcSettings = dict["RcKeyType", Any]

__all__ = ["figure", "packaged_ja_font", "plot_style", "png", "series", "style"]


def figure(width: float, height: float) -> MatplotlibFigure:
    """A matplotlib ``Figure`` on the Agg canvas, ``width`` × ``height`` inches."""
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height))


def style(lang: str) -> RcSettings:
    """matplotlib rc settings for labels in ``lang`` (a font with Japanese glyphs for ``ja``).

    Use as ``with matplotlib.rc_context(style(lang)): ...`` around the drawing.
    """
    return plot_style(lang)


def png(fig: MatplotlibFigure) -> str:
    """The figure as base64 PNG text, cropped to what was drawn."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def series(values: object) -> list[float] | None:
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


#: Installed fonts with Japanese glyphs, used only if the packaged one cannot be had.
_JA_FONTS = ("IPAexGothic", "IPAGothic", "IPAPGothic", "Noto Sans CJK JP", "Noto Sans JP",
             "TakaoGothic", "VL Gothic", "Hiragino Sans", "Yu Gothic", "MS Gothic")


@functools.lru_cache(maxsize=1)
def packaged_ja_font() -> str | None:
    """The family name of the Japanese font the ``matplotlib-fontja`` package ships
    (IPAexGothic), registered with matplotlib for this process; None without the package.

    The font file is added directly (``addfont``), so it works on any OS with no system font
    and no rebuilt font cache. The package is found, not imported: its import would change
    matplotlib's global settings.
    """
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("matplotlib_fontja")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        for ttf in sorted((Path(folder) / "fonts").glob("*.ttf")):
            from matplotlib import font_manager

            font_manager.fontManager.addfont(str(ttf))
            return str(font_manager.FontProperties(fname=str(ttf)).get_name())
    return None


def plot_style(lang: str) -> RcSettings:
    """matplotlib rc settings for plots labelled in ``lang``: a font that has its glyphs."""
    if lang != "ja":
        return {}
    packaged = packaged_ja_font()
    if packaged is not None:
        fonts = [packaged]
    else:
        from matplotlib import font_manager

        have = {f.name for f in font_manager.fontManager.ttflist}
        fonts = [f for f in _JA_FONTS if f in have]
    return {"font.family": "sans-serif", "font.sans-serif": [*fonts, "DejaVu Sans"]} if fonts else {}
