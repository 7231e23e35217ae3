"""Markdown writer (a CI job summary) and GitHub Actions annotations.

``render`` gives the page written to ``$GITHUB_STEP_SUMMARY``; :func:`annotations` gives the
``::error file=…,line=…::`` workflow commands that put a failure next to the student's function
in the pull request view. Both are pure functions of the (already redacted) report.

Example::

    text = render(report, rubric.report, "ja")
    for line in annotations(report, rubric.report, "ja", locate=source_locator(rubric, "exercises/chapter07")):
        print(line)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from grader import sinks
from grader.report import _text
from grader.report.model import GradeReport, Status

#: (part, function or None) -> (file as the repository names it, line[, function found]),
#: or None if unknown.
Locator = Callable[[str, "str | None"], "tuple[Any, ...] | None"]


def _cell(text: str) -> str:
    """Any text of the report as inline Markdown (student text included): see grader.sinks."""
    return sinks.markdown(text)


def render(report: GradeReport, opts: Any = None, lang: str = "en") -> str:
    """The report as GitHub-flavoured Markdown."""
    langs = _text.order(lang, _text.languages_of(report, opts))
    L = lambda key: _text.label(key, langs)  # noqa: E731 - a local shorthand
    out = [
        f"## {L('report')}: {_cell(report.assignment)} — {_cell(report.submission)}",
        "",
        f"**{L('score')}: {_text.num(report.score)} / {_text.num(report.max_score)}** "
        f"({_text.verdict(report, langs)}; {L('pass_mark')} {_text.num(report.pass_mark)}%)",
        "",
        f"| {L('part')} | {L('score')} |",
        "| --- | ---: |",
    ]
    for p in report.parts:
        if p.max_score:
            out.append(f"| {_cell(_text.pick(p.title, langs) or p.id)} | {_text.num(p.score)} / {_text.num(p.max_score)} |")
    if report.mistakes:
        out += ["", f"### {L('mistakes')}", ""]
        for m in report.mistakes:
            out.append(f"- **{_cell(m.id)}** " + " / ".join(_cell(x) for x in _text.each(m.message, langs)))
    if report.errors:
        out += ["", f"### {L('errors')}", ""]
        out += [f"- {_cell(e)}" for e in report.errors]
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
        out += ["", f"### {L('notes')}", ""] + [f"- {_cell(n)}" for n in report.notes]
    out += ["", f"<sub>{L('sandbox')}: {_cell(report.sandbox.get('level', '?'))} · {L('seed')} {report.seed}</sub>", ""]
    return "\n".join(out)


def _data(text: str) -> str:
    text = sinks.visible(text)
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def annotations(report: GradeReport, opts: Any = None, lang: str = "en", *,
                locate: Locator | None = None) -> list[str]:
    """``::error`` workflow commands, one per student function with failing tests.

    Args:
        report: the redacted report.
        opts: the rubric's report options (languages).
        lang: the language to put first.
        locate: finds the file and line of a part's function when the test did not record
            them; without it such failures point at no file.
    """
    langs = _text.order(lang, _text.languages_of(report, opts))
    groups: dict[tuple[str | None, int | None], list[str]] = {}
    names: dict[tuple[str | None, int | None], str] = {}
    for t in report.tests:
        if t.status == Status.PASSED or t.status == Status.SKIPPED:
            continue
        file, line = t.file, t.line
        name = t.function or _function_from_id(t.id) or t.part
        if locate is not None:
            found = locate(t.part, t.function or _function_from_id(t.id))
            if found:
                same = not file or Path(found[0]).name == Path(file).name
                file, line = (found[0] if same else file), line or found[1]
                name = found[2] if len(found) > 2 and same else name
        groups.setdefault((file, line), []).append(
            _text.pick(t.feedback, langs) or _text.title_of(t, langs))
        names.setdefault((file, line), name)
    for m in report.mistakes:
        # A mistake may name several functions ("scaling_factor, multihead_attention_scores"):
        # the annotation goes on the first.
        function = (m.function or "").split(",")[0].strip() or None
        file, line = m.file, None
        if locate is not None:
            found = locate(m.part, function)
            if found:
                same = not file or Path(found[0]).name == Path(file).name
                file, line = (found[0] if same else file), found[1]
        groups.setdefault((file, line), []).insert(0, f"[{m.id}] {_text.pick(m.message, langs)}")
        names.setdefault((file, line), function or m.part)
    commands = []
    for (file, line), messages in groups.items():
        where = []
        if file:
            where.append(f"file={_prop(file)}")
            if line:
                where.append(f"line={line}")
        title = f"{names.get((file, line), '')}: " + " / ".join(
            dict.fromkeys(_FAILED[x].format(n=len(messages)) for x in langs if x in _FAILED))
        where.append(f"title={_prop(title)}")
        body = "\n".join(dict.fromkeys(messages))
        commands.append(f"::error {','.join(where)}::{_data(body)}")
    return commands


_FAILED = {"en": "{n} problem(s)", "ja": "{n} 件の問題"}


def _function_from_id(test_id: str) -> str | None:
    name = test_id.split("::")[-1].split("[")[0]
    return name[5:] if name.startswith("test_") else None


def source_locator(parts: dict[str, str], folder: str | Path, shown: str | None = None) -> Locator:
    """A :data:`Locator` that reads the student's files as text (never imports them).

    Args:
        parts: part id -> file name, e.g. ``{"scaling": "scaling.py"}``.
        folder: where the files are.
        shown: the folder as the repository names it (default: ``folder`` as given).
    """
    base = Path(folder)
    prefix = (shown if shown is not None else str(folder)).replace("\\", "/").rstrip("/")
    cache: dict[str, list[tuple[str, int]]] = {}

    def defs(name: str) -> list[tuple[str, int]]:
        if name not in cache:
            try:
                text = (base / name).read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            cache[name] = [(m.group(1), text.count("\n", 0, m.start()) + 1)
                           for m in re.finditer(r"^def\s+(\w+)\s*\(", text, re.M)]
        return cache[name]

    def locate(part: str, function: str | None) -> tuple[Any, ...] | None:
        name = parts.get(part)
        if not name or not base.is_dir():
            return None
        shown_name = f"{prefix}/{name}" if prefix not in ("", ".") else name
        best = None
        for fn, line in defs(name):
            # The longest function name the test's name starts with: test_head_dim_rejects_x
            # is about head_dim, test_scaling_factor about scaling_factor.
            if function and (function == fn or function.startswith(fn + "_")):
                if best is None or len(fn) > len(best[0]):
                    best = (fn, line)
        return (shown_name, best[1], best[0]) if best else (shown_name, 1)

    return locate
