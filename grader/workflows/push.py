"""``grader push OUT --to canvas|moodle|lti13``: each student's final score and a short comment, into the LMS.

The scores are the batch's rows as ``grader export`` makes them
(:func:`grader.outputs.lms_gradebooks.batch_rows`: the reports with the ledger's adjustments, the
late policy and regrades in them), never computed again another way. For each row :func:`plan`
decides one state:

=========  ======================================================================================
sent       the LMS held another value (or none) and took the new one
unchanged  the LMS already holds the score (and the comment last written is the same)
skipped    not written, for the reason given: no grade, no LMS id, two rows claim one id, not a
           student of the assignment, one the LMS's roster refuses (LTI: the test student, an inactive
           member, not a learner), or the value in the LMS was changed there since the last push
           (unless ``--overwrite-lms-edits``)
failed     the LMS refused it or did not answer, with its words; the others go on
=========  ======================================================================================

A dry run prints exactly the cells a real push would change (who, the LMS's value now → the new
one, the ledger line or report that justifies it) and writes nothing, here or in the LMS. A real
push writes ``OUT/push/<time>.csv`` (one line per student, its state and reason) and appends one
``push`` line to the ledger (:func:`grader.report.ledger.append`: who, when, where, each student's
state and value, the LMS's answer), from which the next push knows what it wrote last: a value
the LMS holds that is neither the new one nor the last one written was changed in the LMS.
In an ``--anonymous`` batch the LMS's ids come from identities.csv at push time only: the ledger
names its students by their anonymous ids, its reasons without a name or an LMS id, and only the
CSV (mode 0600) pairs the two. The same scores pushed again make no write; a push cut off at any point converges when run again
(a cell already written reads back equal, so it is ``unchanged``).

Example::

    result = push(Path("out"), rubric, CanvasPlatform(url, course, assignment, transport), dry_run=True)
"""

from __future__ import annotations

import csv
import hashlib
import os
import stat
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.errors import UsageError
from grader.i18n.messages import say, said, translate
from grader.lms.platform import Cell, Current, Platform
from grader.outputs.gradebook import GradebookRow, csv_text, grade_cell
from grader.outputs.lms_gradebooks import batch_rows, feedback_text, with_lms_ids
from grader.report.files import write_atomic

if TYPE_CHECKING:
    from grader.report.ledger import Entry
    from grader.spec.rubric.model import Rubric

__all__ = ["STATES", "Line", "PushResult", "batch_maximum", "comment_hash", "last_pushed", "lms_key", "plan", "push", "read_ids",
           "read_token", "shared_reasons"]

STATES = ("sent", "unchanged", "skipped", "failed")
CSV_COLUMNS = ["student", "submission", "lms_id", "state", "reason", "lms_before", "new", "justification"]


@dataclass
class Line:
    """One student of the push: who, the cell before and after, the state and why."""

    who: str
    submission: str
    key: str
    state: str  # one of STATES; "send" while planned
    reason: str = ""
    before: float | None = None
    new: float | None = None
    comment: str = ""
    why: str = ""  #: the ledger line or report that justifies the new value
    answer: str = ""  #: the platform's answer
    student: str = ""  #: the gradebook's student id (an anonymous id in a blind batch)


@dataclass
class PushResult:
    lines: list[Line]
    dry_run: bool
    csv: Path | None = None
    ledger_n: int | None = None
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return any(line.state == "failed" for line in self.lines)


def read_token(env: Mapping[str, str], variable: str, token_file: Path | None) -> str:
    """The token: from ``token_file`` (refused unless only its owner may read it), else ``variable``.

    Raises:
        UsageError: no token; the file is readable by others (naming it and the fix) or unreadable.
    """
    if token_file is not None:
        try:
            mode = stat.S_IMODE(os.stat(token_file).st_mode)
            if mode & 0o077:
                raise UsageError(said("push_token_file_mode", path=token_file, mode=f"{mode:04o}"))
            token = token_file.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise UsageError(said("push_token_file_unreadable", path=token_file, why=type(exc).__name__)) from None
    else:
        token = env.get(variable, "").strip()
    if not token:
        raise UsageError(said("push_token_missing", variable=variable))
    return token


def read_ids(path: Path) -> dict[str, str]:
    """``--lms-ids FILE``: ``student,lms_id`` (the gradebook's student or submission, the LMS's id).

    Raises:
        UsageError: unreadable, without those columns, or one student listed twice.
    """
    from grader.spec.due import csv_records

    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            rows = list(csv_records(path, csv.DictReader(fh)))  # (a line the csv module refuses is named)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise UsageError(said("push_ids_unreadable", path=path, why=type(exc).__name__)) from None
    ids: dict[str, str] = {}
    for row in rows:
        student, lms_id = (row.get("student") or "").strip(), (row.get("lms_id") or "").strip()
        if not student or not lms_id:
            raise UsageError(said("push_ids_columns", path=path))
        if student in ids:
            raise UsageError(said("push_ids_twice", path=path, student=student))
        ids[student] = lms_id
    return ids


def comment_hash(comment: str) -> str:
    return hashlib.sha256(comment.encode("utf-8")).hexdigest()[:16]


def last_pushed(entries: Sequence[Entry], target: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """What the pushes to ``target`` recorded in the ledger last left in the LMS, by LMS id (a blind
    batch's: by anonymous id, mapped to the LMS's at push time): ``{"score", "comment"}`` (the comment's hash) of the latest ``sent`` or ``unchanged`` state."""
    out: dict[str, dict[str, Any]] = {}
    for e in entries:
        record = e.push or {}
        if e.op != "push" or any(str(record.get(k, "")) != str(v) for k, v in target.items()):
            continue
        for key, student in (record.get("students") or {}).items():
            if isinstance(student, dict) and student.get("state") in ("sent", "unchanged"):
                out[str(key)] = {"score": student.get("score"), "comment": student.get("comment")}
    return out


def _justification(row: GradebookRow, lang: str) -> str:
    report = row.report
    if report is None:
        return ""
    # (an entry made against another automatic score, "review", stays applied until confirmed or undone)
    applied = [e for e in (report.adjustment or {}).get("entries", []) if e.get("status") in ("applied", "review")]
    parts = [say("push_why_ledger", lang, n=e["n"], by=e.get("by", ""), reason=e.get("reason", "")) for e in applied]
    if report.late and report.late.get("penalty"):
        parts.append(say("push_why_late", lang, before=f"{float(report.late['score_before']):g}",
                         penalty=report.late.get("penalty", "")))
    return "; ".join(parts) or say("push_why_report", lang, submission=row.submission)


def _comment(row: GradebookRow, lang: str) -> str:
    """The short comment: the score, the late policy, the adjustments with the instructor's reasons
    as written, the mistakes' ids (as in Moodle's feedback column), then the main mistake (the
    chapter's central one, else the first) explained in ``lang`` with the student's own numbers,
    then each reviewer's comment on lines (file, lines, text).
    Plain text, as the LMS stores it: no control character survives (the student's numbers and an
    instructor's reason are written as they are otherwise), and at most ``sinks.VALUE_MAX``."""
    from grader import sinks
    from grader.report.text import pick

    text = feedback_text(row, lang, see_file=False)
    mistakes = row.report.mistakes if row.report is not None else []
    if mistakes:
        main = next((m for m in mistakes if m.central), mistakes[0])
        explained = pick(main.message, [lang]).strip()
        if explained:
            text += say("push_main_mistake", lang, text=explained)
    if row.report is not None:  # a reviewer's comments on lines (grader review), as written
        from grader.report.text import comment_lines

        text += "".join(f" {line}" for line, _ in comment_lines(row.report, [lang]))
    return sinks.cap(sinks.visible(text))


def _same(a: float | None, b: float | None) -> bool:
    return a is not None and b is not None and abs(a - b) < 1e-6


def lms_key(row: GradebookRow, lms: str, ids: Mapping[str, str]) -> str:
    """The id the LMS knows ``row``'s student by ("" when none is known): the LMS's own where the
    batch came from that LMS, else the ``--lms-ids`` file's, looked up by the gradebook's student id,
    the submission, the entry, and (a blind batch of a plain folder) the student's own id that
    identities.csv gives back at push time."""
    if row.lms == lms and row.lms_key.isdigit():
        return row.lms_key
    return (ids.get(row.student_id) or ids.get(row.submission) or ids.get(row.entry)
            or (ids.get(row.lms_id) if row.lms_id else "") or "")


def plan(rows: Sequence[GradebookRow], current: Mapping[str, Current], last: Mapping[str, Mapping[str, Any]],
         *, lms: str, ids: Mapping[str, str], overwrite: bool, lang: str,
         comment_lang: str = "") -> list[Line]:
    """One :class:`Line` per row: ``send`` (to be written), ``unchanged`` or ``skipped`` (why); the
    reasons in ``lang``, the comment in ``comment_lang`` (the rubric's first language)."""
    keys = [lms_key(r, lms, ids) for r in rows]
    claimed: dict[str, int] = {}
    for k in keys:
        if k:
            claimed[k] = claimed.get(k, 0) + 1
    lines = []
    for row, key in zip(rows, keys):
        line = Line(row.who, row.submission, key, "skipped", student=row.student_id)
        lines.append(line)
        if not row.has_grade or row.score is None:
            line.reason = say("push_no_grade", lang, why=row.no_grade_reason((lang,)))
            continue
        if not key:
            line.reason = say("push_no_lms_id", lang, lms=lms)
            continue
        if claimed[key] > 1:
            line.reason = say("push_two_rows_one_id", lang, key=key, n=claimed[key])
            continue
        if key not in current:
            line.reason = say("push_not_in_lms", lang, key=key)
            continue
        if current[key].refused:  # the LMS's roster says why (LTI: a test student, inactive, not a learner)
            line.reason = say("push_lms_roster_refuses", lang, key=key, why=translate(current[key].refused, lang))
            continue
        line.new = float(grade_cell(row.score))
        line.before = current[key].score
        line.comment = _comment(row, comment_lang or lang)
        line.why = _justification(row, lang)
        before, mine = line.before, last.get(key)
        wrote = None if mine is None or mine.get("score") is None else float(mine["score"])
        if _same(before, line.new):
            same_comment = mine is None or mine.get("comment") == comment_hash(line.comment)
            # (held unreleased by the LMS while the results are public now: sent again, to show it)
            line.state = "unchanged" if same_comment and not current[key].unreleased else "send"
            continue
        edited = (before is not None and not _same(before, wrote)) or (before is None and wrote is not None)
        if edited and not overwrite:
            line.reason = (say("push_lms_edited", lang, now="—" if before is None else f"{before:g}",
                               wrote=f"{wrote:g}") if wrote is not None
                           else say("push_lms_not_ours", lang, now=f"{before:g}"))
            continue
        line.state = "send"
    return lines


def batch_maximum(outdir: Path, rubric: Rubric) -> float:
    """The batch's maximum score, as gradebook.csv's ``max_score`` says it (0 where none does):
    the scale a platform that takes a score with its maximum (LTI's AGS) is given."""
    top = 0.0
    for row in batch_rows(outdir, rubric):
        try:
            top = max(top, float(row.cells.get("max_score") or 0))
        except (TypeError, ValueError):
            continue
    return top


def _time_name(at: datetime, folder: Path) -> Path:
    stem = at.strftime("%Y%m%dT%H%M%SZ")
    path, n = folder / f"{stem}.csv", 1
    while path.exists():
        n += 1
        path = folder / f"{stem}-{n}.csv"
    return path


def push(outdir: Path, rubric: Rubric, platform: Platform, *, dry_run: bool = False, overwrite: bool = False,
         ids: Mapping[str, str] | None = None, by: str = "", lang: str | None = None,
         scrub: Callable[[str], str] = str, at: datetime | None = None) -> PushResult:
    """Push the batch in ``outdir`` into ``platform`` (see the module's docstring).

    Raises:
        UsageError: no batch here, a broken ledger, or the platform refuses to be written now
            (:class:`grader.lms.platform.PlatformRefused`); nothing was written then.
    """
    from grader.ingest.anonymous import is_anonymous
    from grader.report import ledger
    from grader.report.outdir import read_published

    comment_lang = rubric.report.languages[0] if rubric.report.languages else "en"
    lang = lang or comment_lang
    entries = ledger.read(outdir)  # a broken chain is refused before anything is read from the LMS
    rows = with_lms_ids(outdir, batch_rows(outdir, rubric))
    platform.check(public=read_published(outdir) is not None)
    current = platform.current()
    target = platform.target()
    blind = is_anonymous(outdir)
    last = last_pushed(entries, target)
    if blind:  # the ledger knows a blind batch's students by their anonymous ids: mapped to the LMS's here
        # (a push recorded before by LMS id still counts, where no later one by anonymous id does)
        last = {key: mine for row in rows if (key := lms_key(row, platform.name, ids or {}))
                and (mine := last.get(row.student_id) or last.get(key)) is not None}
    lines = plan(rows, current, last, lms=platform.name, ids=ids or {},
                 overwrite=overwrite, lang=lang, comment_lang=comment_lang)
    for line in lines:
        line.reason = scrub(line.reason)
    if dry_run:
        return PushResult(lines, True, counts=_counts(lines))
    to_send = [line for line in lines if line.state == "send"]
    outcomes = platform.write([Cell(line.key, float(line.new or 0.0), line.comment) for line in to_send])
    for line in to_send:
        outcome = outcomes.get(line.key)
        if outcome is None:
            line.state, line.reason = "failed", say("push_no_outcome", lang)
        elif outcome.ok:
            line.state, line.answer = "sent", scrub(outcome.answer)
        else:
            line.state, line.reason = "failed", scrub(outcome.answer)
    when = at or datetime.now(timezone.utc)
    folder = outdir / "push"
    folder.mkdir(exist_ok=True)
    path = write_atomic(_time_name(when, folder), csv_text(CSV_COLUMNS, [
        [line.who, line.submission, line.key, line.state, line.reason,
         None if line.before is None else line.before, None if line.new is None else line.new, line.why]
        for line in lines]))
    if blind:
        os.chmod(path, 0o600)  # it pairs anonymous ids with the LMS's, as identities.csv does
    # The ledger: by LMS id where there is one, else by the report's name. A blind batch's by the
    # anonymous id alone, its texts without a name or an LMS id (``[name]``, ``[id]``): the ledger is
    # read by whoever grades blind, and only the CSV (0600) pairs the two ids.
    hide = _hider(outdir, [line.key for line in lines]) if blind else str
    students = {(line.student if blind else line.key): {
                    "state": line.state, "score": line.new, "before": line.before,
                    "comment": comment_hash(line.comment), "answer": hide(line.answer or line.reason)}
                for line in lines if line.key and line.state != "skipped"}
    skipped = [{**({"lms_id": line.key} if line.key and not blind else {"student": line.submission}),
                "reason": hide(line.reason)} for line in lines if line.state == "skipped"]
    counts = _counts(lines)
    summary = ", ".join(f"{k} {v}" for k, v in counts.items())
    where = f"{target.get('platform')} {target.get('url')} course {target.get('course')} assignment {target.get('assignment')}"
    entry = ledger.append(outdir, op="push", submission="", reason=scrub(f"{where}: {summary}"),
                          by=by or ledger.who(), at=when.isoformat(timespec="seconds"),
                          push={**target, "students": students, "skipped": skipped, "counts": counts,
                                "file": f"push/{path.name}"})
    return PushResult(lines, False, path, entry.n, counts)


def _hider(outdir: Path, keys: Sequence[str]) -> Callable[[str], str]:
    """A blind batch's text for the ledger: every name and id identities.csv knows, and every LMS id
    of this push, as ``[name]`` / ``[id]``."""
    import re

    from grader.ingest.anonymous import ID_MARK, names_of

    names = names_of(outdir) or str
    known = sorted({k for k in keys if k}, key=len, reverse=True)
    pattern = re.compile(r"(?<![\w.])(?:" + "|".join(re.escape(k) for k in known) + r")(?![\w])") if known else None

    def hide(text: str) -> str:
        text = names(text)
        return pattern.sub(ID_MARK, text) if pattern is not None else text
    return hide


def shared_reasons(lines: Sequence[Line]) -> dict[str, list[Line]]:
    """The failures whose reason is the same for two students or more (a token refused midway: every
    student after it), each reason with its students in order: the terminal says such a reason once,
    numbered, and each student's line points to it; the push's CSV keeps the reason on every line."""
    by_reason: dict[str, list[Line]] = {}
    for line in lines:
        if line.state == "failed" and line.reason:
            by_reason.setdefault(line.reason, []).append(line)
    return {reason: group for reason, group in by_reason.items() if len(group) > 1}


def _counts(lines: Sequence[Line]) -> dict[str, int]:
    """How many students end in each state (a dry run: to send, unchanged, skipped)."""
    shown = ("send", "unchanged", "skipped") if any(line.state == "send" for line in lines) else STATES
    return {state: sum(1 for line in lines if line.state == state) for state in shown}
