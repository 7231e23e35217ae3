"""Report writers: one module per format, each a pure function of the report.

``render(report, fmt, rubric=..., lang=...)`` first runs the one redaction step
(:func:`grader.report.redact.redact`) with the rubric's report options, then hands the trimmed
report to the writer of ``fmt``. No writer sees what the rubric hides from the audience.

======================  ===============================================
yaml, json              the report's plain data (``yaml_json``)
gradescope              Gradescope ``results.json`` (``gradescope``)
junit                   JUnit XML (``junit``)
markdown                CI job summary (``markdown``)
html                    self-contained page with plots (``html``)
======================  ===============================================

Example::

    text = render(report, "junit", rubric=rubric, lang="ja")

The modules, besides the writers above: what a report is and where reports live.

==========  ========================================================================================
model       The report of one graded submission: plain data every writer renders
redact      The one redaction step that runs before every writer
contain     The trust boundary for a report's text, and the report of a submission not graded
text        Words the writers share: bilingual labels, status names, number formatting
terminal    The human view of a report in a terminal (``grader check`` / ``grader grade``)
cell        What a student sees of one check: the notebook's check cell and ``check --watch``
templates   The Jinja environment every HTML page is rendered with
webfont     Japanese text in every page, on machines without a Japanese font
fastyaml    A small YAML emitter for the report's plain data (the yaml writer's engine)
yaml_json   The yaml and json writers: the report's plain data, as is
files       Writing reports to disk atomically
outdir      The batch's output folder: where each report lives, and reading reports back
ledger      The batch's ledger of hand adjustments (``OUT/ledger.jsonl``), appended to, never rewritten
==========  ========================================================================================
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from grader.errors import UsageError
from grader.i18n.messages import said
from grader.report.model import GradeReport
from grader.report.redact import Moment, redact

if TYPE_CHECKING:
    from grader.spec.rubric.model import ReportOptions, Rubric

#: A writer: ``(report, the rubric's report options or None, lang) -> text``.
Writer = Callable[[GradeReport, "ReportOptions | None", str], str]

#: format -> file name suffix when a report is written next to others (batch, release CI)
SUFFIXES = {
    "yaml": ".yaml", "json": ".json", "gradescope": ".results.json", "junit": ".junit.xml",
    "markdown": ".md", "html": ".html",
}


def _writer(fmt: str, rubric: Rubric | None = None) -> Writer:
    """``(report, options, lang) -> text`` for ``fmt``; the HTML writer draws with ``rubric``'s figures hook."""
    if fmt == "yaml":
        from grader.report.yaml_json import render_yaml

        return lambda r, o, lang: render_yaml(r, o)
    if fmt == "json":
        from grader.report.yaml_json import render_json

        return lambda r, o, lang: render_json(r, o)
    if fmt == "gradescope":
        from grader.report import gradescope

        return gradescope.render
    if fmt == "junit":
        from grader.report import junit

        return junit.render
    if fmt == "markdown":
        from grader.report import markdown

        return markdown.render
    if fmt == "html":
        from grader.spec.assignment import figures_hook
        from grader.report import html

        draw = figures_hook(rubric)
        return lambda r, o, lang: html.render(r, o, lang, draw=draw)
    raise UsageError(said("unknown_report_format_use", fmt=f"{fmt!r}", formats=', '.join(SUFFIXES)))


def render(report: GradeReport, fmt: str, *, rubric: Rubric | None = None, lang: str = "en",
           audience: str = "student", moment: Moment | None = None) -> str:
    """``report`` in format ``fmt``, after redaction for ``audience``.

    Args:
        report: the full report from the runner.
        fmt: one of ``yaml json gradescope junit markdown html``.
        rubric: the loaded rubric; its ``report`` options drive redaction, rounding and
            languages (defaults when None).
        lang: the language shown first.
        audience: ``"student"`` (default; hidden tests trimmed per the rubric) or
            ``"instructor"`` (everything).
        moment: when the view is written and whether the results are published (the clock
            now, unpublished, when None): :func:`grader.report.redact.details_visible`.

    Raises:
        UsageError: an unknown format.
    """
    writer = _writer(fmt, rubric)
    options = getattr(rubric, "report", None)
    shown = redact(report, options, audience, quiz_parts=quiz_parts(rubric), due=str(getattr(rubric, "due", "") or ""),
                   moment=moment)
    return writer(shown, options, lang)


def quiz_parts(rubric: Rubric | None) -> frozenset[str]:
    """The parts graded from the quiz file (the assignment's rule: a YAML part): their tests'
    ``expected`` is the answer key."""
    from grader.spec.assignment import QUIZ_SUFFIXES

    return frozenset(p.id for p in getattr(rubric, "parts", ()) if p.file.endswith(QUIZ_SUFFIXES))


__all__ = ["SUFFIXES", "quiz_parts", "redact", "render"]
