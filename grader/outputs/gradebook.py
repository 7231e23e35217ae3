"""Stage 3 of ``grader batch``: the batch's own gradebook, ``gradebook.csv``.

:func:`gradebook_rows` gives one :class:`GradebookRow` per entry of the source (graded,
unreadable or not a submission, with its reasons); :func:`write_gradebook` writes
``gradebook.csv`` (and the pages :mod:`grader.outputs.gradebook_page` makes of it), and
:func:`apply_lms` puts who submitted it and the late policy (:func:`grader.spec.due.apply_late`)
into each report first. The gradebooks an LMS imports (Canvas, Moodle) are made from the same
rows by :mod:`grader.outputs.lms_gradebooks`.

Every cell that can hold text a student chose (a name, an error message) goes through
:func:`cell`, i.e. :func:`grader.sinks.csv_cell`, which keeps a spreadsheet from reading it as
a formula.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from grader.ingest.discovery import Found, Skipped
from grader.i18n.messages import one_language, said
from grader.report.outdir import read_report
from grader.report.files import write_atomic
from grader.report.model import GradeReport, ReportDict
from grader.sinks import csv_cell
from grader.spec.due import Timing, apply_late

if TYPE_CHECKING:
    from rich.console import Console

    from grader.spec.rubric.model import Rubric

__all__ = ["BOM", "DOUBT_FLAGS", "FORMATS", "GRADEBOOK_FIXED", "GRADEBOOK_TAIL", "UNREAD", "Cell", "Flags",
           "GradebookEntry", "GradebookRow", "Written", "apply_lms", "by_hand", "cell", "csv_text", "csv_written",
           "grade_cell", "gradebook_rows", "lms_of", "old_rows", "report_cells", "reports_assignment", "say_written",
           "write_gradebook"]

FORMATS = ("csv", "canvas", "moodle")
BOM = "\ufeff"

#: One value of a CSV cell: text, a number, yes/no, or nothing.
Cell = str | float | bool | None
#: Why an entry's grade is in doubt or missing: (key of grader.i18n.messages.MESSAGES, slots).
Flags = list[tuple[str, dict[str, str]]]
#: One entry for :func:`gradebook_rows`: who it is, its report (None: not graded), more flags.
GradebookEntry = tuple[Found | Skipped, GradeReport | None, Flags]


def cell(value: Cell) -> str:
    """One CSV cell, safe to open in a spreadsheet: text through :func:`grader.sinks.csv_cell`
    (a formula-leading cell gets a ``'``), numbers written plainly, booleans as yes/no."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return _number(value)
    return str(csv_cell(value))


def _number(value: float) -> str:
    """A float written in full (``:g`` keeps six digits: 1000001 would read back as 1e+06)."""
    if math.isfinite(value) and value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


def csv_text(header: Sequence[str], rows: Sequence[Sequence[Cell]], *, bom: bool = False) -> str:
    """The CSV file's text: every cell through :func:`cell`; ``bom`` for Excel."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow([cell(h) for h in header])
    for row in rows:
        writer.writerow([cell(v) for v in row])
    return (BOM if bom else "") + buf.getvalue()


def grade_cell(value: float | str) -> str:
    """A score as an LMS's grade column takes it: rounded to 2 places, written in full."""
    return _number(round(float(value), 2))


@dataclass(frozen=True)
class Written:
    """One gradebook file written, and what it says about each student of the export."""

    path: Path
    rows: int  #: student rows in the file
    graded: int  #: of them, rows with a grade
    #: (who, why) for each student whose row holds no grade
    no_grade: list[tuple[str, str]] = field(default_factory=list)
    #: (who, why) for each entry of the export that has no row (the LMS could not match it)
    left_out: list[tuple[str, str]] = field(default_factory=list)
    #: a keyed sentence about the file as a whole (Moodle's: the language it is written for), or ""
    note: str = ""


# --------------------------------------------------------------------------- the batch's rows

#: ``automatic_score - late_penalty + adjustment = score``, left to right: the tests' score, what the
#: late policy took off, what hand adjustments changed, and the final score
GRADEBOOK_FIXED = ["submission", "student_id", "name", "lms", "late", "extension", "automatic_score", "late_penalty",
                   "adjustment", "score", "adjustment_reasons", "needs_review", "max_score", "passed"]
GRADEBOOK_TAIL = ["mistakes", "errors", "content_hash", "graded_at", "flags"]
#: flags that put in doubt whose a row is: its score goes to no LMS and no course total
DOUBT_FLAGS = ("duplicate_id", "ambiguous_id")
#: the columns a row holds itself; every other column is one of its :attr:`GradebookRow.cells`
_OWN = ("submission", "student_id", "name", "lms", "errors", "flags")


@dataclass(frozen=True)
class GradebookRow:
    """One row of the gradebook: one entry of the source, graded or not.

    The columns the report decides (scores, parts, mistakes…: :func:`report_cells`) are its
    ``cells``; a row read back from an earlier ``gradebook.csv`` keeps every other cell there.
    """

    submission: str
    student_id: str
    name: str = ""
    lms: str = ""  # moodle | canvas | blackboard | "" (a plain folder)
    late: str = ""  # the LMS's late flag (yes | no); a report's own lateness wins (report_cells)
    entry: str = ""  # the name as found in the folder or export
    #: whose it is is in doubt, or its score is no grade: never sent back to the LMS automatically
    flagged: bool = False
    flags: str = ""  # the flags' keys, ";"-separated
    errors: str = ""  # the report's errors and a plain reason for every flag, " | "-separated
    report: GradeReport | None = None
    cells: Mapping[str, Cell] = field(default_factory=dict)
    #: the id the LMS knows the student by, in an anonymous batch (grader.ingest.anonymous.for_lms)
    lms_id: str = ""
    #: the comment for the LMS's feedback column (the Moodle worksheet)
    feedback: str = ""

    @classmethod
    def read_back(cls, old: Mapping[str, str]) -> GradebookRow:
        """A row of an earlier ``gradebook.csv`` (its entry has no report), flagged."""
        text = {c: "" if old.get(c) is None else str(old.get(c)) for c in _OWN}
        return cls(text["submission"], text["student_id"], name=text["name"], lms=text["lms"], late=old.get("late") or "",
                   flagged=True, flags=text["flags"], errors=text["errors"],
                   cells={c: v for c, v in old.items() if c not in _OWN})

    def value(self, column: str) -> Cell:
        """The row's cell in ``column`` ("" when it has none)."""
        if column in _OWN:
            own: str = getattr(self, column)
            return own
        if column == "late" and "late" not in self.cells:  # no report: the LMS's flag
            return self.late
        return self.cells.get(column, "")

    @property
    def score(self) -> Cell:
        return self.cells.get("score")

    @property
    def who(self) -> str:
        """The student as the LMS names them: ``name (id)``, else the id, else the entry."""
        name, sid = self.name or "", self.student_id or ""
        return f"{name} ({sid})" if name and name != sid else sid or self.entry

    @property
    def lms_key(self) -> str:
        """The id the LMS knows the row's student by: in an anonymous batch, from identities.csv
        (:func:`grader.ingest.anonymous.for_lms`), never shown anywhere else."""
        return self.lms_id or self.student_id

    @property
    def has_grade(self) -> bool:
        return self.score not in (None, "") and not self.flagged

    def no_grade_reason(self, langs: tuple[str, ...]) -> str:
        """Why the row holds no grade for the LMS (its errors, else a plain reason)."""
        from grader.ingest.lms import reason

        if self.errors:
            return self.errors
        return reason("not_graded", langs, why="no report")


def apply_lms(data: ReportDict, found: Found, rubric: Rubric, when: Timing | None = None) -> ReportDict:
    """Add who submitted it (from the LMS naming) to a report, and apply the late policy.

    The late policy (rubric ``late``, :func:`grader.spec.due.apply_late`) takes its points off the
    total of a submission the LMS flagged as late; the report keeps the score before it and says
    why, in its notes.
    """
    if found.lms or found.name or found.late or when:  # (a plain folder's too, when its timing is known)
        data["student"] = {"id": found.student_id, "name": found.name, "lms": found.lms,
                           "entry": found.entry, "late": found.late,
                           "flags": [[key, dict(slots)] for key, slots in found.flags]}
    if when and data.get("student") is not None:
        data["student"]["timing"] = when.copy()  # kept, so a regrade measures lateness the same way
    apply_late(data, found.late, rubric, when)
    return data


def _reasons(flags: Flags, langs: tuple[str, ...]) -> list[str]:
    from grader.ingest.lms import reason

    return [reason(key, langs, **slots) for key, slots in flags]


def gradebook_rows(rows: Sequence[GradebookEntry], rubric: Rubric) -> list[GradebookRow]:
    """Rows of the gradebook: graded submissions, then entries that could not be graded.

    Each entry is ``(Found or Skipped, report or None, extra flags)``; the errors column holds
    the report's errors and a plain reason for every flag, in the rubric's languages.
    """
    langs = tuple(rubric.report.languages)
    out = []
    for item, report, extra in rows:
        errors = _reasons([*item.flags, *extra], langs)
        flags = ";".join(dict.fromkeys(k for k, _ in [*item.flags, *extra]))
        # whose it is is in doubt: never sent back to the LMS automatically
        doubt = any(k in DOUBT_FLAGS for k, _ in item.flags)
        if report is not None:
            submission = report.submission
            shown = errors if isinstance(item, Skipped) else [*(e.replace("\n", " ") for e in report.errors), *errors]
            # an upload that could not be read: its 0 is no grade for the LMS, unless a person graded it by hand
            flagged = doubt or (isinstance(item, Skipped) and not by_hand(report))
            cells = report_cells(report, rubric)
        else:
            submission = item.submission.name if isinstance(item, Found) and item.submission else item.entry
            shown, flagged, cells = errors, doubt, {}
        out.append(GradebookRow(submission, item.student_id, name=item.name, lms=item.lms,
                                late="yes" if item.late else "no", entry=item.entry, flagged=flagged, flags=flags,
                                errors=" | ".join(shown), report=report, cells=cells))
    return out


def report_cells(report: GradeReport, rubric: Rubric) -> dict[str, Cell]:
    """The gradebook cells a report decides (all but who, the errors and the flags): every
    writer of a row (a batch, an export, a regrade or an adjustment patching one) takes them here."""
    scores = {p.id: p.score for p in report.parts}
    return {"score": report.score, "max_score": report.max_score, "passed": "yes" if report.passed else "no",
            **_late_cells(report),
            "mistakes": ";".join(dict.fromkeys(m.id for m in report.mistakes)),
            "content_hash": report.content_hash, "graded_at": report.graded_at,
            **_adjustment_cells(report, tuple(rubric.report.languages)),
            **{f"part:{p.id}": scores.get(p.id, "") for p in rubric.parts},
            **({"variant": str(report.variant.get("id", ""))} if report.variant else {})}


def _late_cells(report: GradeReport) -> dict[str, Cell]:
    """``late`` (yes where the late policy took points off, where the times say the submission came
    after the student's own due date, or, no time known, where the LMS flagged it and no extension
    set the flag aside), ``late_penalty`` (what the policy took off; empty when nothing) and
    ``extension`` (the reason of the student's extension, where one applies)."""
    late = report.late or {}
    student = report.student or {}
    timing = student.get("timing") or Timing(submitted="", due="", extension="")
    if late:  # the policy applied: measured from the times (days), or the LMS's flag (no days)
        is_late = float(late.get("penalty", 0.0) or 0.0) > 0 or int(late.get("days", 0) or 0) > 0 or "days" not in late
    elif timing.get("submitted"):  # measured, and on time (an extension included)
        is_late = False
    else:  # no time known: the LMS's flag, unless an extension set it aside
        is_late = bool(student.get("late")) and not timing.get("extension")
    penalty = float(late.get("penalty", 0.0) or 0.0)
    return {"late": "yes" if is_late else "no", "late_penalty": penalty if penalty else "",
            "extension": str(late.get("extension") or timing.get("extension") or "")}


def by_hand(report: GradeReport) -> bool:
    """A person gave this report's score (an adjustment of grader.report.ledger is applied to it,
    needing review or not)."""
    return any(e.get("status") in ("applied", "review") for e in (report.adjustment or {}).get("entries", []))


def _adjustment_cells(report: GradeReport, langs: tuple[str, ...]) -> dict[str, Cell]:
    """``automatic_score`` (the tests' score, before the late policy), ``adjustment``,
    ``adjustment_reasons`` and ``needs_review`` (the ledger lines that do, ``#3 #5``) of a row."""
    from grader.report.text import adjustment_lines

    adj = report.adjustment
    auto = float(report.late["score_before"]) if report.late else None
    if not adj:
        return {"automatic_score": report.score if auto is None else auto, "adjustment": 0.0,
                "adjustment_reasons": "", "needs_review": ""}
    review = " ".join(f"#{e['n']}" for e in adj.get("entries", []) if e.get("status") == "review")
    return {"automatic_score": float(adj["automatic_score"]) if auto is None else auto,
            "adjustment": float(adj["delta"]), "adjustment_reasons": " | ".join(adjustment_lines(report, langs)[1:]),
            "needs_review": review}


def write_gradebook(path: Path, rows: Sequence[GradebookRow], rubric: Rubric, *, bom: bool = False) -> Path:
    """``gradebook.csv``: every cell through :func:`cell` (no formulas); then the pages
    :mod:`grader.outputs.gradebook_page` reads from it."""
    from grader.outputs.gradebook_page import write_views

    # a batch with per-student variants records each student's variant id (grader.spec.variants)
    own = ["variant"] if any(row.cells.get("variant") for row in rows) else []
    columns = GRADEBOOK_FIXED + [f"part:{p.id}" for p in rubric.parts] + own + GRADEBOOK_TAIL
    written = write_atomic(path, csv_text(columns, [[row.value(c) for c in columns] for row in rows], bom=bom))
    write_views(path.parent, rubric)  # the page to read, from the file just written
    return written


def lms_of(rows: Sequence[GradebookRow]) -> set[str]:
    """The LMSs the batch's entries were named by."""
    return {r.lms for r in rows if r.lms}


def say_written(written: list[Written], rows: Sequence[GradebookRow], console: Console, lang: str = "en") -> None:
    """Per file: how many rows it holds, and why any student has no grade or no row."""
    from grader.i18n.messages import translate
    from grader.sinks import terminal_markup

    for w in written:
        console.print(terminal_markup(translate(said("rows_grade", file=w.path.name, rows=w.rows, graded=w.graded), lang)),
                      markup=True, soft_wrap=True)
        if w.note:
            console.print(terminal_markup(translate(w.note, lang)), soft_wrap=True)
        for who, why in w.no_grade:
            console.print(terminal_markup(translate(said("no_grade", who=who, why=one_language(why, lang)), lang)),
                          soft_wrap=True)
        for who, why in w.left_out:
            console.print(terminal_markup(translate(said("left_out", who=who, why=one_language(why, lang)), lang)),
                          soft_wrap=True)


#: flags of an entry that could not be read: its 0 is no grade (unless given by hand)
UNREAD = ("unreadable", "symlink")


def reports_assignment(outdir: Path) -> str:
    """The assignment the batch's reports in ``outdir`` name ("" when none does)."""
    for path in sorted((outdir / "reports").glob("*.yaml")):
        report = read_report(path)
        if report is not None and report.assignment:
            return str(report.assignment)
    return ""


def old_rows(book: Path) -> list[dict[str, str]]:
    """The rows of the gradebook file ``book`` as it is (none when it cannot be read)."""
    try:
        with book.open(encoding="utf-8-sig", newline="") as fh:
            return list(csv.DictReader(fh))
    except (OSError, csv.Error, UnicodeDecodeError):
        return []


def csv_written(path: Path, book: Sequence[GradebookRow]) -> Written:
    """What ``gradebook.csv`` holds: every entry, and why any has no score."""
    return Written(path, len(book), sum(1 for r in book if r.score not in (None, "")),
                   [(r.who, r.errors) for r in book if r.score in (None, "")])
