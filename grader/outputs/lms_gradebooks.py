"""The gradebooks an LMS imports, made from the batch's rows (:mod:`grader.outputs.gradebook`).

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
                                   ``Grade``, ``Last modified (grade)`` and ``Feedback comments``;
                                   for a Moodle shown in Japanese ``ID`` is ``参加者<id>``, then
                                   ``評点``, ``最終更新日時 (評定)``, ``フィードバックコメント``
                                   (:func:`moodle_lang_of` chooses, :func:`moodle_time` says why
                                   its times are ISO 8601).
``moodle-feedback-files.zip``      Moodle's "upload multiple feedback files in a zip" layout: one
                                   ``<Full Name>_<id>_assignsubmission_file_/`` folder per student,
                                   holding that student's report.
=================================  ================================================================

:func:`export_gradebooks` (``grader export``, and every refresh after an adjustment) writes
``gradebook.csv`` and these again from what a batch left in its folder. Every cell goes through
:func:`grader.outputs.gradebook.cell`, as in ``gradebook.csv``.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import re
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from grader.errors import UsageError
from grader.i18n.messages import label, said
from grader.ingest.discovery import Found, Skipped
from grader.outputs.gradebook import (
    BOM,
    FORMATS,
    UNREAD,
    Cell,
    Flags,
    GradebookEntry,
    GradebookRow,
    Written,
    csv_text,
    csv_written,
    grade_cell,
    gradebook_rows,
    lms_of,
    old_rows,
    write_gradebook,
)
from grader.report.files import write_atomic
from grader.report.outdir import Roster, read_report, reports_now
from grader.sinks import file_name
from grader.spec.due import MOODLE_WORDS

if TYPE_CHECKING:
    from grader.spec.rubric.model import Rubric

__all__ = ["CANVAS_NEEDS", "CANVAS_NOTE", "MOODLE_HEADER", "NO_GRADE_TIME", "NO_GRADE_TIMES", "CanvasTarget",
           "batch_rows", "canvas_column", "canvas_export_column", "canvas_target_of", "check_formats", "export_gradebooks", "feedback_text",
           "moodle_folder", "moodle_header", "moodle_lang_of", "moodle_time", "write_canvas", "write_lms_gradebooks",
           "with_lms_ids", "write_moodle", "write_moodle_feedback"]


# --------------------------------------------------------------------------- Canvas


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


def write_canvas(path: Path, rows: Sequence[GradebookRow], assignment: str, max_score: float,
                 *, bom: bool = False, target: CanvasTarget | None = None, title: str = "",
                 langs: tuple[str, ...] = ("en",)) -> Written:
    """Canvas's gradebook import file: every Canvas student of the export has a row; a row
    whose score is not to be trusted (no grade, a flag) has an empty cell, which Canvas's
    import leaves as it was.

    With ``target.export`` the instructor's own gradebook export is filled in: the
    assignment's column, every other row, column and section kept as Canvas wrote them.
    """
    target = target or CanvasTarget()
    canvas = [r for r in rows if r.lms == "canvas" and r.lms_key.isdigit()]
    left_out = [(r.who, said("canvas_user_id_anonymous" if r.student_id.startswith("anon_")
                             else "canvas_user_id_entry"))
                for r in rows if r not in canvas]
    no_grade = [(r.who, r.no_grade_reason(langs)) for r in canvas if not r.has_grade]
    graded = {r.lms_key: grade_cell(r.score) for r in canvas if r.has_grade and r.score is not None}
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
        missing = [(r.who, said("canvas_gradebook_export_enrolled"))
                   for r in canvas if r.has_grade and r.lms_key not in seen]
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
    body: list[list[Cell]] = [["Points Possible", "", "", "", "", grade_cell(max_score)]]
    for row in canvas:
        body.append([row.name or row.student_id, row.lms_key, "", "", "", graded.get(row.lms_key, "")])
    write_atomic(path, csv_text(header, body, bom=bom))
    return Written(path, len(canvas), len(graded), no_grade, left_out)


CANVAS_NEEDS = (said("gradebook_canvas_needs_canvas"))


# --------------------------------------------------------------------------- Moodle


def moodle_header(lang: str = "en") -> list[str]:
    """The worksheet's columns in Moodle's words for ``lang`` (:data:`grader.spec.due.MOODLE_WORDS`):
    Moodle's importer finds the identifier, grade, last-modified and feedback columns by these
    names in the importing teacher's own language, so a file for the other language imports nothing."""
    words = MOODLE_WORDS[lang]
    return [words[k] for k in ("recordid", "fullname", "status", "grade", "maxgrade", "gradecanbechanged",
                               "lastmodifiedgrade", "feedbackcomments")]


MOODLE_HEADER = moodle_header("en")


_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")


def moodle_time(iso: str, lang: str = "en") -> str:
    """The worksheet's "Last modified (grade)" for a grade given at ``iso``, as Moodle's importer
    reads it back: it passes the cell to PHP's ``strtotime`` whatever the teacher's language.

    English: ``Tuesday, 1 December 2026, 11:05 AM``, as Moodle writes it itself. Japanese:
    ``2026-12-01T11:05:00+00:00``, not Moodle's own ``2026年 12月 1日(火曜日) 11:05``, which
    ``strtotime`` cannot read (it returns false, and the importer then takes every grade already
    in Moodle for newer than the file and skips it); ISO 8601 with its offset it reads exactly."""
    try:
        when = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        when = datetime.now(timezone.utc)
    if lang == "ja":
        return (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).isoformat(timespec="seconds")
    hour = when.hour % 12 or 12
    return (f"{_DAYS[when.weekday()]}, {when.day} {_MONTHS[when.month - 1]} {when.year}, "
            f"{hour}:{when.minute:02d} {'AM' if when.hour < 12 else 'PM'}")


#: The worksheet's "Last modified (grade)" for a row with no grade: Moodle's import refuses to
#: overwrite a grade changed after the worksheet's date, so this row changes no grade given by hand.
NO_GRADE_TIME = "Thursday, 1 January 1970, 12:00 AM"
NO_GRADE_TIMES = {"en": NO_GRADE_TIME, "ja": "1970-01-01T00:00:00+00:00"}


def write_moodle(path: Path, rows: Sequence[GradebookRow], max_score: float, *, bom: bool = False,
                 langs: tuple[str, ...] = ("en",), moodle_lang: str = "en") -> Written:
    """Moodle's offline grading worksheet: a row for every Moodle participant of the export, in
    the words of a Moodle shown in ``moodle_lang`` (``en`` or ``ja``: its column names, its
    ``Participant 123456`` / ``参加者123456``, its status words).

    A row with no trustworthy grade (nothing graded, a flag) has an empty grade, the reason
    as its feedback and a modification time before any grade, so Moodle's import keeps a
    grade given by hand (its check against grades changed since the worksheet was made).
    """
    from grader.sinks import html

    words = MOODLE_WORDS[moodle_lang]
    body: list[list[Cell]] = []
    moodle = [r for r in rows if r.lms == "moodle" and r.lms_key.isdigit()]
    left_out = [(r.who, said("moodle_participant_id_entry"))
                for r in rows if r not in moodle]
    no_grade = []
    for row in moodle:
        ident = words["hiddenuser"] + row.lms_key
        if row.has_grade and row.score is not None:
            body.append([ident, row.name or row.student_id, words["graded"],
                         grade_cell(row.score), grade_cell(max_score), words["yes"],
                         moodle_time(str(row.cells.get("graded_at") or ""), moodle_lang), row.feedback])
            continue
        why = row.no_grade_reason(langs)
        no_grade.append((row.who, why))
        body.append([ident, row.name or row.student_id, words["nograde"], "",
                     grade_cell(max_score), words["yes"], NO_GRADE_TIMES[moodle_lang], html(why)])
    write_atomic(path, csv_text(moodle_header(moodle_lang), body, bom=bom))
    return Written(path, len(body), len(body) - len(no_grade), no_grade, left_out,
                   note=said("moodle_written_for_ja" if moodle_lang == "ja" else "moodle_written_for_en",
                             file=path.name))


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


# --------------------------------------------------------------------------- both, from the batch's rows

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


def _number_in(value: Cell) -> float | None:
    """A number cell's value (None when it is empty)."""
    return None if value is None or value == "" else float(value)


def write_lms_gradebooks(outdir: Path, rows: Sequence[GradebookRow], rubric: Rubric, formats: tuple[str, ...],
                         *, bom: bool = False, lang: str = "en", assignment: str | None = None,
                         canvas: CanvasTarget | None = None, moodle_lang: str | None = None) -> list[Written]:
    """The gradebooks the LMS imports (``--gradebook canvas|moodle``), beside gradebook.csv.

    The Moodle worksheet is written for a Moodle shown in :func:`moodle_lang_of` ``(outdir, lang,
    moodle_lang)``, which is noted in ``outdir`` for every refresh after this one."""
    from grader.report.outdir import moment_of
    from grader.report import render

    moment = moment_of(outdir)  # the feedback files show hidden tests as the reports do
    langs = tuple(rubric.report.languages)
    rows = with_lms_ids(outdir, rows)  # the LMS's own ids, in an anonymous batch (and only here)
    top = max((m for r in rows if (m := _number_in(r.cells.get("max_score"))) is not None), default=0.0)
    written = []
    if "canvas" in formats:
        written.append(write_canvas(outdir / "gradebook.canvas.csv", rows, assignment or rubric.assignment, top,
                                    bom=bom, target=canvas, title=rubric.title.en, langs=langs))
    if "moodle" in formats:
        from grader.report.outdir import note_lang, note_moodle_lang

        note_lang(outdir, lang)  # every refresh after this one (adjust, regrade…) writes it in this language
        shown = moodle_lang_of(outdir, lang, moodle_lang)
        note_moodle_lang(outdir, shown)
        rows = [dataclasses.replace(row, feedback=_feedback_comment(row, rubric, lang)) for row in rows]
        written.append(write_moodle(outdir / "gradebook.moodle.csv", rows, top, bom=bom, langs=langs,
                                    moodle_lang=shown))
        files = [(row.name or "Participant", row.lms_key, f"report.{lang}.html",
                  render(row.report, "html", rubric=rubric, lang=lang, moment=moment))
                 for row in rows if row.lms == "moodle" and row.report is not None
                 and not row.flagged and row.lms_key.isdigit()]
        path = write_moodle_feedback(outdir / "moodle-feedback-files.zip", files)
        moodle = [r for r in rows if r.lms == "moodle" and r.lms_key.isdigit()]
        written.append(Written(path, len(files), len(files),
                               [(r.who, r.no_grade_reason(langs)) for r in moodle if r.report is None or r.flagged],
                               written[-1].left_out))
    return written


def moodle_lang_of(outdir: Path, lang: str, given: str | None = None) -> str:
    """The language of the Moodle the worksheet is for: ``given`` (the language of the worksheet
    the instructor downloaded, ``--worksheet``), else the one noted in ``outdir`` by an earlier
    write, else the batch's own language where Moodle has it (``en``, ``ja``), else English."""
    from grader.report.outdir import noted_moodle_lang

    for candidate in (given, noted_moodle_lang(outdir), lang):
        if candidate in MOODLE_WORDS:
            return str(candidate)
    return "en"


def _feedback_comment(row: GradebookRow, rubric: Rubric, lang: str) -> str:
    """A short plain comment for the LMS's feedback column (HTML-escaped: Moodle shows HTML)."""
    from grader.sinks import html

    return html(feedback_text(row, lang))


def feedback_text(row: GradebookRow, lang: str, *, see_file: bool = True) -> str:
    """The short comment on a row for an LMS, as plain text: the score (and the late policy's),
    the adjustments with the instructor's reasons as written, the mistakes named; ``see_file``
    points to the report file sent beside it (Moodle's feedback files)."""
    report = row.report
    if report is None:
        return row.errors
    text = label("fb_score", lang, score=f"{report.score:g}", max=f"{report.max_score:g}")
    if report.late:
        text += label("fb_late", lang, before=f"{report.late['score_before']:g}")
    if report.adjustment:
        from grader.report.text import adjustment_lines

        text += label("fb_then", lang)
        text += " ".join(adjustment_lines(report, [lang]))
    if report.mistakes:
        text += label("fb_mistakes", lang, ids=", ".join(dict.fromkeys(m.id for m in report.mistakes)))
    if see_file:
        text += label("fb_see_file", lang)
    return text


_REASON_KEYS = ("duplicate_id", "ambiguous_id", "missing", "doubtful_name", "unreadable", "symlink")


def batch_rows(outdir: Path, rubric: Rubric) -> list[GradebookRow]:
    """The batch's rows as a finished batch left them in ``outdir``: the reports for graded and
    unreadable entries (with the ledger's adjustments), and ``gradebook.csv`` for the entries that
    have no report (empty uploads, online text…). ``grader export`` and ``grader push`` read them here.

    Raises:
        UsageError: no reports; the reports are of another assignment; the rows would be fewer
            than the batch's; the ledger's chain is broken.
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
    rows: list[GradebookEntry] = []
    named = set()
    for report in reports:
        who = report.student or {}
        flags: Flags = [(str(f[0]), {str(k): str(v) for k, v in f[1].items()}) for f in who.get("flags") or []
                        if isinstance(f, (list, tuple)) and len(f) == 2 and str(f[0]) in _REASON_KEYS
                        and isinstance(f[1], dict)]
        own_id = roster.current.get(str(report.submission), "") if roster else ""  # (a plain folder's entry)
        student_id = str(who.get("id") or own_id or report.submission)
        name, late, lms = str(who.get("name") or ""), bool(who.get("late")), str(who.get("lms") or "")
        entry = str(who.get("entry") or report.submission)
        item: Found | Skipped
        if any(key in UNREAD for key, _ in flags):
            item = Skipped(entry, "; ".join(report.errors), student_id=student_id, name=name, late=late, lms=lms,
                           flags=flags)
        else:
            # A row rebuilt from its report: no submission is read again, and the row needs only who.
            item = Found(None, entry=entry, student_id=student_id, name=name, late=late, lms=lms,  # type: ignore[arg-type]
                         flags=flags)
        named.add(report.submission)
        rows.append((item, report, []))
    book = gradebook_rows(rows, rubric)
    for old_row in old:  # entries without a report: as the batch wrote them
        if old_row.get("submission") in named or old_row.get("score"):
            continue  # (a graded row whose report is gone is counted missing below)
        book.append(GradebookRow.read_back(old_row))
    if len(book) < len(old):
        raise UsageError(said("batch_wrote_rows_reports", book=f"{outdir.name}/gradebook.csv", old=len(old),
                              new=len(book)))
    return book


def with_lms_ids(outdir: Path, rows: Sequence[GradebookRow]) -> list[GradebookRow]:
    """``rows`` with the LMS's own ids, in an anonymous batch (from identities.csv, and only here)."""
    from grader.ingest.anonymous import for_lms

    ids = for_lms(outdir, [{"student_id": r.student_id} for r in rows])
    return [dataclasses.replace(r, lms_id=str(x["lms_id"])) if "lms_id" in x else r for r, x in zip(rows, ids)]


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
    book = batch_rows(outdir, rubric)
    check_formats(formats, lms_of(book), canvas, rubric.title.en)
    written = []
    if "csv" in formats:
        path = write_gradebook(outdir / "gradebook.csv", book, rubric, bom=bom)
        written.append(csv_written(path, book))
    return written + write_lms_gradebooks(outdir, book, rubric, formats, bom=bom, lang=lang, canvas=canvas)

