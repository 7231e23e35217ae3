"""What a student sees of one check: the notebook's check cell and ``grader check --watch``.

A check runs the public tests only. Its view shows the score of each part, every test that
did not pass with its feedback, the recognised mistakes with the student's numbers, the plots,
how many tests of the other suites wait at grading (never which, never their results), and the
sandbox level used. Two renderings of the same view: an HTML fragment for the notebook (styles
scoped to ``.grader-check``, so the notebook's own page is left alone) and plain text for
front-ends without HTML. :func:`changes` tells what differs between two checks (watch mode).

Part names come from the report (and so from the rubric), never from this module.

Example::

    view = render_views(report, rubric, lang="ja", part="part1", hidden={"part1": 4})
    view["html"], view["text"]
"""

from __future__ import annotations

import copy
import io
from collections.abc import Mapping
from typing import TYPE_CHECKING

from grader.report import text as _text
from grader.report.model import GradeReport, Status
from grader.report.redact import redact

if TYPE_CHECKING:
    from grader.report.html import Draw
    from grader.spec.rubric.model import ReportOptions, Rubric


def only_part(report: GradeReport, part: str) -> GradeReport:
    """A copy of ``report`` holding one part: its tests, its mistakes, its score."""
    out = copy.deepcopy(report)
    out.tests = [t for t in out.tests if t.part == part]
    out.parts = [p for p in out.parts if p.id == part]
    out.mistakes = [m for m in out.mistakes if m.part == part]
    out.plots = {k: v for k, v in (out.plots or {}).items() if k == part}
    out.score = sum(p.score for p in out.parts)
    out.max_score = sum(p.max_score for p in out.parts)
    out.passed = out.max_score > 0 and out.score >= out.max_score
    return out


def _hidden_line(hidden: Mapping[str, int] | None, part: str | None, langs: list[str]) -> str:
    """"n more tests at grading" (None: the count is unknown here, e.g. in the student release)."""
    if hidden is None:
        return _text.pick(_text.LABELS["hidden_some"], langs)
    n = int(hidden.get(part, 0)) if part else sum(int(v) for v in hidden.values())
    return _text.pick(_text.LABELS["hidden_more"], langs).format(n=n) if n else ""


def _passed_line(report: GradeReport, langs: list[str]) -> str:
    total = len(report.tests)
    n = sum(1 for t in report.tests if t.status == Status.PASSED)
    key = "all_passed" if n == total else "some_passed"
    return _text.pick(_text.LABELS[key], langs).format(n=n, total=total)


def _level_text(report: GradeReport, langs: list[str]) -> tuple[str, str]:
    level = str(report.sandbox.get("level", "?"))
    text = _text.pick(_text.LABELS["level_strong"], langs) if level == "namespaces" else level
    return text, str(report.sandbox.get("warning", ""))


def _prepared(report: GradeReport, opts: ReportOptions | None, lang: str,
              part: str | None) -> tuple[GradeReport, list[str]]:
    shown = redact(report, opts, "student")
    if part:
        shown = only_part(shown, part)
    return shown, [lang]


def render_html(report: GradeReport, opts: ReportOptions | None = None, lang: str = "en", *, part: str | None = None,
                hidden: Mapping[str, int] | None = None, cells: int | None = None, draw: Draw | None = None) -> str:
    """The check as an HTML fragment for a notebook output (no scripts, inline plots; ``draw``:
    the assignment's figures hook)."""
    from grader.report import html  # jinja2 and the figure helpers, only when HTML is wanted

    shown, langs = _prepared(report, opts, lang, part)
    level_text, warning = _level_text(shown, langs)
    part_title = next((_text.pick(p.title, langs) or p.id for p in shown.parts), part or "")
    return html._ENV.get_template("cell.html.j2").render(
        r=shown,
        lang=lang,
        part=part,
        part_title=part_title,
        L=lambda key: _text.label(key, langs),
        pick=lambda text: _text.pick(text, langs),
        each=lambda text: _text.each(text, langs),
        title_of=lambda t: _text.title_of(t, langs),
        status_word=lambda s: _text.pick(_text.STATUS_WORDS[s], langs),
        num=_text.num,
        failing=[t for t in shown.tests if t.status != Status.PASSED],
        central=_text.passed_but(shown),
        verdict=_text.verdict(shown, langs),
        passed_line=_passed_line(shown, langs),
        hidden_line=_hidden_line(hidden, part, langs),
        level_text=level_text,
        warning=warning,
        source_line=(_text.pick(_text.LABELS["graded_cells"], langs).format(n=cells)
                     if cells is not None else ""),
        images=html.figures(shown, langs, draw),
    )


def render_text(report: GradeReport, opts: ReportOptions | None = None, lang: str = "en", *, part: str | None = None,
                hidden: Mapping[str, int] | None = None, cells: int | None = None) -> str:
    """The same check as plain text: the terminal view without colours, then the extra lines."""
    from rich.console import Console

    from grader.report.terminal import show

    shown, langs = _prepared(report, opts, lang, part)
    buf = io.StringIO()
    console = Console(file=buf, width=100, color_system=None, force_terminal=False, highlight=False,
                      emoji=False)
    show(shown, console, lang)
    lines = [buf.getvalue().rstrip("\n"), _passed_line(shown, langs)]
    hidden_line = _hidden_line(hidden, part, langs)
    if hidden_line:
        lines.append(hidden_line)
    if cells is not None:
        lines.append(_text.pick(_text.LABELS["graded_cells"], langs).format(n=cells))
    return "\n".join(lines) + "\n"


def render_views(report: GradeReport, rubric: Rubric, *, lang: str | None = None, part: str | None = None,
                 hidden: Mapping[str, int] | None = None, cells: int | None = None,
                 formats: tuple[str, ...] = ("html", "text")) -> dict[str, str]:
    """``{"html": ..., "text": ...}`` (those of ``formats``) for one check."""
    from grader.report import quiz_parts

    opts: ReportOptions | None = getattr(rubric, "report", None)
    # The quiz key is withheld here as in every other student view (redacting again is a no-op).
    report = redact(report, opts, "student", quiz_parts=quiz_parts(rubric))
    languages = _text.languages_of(report, opts)
    lang = lang if lang is not None and lang in languages else languages[0]
    out = {}
    if "html" in formats:
        from grader.spec.assignment import figures_hook

        out["html"] = render_html(report, opts, lang, part=part, hidden=hidden, cells=cells,
                                  draw=figures_hook(rubric))
    if "text" in formats:
        out["text"] = render_text(report, opts, lang, part=part, hidden=hidden, cells=cells)
    return out


def render_not_run(functions: list[str], lang: str = "en") -> dict[str, str]:
    """The check cell run before the cells that define ``functions``: what to run first."""
    from grader import sinks

    langs = [lang]
    head = _text.pick(_text.LABELS["not_run"], langs)
    how = _text.pick(_text.LABELS["not_run_how"], langs)
    names = [f"{f}()" for f in functions]
    text = "\n".join([head, *(f"  - {n}" for n in names), how]) + "\n"
    items = "".join(f"<li><code>{sinks.html(n)}</code></li>" for n in names)
    html = (f'<div class="grader-check" lang="{sinks.html(lang)}" data-not-run="{sinks.html(",".join(functions))}" '
            'style="border:1px solid #dee2e6;border-left:4px solid #e67700;border-radius:6px;'
            'padding:.6rem 1rem;max-width:60rem;background:#fff4e6;color:#212529">'
            f"<p><strong>{sinks.html(head)}</strong></p><ul>{items}</ul><p>{sinks.html(how)}</p></div>")
    return {"html": html, "text": text}


# --------------------------------------------------------------------------- watch mode

def changes(before: GradeReport | None, after: GradeReport, lang: str = "en") -> list[str]:
    """What differs from ``before`` to ``after``: tests newly passing or failing, mistakes found
    or fixed, the score. With no ``before`` (the first check), every test not passed and every
    mistake is listed, then the score.

    Tests that fail for the same reason (a syntax error stops every test of its file, each with
    the same feedback) are one line with the reason once, their titles under it."""
    from grader.i18n.messages import translate

    langs = [lang]

    def word(key: str) -> str:
        return _text.pick(_text.LABELS[key], langs)

    old = {t.id: t for t in before.tests} if before else {}
    #: (mark, title, what happened, the reason or "")
    entries: list[tuple[str, str, str, str]] = []
    for t in after.tests:
        was = old.get(t.id)
        title = _text.title_of(t, langs)
        feedback = _text.pick(t.feedback, langs) if t.feedback else ""
        detail = feedback if feedback and t.status != Status.PASSED else ""
        status = _text.pick(_text.STATUS_WORDS[t.status], langs)
        if was is None:
            if before is not None or t.status != Status.PASSED:
                entries.append(("✓" if t.status == Status.PASSED else "✗", title, status, detail))
        elif was.status != t.status:
            if t.status == Status.PASSED:
                entries.append(("✓", title, word("now_passing"), ""))
            else:
                entries.append(("✗", title, f"{word('now_failing')} ({status})", detail))
        elif t.status != Status.PASSED and feedback and feedback != _text.pick(was.feedback, langs):
            entries.append(("✗", title, "", feedback))
    lines = []
    shared: dict[tuple[str, str, str], int] = {}
    for mark, _, what, detail in entries:
        if detail:
            shared.setdefault((mark, what, detail), 0)
            shared[(mark, what, detail)] += 1
    said: set[tuple[str, str, str]] = set()
    for mark, title, what, detail in entries:
        key = (mark, what, detail)
        if detail and shared[key] > 1:
            if key in said:
                continue
            said.add(key)
            head = word("n_tests").format(n=shared[key]) + (f": {what}" if what else "")
            lines.append(f"{mark} {head} — {detail}")
            lines += [f"    {t}" for m, t, w, d in entries if (m, w, d) == key]
            continue
        lines.append(f"{mark} {title}: {what}" + (f" — {detail}" if detail and what else detail))
    old_mistakes = {m.id: m for m in before.mistakes} if before else {}
    new_mistakes = {m.id: m for m in after.mistakes}
    for mid, m in new_mistakes.items():
        message = _text.pick(m.message, langs)
        if mid not in old_mistakes or _text.pick(old_mistakes[mid].message, langs) != message:
            lines.append(f"! {word('found')} [{mid}]: {message}")
    for mid in old_mistakes:
        if mid not in new_mistakes:
            lines.append(f"✓ {word('fixed')} [{mid}]")
    old_errors = set(before.errors) if before else set()
    lines += [f"! {translate(e, lang)}" for e in after.errors if e not in old_errors]
    if before is None or before.score != after.score:
        earlier = f"{_text.num(before.score)} → " if before is not None else ""
        lines.append(f"{word('score_word')}: {earlier}{_text.num(after.score)} / {_text.num(after.max_score)}")
    elif not lines:
        lines.append(f"{word('unchanged')} ({word('score_word')} {_text.num(after.score)} / {_text.num(after.max_score)})")
    return lines
