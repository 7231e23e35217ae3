"""Gradescope ``results.json`` writer (the autograder specification's format).

Top level: ``score`` (the report's total, which Gradescope uses instead of summing the tests,
so partial credit from a recognised mistake counts), ``execution_time``, ``output`` (Markdown),
``visibility`` and ``stdout_visibility``; a reviewer's comments on lines (``grader review``)
close ``output`` under their own heading, each with the lines it is on. One entry per test with ``name``, ``number``,
``score``, ``max_score``, ``status`` (``passed``/``failed``), ``output``, ``output_format``,
``tags`` (the part) and ``visibility`` (the suite's Gradescope value). When grading stopped
early, a visible "grading did not finish" entry says so in plain words.
``tests/schemas/gradescope-results.json`` is the schema the output is validated against.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, TypedDict

from grader import sinks
from grader.report import text as _text
from grader.report.model import CaseOutcome, GradeReport, Status

if TYPE_CHECKING:
    from grader.spec.rubric.model import ReportOptions

VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")


def _output(t: CaseOutcome, langs: list[str]) -> str:
    """A test's Markdown output; every line that can hold student text is escaped."""
    lines = [_text.pick(_text.STATUS_WORDS[t.status], langs)]
    lines += [sinks.markdown(x) for x in _text.each(t.feedback, langs)]
    if t.expected is not None or t.actual is not None:
        lines.append(f"expected: {sinks.markdown(t.expected)}, actual: {sinks.markdown(t.actual)}")
    return "\n\n".join(lines)


class ResultsTest(TypedDict, total=False):
    """One entry of ``tests`` in results.json (the "grading failed" entry has no number, tags or
    extra data)."""

    name: str
    number: str
    score: float
    max_score: float
    status: str
    output: str
    output_format: str
    tags: list[str]
    visibility: str
    extra_data: dict[str, str]


class Results(TypedDict):
    """Gradescope's results.json, as plain data."""

    score: float
    execution_time: float
    output: str
    output_format: str
    test_output_format: str
    visibility: str
    stdout_visibility: str
    extra_data: dict[str, object]  # the instructor's: assignment, parts, mistakes, sandbox…
    tests: list[ResultsTest]


def results(report: GradeReport, opts: ReportOptions | None = None, lang: str = "en") -> Results:
    """The results.json document as plain data."""
    langs = _text.order(lang, _text.languages_of(report, opts))
    tests: list[ResultsTest] = []
    for i, t in enumerate(report.tests, 1):
        tests.append({
            "name": _text.title_of(t, langs),
            "number": str(i),
            "score": t.score,
            "max_score": t.max_score,
            "status": "passed" if t.status == Status.PASSED else "failed",
            "output": _output(t, langs),
            "output_format": "md",
            "tags": [t.part],
            "visibility": t.visibility if t.visibility in VISIBILITIES else "visible",
            "extra_data": {"id": t.id, "part": t.part, "status": t.status.value},
        })
    if report.errors:
        tests.append({
            "name": _text.label("grading_failed", langs),
            "score": 0.0,
            "max_score": 0.0,
            "status": "failed",
            "output": "\n\n".join(sinks.visible(e) for e in report.errors),
            "output_format": "text",
            "visibility": "visible",
        })
    summary = [f"**{_text.label('score', langs)}: {_text.num(report.score)} / {_text.num(report.max_score)}**"]
    if _text.passed_but(report):  # passed, but with the central mistake (listed first below)
        summary[0] += f" ({_text.verdict(report, langs, '`')})"
    for p in report.parts:
        if p.max_score:
            summary.append(f"- {_text.pick(p.title, langs) or p.id}: {_text.num(p.score)} / {_text.num(p.max_score)}")
    for m in report.mistakes:
        summary.append(f"- **\\[{m.id}\\]** " + " / ".join(sinks.markdown(x) for x in _text.each(m.message, langs)))
    if report.comments:  # a reviewer's comments on lines (grader review), each with the lines it is on
        summary += ["", f"### {_text.label('comments', langs)}", ""]
        for line, code in _text.comment_lines(report, langs):
            summary.append(f"- {sinks.markdown(line)}")
            summary += [f"    - {sinks.markdown(x)}" for x in code if x.strip()]
    return {
        "score": report.score,
        "execution_time": round(report.duration_s, 3),
        "output": "\n".join(summary),
        "output_format": "md",
        "test_output_format": "md",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": {
            "assignment": report.assignment, "submission": report.submission,
            "max_score": report.max_score, "seed": report.seed,
            "parts": {p.id: {"score": p.score, "max_score": p.max_score} for p in report.parts},
            "mistakes": [m.id for m in report.mistakes],
            # which isolation graded it (the instructor's check; students see no extra_data)
            "sandbox": {"level": report.sandbox.get("level"),
                        "user": (report.sandbox.get("enforced") or {}).get("user", "")},
            **({"variant": report.variant.get("id")} if report.variant else {}),  # the student's own
        },
        "tests": tests,
    }


def render(report: GradeReport, opts: ReportOptions | None = None, lang: str = "en") -> str:
    """The report as Gradescope's ``results.json`` text."""
    return json.dumps(results(report, opts, lang), ensure_ascii=False, indent=2) + "\n"
