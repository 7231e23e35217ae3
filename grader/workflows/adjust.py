"""``grader adjust`` and ``grader ledger``: hand adjustments of a finished batch's scores.

An adjustment is an entry appended to the batch's ledger (:mod:`grader.report.ledger`); then every
view is computed again from the reports and the ledger: the report files of that submission,
``gradebook.csv`` (its rows patched in place, so entries that were never graded keep their
rows) and the LMS gradebooks the folder already holds.

Example::

    adjust(Path("out"), rubric, "alice", points=2.0, reason="regrade request #4", by="tanaka")
    undo(Path("out"), rubric, "alice", 1, reason="entered twice")
"""

from __future__ import annotations

import csv
import io
import math
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING

from grader.report import ledger
from grader.i18n.messages import said
from grader.errors import UsageError
from grader.outputs.gradebook import BOM, cell, old_rows
from grader.outputs.lms_gradebooks import canvas_target_of, export_gradebooks
from grader.outputs.gradebook_page import write_views
from grader.report.outdir import IDENTITIES, read_record, reports_now, write_report_files
from grader.report.files import write_atomic
from grader.report.model import GradeReport, ReportDict

if TYPE_CHECKING:
    from grader.spec.rubric.model import Rubric

__all__ = ["adjust", "confirm", "find", "in_review", "moved", "refresh", "refresh_gradebooks", "undo"]


def _reports(outdir: Path) -> dict[str, Path]:
    folder = outdir / "reports"
    if not folder.is_dir():
        raise UsageError(said("no_batch_output_here", out=outdir))
    return {p.name[: -len(".yaml")]: p for p in sorted(folder.glob("*.yaml"))}


def _load(path: Path) -> ReportDict:
    data = read_record(path)
    if data is None:
        raise UsageError(f"{path}: cannot read it (not a report); check that the path is readable")
    return data


def find(outdir: Path, student: str) -> tuple[str, ReportDict]:
    """The report ``student`` names: a submission's name, else an LMS student id.

    Raises:
        UsageError: none, or more than one, does; or it is of an entry no longer in SOURCE.
    """
    reports = _reports(outdir)
    _, gone = reports_now(outdir)
    student = unicodedata.normalize("NFC", student)  # (as typed; a name the file system kept in NFD is alike)
    named = {unicodedata.normalize("NFC", name): name for name in reports}
    if student in {unicodedata.normalize("NFC", name) for name in gone}:
        _refuse_ungraded(outdir, student)  # (in SOURCE still, but not graded this time)
        raise UsageError(said("report_not_in_batch", out=outdir, name=student))
    if student in named:
        return named[student], _load(reports[named[student]])
    hits = []
    for name, path in reports.items():
        if name in gone:
            continue
        data = _load(path)
        ids = {str((data.get("student") or {}).get("id", "")), str(data.get("submission", ""))}
        if student in {unicodedata.normalize("NFC", i) for i in ids}:
            hits.append((name, data))
    if not hits and (outdir / IDENTITIES).is_file():
        raise UsageError(said("anonymous_batch_name_student", out=outdir))
    if not hits:
        _refuse_ungraded(outdir, student)
        raise UsageError(said("no_report_looked_submission", out=outdir, student=student, reports=outdir / 'reports'))
    if len(hits) > 1:
        raise UsageError(said("matches_reports_name_submission", out=outdir, student=student, n=len(hits), listed=', '.join(h[0] for h in hits)))
    return hits[0]


def moved(before: ReportDict, after: ReportDict) -> list[tuple[str, str, str]]:
    """(what, from, to) for the final score and each part whose score differs between two reports
    of one submission (the final score always, so an adjustment that moved nothing says so)."""
    def n(x: object) -> str:
        return f"{float(x):g}"  # type: ignore[arg-type]

    out = [(said("adjust_final"), n(before["score"]), n(after["score"]))]
    parts = {p["id"]: p["score"] for p in before.get("parts", [])}
    for p in after.get("parts", []):
        if p["id"] in parts and abs(float(parts[p["id"]]) - float(p["score"])) > 1e-9:
            out.append((said("adjust_part", part=p["id"]), n(parts[p["id"]]), n(p["score"])))
    return out


def in_review(outdir: Path) -> set[int]:
    """The ledger lines the batch's reports show as needing review (the automatic score they were
    made against has moved; still applied)."""
    out: set[int] = set()
    folder = outdir / "reports"
    if not folder.is_dir():
        return out
    for path in sorted(folder.glob("*.yaml")):
        data = read_record(path)
        if data is not None:
            out |= {int(e["n"]) for e in ledger.review_of(data)}
    return out


def _refuse_ungraded(outdir: Path, student: str) -> None:
    """Refuse, with its gradebook row's reason, a student the last batch did not grade.

    Raises:
        UsageError: the gradebook has a row for ``student`` (nothing automatic to adjust).
    """
    row = next((r for r in old_rows(outdir / "gradebook.csv")
                if student in {unicodedata.normalize("NFC", r.get(k) or "") for k in ("submission", "student_id")}),
               None)
    if row is not None:
        raise UsageError(said("adjust_no_report_why", out=outdir, student=student,
                              why=row.get("errors") or said("adjust_no_reason_recorded")))


def blind_reason(outdir: Path, reason: str) -> str:
    """``reason`` as a blind folder's ledger keeps it: every name and id of its students replaced
    by ``[name]`` and ``[id]`` (:class:`grader.ingest.anonymous.Names`); elsewhere as it is.
    The command says so when it changes anything (``reason_named_student``)."""
    from grader.ingest.anonymous import names_of

    names = names_of(outdir)
    return names(reason) if names is not None else reason


def adjust(outdir: Path, rubric: Rubric, student: str, *, part: str | None = None, points: float | None = None,
           set_to: float | None = None, reason: str, by: str = "", lang: str = "en",
           note: dict[str, object] | None = None) -> ledger.Entry:
    """Append one adjustment (``points`` or ``set_to``, of ``part`` or the total) and refresh;
    ``note``: what ``grader review`` says of it (a manual rubric item's id and points)."""
    if (points is None) == (set_to is None):
        raise UsageError(said("give_one_points_set"))
    for option, value in (("--points", points), ("--set", set_to)):
        if value is not None and not math.isfinite(value):
            raise UsageError(said("adjust_not_finite", option=option, value=value))
    if not reason.strip():
        raise UsageError(said("reason_required_say_why"))
    with ledger.locked(outdir):  # read, append and write the views as one step: two TAs take turns
        return _adjust(outdir, rubric, student, part, points, set_to, blind_reason(outdir, reason), by, lang, note)


def _adjust(outdir: Path, rubric: Rubric, student: str, part: str | None, points: float | None,
            set_to: float | None, reason: str, by: str, lang: str,
            note: dict[str, object] | None = None) -> ledger.Entry:
    ledger.read(outdir)  # a broken chain is refused before anything else
    name, data = find(outdir, student)
    data = ledger.apply(data, [], rubric)  # the automatic report
    against = ledger.automatic_of(data, part)
    if against is None:
        parts = ", ".join(p["id"] for p in data.get("parts", []))
        raise UsageError(said("has_no_part_parts", out=outdir, student=student, part=part, parts=parts))
    top = float(data["max_score"]) if part is None else next(
        float(p["max_score"]) for p in data.get("parts", []) if p["id"] == part)
    if set_to is not None and not 0.0 <= set_to <= top:
        what = said("adjust_total") if part is None else said("adjust_part", part=part)
        raise UsageError(said("adjust_set_out_of_range", out=outdir, value=f"{set_to:g}", student=student,
                              what=what, top=f"{top:g}"))
    entry = ledger.append(outdir, op="adjust", submission=name, student=str((data.get("student") or {}).get("id", "")),
                          part=part, points=points, set=set_to, reason=reason, by=by, against=against, note=note)
    _refresh_after(outdir, rubric, lang, name, entry)
    return entry


def _target(outdir: Path, rubric: Rubric, student: str, n: int, what: str) -> tuple[str, ReportDict]:
    entries = ledger.read(outdir)
    name, data = find(outdir, student)
    standing = {e.n for e in ledger.for_submission(entries, name)}
    if n not in standing:
        raise UsageError(said("no_adjustment_see_grader", out=outdir, n=n, student=student, what=what))
    return name, data


def undo(outdir: Path, rubric: Rubric, student: str, n: int, *, reason: str, by: str = "",
         lang: str = "en") -> ledger.Entry:
    """Append an entry taking back adjustment ``n`` (it stays in the ledger) and refresh."""
    if not reason.strip():
        raise UsageError(said("reason_required_say_why"))
    with ledger.locked(outdir):
        name, data = _target(outdir, rubric, student, n, said("undo"))
        entry = ledger.append(outdir, op="undo", submission=name,
                              student=str((data.get("student") or {}).get("id", "")), target=n,
                              reason=blind_reason(outdir, reason), by=by)
        _refresh_after(outdir, rubric, lang, name, entry)
        return entry


def confirm(outdir: Path, rubric: Rubric, student: str, n: int, *, reason: str, by: str = "",
            lang: str = "en") -> ledger.Entry:
    """Append an entry saying adjustment ``n`` holds against the automatic score as it is now."""
    if not reason.strip():
        raise UsageError(said("reason_required_say_why"))
    with ledger.locked(outdir):
        name, data = _target(outdir, rubric, student, n, said("confirm"))
        entries = ledger.read(outdir)
        adjusted = next(e for e in entries if e.n == n)
        against = ledger.automatic_of(ledger.apply(data, [], rubric), adjusted.part)
        entry = ledger.append(outdir, op="confirm", submission=name,
                              student=str((data.get("student") or {}).get("id", "")), target=n,
                              reason=blind_reason(outdir, reason), by=by, against=against)
        _refresh_after(outdir, rubric, lang, name, entry)
        return entry


def _refresh_after(outdir: Path, rubric: Rubric, lang: str, name: str, entry: ledger.Entry) -> None:
    """The views of ``name`` written again once ``entry`` is in the ledger. If one cannot be
    written, the error says the entry is recorded, so that nobody makes it a second time."""
    try:
        refresh(outdir, rubric, lang, only={name})
    except UsageError as exc:
        raise UsageError(said("adjust_recorded_views_not", n=entry.n, why=exc)) from exc


def refresh(outdir: Path, rubric: Rubric, lang: str, *, only: set[str] | None = None) -> list[str]:
    """Every view again from the reports and the ledger (under the folder's lock); returns the
    submissions whose report changed."""
    with ledger.locked(outdir):
        return _refresh(outdir, rubric, lang, only)


def _refresh(outdir: Path, rubric: Rubric, lang: str, only: set[str] | None) -> list[str]:
    entries = ledger.read(outdir)
    changed: dict[str, GradeReport] = {}
    for name, path in _reports(outdir).items():
        if only is not None and name not in only:
            continue
        data = _load(path)
        now = ledger.apply(data.copy(), ledger.for_submission(entries, name), rubric)
        if now != data or only is not None:
            report = GradeReport.from_dict(now)
            write_report_files(outdir, name, report, now, rubric, lang, lambda fmt, exc: None)
            changed[report.submission] = report
    refresh_gradebooks(outdir, rubric, lang, changed)
    return sorted(changed)


def refresh_gradebooks(outdir: Path, rubric: Rubric, lang: str, changed: dict[str, GradeReport]) -> None:
    """gradebook.csv's rows of the ``changed`` reports (by submission) written again, and the LMS
    gradebooks the folder holds written again from the reports.

    Under the folder's lock, with the ledger as it is now: an adjustment made since ``changed``
    was computed (another command, while this one graded) is applied to its rows too."""
    with ledger.locked(outdir):
        entries = ledger.read(outdir)
        now = {sub: ledger.apply_report(report, ledger.for_submission(entries, sub), rubric)
               for sub, report in changed.items()}
        _patch_gradebook(outdir / "gradebook.csv", now, rubric)
        _export(outdir, rubric, lang)


def _export(outdir: Path, rubric: Rubric, lang: str) -> None:
    present = tuple(f for f, file in (("canvas", "gradebook.canvas.csv"), ("moodle", "gradebook.moodle.csv"))
                    if (outdir / file).exists())
    if present:
        bom = any((outdir / f).read_bytes().startswith(BOM.encode()) for f in ("gradebook.canvas.csv",
                                                                                 "gradebook.moodle.csv")
                  if (outdir / f).exists())
        # The Canvas file already names its column `Title (id)`: it is filled again in place.
        canvas = canvas_target_of(outdir) if "canvas" in present else None
        export_gradebooks(outdir, rubric, present, bom=bom, lang=lang, canvas=canvas)


def _patch_gradebook(path: Path, changed: dict[str, GradeReport], rubric: Rubric) -> None:
    """gradebook.csv with the changed rows' cells written again from their reports (scores,
    maximum, parts, mistakes, late penalty: a regrade under a changed rubric moves them all);
    who, errors, flags and every other row as they were."""
    from grader.outputs.gradebook import report_cells

    if not path.exists() or not changed:
        return
    raw = path.read_bytes().decode("utf-8")  # (its \r\n kept, to compare with what is written)
    bom = raw.startswith(BOM)
    rows = list(csv.reader(io.StringIO(raw.removeprefix(BOM))))
    header, body = rows[0], rows[1:]
    for col, after in (("automatic_score", "score"), ("adjustment", "automatic_score"),
                       ("adjustment_reasons", "adjustment"), ("needs_review", "adjustment_reasons"),
                       ("extension", "late")):
        if col not in header and after in header:  # a gradebook written before these columns existed
            at = header.index(after) + 1
            header.insert(at, col)
            for row in body:
                row.insert(at, "")
    idx = {c: i for i, c in enumerate(header)}
    for row in body:
        report = changed.get(row[idx["submission"]])
        if report is None:
            continue
        for col, value in report_cells(report, rubric).items():
            if col in idx and col not in ("content_hash", "graded_at"):
                row[idx[col]] = cell(value)
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\r\n").writerows([header, *body])
    text = (BOM if bom else "") + buf.getvalue()
    if text == raw:  # every row already says this (a regrade that moved nothing): nothing to write
        return
    write_atomic(path, text)
    write_views(path.parent, rubric)

