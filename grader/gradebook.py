"""Stage 3 of ``grader batch``: the gradebooks — the batch's own and those the LMS imports.

:func:`gradebook_rows` gives one row per entry of the source (graded, unreadable or not a
submission, with its reasons); :func:`write_gradebook` writes ``gradebook.csv``, and
:func:`apply_lms` puts who submitted it and the late policy into each report first.

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
from typing import Any, TYPE_CHECKING

from grader.discovery import Found, Skipped
from grader.errors import UsageError
from grader.outdir import read_report
from grader.report.files import write_atomic
from grader.report.model import GradeReport
from grader.sinks import csv_cell, file_name

if TYPE_CHECKING:
    from grader.rubric import Rubric

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


# --------------------------------------------------------------------------- the batch's rows

GRADEBOOK_FIXED = ["submission", "student_id", "name", "lms", "late", "score", "automatic_score", "adjustment",
                   "adjustment_reasons", "max_score", "passed"]
GRADEBOOK_TAIL = ["late_penalty", "mistakes", "errors", "content_hash", "graded_at"]


def apply_lms(data: dict[str, Any], found: Found, rubric: Rubric, when: dict[str, Any] | None = None) -> dict[str, Any]:
    """Add who submitted it (from the LMS naming) to a report, and apply the late policy.

    The late policy (rubric ``late:``) takes its points off the total of a submission the
    LMS flagged as late; the report keeps the score before it and says why, in its notes.
    """
    if found.lms or found.name or found.late:
        data["student"] = {"id": found.student_id, "name": found.name, "lms": found.lms,
                           "entry": found.entry, "late": found.late,
                           "flags": [[key, dict(slots)] for key, slots in found.flags]}
    if when and data.get("student") is not None:
        data["student"]["timing"] = dict(when)  # kept, so a regrade measures lateness the same way
    return apply_late(data, found.late, rubric, when)


def apply_late(data: dict[str, Any], late: bool, rubric: Rubric, when: dict[str, Any] | None = None) -> dict[str, Any]:
    """The rubric's late policy on a report's dict whose ``score`` is the tests' score.

    ``when`` (from ``--submitted`` / ``--extensions`` and the rubric's ``due:``, see
    :mod:`grader.due`): ``submitted`` and the student's own ``due`` (ISO, with offsets) and the
    extension's ``extension`` reason; lateness is then measured, and shown with those inputs.
    Without it, the LMS's late flag decides (one unit of the penalty).
    """
    policy = getattr(rubric, "late", None)
    days = None
    if policy is not None and when and when.get("submitted") and when.get("due"):
        from grader.due import LatePolicyRule, late_penalty, parse_when

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
            rule = {"en": f"{rule['en']}; submitted {when['submitted']}, due {when['due']}, {days} day(s) late"
                          + (f", extension: {when['extension']}" if when.get("extension") else ""),
                    "ja": f"{rule['ja']}。提出 {when['submitted']}、期限 {when['due']}、{days} 日遅れ"
                          + (f"、延長: {when['extension']}" if when.get("extension") else "")}
        data["score"] = after
        data["passed"] = top > 0 and after * 100.0 >= float(data.get("pass_mark", rubric.report.pass_mark)) * top
        said = {"en": f"late: {before:g} → {after:g} ({rule['en']})",
                "ja": f"提出期限後: {before:g} → {after:g}（{rule['ja']}）"}
        data["notes"] = [*data.get("notes", []),
                         " / ".join(said[lang] for lang in rubric.report.languages if lang in said)]
    return data


def undo_late(data: dict[str, Any]) -> dict[str, Any]:
    """A report's dict as before :func:`apply_late`: the tests' score back, the late note gone."""
    late = data.pop("late", None)
    if late:
        data["score"] = float(late["score_before"])
        top = float(data["max_score"])
        data["passed"] = top > 0 and data["score"] * 100.0 >= float(data.get("pass_mark", 0.0)) * top
        data["notes"] = without_late_note(data.get("notes", []))
    return data


def without_late_note(notes: list[str]) -> list[str]:
    """``notes`` without the one :func:`apply_late` adds."""
    return [n for n in notes if not any(x.startswith(("late: ", "提出期限後: ")) for x in n.split(" / "))]


def _reasons(flags: list[tuple[str, dict[str, str]]], langs: Any) -> list[str]:
    from grader.lms import reason

    return [reason(key, langs, **slots) for key, slots in flags]


def gradebook_rows(rows: list[tuple[Any, GradeReport | None, list[tuple[str, dict[str, str]]]]],
                   rubric: Rubric) -> list[dict[str, Any]]:
    """Rows of the gradebook: graded submissions, then entries that could not be graded.

    Each row is ``(Found or Skipped, report or None, extra flags)``; the errors column holds
    the report's errors and a plain reason for every flag, in the rubric's languages.
    """
    parts = [p.id for p in rubric.parts]
    langs = tuple(rubric.report.languages)
    out = []
    for item, report, extra in rows:
        row: dict[str, Any] = {"student_id": item.student_id, "name": item.name, "lms": item.lms,
                               "late": "yes" if item.late else "no", "entry": item.entry,
                               # whose it is is in doubt: never sent back to the LMS automatically
                               "flagged": any(k in ("duplicate_id", "ambiguous_id") for k, _ in item.flags)}
        errors = _reasons([*item.flags, *extra], langs)
        if report is not None:
            scores = {p.id: p.score for p in report.parts}
            row.update(submission=report.submission, score=report.score, max_score=report.max_score,
                       passed="yes" if report.passed else "no",
                       late_penalty=report.late.get("penalty", "") if report.late else "",
                       mistakes=";".join(dict.fromkeys(m.id for m in report.mistakes)),
                       errors=" | ".join(errors if isinstance(item, Skipped) else
                                         [*(e.replace("\n", " ") for e in report.errors), *errors]),
                       content_hash=report.content_hash, graded_at=report.graded_at, report=report)
            row.update(_adjustment_cells(report, langs))
            row.update({f"part:{p}": scores.get(p, "") for p in parts})
            if isinstance(item, Skipped):  # an upload that could not be read: its 0 is no grade for the LMS
                row["flagged"] = True
        else:
            name = item.submission.name if isinstance(item, Found) and item.submission else item.entry
            row.update(submission=name, errors=" | ".join(errors))
        out.append(row)
    return out


def _adjustment_cells(report: GradeReport, langs: tuple[str, ...]) -> dict[str, Any]:
    """``automatic_score``, ``adjustment`` and ``adjustment_reasons`` (grader.ledger) of a row."""
    from grader.report._text import adjustment_lines

    adj = report.adjustment
    if not adj:
        return {"automatic_score": report.score, "adjustment": 0.0, "adjustment_reasons": ""}
    return {"automatic_score": float(adj["automatic_score"]), "adjustment": float(adj["delta"]),
            "adjustment_reasons": " | ".join(adjustment_lines(report, langs)[1:])}


def write_gradebook(path: Path, rows: list[dict[str, Any]], rubric: Rubric, *, bom: bool = False) -> Path:
    """``gradebook.csv``: every cell through :func:`cell` (no formulas)."""
    columns = GRADEBOOK_FIXED + [f"part:{p.id}" for p in rubric.parts] + GRADEBOOK_TAIL
    return write_atomic(path, csv_text(columns, [[row.get(c, "") for c in columns] for row in rows], bom=bom))


def write_lms_gradebooks(outdir: Path, rows: list[dict[str, Any]], rubric: Rubric, formats: tuple[str, ...],
                         *, bom: bool = False, lang: str = "en", assignment: str | None = None) -> list[Path]:
    """The gradebooks the LMS imports (``--gradebook canvas|moodle``), beside gradebook.csv."""
    from grader.report import render

    top = max((float(r["max_score"]) for r in rows if r.get("max_score") not in (None, "")), default=0.0)
    written = []
    if "canvas" in formats:
        written.append(write_canvas(outdir / "gradebook.canvas.csv", rows,
                                              assignment or rubric.assignment, top, bom=bom))
    if "moodle" in formats:
        for row in rows:
            row["feedback"] = _feedback_comment(row, rubric, lang)
        written.append(write_moodle(outdir / "gradebook.moodle.csv", rows, top, bom=bom))
        files = [(row["name"], row["student_id"], f"report.{lang}.html",
                  render(row["report"], "html", rubric=rubric, lang=lang))
                 for row in rows if row.get("lms") == "moodle" and row.get("report") is not None
                 and not row.get("flagged") and str(row["student_id"]).isdigit()]
        written.append(write_moodle_feedback(outdir / "moodle-feedback-files.zip", files))
    return written


_REASON_KEYS = ("duplicate_id", "ambiguous_id", "missing")


def export_gradebooks(outdir: Path, rubric: Rubric, formats: tuple[str, ...], *, bom: bool = False,
                      lang: str = "en") -> list[Path]:
    """``grader export``: the LMS gradebooks again, from the reports a batch left in ``outdir``."""
    from grader import ledger

    entries = ledger.read(outdir)  # a broken chain is refused: nothing is exported from it
    paths = sorted((outdir / "reports").glob("*.yaml"))
    reports = [ledger.apply_report(r, ledger.for_submission(entries, p.name[: -len(".yaml")]), rubric)
               for r, p in ((read_report(p), p) for p in paths) if r is not None]
    if not reports:
        raise UsageError(f"{outdir}: no reports in {outdir / 'reports'}; run grader batch with --out {outdir} first")
    rows: list[tuple[Found | Skipped, GradeReport | None, list[tuple[str, dict[str, str]]]]] = []
    for report in reports:
        who = report.student or {}
        flags = [(str(f[0]), {str(k): str(v) for k, v in dict(f[1]).items()}) for f in who.get("flags") or []
                 if isinstance(f, (list, tuple)) and len(f) == 2 and str(f[0]) in _REASON_KEYS]
        item = Found(None, str(who.get("id") or report.submission), str(who.get("entry") or report.submission),
                     name=str(who.get("name") or ""), late=bool(who.get("late")), lms=str(who.get("lms") or ""),
                     flags=flags)
        rows.append((item, report, []))
    book = gradebook_rows(rows, rubric)
    written = []
    if "csv" in formats:
        written.append(write_gradebook(outdir / "gradebook.csv", book, rubric, bom=bom))
    return written + write_lms_gradebooks(outdir, book, rubric, formats, bom=bom, lang=lang)


def _feedback_comment(row: dict[str, Any], rubric: Rubric, lang: str) -> str:
    """A short plain comment for the LMS's feedback column (HTML-escaped: Moodle shows HTML)."""
    from grader.sinks import html

    report = row.get("report")
    if report is None:
        return html(row.get("errors", ""))
    ja = lang == "ja"
    text = (f"得点 {report.score:g} / {report.max_score:g}" if ja else f"Score {report.score:g} / {report.max_score:g}")
    if report.late:
        text += (f"（期限後: {report.late['score_before']:g} から）" if ja
                 else f" (late: from {report.late['score_before']:g})")
    if report.adjustment:
        from grader.report._text import adjustment_lines

        text += "。" if ja else ". "
        text += " ".join(adjustment_lines(report, ["ja" if ja else "en"]))
    if report.mistakes:
        ids = ", ".join(dict.fromkeys(m.id for m in report.mistakes))
        text += f"。間違い: {ids}" if ja else f". Mistakes: {ids}"
    text += "。詳しくはフィードバックファイルを見てください。" if ja else ". See the feedback file for details."
    return html(text)

