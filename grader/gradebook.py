"""Gradebooks that go back into the LMS: Canvas import CSV, Moodle grading worksheet, feedback files.

``grader batch … --gradebook canvas|moodle|csv`` (or ``grader export OUTDIR``) writes, next to
the batch's own ``gradebook.csv``:

=================================  ================================================================
``gradebook.canvas.csv``           Canvas's gradebook import: ``Student, ID, SIS User ID, SIS Login
                                   ID, Section, <assignment>``, a ``Points Possible`` row, one row per
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
import math
import io
import re
import zipfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from grader.report.files import write_atomic
from grader.sinks import csv_cell, file_name

__all__ = ["FORMATS", "cell", "write_canvas", "write_moodle", "write_moodle_feedback", "csv_text"]

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


def canvas_column(assignment: str) -> str:
    """The assignment column: ``Title (id)`` matches an existing Canvas assignment; a bare
    title makes Canvas create a new one."""
    return assignment


def write_canvas(path: Path, rows: list[dict[str, Any]], assignment: str, max_score: float,
                 *, bom: bool = False) -> Path:
    """Canvas's gradebook import file for the students whose Canvas ids are known."""
    header = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", canvas_column(assignment)]
    body: list[list[Any]] = [["Points Possible", "", "", "", "", _grade(max_score)]]
    for row in rows:
        if (row.get("lms") != "canvas" or row.get("score") in (None, "") or row.get("flagged")
                or not str(row["student_id"]).isdigit()):
            continue
        body.append([row.get("name") or row["student_id"], row["student_id"], "", "", "",
                     _grade(row["score"])])
    return write_atomic(path, csv_text(header, body, bom=bom))


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


def write_moodle(path: Path, rows: list[dict[str, Any]], max_score: float, *, bom: bool = False) -> Path:
    """Moodle's offline grading worksheet for the students whose participant ids are known."""
    body: list[list[Any]] = []
    for row in rows:
        if (row.get("lms") != "moodle" or row.get("flagged") or row.get("score") in (None, "")
                or not str(row.get("student_id", "")).isdigit()):
            continue  # (an empty grade would clear one given by hand)
        body.append([f"Participant {row['student_id']}", row.get("name", ""), "Graded",
                     _grade(row["score"]), _grade(max_score), "Yes",
                     moodle_time(str(row.get("graded_at") or "")), row.get("feedback", "")])
    return write_atomic(path, csv_text(MOODLE_HEADER, body, bom=bom))


def moodle_folder(name: str, participant: str) -> str:
    """The folder Moodle's feedback-file import maps to a participant: no ``_`` in the name,
    nothing invisible (:func:`grader.sinks.file_name`: controls, DEL, C1, bidi overrides)."""
    clean = file_name(re.sub(r"[&'`_]+", " ", name)) or "Participant"
    return f"{clean}_{participant}_assignsubmission_file_"


def write_moodle_feedback(path: Path, files: list[tuple[str, str, str, str]]) -> Path:
    """The feedback-files zip: ``(name, participant id, file name, text)`` per file."""
    tmp = path.with_name(path.name + ".part")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, participant, filename, text in files:
            zf.writestr(f"{moodle_folder(name, participant)}/{filename}", text.encode("utf-8"))
    tmp.replace(path)
    return path
