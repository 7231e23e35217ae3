"""HTML writer: one self-contained page (inline CSS, plots as base64 PNG, no scripts).

The page shows the score, the parts, the mistakes, every test, and the assignment's figures,
drawn from ``report.plots`` by its hooks (``plot_data`` gathers the numbers after the tests,
``figures`` draws them; see :mod:`grader.kit.hooks`). The page text follows the rubric's languages.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import jinja2
from markupsafe import Markup

from grader import sinks
from grader.report import text as _text
from grader.report.model import GradeReport, JsonObject
from grader.report.webfont import FONT_STACK, MONO_STACK, embed

if TYPE_CHECKING:
    from grader.kit.hooks import Figure
    from grader.spec.rubric.model import ReportOptions

#: The assignment's figures hook (:func:`grader.spec.assignment.figures_hook`): the student's
#: values (``report.plots``) and the page's languages -> its figures.
Draw = Callable[[JsonObject, Sequence[str]], "list[Figure]"]

_ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("grader", "templates"),
    autoescape=jinja2.select_autoescape(["html", "j2"]),
    trim_blocks=True,
    lstrip_blocks=True,
    finalize=sinks.jinja_finalize,  # then autoescaped: sinks.html, done by Jinja
)
_ENV.globals["font_stack"] = Markup(FONT_STACK)
_ENV.globals["mono_stack"] = Markup(MONO_STACK)


def figures(report: GradeReport, langs: list[str], draw: Draw | None = None) -> list[tuple[str, list[str], str]]:
    """The report's plots as ``(base64 PNG, caption lines, name)``, in page order.

    ``draw(plots, langs)`` is the assignment's hook drawing its figures
    (:class:`grader.kit.hooks.Figure` each) from the student's values; without it, or without
    values, there are none (and the hook is not called).
    """
    if draw is None or not report.plots:
        return []
    return [(f.png, _text.each(dict(f.caption), langs), f.name) for f in draw(report.plots, langs) if f.png]


def render(report: GradeReport, opts: ReportOptions | None = None, lang: str = "en", *,
           draw: Draw | None = None) -> str:
    """The report as one self-contained HTML page (``draw``: the assignment's figures hook)."""
    langs = _text.order(lang, _text.languages_of(report, opts))
    images = figures(report, langs, draw)
    template = _ENV.get_template("report.html.j2")
    return embed(template.render(
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
        central=_text.passed_but(report),
        images=images,
        adjustments=_text.adjustment_lines(report, langs),
        comments=_text.comment_lines(report, langs),
    ))
