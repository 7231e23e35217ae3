"""Markdown writer (a CI job summary) and GitHub Actions annotations.

``render`` gives the page written to ``$GITHUB_STEP_SUMMARY``; :func:`ci_annotations` gives the
``::error file=…,line=…::`` workflow commands that put a failure next to the student's function
in the pull request view. Both are pure functions of the (already redacted) report.

Example::

    text = render(report, rubric.report, "ja")
    locate = source_locator({p.id: p.file for p in rubric.parts}, "exercises/chapter07")
    for line in ci_annotations(report, rubric.report, "ja", locate=locate):
        print(line)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from grader import sinks
from grader.report import text as _text
from grader.report.model import GradeReport, Mistake, Status
from grader.i18n.messages import pair

if TYPE_CHECKING:
    from grader.spec.rubric.model import ReportOptions

#: Where a failure is: (file as the repository names it, line or None[, function found]).
Located = tuple[str, int | None] | tuple[str, int | None, str]
#: (part, function or None, line recorded or None, failure message) -> where, or None if unknown.
Locator = Callable[[str, str | None, int | None, str], Located | None]


def _cell(text: str) -> str:
    """Any text of the report as inline Markdown (student text included): see grader.sinks."""
    return sinks.markdown(text)


def render(report: GradeReport, opts: ReportOptions | None = None, lang: str = "en") -> str:
    """The report as GitHub-flavoured Markdown."""
    langs = _text.order(lang, _text.languages_of(report, opts))

    def L(key: str) -> str:  # a local shorthand
        return _text.label(key, langs)

    out = [
        f"## {L('report')}: {_cell(report.assignment)} — {_cell(report.submission)}",
        "",
        f"**{L('score')}: {_text.num(report.score)} / {_text.num(report.max_score)}** "
        f"({_text.verdict(report, langs, '`')}; {L('pass_mark')} {_text.num(report.pass_mark)}%)",
        "",
        f"| {L('part')} | {L('score')} |",
        "| --- | ---: |",
    ]
    for p in report.parts:
        if p.max_score:
            out.append(f"| {_cell(_text.pick(p.title, langs) or p.id)} | {_text.num(p.score)} / {_text.num(p.max_score)} |")
    out[4:4] = ["> " + ("⚠️ " if _text.passed_but(report) else "") + " / ".join(dict.fromkeys(_outcome(report, opts, x) for x in langs)), ""]
    if report.adjustment:  # right under the parts: why the total is not their sum
        out += ["", f"### {L('adjustments')}", ""] + [f"- {_cell(x)}" for x in _text.adjustment_lines(report, langs)]
    if report.comments:  # a reviewer's comments on lines, each with the lines it is on (as text)
        out += ["", f"### {L('comments')}", ""]
        for line, code in _text.comment_lines(report, langs):
            out.append(f"- {_cell(line)}")
            out += [f"    - {_cell(x)}" for x in code if x.strip()]
    if report.mistakes:
        out += ["", f"### {L('mistakes')}", ""]
        for m in report.mistakes:
            out.append(f"- **{_cell(m.id)}** " + " / ".join(_cell(x) for x in _text.each(m.message, langs)))
    if report.errors:
        out += ["", f"### {L('errors')}", ""]
        out += [f"- {_cell(_text.sentence(e, langs))}" for e in report.errors]
    out += ["", f"### {L('tests')}", "", f"| | {L('test')} | {L('points')} |", "| --- | --- | ---: |"]
    for t in report.tests:
        out.append(f"| {_text.STATUS_MARKS[t.status]} | {_cell(_text.title_of(t, langs))} | "
                   f"{_text.num(t.score)} / {_text.num(t.max_score)} |")
    failed = [t for t in report.tests if t.status != Status.PASSED and (t.feedback or t.expected)]
    if failed:
        out += ["", "<details><summary>" + " / ".join(
            dict.fromkeys(_text.LABELS["status"][x] for x in langs)) + "</summary>", ""]
        for t in failed:
            out.append(f"- **{_cell(_text.title_of(t, langs))}** ({_text.pick(_text.STATUS_WORDS[t.status], langs)})")
            for line in _text.each(t.feedback, langs):
                out.append(f"  - {_cell(line)}")
        out += ["", "</details>"]
    if report.notes:
        out += ["", f"### {L('notes')}", ""] + [f"- {_cell(_text.sentence(n, langs))}" for n in report.notes]
    out += ["", f"<sub>{L('sandbox')}: {_cell(report.sandbox.get('level', '?'))} · {L('seed')} {report.seed}</sub>", ""]
    return "\n".join(out)


_RAN = pair("ci_ran")
_BELOW = pair("ci_below")
_BUT = pair("ci_but")
_JOB_FAILS = pair("ci_job_fails")


def _outcome(report: GradeReport, opts: ReportOptions | None, lang: str) -> str:
    """One plain sentence: the check ran; passed or not; whether that fails the job."""
    but = _text.passed_but(report)
    table = _BUT if but else _RAN if report.passed else _BELOW
    words = table.get(lang, table["en"])
    said: dict[str, list[str]] = {}
    for m in but:  # each mistake named once, with what it says in every part it shows in
        said.setdefault(m.id, []).append(_cell(_text.pick(m.message, [lang])))
    mistake = " ".join(f"**{_cell(mid)}** {' '.join(texts)}" for mid, texts in said.items())
    text = words.format(score=_text.num(report.score), max=_text.num(report.max_score),
                        mark=_text.num(report.pass_mark), mistake=mistake)
    if not report.passed and opts is not None and opts.fail_below_pass_mark:
        text += _JOB_FAILS.get(lang, _JOB_FAILS["en"])
    return text


_CUT = pair("ci_cut")


def fit(text: str, limit: int, lang: str = "en") -> str:
    """``text`` cut at a line boundary so that its UTF-8 form, with a closing note, fits ``limit``."""
    if len(text.encode("utf-8")) <= limit:
        return text
    note = "\n\n> " + " / ".join(dict.fromkeys(_CUT[x] for x in (lang, "en") if x in _CUT)) + "\n"
    budget = limit - len(note.encode("utf-8")) - len("\n\n</details>")
    kept, used = [], 0
    for line in text.split("\n"):
        size = len(line.encode("utf-8")) + 1
        if used + size > budget:
            break
        kept.append(line)
        used += size
    body = "\n".join(kept)
    if body.count("<details>") > body.count("</details>"):
        body += "\n\n</details>"
    return body + note


def _data(text: str) -> str:
    text = sinks.visible(text)
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


#: GitHub keeps at most this many annotations of one severity from one step.
ANNOTATIONS_PER_STEP = 10


def ci_annotations(report: GradeReport, opts: ReportOptions | None = None, lang: str = "en", *,
                locate: Locator | None = None, limit: int = ANNOTATIONS_PER_STEP) -> list[str]:
    """``::error`` workflow commands: one per student function with failing tests, at its ``def``;
    first, when the report passed with the rubric's central mistake, a ``::warning`` for it.

    Functions are ranked by the points their failing tests lost (ties: file order), and only
    the first ``limit`` get an ``::error``, since GitHub drops the rest of a step's; when some
    are left out, one ``::notice`` says how many and that the job summary has them all.

    Args:
        report: the redacted report.
        opts: the rubric's report options (languages).
        lang: the language to put first.
        locate: finds a function's file and ``def`` line (:func:`source_locator`); without it
            annotations carry the file and line the tests recorded.
        limit: the most ``::error`` lines to print.
    """
    langs = _text.order(lang, _text.languages_of(report, opts))
    groups: dict[tuple[str, str | None], _Group] = {}

    def group(part: str, function: str | None, file: str | None, line: int | None,
              said: str = "") -> _Group:
        found = locate(part, function, line, said) if locate is not None else None
        if found and len(found) > 2:  # the def that holds the line, or the function named
            function = found[2]
        elif locate is not None:
            function = None  # no def of that name: a test's name is not a function's
        key = (part, function)
        if key not in groups:
            where_file = found[0] if found else file
            where_line = found[1] if found and len(found) > 1 else line
            name = function or (Path(where_file).name if where_file else part)
            groups[key] = _Group(name, where_file, where_line, len(groups))
        return groups[key]

    for t in report.tests:
        if t.status in (Status.PASSED, Status.SKIPPED):
            continue
        function = t.function or (None if t.line else _function_from_id(t.id))
        said = " ".join(t.feedback.values()) if t.feedback else ""
        g = group(t.part, function, t.file, t.line, said)
        g.lost += max(0.0, t.max_score - t.score)
        g.messages.append(_text.pick(t.feedback, langs) or _text.title_of(t, langs))
    but = _text.passed_but(report)
    warnings = []
    for m in report.mistakes:
        # A mistake may name several functions ("double, double_all"):
        # the annotation goes on the first.
        function = (m.function or "").split(",")[0].strip() or None
        if m in but:  # passed, but with the central mistake: a ::warning of its own, never lost
            warnings.append(_central_warning(report, m, function, langs, locate))
            continue
        g = group(m.part, function, m.file, None)
        g.messages.insert(g.mistakes, f"[{m.id}] {_text.pick(m.message, langs)}")
        g.mistakes += 1
    ranked = sorted(groups.values(), key=lambda g: (-g.lost, g.order))
    commands = warnings + [_error(g, langs) for g in ranked[:limit]]
    if len(ranked) > limit:
        rest = len(ranked) - limit
        text = " / ".join(dict.fromkeys(_MORE[x].format(n=rest) for x in langs if x in _MORE))
        commands.append(f"::notice title={_prop(_MORE_TITLE[langs[0]] if langs[0] in _MORE_TITLE else _MORE_TITLE['en'])}::{_data(text)}")
    return commands


def _central_warning(report: GradeReport, m: Mistake, function: str | None, langs: Sequence[str],
                     locate: Locator | None) -> str:
    """The ``::warning`` of a report that passed with the central mistake ``m``, at its ``def``."""
    found = locate(m.part, function, None, "") if locate is not None else None
    where = []
    where_file = found[0] if found else m.file
    if where_file:
        where.append(f"file={_prop(where_file)}")
        if found and len(found) > 1 and found[1]:
            where.append(f"line={found[1]}")
    where.append(f"title={_prop(_text.verdict(report, langs))}")
    return f"::warning {','.join(where)}::{_data(f'[{m.id}] ' + _text.pick(m.message, langs))}"


def _error(g: _Group, langs: Sequence[str]) -> str:
    """One function's ``::error``: its file and ``def`` line, how many failures, each message once."""
    where = []
    if g.file:
        where.append(f"file={_prop(g.file)}")
        if g.line:
            where.append(f"line={g.line}")
    count = len(dict.fromkeys(g.messages))
    title = f"{g.name}: " + " / ".join(dict.fromkeys(_FAILED[x].format(n=count) for x in langs if x in _FAILED))
    where.append(f"title={_prop(title)}")
    return f"::error {','.join(where)}::{_data(chr(10).join(dict.fromkeys(g.messages)))}"


class _Group:
    __slots__ = ("file", "line", "lost", "messages", "mistakes", "name", "order")

    def __init__(self, name: str, file: str | None, line: int | None, order: int) -> None:
        self.name, self.file, self.line, self.order = name, file, line, order
        self.lost = 0.0
        self.messages: list[str] = []
        self.mistakes = 0


_FAILED = pair("ci_failed")
_MORE = pair("ci_more")
_MORE_TITLE = pair("ci_more_title")


def _function_from_id(test_id: str) -> str | None:
    name = test_id.split("::")[-1].split("[")[0]
    return name[5:] if name.startswith("test_") else None


def _def_spans(text: str) -> list[tuple[str, int, int]] | None:
    """(function, def line, last line) of each top-level def, from the syntax tree; None when the
    file does not parse (then the lines are read as text)."""
    import ast
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (a student's invalid escape is not ours to warn of)
            tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return [(node.name, node.lineno, node.end_lineno or node.lineno) for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]


def source_locator(parts: dict[str, str], folder: str | Path, shown: str | None = None) -> Locator:
    """A :data:`Locator` that reads the student's files as text (never imports them).

    ``locate(part, function, line, said)`` gives ``(file, def line, function)`` for the
    function whose body holds ``line`` (the line a test recorded), else for the function the
    test is named after (the longest ``def`` name it starts with), else for the function
    whose call the failure message ``said`` shows (``name(``); ``(file, line)`` when no
    ``def`` fits (``line`` may be None); None for a part with no file here.

    Args:
        parts: part id -> file name, e.g. ``{"scaling": "scaling.py"}``.
        folder: where the files are.
        shown: the folder as the repository names it (default: ``folder`` as given).
    """
    base = Path(folder)
    prefix = (shown if shown is not None else str(folder)).replace("\\", "/").rstrip("/")
    cache: dict[str, list[tuple[str, int, int]]] = {}

    def defs(name: str) -> list[tuple[str, int, int]]:
        """(function, def line, last line of its body) for each top-level def."""
        if name not in cache:
            try:
                text = (base / name).read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            spans = _def_spans(text)
            if spans is not None:  # the parser's own spans: a docstring's lines are the body's
                cache[name] = spans
                return spans
            lines = text.split("\n")
            starts = [(m.group(1), text.count("\n", 0, m.start()) + 1)
                      for m in re.finditer(r"^(?:async\s+)?def\s+(\w+)\s*\(", text, re.M)]
            found = []
            for i, (fn, line) in enumerate(starts):
                end = len(lines)
                for j in range(line, len(lines)):  # the next top-level statement ends the body
                    row = lines[j]
                    if row and not row[0].isspace() and not row.startswith("#") and not row.startswith(")"):
                        end = j
                        break
                if i + 1 < len(starts):
                    end = min(end, starts[i + 1][1] - 1)
                found.append((fn, line, end))
            cache[name] = found
        return cache[name]

    def locate(part: str, function: str | None, line: int | None = None, said: str = "") -> Located | None:
        name = parts.get(part)
        if not name or not base.is_dir():
            return None
        shown_name = f"{prefix}/{name}" if prefix not in ("", ".") else name
        if line:
            for fn, start, end in defs(name):
                if start <= line <= end:
                    return (shown_name, start, fn)
        best = None
        for fn, start, _ in defs(name):
            # The longest function name the test's name starts with: test_double_all_rejects_x
            # is about double_all, test_double about double.
            if function and (function == fn or function.startswith(fn + "_")):
                if best is None or len(fn) > len(best[0]):
                    best = (fn, start)
        if best is None and said:
            for fn, start, _ in defs(name):
                if re.search(rf"(?<![\w.]){re.escape(fn)}\(", said) and (best is None or len(fn) > len(best[0])):
                    best = (fn, start)
        return (shown_name, best[1], best[0]) if best else (shown_name, line)

    return locate
