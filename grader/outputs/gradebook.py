"""Stage 3 of ``grader batch``: the gradebooks — the batch's own and those the LMS imports.

:func:`gradebook_rows` gives one row per entry of the source (graded, unreadable or not a
submission, with its reasons); :func:`write_gradebook` writes ``gradebook.csv``, and
:func:`apply_lms` puts who submitted it and the late policy into each report first.

``grader batch … --gradebook canvas|moodle|csv`` (or ``grader export OUTDIR``) writes, next to
the batch's own ``gradebook.csv``:

=================================  ================================================================
``gradebook.canvas.csv``           Canvas's gradebook import: the instructor's own export
                                   (``--canvas-gradebook``) with the assignment's column filled in, or
                                   ``Student, ID, SIS User ID, SIS Login ID, Section, Title (id)``
                                   (``--canvas-assignment-id``), a ``Points Possible`` row, one row per
                                   student keyed by the Canvas user id taken from the export.
``gradebook.moodle.csv``           Moodle's offline grading worksheet: ``Identifier`` is
                                   ``Participant <id>`` (the number in the Moodle folder name),
                                   ``Grade``, ``Last modified (grade)`` and ``Feedback comments``.
``moodle-feedback-files.zip``      Moodle's "upload multiple feedback files in a zip" layout: one
                                   ``<Full Name>_<id>_assignsubmission_file_/`` folder per student,
                                   holding that student's report.
=================================  ================================================================

Every cell that can hold text a student chose (a name, an error message) goes through
:func:`cell`, i.e. :func:`grader.sinks.csv_cell`, which keeps a spreadsheet from reading it as
a formula.
"""

from __future__ import annotations

import csv
import json
import io
import math
import re
import zipfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TYPE_CHECKING

from grader.ingest.discovery import Found, Skipped
from grader.i18n.messages import label, one_language, said
from grader.errors import UsageError
from grader.report.outdir import Roster, read_report, reports_now
from grader.report.files import write_atomic
from grader.report.model import GradeReport
from grader.sinks import csv_cell, file_name

if TYPE_CHECKING:
    from grader.spec.rubric.model import Rubric

__all__ = ["FORMATS", "GRADEBOOK_FIXED", "GRADEBOOK_TAIL", "apply_late", "apply_lms", "cell", "undo_late", "csv_text", "export_gradebooks",
           "gradebook_rows", "write_canvas", "write_gradebook", "write_lms_gradebooks", "write_moodle",
           "write_moodle_feedback"]

FORMATS = ("csv", "canvas", "moodle")
BOM = "\ufeff"


def cell(value: Any) -> str:
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


def csv_text(header: list[str], rows: list[list[Any]], *, bom: bool = False) -> str:
    """The CSV file's text: every cell through :func:`cell`; ``bom`` for Excel."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow([cell(h) for h in header])
    for row in rows:
        writer.writerow([cell(v) for v in row])
    return (BOM if bom else "") + buf.getvalue()


def _grade(value: float) -> str:
    return _number(round(float(value), 2))


# --------------------------------------------------------------------------- Canvas


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


@dataclass(frozen=True)
class CanvasTarget:
    """Which Canvas assignment the scores go to: the instructor's own gradebook export
    (``--canvas-gradebook``, filled in place) or the assignment's id (``--canvas-assignment-id``)."""

    assignment_id: str = ""
    export: Path | None = None


_CANVAS_ID = re.compile(r"\((\d+)\)\s*$")
_CANVAS_IGNORED = re.compile(r"(Current|Final|Unposted) (Score|Points|Grade)|Override")

#: beside gradebook.canvas.csv: the Canvas assignment id of the column it fills
CANVAS_NOTE = ".gradebook.canvas.json"


def canvas_target_of(outdir: Path) -> CanvasTarget:
    """The Canvas file already in ``outdir``, to fill again in place: its column is the one the
    batch (or grader export) filled, by the assignment id noted beside it."""
    try:
        noted = str(json.loads((outdir / CANVAS_NOTE).read_text(encoding="utf-8"))["assignment_id"])
    except (OSError, ValueError, KeyError, TypeError):
        noted = ""
    return CanvasTarget(assignment_id=noted, export=outdir / "gradebook.canvas.csv")


def canvas_column(title: str, assignment_id: str) -> str:
    """The assignment column: ``Title (id)`` updates that Canvas assignment; a bare title makes
    Canvas's import create a new assignment."""
    return f"{title} ({assignment_id})"


def _who(row: dict[str, Any]) -> str:
    name, sid = str(row.get("name") or ""), str(row.get("student_id") or "")
    return f"{name} ({sid})" if name and name != sid else sid or str(row.get("entry", ""))


def _lms_id(row: dict[str, Any]) -> str:
    """The id the LMS knows the row's student by: in an anonymous batch, from identities.csv
    (:func:`grader.ingest.anonymous.for_lms`), never shown anywhere else."""
    return str(row.get("lms_id") or row.get("student_id", ""))


def _no_grade_reason(row: dict[str, Any], langs: Any) -> str:
    """Why a row holds no grade for the LMS (its errors, else a plain reason)."""
    from grader.ingest.lms import reason

    if row.get("errors"):
        return str(row["errors"])
    return reason("not_graded", langs, why="no report")


def _has_grade(row: dict[str, Any]) -> bool:
    return row.get("score") not in (None, "") and not row.get("flagged")


def _read_canvas_export(path: Path) -> tuple[str, list[list[str]]]:
    """(separator, rows) of a gradebook exported from Canvas, as its importer reads it."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(said("cannot_read_canvas_gradebook", path=path.name, why=exc)) from None
    first = text.splitlines()[0] if text else ""
    sep = ";" if first.count(";") > first.count(",") else ","
    rows = list(csv.reader(io.StringIO(text), delimiter=sep))
    if not rows or len(rows[0]) < 2 or "Student" not in rows[0][0] or "ID" not in rows[0][1]:
        raise UsageError(said("canvas_gradebook_export_first", path=path.name))
    return sep, rows


def canvas_export_column(path: Path, title: str, assignment_id: str = "") -> int:
    """The column of the Canvas export the scores go in: ``… (assignment_id)`` when the id is
    given, else the one assignment column titled ``title``.

    Raises:
        UsageError: no such column, or several (the message lists the assignment columns).
    """
    _, rows = _read_canvas_export(path)
    header = rows[0]
    section = max((i for i, h in enumerate(header) if "Section" in h), default=1)
    columns = [(i, h) for i, h in enumerate(header) if i > section and _CANVAS_ID.search(h)
               and not _CANVAS_IGNORED.search(h)]
    if assignment_id:
        hits = [i for i, h in columns if _CANVAS_ID.search(h)[1] == assignment_id]  # type: ignore[index]
    else:
        wanted = title.strip().casefold()
        hits = [i for i, h in columns if _CANVAS_ID.sub("", h).strip().casefold() == wanted]
    if len(hits) == 1:
        return hits[0]
    listed = ", ".join(h for _, h in columns) or "none"
    what = said("id", id=assignment_id) if assignment_id else said("title", title=f"{title!r}")
    raise UsageError(said("more_than_one_assignment" if hits else "no_assignment_column_assignment",
                          file=path.name, what=what, listed=listed))


def write_canvas(path: Path, rows: list[dict[str, Any]], assignment: str, max_score: float,
                 *, bom: bool = False, target: CanvasTarget | None = None, title: str = "",
                 langs: Any = ("en",)) -> Written:
    """Canvas's gradebook import file: every Canvas student of the export has a row; a row
    whose score is not to be trusted (no grade, a flag) has an empty cell, which Canvas's
    import leaves as it was.

    With ``target.export`` the instructor's own gradebook export is filled in: the
    assignment's column, every other row, column and section kept as Canvas wrote them.
    """
    target = target or CanvasTarget()
    canvas = [r for r in rows if r.get("lms") == "canvas" and _lms_id(r).isdigit()]
    left_out = [(_who(r), said("canvas_user_id_anonymous" if str(r.get("student_id", "")).startswith("anon_")
                               else "canvas_user_id_entry"))
                for r in rows if r not in canvas]
    no_grade = [(_who(r), _no_grade_reason(r, langs)) for r in canvas if not _has_grade(r)]
    graded = {_lms_id(r): _grade(r["score"]) for r in canvas if _has_grade(r)}
    if target.export is not None:
        sep, table = _read_canvas_export(target.export)
        col = canvas_export_column(target.export, title or assignment, target.assignment_id)
        seen: set[str] = set()
        students = 0
        for line in table[1:]:
            if not line or "Points Possible" in line[0] or len(line) <= col:
                continue
            if all(c.strip() in ("", "Muted", "Manual Posting") for c in line[1:]):
                continue  # "Muted" / "Manual Posting" rows
            students += 1
            sid = line[1].strip()
            if sid in graded:
                line[col] = graded[sid]
                seen.add(sid)
        missing = [(_who(r), said("canvas_gradebook_export_enrolled"))
                   for r in canvas if _has_grade(r) and _lms_id(r) not in seen]
        buf = io.StringIO()
        csv.writer(buf, delimiter=sep, lineterminator="\r\n").writerows(table)
        write_atomic(path, (BOM if bom else "") + buf.getvalue())
        found = _CANVAS_ID.search(table[0][col])
        if found:  # which of the export's columns is this assignment's, for every later refresh
            write_atomic(path.with_name(CANVAS_NOTE), json.dumps({"assignment_id": found[1]}))
        return Written(path, students, len(seen), no_grade, left_out + missing)
    if not target.assignment_id:
        raise UsageError(CANVAS_NEEDS)
    header = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section",
              canvas_column(title or assignment, target.assignment_id)]
    body: list[list[Any]] = [["Points Possible", "", "", "", "", _grade(max_score)]]
    for row in canvas:
        body.append([row.get("name") or row["student_id"], _lms_id(row), "", "", "",
                     graded.get(_lms_id(row), "")])
    write_atomic(path, csv_text(header, body, bom=bom))
    return Written(path, len(canvas), len(graded), no_grade, left_out)


CANVAS_NEEDS = (said("gradebook_canvas_needs_canvas"))


# --------------------------------------------------------------------------- Moodle

MOODLE_HEADER = ["Identifier", "Full name", "Status", "Grade", "Maximum Grade", "Grade can be changed",
                 "Last modified (grade)", "Feedback comments"]
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")


def moodle_time(iso: str) -> str:
    """``Tuesday, 1 December 2026, 11:05 AM``: how Moodle writes the worksheet's times (and
    PHP's strtotime reads them back), in English whatever the locale."""
    try:
        when = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        when = datetime.now(timezone.utc)
    hour = when.hour % 12 or 12
    return (f"{_DAYS[when.weekday()]}, {when.day} {_MONTHS[when.month - 1]} {when.year}, "
            f"{hour}:{when.minute:02d} {'AM' if when.hour < 12 else 'PM'}")


#: The worksheet's "Last modified (grade)" for a row with no grade: Moodle's import refuses to
#: overwrite a grade changed after the worksheet's date, so this row changes no grade given by hand.
NO_GRADE_TIME = "Thursday, 1 January 1970, 12:00 AM"


def write_moodle(path: Path, rows: list[dict[str, Any]], max_score: float, *, bom: bool = False,
                 langs: Any = ("en",)) -> Written:
    """Moodle's offline grading worksheet: a row for every Moodle participant of the export.

    A row with no trustworthy grade (nothing graded, a flag) has an empty grade, the reason
    as its feedback and a modification time before any grade, so Moodle's import keeps a
    grade given by hand (its check against grades changed since the worksheet was made).
    """
    body: list[list[Any]] = []
    moodle = [r for r in rows if r.get("lms") == "moodle" and _lms_id(r).isdigit()]
    left_out = [(_who(r), said("moodle_participant_id_entry"))
                for r in rows if r not in moodle]
    no_grade = []
    for row in moodle:
        if _has_grade(row):
            body.append([f"Participant {_lms_id(row)}", row.get("name") or row["student_id"], "Graded",
                         _grade(row["score"]), _grade(max_score), "Yes",
                         moodle_time(str(row.get("graded_at") or "")), row.get("feedback", "")])
            continue
        why = _no_grade_reason(row, langs)
        no_grade.append((_who(row), why))
        from grader.sinks import html

        body.append([f"Participant {_lms_id(row)}", row.get("name") or row["student_id"], "No grade", "",
                     _grade(max_score), "Yes", NO_GRADE_TIME, html(why)])
    write_atomic(path, csv_text(MOODLE_HEADER, body, bom=bom))
    return Written(path, len(body), len(body) - len(no_grade), no_grade, left_out)


def moodle_folder(name: str, participant: str) -> str:
    """The folder Moodle's feedback-file import maps to a participant: no ``_`` in the name,
    nothing invisible (:func:`grader.sinks.file_name`: controls, DEL, C1, bidi overrides), not
    longer than a file name may be (:func:`grader.ingest.lms.fit_name`, the id kept)."""
    from grader.ingest.lms import fit_name

    clean = file_name(re.sub(r"[&'`_]+", " ", name)) or "Participant"
    return fit_name(f"{clean}_{participant}_assignsubmission_file_")


def write_moodle_feedback(path: Path, files: list[tuple[str, str, str, str]]) -> Path:
    """The feedback-files zip: ``(name, participant id, file name, text)`` per file."""
    tmp = path.with_name(path.name + ".part")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, participant, filename, text in files:
            zf.writestr(f"{moodle_folder(name, participant)}/{filename}", text.encode("utf-8"))
    tmp.replace(path)
    return path


# --------------------------------------------------------------------------- the batch's rows

GRADEBOOK_FIXED = ["submission", "student_id", "name", "lms", "late", "score", "automatic_score", "adjustment",
                   "adjustment_reasons", "max_score", "passed"]
GRADEBOOK_TAIL = ["late_penalty", "mistakes", "errors", "content_hash", "graded_at", "flags"]
#: flags that put in doubt whose a row is: its score goes to no LMS and no course total
DOUBT_FLAGS = ("duplicate_id", "ambiguous_id")


def apply_lms(data: dict[str, Any], found: Found, rubric: Rubric, when: dict[str, Any] | None = None) -> dict[str, Any]:
    """Add who submitted it (from the LMS naming) to a report, and apply the late policy.

    The late policy (rubric ``late:``) takes its points off the total of a submission the
    LMS flagged as late; the report keeps the score before it and says why, in its notes.
    """
    if found.lms or found.name or found.late or when:  # (a plain folder's too, when its timing is known)
        data["student"] = {"id": found.student_id, "name": found.name, "lms": found.lms,
                           "entry": found.entry, "late": found.late,
                           "flags": [[key, dict(slots)] for key, slots in found.flags]}
    if when and data.get("student") is not None:
        data["student"]["timing"] = dict(when)  # kept, so a regrade measures lateness the same way
    return apply_late(data, found.late, rubric, when)


def apply_late(data: dict[str, Any], late: bool, rubric: Rubric, when: dict[str, Any] | None = None) -> dict[str, Any]:
    """The rubric's late policy on a report's dict whose ``score`` is the tests' score.

    ``when`` (from ``--submitted`` / ``--extensions`` and the rubric's ``due:``, see
    :mod:`grader.spec.due`): ``submitted`` and the student's own ``due`` (ISO, with offsets) and the
    extension's ``extension`` reason; lateness is then measured, and shown with those inputs.
    Without it, the LMS's late flag decides (one unit of the penalty).
    """
    policy = getattr(rubric, "late", None)
    days = None
    if late and policy is not None and when and not when.get("submitted") and when.get("due"):
        # An extension, but no submission time: the LMS's flag was set against its own due
        # date, not this student's, so it takes nothing off; the report says so.
        data["notes"] = [*data.get("notes", []),
                         " / ".join(label("late_flag_set_aside", lang, due=when["due"])
                                    for lang in rubric.report.languages)]
        return data
    if policy is not None and when and when.get("submitted") and when.get("due"):
        from grader.spec.due import LatePolicyRule, late_penalty, parse_when

        rule_ = LatePolicyRule(per_day_percent=policy.penalty_percent, max_percent=100.0,
                               grace_minutes=policy.grace_minutes, per=policy.per)
        measured = late_penalty(parse_when(when["submitted"], "submitted"), parse_when(when["due"], "due"),
                                float(data["score"]), float(data["max_score"]), rule_)
        days, late = measured.days, measured.days > 0
    if late and policy is not None:
        before, top = float(data["score"]), float(data["max_score"])
        if days is not None:
            kept = measured.score if policy.per == "day" else policy.apply(before, top)
            after = round(max(0.0, min(kept, top * policy.cap_percent / 100, before)), int(rubric.report.rounding))
        else:
            after = round(policy.apply(before, top), int(rubric.report.rounding))
        rule = {lang: policy.describe(lang) for lang in ("en", "ja")}
        data["late"] = {"score_before": before, "score": after, "penalty": round(before - after, 6), "rule": rule}
        if days is not None and when is not None:
            data["late"].update(submitted=when["submitted"], due=when["due"], days=days,
                                extension=when.get("extension", ""))
            rule = {lang: label("late_when", lang, rule=rule[lang], submitted=when["submitted"], due=when["due"],
                                days=days)
                          + (label("late_extension", lang, extension=when["extension"]) if when.get("extension") else "")
                    for lang in ("en", "ja")}
        data["score"] = after
        data["passed"] = top > 0 and after * 100.0 >= float(data.get("pass_mark", rubric.report.pass_mark)) * top
        data["notes"] = [*data.get("notes", []),
                         " / ".join(label("late_note", lang, before=f"{before:g}", after=f"{after:g}", rule=rule[lang])
                                    for lang in rubric.report.languages if lang in rule)]
    return data


def undo_late(data: dict[str, Any]) -> dict[str, Any]:
    """A report's dict as before :func:`apply_late`: the tests' score back, the late note gone."""
    late = data.pop("late", None)
    if late:
        data["score"] = float(late["score_before"])
        top = float(data["max_score"])
        data["passed"] = top > 0 and data["score"] * 100.0 >= float(data.get("pass_mark", 0.0)) * top
    if data.get("notes"):
        data["notes"] = without_late_note(data["notes"])
    return data


def without_late_note(notes: list[str]) -> list[str]:
    """``notes`` without the one :func:`apply_late` adds."""
    starts = tuple(label(key, lang).split("{", 1)[0] for key in ("late_note", "late_flag_set_aside")
                   for lang in ("en", "ja"))
    return [n for n in notes if not any(x.startswith(starts) for x in n.split(" / "))]


def _reasons(flags: list[tuple[str, dict[str, str]]], langs: Any) -> list[str]:
    from grader.ingest.lms import reason

    return [reason(key, langs, **slots) for key, slots in flags]


def gradebook_rows(rows: list[tuple[Any, GradeReport | None, list[tuple[str, dict[str, str]]]]],
                   rubric: Rubric) -> list[dict[str, Any]]:
    """Rows of the gradebook: graded submissions, then entries that could not be graded.

    Each row is ``(Found or Skipped, report or None, extra flags)``; the errors column holds
    the report's errors and a plain reason for every flag, in the rubric's languages.
    """
    langs = tuple(rubric.report.languages)
    out = []
    for item, report, extra in rows:
        row: dict[str, Any] = {"student_id": item.student_id, "name": item.name, "lms": item.lms,
                               "late": "yes" if item.late else "no", "entry": item.entry,
                               # whose it is is in doubt: never sent back to the LMS automatically
                               "flagged": any(k in ("duplicate_id", "ambiguous_id") for k, _ in item.flags)}
        errors = _reasons([*item.flags, *extra], langs)
        row["flags"] = ";".join(dict.fromkeys(k for k, _ in [*item.flags, *extra]))
        if report is not None:
            row.update(submission=report.submission, report=report,
                       errors=" | ".join(errors if isinstance(item, Skipped) else
                                         [*(e.replace("\n", " ") for e in report.errors), *errors]))
            row.update(report_cells(report, rubric))
            if isinstance(item, Skipped) and not by_hand(report):  # an upload that could not be read:
                row["flagged"] = True  # its 0 is no grade for the LMS, unless a person graded it by hand
        else:
            name = item.submission.name if isinstance(item, Found) and item.submission else item.entry
            row.update(submission=name, errors=" | ".join(errors))
        out.append(row)
    return out


def report_cells(report: GradeReport, rubric: Rubric) -> dict[str, Any]:
    """The gradebook cells a report decides (all but who, the errors and the flags): every
    writer of a row (a batch, an export, a regrade or an adjustment patching one) takes them here."""
    scores = {p.id: p.score for p in report.parts}
    return {"score": report.score, "max_score": report.max_score, "passed": "yes" if report.passed else "no",
            "late_penalty": report.late.get("penalty", "") if report.late else "",
            "mistakes": ";".join(dict.fromkeys(m.id for m in report.mistakes)),
            "content_hash": report.content_hash, "graded_at": report.graded_at,
            **_adjustment_cells(report, tuple(rubric.report.languages)),
            **{f"part:{p.id}": scores.get(p.id, "") for p in rubric.parts}}


def by_hand(report: GradeReport) -> bool:
    """A person gave this report's score (an adjustment of grader.report.ledger is applied to it)."""
    return any(e.get("status") == "applied" for e in (report.adjustment or {}).get("entries", []))


def _adjustment_cells(report: GradeReport, langs: tuple[str, ...]) -> dict[str, Any]:
    """``automatic_score``, ``adjustment`` and ``adjustment_reasons`` (grader.report.ledger) of a row."""
    from grader.report.text import adjustment_lines

    adj = report.adjustment
    if not adj:
        return {"automatic_score": report.score, "adjustment": 0.0, "adjustment_reasons": ""}
    return {"automatic_score": float(adj["automatic_score"]), "adjustment": float(adj["delta"]),
            "adjustment_reasons": " | ".join(adjustment_lines(report, langs)[1:])}


def write_gradebook(path: Path, rows: list[dict[str, Any]], rubric: Rubric, *, bom: bool = False) -> Path:
    """``gradebook.csv``: every cell through :func:`cell` (no formulas); then the pages
    :mod:`grader.outputs.gradebook_page` reads from it."""
    from grader.outputs.gradebook_page import write_views

    columns = GRADEBOOK_FIXED + [f"part:{p.id}" for p in rubric.parts] + GRADEBOOK_TAIL
    written = write_atomic(path, csv_text(columns, [[row.get(c, "") for c in columns] for row in rows], bom=bom))
    write_views(path.parent, rubric)  # the page to read, from the file just written
    return written


def lms_of(rows: list[dict[str, Any]]) -> set[str]:
    """The LMSs the batch's entries were named by."""
    return {str(r["lms"]) for r in rows if r.get("lms")}


_LMS_TITLE = {"canvas": "Canvas", "moodle": "Moodle", "blackboard": "Blackboard"}


def check_formats(formats: tuple[str, ...], lmss: set[str], canvas: CanvasTarget | None = None,
                  title: str = "") -> None:
    """Refuse, before grading, a gradebook its LMS could match no student of: one for an LMS
    the export did not come from, or a Canvas file without its assignment.

    Raises:
        UsageError: naming the format, where the submissions came from and what to ask for.
    """
    for fmt in formats:
        if fmt not in ("canvas", "moodle") or fmt in lmss:
            continue
        came = (said("export_came", lms=', '.join(_LMS_TITLE.get(x, x) for x in sorted(lmss))) if lmss
                else said("submissions_plain_folder_lms"))
        ask = (said("ask", what=" ".join(f"--gradebook {x}" for x in sorted(lmss) if x in FORMATS)) if
               any(x in FORMATS for x in lmss) else said("use_gradebook_csv"))
        raise UsageError(said("gradebook_so_could_match", fmt=fmt, came=came, lms=_LMS_TITLE[fmt], ask=ask))
    if "canvas" in formats:
        canvas = canvas or CanvasTarget()
        if canvas.export is not None:
            canvas_export_column(canvas.export, title, canvas.assignment_id)
        elif not canvas.assignment_id:
            raise UsageError(CANVAS_NEEDS)


def write_lms_gradebooks(outdir: Path, rows: list[dict[str, Any]], rubric: Rubric, formats: tuple[str, ...],
                         *, bom: bool = False, lang: str = "en", assignment: str | None = None,
                         canvas: CanvasTarget | None = None) -> list[Written]:
    """The gradebooks the LMS imports (``--gradebook canvas|moodle``), beside gradebook.csv."""
    from grader.ingest.anonymous import for_lms
    from grader.report.outdir import moment_of
    from grader.report import render

    moment = moment_of(outdir)  # the feedback files show hidden tests as the reports do
    langs = tuple(rubric.report.languages)
    rows = for_lms(outdir, rows)  # the LMS's own ids, in an anonymous batch (and only here)
    top = max((float(r["max_score"]) for r in rows if r.get("max_score") not in (None, "")), default=0.0)
    written = []
    if "canvas" in formats:
        written.append(write_canvas(outdir / "gradebook.canvas.csv", rows, assignment or rubric.assignment, top,
                                    bom=bom, target=canvas, title=rubric.title.en, langs=langs))
    if "moodle" in formats:
        from grader.report.outdir import note_lang

        note_lang(outdir, lang)  # every refresh after this one (adjust, regrade…) writes it in this language
        for row in rows:
            row["feedback"] = _feedback_comment(row, rubric, lang)
        written.append(write_moodle(outdir / "gradebook.moodle.csv", rows, top, bom=bom, langs=langs))
        files = [(row["name"] or "Participant", _lms_id(row), f"report.{lang}.html",
                  render(row["report"], "html", rubric=rubric, lang=lang, moment=moment))
                 for row in rows if row.get("lms") == "moodle" and row.get("report") is not None
                 and not row.get("flagged") and _lms_id(row).isdigit()]
        path = write_moodle_feedback(outdir / "moodle-feedback-files.zip", files)
        moodle = [r for r in rows if r.get("lms") == "moodle" and _lms_id(r).isdigit()]
        written.append(Written(path, len(files), len(files),
                               [(_who(r), _no_grade_reason(r, langs)) for r in moodle
                                if r.get("report") is None or r.get("flagged")],
                               written[-1].left_out))
    return written


def say_written(written: list[Written], rows: list[dict[str, Any]], console: Any, lang: str = "en") -> None:
    """Per file: how many rows it holds, and why any student has no grade or no row."""
    from grader.i18n.messages import translate
    from grader.sinks import terminal_markup

    for w in written:
        console.print(terminal_markup(translate(said("rows_grade", file=w.path.name, rows=w.rows, graded=w.graded), lang)),
                      markup=True, soft_wrap=True)
        for who, why in w.no_grade:
            console.print(terminal_markup(translate(said("no_grade", who=who, why=one_language(why, lang)), lang)),
                          soft_wrap=True)
        for who, why in w.left_out:
            console.print(terminal_markup(translate(said("left_out", who=who, why=one_language(why, lang)), lang)),
                          soft_wrap=True)


_REASON_KEYS = ("duplicate_id", "ambiguous_id", "missing", "doubtful_name", "unreadable", "symlink")
#: flags of an entry that could not be read: its error report is no grade
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
    try:
        with book.open(encoding="utf-8-sig", newline="") as fh:
            return list(csv.DictReader(fh))
    except (OSError, csv.Error, UnicodeDecodeError):
        return []


def export_gradebooks(outdir: Path, rubric: Rubric, formats: tuple[str, ...], *, bom: bool = False,
                      lang: str = "en", canvas: CanvasTarget | None = None) -> list[Written]:
    """``grader export``: the gradebooks again, from what a batch left in ``outdir``: the
    reports for graded and unreadable entries (with the ledger's adjustments), and
    ``gradebook.csv`` for the entries that have no report (empty uploads, online text…), so
    the rows are the batch's rows.

    Raises:
        UsageError: no reports; the reports are of another assignment; the new gradebook would
            hold fewer rows than the batch's (it is never shrunk); a gradebook for an LMS the
            export did not come from.
    """
    from grader.report import ledger

    entries = ledger.read(outdir)  # a broken chain is refused: nothing is exported from it
    paths, _ = reports_now(outdir)
    roster = Roster.read(outdir)
    reports = [ledger.apply_report(r, ledger.for_submission(entries, p.name[: -len(".yaml")]), rubric)
               for r, p in ((read_report(p), p) for p in paths) if r is not None]
    if not reports:
        raise UsageError(said("no_reports_reports_run", dir=outdir.name))
    other = sorted({str(r.assignment) for r in reports if r.assignment and r.assignment != rubric.assignment})
    if other:
        raise UsageError(said("reports_pass_rubric_rubric", dir=outdir.name, other=', '.join(other), mine=rubric.assignment, first=other[0]))
    old = old_rows(outdir / "gradebook.csv")
    rows: list[tuple[Any, GradeReport | None, list[tuple[str, dict[str, str]]]]] = []
    named = set()
    for report in reports:
        who = report.student or {}
        flags = [(str(f[0]), {str(k): str(v) for k, v in dict(f[1]).items()}) for f in who.get("flags") or []
                 if isinstance(f, (list, tuple)) and len(f) == 2 and str(f[0]) in _REASON_KEYS]
        own_id = roster.current.get(str(report.submission), "") if roster else ""  # (a plain folder's entry)
        ident: dict[str, Any] = {"student_id": str(who.get("id") or own_id or report.submission),
                 "name": str(who.get("name") or ""),
                 "late": bool(who.get("late")), "lms": str(who.get("lms") or ""), "flags": flags}
        entry = str(who.get("entry") or report.submission)
        item: Found | Skipped
        if any(key in UNREAD for key, _ in flags):
            item = Skipped(entry, "; ".join(report.errors), **ident)
        else:
            item = Found(None, entry=entry, **ident)  # type: ignore[arg-type]  # a row rebuilt from its report: no submission read
        named.add(report.submission)
        rows.append((item, report, []))
    book = gradebook_rows(rows, rubric)
    for old_row in old:  # entries without a report: as the batch wrote them
        if old_row.get("submission") in named or old_row.get("score"):
            continue  # (a graded row whose report is gone is counted missing below)
        book.append({**old_row, "flagged": True})
    if len(book) < len(old):
        raise UsageError(said("batch_wrote_rows_reports", book=f"{outdir.name}/gradebook.csv", old=len(old),
                              new=len(book)))
    check_formats(formats, lms_of(book), canvas, rubric.title.en)
    written = []
    if "csv" in formats:
        path = write_gradebook(outdir / "gradebook.csv", book, rubric, bom=bom)
        written.append(csv_written(path, book))
    return written + write_lms_gradebooks(outdir, book, rubric, formats, bom=bom, lang=lang, canvas=canvas)


def csv_written(path: Path, book: list[dict[str, Any]]) -> Written:
    """What ``gradebook.csv`` holds: every entry, and why any has no score."""
    return Written(path, len(book), sum(1 for r in book if r.get("score") not in (None, "")),
                   [(_who(r), str(r.get("errors") or "")) for r in book if r.get("score") in (None, "")])


def _feedback_comment(row: dict[str, Any], rubric: Rubric, lang: str) -> str:
    """A short plain comment for the LMS's feedback column (HTML-escaped: Moodle shows HTML)."""
    from grader.sinks import html

    report = row.get("report")
    if report is None:
        return html(row.get("errors", ""))
    text = label("fb_score", lang, score=f"{report.score:g}", max=f"{report.max_score:g}")
    if report.late:
        text += label("fb_late", lang, before=f"{report.late['score_before']:g}")
    if report.adjustment:
        from grader.report.text import adjustment_lines

        text += label("fb_then", lang)
        text += " ".join(adjustment_lines(report, [lang]))
    if report.mistakes:
        text += label("fb_mistakes", lang, ids=", ".join(dict.fromkeys(m.id for m in report.mistakes)))
    text += label("fb_see_file", lang)
    return html(text)

