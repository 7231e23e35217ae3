"""What moved a student's final score when a batch's reports were written again, and why.

``grader regrade`` and ``grader batch --resume`` compare each report before and after
(:func:`explain`): tests graded again (and the automatic score they moved), the late penalty
(an extension granted since), an adjustment that now needs review (still applied, see
:mod:`grader.report.ledger`). Every student whose final score moved, or whose tests did, is said
on the terminal (:func:`say_changes`) and listed in the run's record, ``OUT/regrades/<time>`` or
``OUT/resumes/<time>`` (``.md`` in both languages and ``.csv``: :func:`write_record`).

Example::

    change = explain("alice", old, new, ["hidden/test_scaling.py::test_scale"])
    say_changes(console, [change], "ja")
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from grader.i18n.messages import said
from grader.spec.due import Timing

if TYPE_CHECKING:
    from rich.console import Console

    from grader.report.model import ReportDict

__all__ = ["Change", "explain", "say_changes", "write_record"]


@dataclass(frozen=True)
class Change:
    """One student's final score before and after, and why it moved (sentences of :func:`said`)."""

    submission: str
    student: str
    before: float
    after: float
    tests: list[str] = field(default_factory=list)
    why: list[str] = field(default_factory=list)


def _automatic(data: ReportDict) -> float:
    """The tests' score of a report's dict: before the late policy and any hand adjustment."""
    late = data.get("late") or {}
    if late:
        return float(late["score_before"])
    adj = data.get("adjustment") or {}
    return float(adj["automatic_score"]) if adj else float(data["score"])


def _penalty(data: ReportDict) -> float:
    return float((data.get("late") or {}).get("penalty", 0.0) or 0.0)


def _extension(data: ReportDict) -> str:
    late = data.get("late") or {}
    timing = (data.get("student") or {}).get("timing") or Timing(submitted="", due="", extension="")
    return str(late.get("extension") or timing.get("extension") or "")


def _n(x: float) -> str:
    return f"{x:g}"


def explain(submission: str, old: ReportDict, new: ReportDict, tests: Sequence[str] = (), *,
            regraded: bool = False) -> Change | None:
    """The change from ``old`` to ``new`` (one submission's report dicts), or None when neither the
    final score nor a test (``tests``: those graded again whose result moved) did.

    ``regraded``: the whole submission was graded again (its files changed since)."""
    before, after = float(old["score"]), float(new["score"])
    why: list[str] = []
    auto_old, auto_new = _automatic(old), _automatic(new)
    if tests:
        why.append(said("why_tests", tests=", ".join(tests), before=_n(auto_old), after=_n(auto_new)))
    elif regraded:
        why.append(said("why_files_changed", before=_n(auto_old), after=_n(auto_new)))
    elif abs(auto_old - auto_new) > 1e-9:
        why.append(said("why_automatic", before=_n(auto_old), after=_n(auto_new)))
    pen_old, pen_new = _penalty(old), _penalty(new)
    ext_old, ext_new = _extension(old), _extension(new)
    if ext_new and ext_new != ext_old:
        why.append(said("why_extension", reason=ext_new, before=_n(pen_old), after=_n(pen_new)))
    elif abs(pen_old - pen_new) > 1e-9:
        why.append(said("why_late", before=_n(pen_old), after=_n(pen_new)))
    was = {e["n"] for e in (old.get("adjustment") or {}).get("entries", []) if e.get("status") == "review"}
    for e in (new.get("adjustment") or {}).get("entries", []):
        if e.get("status") == "review" and e["n"] not in was:
            now = e.get("now")
            why.append(said("why_review", n=e["n"], against=_n(float(e.get("against") or 0.0)),
                            now="—" if now is None else _n(float(now)), submission=submission))
    if abs(before - after) < 1e-9 and not tests:
        return None
    if not why:  # (a change none of the above explains: said as it is, never silently)
        why.append(said("why_automatic", before=_n(auto_old), after=_n(auto_new)))
    student = str((new.get("student") or {}).get("id", ""))
    return Change(submission, student, before, after, list(tests), why)


def _why(change: Change, lang: str) -> str:
    from grader.i18n.messages import translate

    return ("; " if lang != "ja" else "。").join(translate(w, lang) for w in change.why)


def say_changes(console: Console, changes: Sequence[Change], lang: str, anonymous: bool = False) -> None:
    """One line per student: ``name: from → to (why)`` in ``lang``."""
    from grader.i18n.messages import say
    from grader.sinks import terminal

    for c in changes:
        console.print(terminal(say("score_moved", lang, who=c.submission, before=_n(c.before), after=_n(c.after),
                                   why=_why(c, lang))), markup=False, highlight=False, soft_wrap=True)


def write_record(folder: Path, stamp: str, title: list[str], changes: Sequence[Change],
                 tail: list[str] | None = None) -> list[Path]:
    """``folder/<stamp>.md`` (``title`` lines, then a table of ``changes`` with why in both
    languages, then ``tail``) and ``folder/<stamp>.csv``; returns both paths, the ``.md`` first."""
    from grader import sinks
    from grader.i18n.messages import both
    from grader.outputs.gradebook import Cell, csv_text
    from grader.report.files import write_atomic

    rows: list[list[Cell]] = [[c.submission, c.student, c.before, c.after, round(c.after - c.before, 6),
                               " ".join(c.tests), _why(c, "en"), _why(c, "ja")] for c in changes]
    csv_path = write_atomic(folder / f"{stamp}.csv", csv_text(
        ["submission", "student_id", "from", "to", "change", "tests", "why", "why_ja"], rows))
    lines = list(title)
    if changes:
        head = [both(key) for key in ("gb_submission", "regrade_from", "regrade_to", "tests", "regrade_why")]
        lines += ["| " + " | ".join(head) + " |", "| --- | ---: | ---: | --- | --- |"]
        lines += [f"| {sinks.markdown(c.submission)} | {c.before:g} | {c.after:g} | "
                  f"{sinks.markdown(', '.join(c.tests))} | {sinks.markdown(_why(c, 'en'))}<br>"
                  f"{sinks.markdown(_why(c, 'ja'))} |" for c in changes]
    lines += tail or []
    md_path = write_atomic(folder / f"{stamp}.md", "\n".join(lines) + "\n")
    return [md_path, csv_path]
