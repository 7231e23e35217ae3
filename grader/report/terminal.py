"""The human view of a report in a terminal (``grader check`` / ``grader grade``).

Every string of the report is shown as plain text (``rich.text.Text``, never markup) after
:func:`grader.sinks.terminal`: a submission's messages, output and names cannot colour,
link, hide or move anything, and escape sequences appear as visible escapes.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from grader.i18n.messages import translate
from grader.report import text as _text
from grader.report.model import GradeReport, Mistake, Status
from grader.sinks import terminal as _safe

MARKS = {
    Status.PASSED: ("✓", "green"),
    Status.FAILED: ("✗", "red"),
    Status.ERROR: ("!", "magenta"),
    Status.TIMEOUT: ("⏱", "yellow"),
    Status.SKIPPED: ("-", "dim"),
}

#: The terminal's words, from the one table the report writers share (grader.report.text.LABELS).
_TERMINAL_WORDS = ("score", "part", "mistakes", "errors", "sandbox", "weak", "passed", "below", "notes", "output",
                   "tests", "submission", "mistake_ids", "seed")
WORDS = {lang: {key: _text.LABELS[key][lang].lower() if key == "tests" else _text.LABELS[key][lang]
                for key in _TERMINAL_WORDS} for lang in ("en", "ja")}


def _fmt(x: float) -> str:
    return f"{x:g}"


def show(report: GradeReport, console: Console, lang: str = "en", *, verbose: bool = False) -> None:
    """Print ``report`` for a person: each test ✓/✗, part scores, mistakes, problems."""
    w = WORDS[lang]
    if report.sandbox.get("warning"):
        console.print(Text(f"{w['weak']}: {_safe(translate(report.sandbox['warning'], lang))}", style="yellow"))
    but = _text.passed_but(report)
    if but:  # a passing score with the chapter's central mistake: that mistake before anything else
        console.print(Panel(Group(*(_mistake_line(m, lang, "bold yellow") for m in but)),
                            title=_text.label("central_title", [lang]), border_style="yellow"))
    current = None
    for t in report.tests:
        if t.part != current:
            current = t.part
            console.print(Text(f"\n{_safe(t.part)}", style="bold"))
        mark, colour = MARKS[t.status]
        title = t.title.get(lang) or t.id
        if t.id.endswith("]") and "[" in t.id:
            title += " [" + t.id.rsplit("[", 1)[1]
        console.print(Text.assemble((f"  {mark} ", colour), _safe(title), (f"  ({_fmt(t.score)}/{_fmt(t.max_score)})", "dim")))
        if t.status != Status.PASSED and t.feedback.get(lang):
            console.print(Text("      " + _safe(t.feedback[lang]), style=colour))
        if verbose:
            console.print(Text(f"      {_safe(t.id)}", style="dim"))

    rest = [m for m in report.mistakes if m not in but]
    if rest:
        body = [_mistake_line(m, lang, "bold red") for m in rest]
        console.print()
        console.print(Panel(Group(*body), title=w["mistakes"], border_style="red"))

    if report.errors:
        console.print(Panel(Text(_safe("\n".join(translate(e, lang) for e in report.errors))), title=w["errors"],
                            border_style="magenta"))
    if report.adjustment:

        console.print(Panel(Text(_safe("\n".join(_text.adjustment_lines(report, [lang])))),
                            title=_text.label("adjustments", [lang]), border_style="cyan"))
    if report.comments:
        said = [f"{line}\n" + "".join(f"    {x}\n" for x in code) for line, code in _text.comment_lines(report, [lang])]
        console.print(Panel(Text(_safe("".join(said).rstrip("\n"))), title=_text.label("comments", [lang]),
                            border_style="cyan"))
    if report.notes:
        console.print(Panel(Text(_safe("\n".join(translate(n, lang) for n in report.notes))), title=w["notes"],
                            border_style="blue"))
    if verbose and report.output.strip():
        console.print(Panel(Text(_safe(report.output.strip()[-3000:])), title=w["output"], border_style="dim"))

    table = Table(show_header=True, header_style="bold")
    table.add_column(w["part"])
    table.add_column(w["score"], justify="right")
    for p in report.parts:
        if p.max_score == 0:
            continue
        style = "green" if p.score == p.max_score else ("red" if p.score == 0 else "yellow")
        table.add_row(Text(_safe(p.title.get(lang) or p.id)), Text(f"{_fmt(p.score)} / {_fmt(p.max_score)}", style=style))
    verdict = _text.verdict(report, [lang]) if but else (w["passed"] if report.passed else w["below"])
    table.add_row(Text(w["score"], style="bold"), Text(f"{_fmt(report.score)} / {_fmt(report.max_score)}  ({_safe(verdict)})",
                                                       style="bold yellow" if but else "bold"))
    console.print()
    console.print(table)
    level = report.sandbox.get("level", "?")
    console.print(Text(f"{w['sandbox']}: {_safe(level)} · {w['seed']} {report.seed} · {report.duration_s:.2f} s", style="dim"))


def _mistake_line(m: Mistake, lang: str, style: str) -> Text:
    return Text.assemble((f"[{_safe(m.id)}] ", style), _safe(m.message.get(lang, "")))


def show_many(reports: Sequence[GradeReport], console: Console, lang: str = "en") -> None:
    """A class table: one row per submission with part scores and mistake ids."""
    if not reports:
        return
    table = Table(show_header=True, header_style="bold")
    table.add_column(WORDS[lang]["submission"], no_wrap=True)
    for p in reports[0].parts:
        if p.max_score:
            table.add_column(p.id, justify="right")
    table.add_column(WORDS[lang]["score"], justify="right")
    table.add_column(WORDS[lang]["mistake_ids"], min_width=16)
    for r in reports:
        cells: list[Text | str] = [Text(_safe(r.submission))]
        cells += [f"{_fmt(p.score)}/{_fmt(p.max_score)}" for p in r.parts if p.max_score]
        cells.append(f"{_fmt(r.score)}/{_fmt(r.max_score)}")
        cells.append(Text(_safe(", ".join(sorted({m.id for m in r.mistakes})) or "-")))
        table.add_row(*cells)
    console.print(table)
