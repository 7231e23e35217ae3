"""``grader gradebook``: one course table from the outputs of several ``grader batch`` runs.

Each batch output folder (``grader batch SOURCE --out OUT``) holds ``gradebook.csv`` with one
row per submission. This merges them: one row per student (the LMS id, else the submission's
name), one score column per assignment, then the total. The assignment of a folder is the
``assignment`` its reports name (the rubric's id), so folders may be called anything.

Example::

    rows, assignments = merge([Path("out/ch07"), Path("out/ch08")])
    write_course_gradebook(Path("course.csv"), rows, assignments)

The CSV is written atomically; cells that a spreadsheet would run as a formula (starting with
``=``, ``+``, ``-``, ``@``) are quoted with a leading apostrophe.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path

import yaml

from grader.errors import UsageError
from grader.i18n.messages import said
from grader.report.files import write_atomic
from grader.sinks import csv_cell
import grader.safeyaml as safeyaml

__all__ = ["merge", "merge_with_reasons", "own_ids", "write_course_gradebook"]

_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def _assignment_of(folder: Path) -> str:
    """The assignment id the folder's reports name (the first report that says one)."""
    for report in sorted((folder / "reports").glob("*")):
        try:
            if report.suffix in (".yaml", ".yml"):
                data = safeyaml.load(report.read_text(encoding="utf-8"))
            elif report.suffix == ".json" and not report.name.endswith("results.json"):
                data = json.loads(report.read_text(encoding="utf-8"))
            else:
                continue
        except (OSError, ValueError, yaml.YAMLError):
            continue
        name = data.get("assignment") if isinstance(data, dict) else None
        if isinstance(name, str):
            return name
    return folder.name


def own_ids(folder: Path) -> dict[str, str]:
    """A blind batch's anonymous ids, each to the student's own id (from its identities.csv):
    the course table joins one student's assignments, and each folder has its own random ids.
    Empty for a batch graded under names."""
    from grader.ingest import anonymous

    if not anonymous.is_anonymous(folder):
        return {}
    rows = anonymous.Identities.load(folder).rows
    return {aid: (who.get("student_id") or who.get("entry") or aid) for aid, who in rows.items()}


def merge(folders: Sequence[Path]) -> tuple[list[dict[str, str]], list[str]]:
    """Rows keyed by student, with ``<assignment>`` and ``<assignment>:max`` per folder, and
    ``notes``: the batch's flags and errors for that student, per assignment.

    A score is never chosen between rows that claim one student (two entries with one id, or
    a row the batch flagged as in doubt): the cell stays empty and ``notes`` says why; so it
    does for a gradebook row that had no score.

    Raises:
        UsageError: a folder has no ``gradebook.csv``, or two folders grade the same assignment.
    """
    rows, assignments, _ = merge_with_reasons(folders)
    return rows, assignments


def merge_with_reasons(folders: Sequence[Path]) -> tuple[list[dict[str, str]], list[str], list[tuple[str, str, str]]]:
    """:func:`merge`, and ``(student, assignment, why)`` for every score left out."""
    from grader.outputs.gradebook import DOUBT_FLAGS, UNREAD

    assignments: list[str] = []
    most: dict[str, float] = {}
    students: dict[str, dict[str, str]] = {}
    left_out: list[tuple[str, str, str]] = []
    for folder in folders:
        book = folder / "gradebook.csv"
        if not book.is_file():
            raise UsageError(said("found_pass_out_folders", path=book))
        from grader.report import ledger

        ledger.read(folder)  # a batch whose ledger was edited by hand is refused, naming the line
        name = _assignment_of(folder)
        if name in assignments:
            raise UsageError(said("second_gradebook_pass_one", path=folder, assignment=name))
        assignments.append(name)
        claims: dict[str, list[dict[str, str]]] = {}
        own = own_ids(folder)
        with book.open(encoding="utf-8-sig", newline="") as fh:
            for row in csv.DictReader(fh):
                key = (row.get("student_id") or row.get("submission") or "").strip()
                key = own.get(key, key)
                if key:
                    claims.setdefault(key, []).append(row)
                try:
                    most[name] = max(most.get(name, 0.0), float(row.get("max_score") or 0))
                except ValueError:
                    pass
        for key, claimed in claims.items():
            entry = students.setdefault(key, {"student": key})
            notes = [entry["notes"]] if entry.get("notes") else []
            doubt = [r for r in claimed if set((r.get("flags") or "").split(";")) & set(DOUBT_FLAGS)]
            # an upload nobody could read: no grade unless a person gave one, as in the LMS gradebooks
            unread = (set((claimed[0].get("flags") or "").split(";")) & set(UNREAD)
                      and not claimed[0].get("adjustment_reasons"))
            if len(claimed) > 1 or doubt or unread:
                entries = ", ".join(r.get("submission") or "?" for r in claimed)
                why = (said("rows_claim_student_check", n=len(claimed), entries=entries) if len(claimed) > 1
                       else said("batch_flagged_row_doubt", why=claimed[0].get('errors', '')) if doubt
                       else claimed[0].get("errors") or said("no_score_batch_s"))
                entry[name] = ""
                notes.append(f"{name}: {why}")
                left_out.append((key, name, why))
            else:
                row = claimed[0]
                entry[name] = row.get("score", "")
                if row.get("adjustment_reasons"):  # a hand adjustment (grader.report.ledger): shown with its reasons
                    entry[f"{name}:automatic"] = row.get("automatic_score", "")
                    entry[f"{name}:adjustment"] = row.get("adjustment_reasons", "")
                if row.get("errors"):
                    notes.append(f"{name}: {row['errors']}")
                if not entry[name]:
                    left_out.append((key, name, row.get("errors") or said("no_score_batch_s")))
            entry["notes"] = " | ".join(notes)
    for entry in students.values():
        for a in assignments:  # a student with no submission still has the assignment's maximum
            entry[f"{a}:max"] = f"{most.get(a, 0.0):g}"
        entry["total"] = _sum([entry.get(a, "") for a in assignments])
        entry["total:max"] = _sum([entry[f"{a}:max"] for a in assignments])
    return [students[k] for k in sorted(students)], assignments, left_out


def _sum(values: list[str]) -> str:
    total = 0.0
    for v in values:
        try:
            total += float(v)
        except ValueError:
            continue
    return f"{total:g}"


def _safe(cell: str) -> str:
    return f"'{cell}" if cell.startswith(_FORMULA) else cell


def write_course_gradebook(path: Path, rows: list[dict[str, str]], assignments: list[str]) -> Path:
    """Write the merged table: student, one column per assignment (and its maximum), totals."""
    def of(a: str) -> tuple[str, ...]:
        adjusted = any(f"{a}:adjustment" in row for row in rows)
        return (a, f"{a}:max", f"{a}:automatic", f"{a}:adjustment") if adjusted else (a, f"{a}:max")

    columns = ["student"] + [c for a in assignments for c in of(a)] + ["total", "total:max", "notes"]
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({c: (str(csv_cell(row.get(c, ""))) if c == "notes" else _safe(str(row.get(c, ""))))
                         for c in columns})
    return write_atomic(path, buf.getvalue())
