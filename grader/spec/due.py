"""Due dates, extensions and the late penalty, per student.

The due date is an ISO 8601 date-time with its offset (``2026-12-01T23:59:00+09:00``); one
without an offset is refused, since the same wall-clock time is a different instant in Tokyo
and in the LMS's server. An extension gives a student their own due date, or extra days on the
assignment's due date as it is *when grading* (so moving the due date later moves every
extension in days with it, and an extension to a fixed date stays put).

The policy: a submission up to ``grace_minutes`` after the student's due date is on time; past
that, every day or part of a day after the due date costs ``per_day_percent`` of the maximum
(``per: once`` instead costs it once), at most ``max_percent`` in all, and the score never
drops below 0. :func:`late_penalty` returns the inputs with the result, for the report and
the gradebook to show. :func:`apply_late` puts the rubric's policy into a report's dict (its
``late`` entry and note) and :func:`undo_late` takes it out again: the late policy's one home.

Example::

    policy = LatePolicyRule(per_day_percent=10, max_percent=50, grace_minutes=15)
    due = due_for("alice", parse_when("2026-12-01T23:59:00+09:00", "rubric due"), extensions)
    late_penalty(submitted, due, 80.0, 100.0, policy).score
"""

from __future__ import annotations

import csv
import math
import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from grader.errors import UsageError
from grader.i18n.messages import label, said

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from grader.spec.rubric.model import Rubric

__all__ = ["MOODLE_WORDS", "Extension", "csv_records", "LateDict", "Lateness", "LatePolicyRule", "Scored", "Timing", "apply_late", "due_for",
           "late_penalty", "lms_wall_time", "parse_when", "read_extensions", "read_moodle_worksheet", "read_submitted",
           "student_key", "undo_late", "within_years", "without_late_note", "worksheet_lang"]

DAY = timedelta(days=1)
#: the most days an extension may give (a larger number is a slip of the keyboard)
MAX_EXTENSION_DAYS = 3660
#: the years a date in the instructor's files may fall in (the rubric's ``due:``, an extension, a
#: submission time, Moodle's worksheet): a date far outside, such as an extension to 9999-12-31 or
#: year 1, is refused naming its file and line, since adding the grace minutes or an extension's
#: days to it, or reading it in another zone, would overflow the calendar for that student
EARLIEST_YEAR, LATEST_YEAR = 1970, 2999


def within_years(when: datetime, where: str, text: str) -> datetime:
    """``when`` if it falls in :data:`EARLIEST_YEAR` .. :data:`LATEST_YEAR` (in its own zone and in
    UTC).

    Raises:
        UsageError: naming ``where`` and the date as written (``text``).
    """
    try:
        utc = when.astimezone(timezone.utc) if when.utcoffset() is not None else when
    except OverflowError:
        utc = None
    if utc is None or not all(EARLIEST_YEAR <= t.year <= LATEST_YEAR for t in (when, utc)):
        raise UsageError(said("date_out_of_years", where=where, text=f"{text!r}", first=EARLIEST_YEAR,
                              last=LATEST_YEAR))
    return when


def parse_when(text: str, where: str) -> datetime:
    """An ISO 8601 date-time with its offset.

    Raises:
        UsageError: not a date-time, or one without an offset (naming ``where``).
    """
    try:
        when = datetime.fromisoformat(str(text).strip().replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(said("date_time_write_2026", where=where, text=f"{text!r}")) from None
    if when.tzinfo is None or when.utcoffset() is None:
        example = f"{text}+09:00"
        raise UsageError(said("has_no_time_zone", where=where, text=f"{text!r}", example=example))
    return within_years(when, where, str(text).strip())


def student_key(text: str) -> str:
    """A student id or name as the instructor's files and the LMS may both spell it: NFKC-folded
    and trimmed, so a full-width ``１１１１１`` is ``11111``."""
    return unicodedata.normalize("NFKC", text).strip()


@dataclass(frozen=True)
class Extension:
    """One student's extension: their own due date, or extra days; and why."""

    student: str
    due: datetime | None = None
    days: float = 0.0
    reason: str = ""


def read_extensions(path: Path) -> dict[str, Extension]:
    """``--extensions FILE``: CSV with ``student``, then ``due`` (a date-time) or ``days``, and ``reason``.

    Raises:
        UsageError: a missing column, a bad value or a student listed twice (naming the line).
    """
    rows = _rows(path, ("student",), ("student", "due", "days", "reason"))
    out: dict[str, Extension] = {}
    for line, row in rows:
        where = f"{path}: line {line}"
        student = student_key(row["student"])
        due_text, days_text = (row.get("due") or "").strip(), (row.get("days") or "").strip()
        if bool(due_text) == bool(days_text):
            raise UsageError(said("give_either_due_days", where=where, student=student))
        if student in out:
            raise UsageError(said("listed_twice_keep_one", where=where, student=student))
        if due_text:
            out[student] = Extension(student, due=parse_when(due_text, where), reason=row.get("reason", ""))
        else:
            try:
                days = float(days_text)
            except ValueError:
                raise UsageError(said("days_must_number_got", where=where, got=f"{days_text!r}")) from None
            if not math.isfinite(days) or days < 0:
                raise UsageError(said("days_must_number_got", where=where, got=f"{days_text!r}"))
            if days > MAX_EXTENSION_DAYS:
                raise UsageError(said("days_at_most", where=where, got=f"{days_text!r}", most=MAX_EXTENSION_DAYS))
            out[student] = Extension(student, days=days, reason=row.get("reason", ""))
    return out


def read_submitted(path: Path) -> dict[str, datetime]:
    """``--submitted FILE.csv``: ``student`` and ``submitted`` (a date-time with offset) per line."""
    out: dict[str, datetime] = {}
    for line, row in _rows(path, ("student", "submitted")):
        student, where = student_key(row["student"]), f"{path}: line {line}"
        if student in out:
            raise UsageError(said("listed_twice_keep_one", where=where, student=student))
        out[student] = parse_when(row["submitted"], where)
    return out


#: Moodle's own words in its grading worksheet, by the language Moodle shows (the downloading or
#: importing teacher's). English from Moodle's source: ``mod/assign/lang/en/assign.php`` (recordid,
#: hiddenuser, status, graded, nograde, maxgrade, gradecanbechanged, lastmodifiedsubmission,
#: lastmodifiedgrade), ``lang/en/moodle.php`` (gradenoun, fullname, yes) and
#: ``mod/assign/feedback/comments/lang/en/assignfeedback_comments.php`` (pluginname). Japanese from
#: Moodle's ``ja`` language pack (AMOS), the same files. ``hiddenuser`` is the identifier's prefix:
#: ``Participant 123456`` but ``参加者123456`` (the Japanese has no space), and Moodle's importer
#: strips exactly its length.
MOODLE_WORDS: dict[str, dict[str, str]] = {
    "en": {"recordid": "Identifier", "hiddenuser": "Participant ", "fullname": "Full name", "status": "Status",
           "grade": "Grade", "maxgrade": "Maximum Grade", "gradecanbechanged": "Grade can be changed", "yes": "Yes",
           "lastmodifiedsubmission": "Last modified (submission)", "lastmodifiedgrade": "Last modified (grade)",
           "feedbackcomments": "Feedback comments", "graded": "Graded", "nograde": "No grade"},
    "ja": {"recordid": "ID", "hiddenuser": "参加者", "fullname": "フルネーム", "status": "ステータス",
           "grade": "評点", "maxgrade": "最大評点", "gradecanbechanged": "評点変更可", "yes": "Yes",
           "lastmodifiedsubmission": "最終更新日時 (提出)", "lastmodifiedgrade": "最終更新日時 (評定)",
           "feedbackcomments": "フィードバックコメント", "graded": "評定済み", "nograde": "評点なし"},
}
#: the columns of Moodle's grading worksheet the lateness is read from (mod/assign's grading table:
#: ``hiddenuser`` + id, ``lastmodifiedsubmission``), in English
WORKSHEET_ID, WORKSHEET_SUBMITTED = MOODLE_WORDS["en"]["recordid"], MOODLE_WORDS["en"]["lastmodifiedsubmission"]
#: Moodle's ``userdate()`` in English: ``strftimedaydatetime`` of lang/en/langconfig.php,
#: ``%A, %d %B %Y, %I:%M %p`` with the day and the 12-hour hour written without a leading zero
_MOODLE_TIME = re.compile(r"^\s*(?:[A-Za-z]+,\s*)?(?P<day>\d{1,2})\s+(?P<month>[A-Za-z]+)\s+(?P<year>\d{4}),?\s+"
                          r"(?P<hour>\d{1,2}):(?P<minute>\d{2})\s*(?P<ampm>AM|PM)\s*$", re.IGNORECASE)
#: Moodle's ``userdate()`` in Japanese: ``strftimedaydatetime`` of the ja pack's langconfig.php,
#: ``%Y年 %m月 %d日(%A) %H:%M`` (``2026年 12月 7日(月曜日) 10:00``: the month with a leading zero, the
#: day without, the weekday in the brackets; an admin's own format may leave the weekday out)
_MOODLE_TIME_JA = re.compile(r"^\s*(?P<year>\d{4})\s*年\s*(?P<month>\d{1,2})\s*月\s*(?P<day>\d{1,2})\s*日\s*"
                             r"(?:\([^()]*\))?\s*(?P<hour>\d{1,2}):(?P<minute>\d{2})\s*$")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")


def worksheet_lang(path: Path) -> str:
    """The language Moodle showed when it wrote the worksheet at ``path``: ``ja`` when its first
    line has Moodle's Japanese identifier column (``ID``) and not the English one, else ``en``."""
    try:
        text = _decoded(Path(path).read_bytes()) or ""
    except OSError:
        return "en"
    try:
        first = next(csv.reader(text.splitlines()[:1]), [])
    except csv.Error:  # (the worksheet is refused, naming the line, when it is read)
        return "en"
    names = {name.strip() for name in first}
    ja = MOODLE_WORDS["ja"]
    return "ja" if ja["recordid"] in names and MOODLE_WORDS["en"]["recordid"] not in names else "en"


def read_moodle_worksheet(path: Path, zone: tzinfo) -> dict[str, datetime]:
    """``--worksheet FILE``: Moodle's grading worksheet (Assignment > View all submissions >
    Download grading worksheet): participant id -> its "Last modified (submission)".

    Moodle writes the worksheet in the teacher's language: English (``Identifier``,
    ``Participant 123456``, ``Tuesday, 1 December 2026, 11:05 PM``) or Japanese (``ID``,
    ``参加者123456``, ``最終更新日時 (提出)``, ``2026年 12月 1日(火曜日) 23:05``), to the minute, on the
    downloading teacher's clock without naming the zone; it is read in ``zone``, the zone of the
    rubric's ``due:``. A row whose time is ``-`` (nothing submitted) is left out.
    """
    words = MOODLE_WORDS[worksheet_lang(path)]
    ident_col, time_col = words["recordid"], words["lastmodifiedsubmission"]
    out: dict[str, datetime] = {}
    for line, row in _rows(path, (ident_col, time_col)):
        ident = re.sub(r"^\D*", "", student_key(row[ident_col]))
        text = row[time_col].strip()
        if not ident or text in ("", "-"):
            continue
        out[ident] = _moodle_time(text, zone, f"{path}: line {line}")
    return out


def _moodle_time(text: str, zone: tzinfo, where: str) -> datetime:
    folded = unicodedata.normalize("NFKC", text)  # full-width digits and brackets, as a hand edit may leave them
    m = _MOODLE_TIME_JA.match(folded)
    if m:
        year, month, day, hour = int(m["year"]), int(m["month"]), int(m["day"]), int(m["hour"])
    else:
        m = _MOODLE_TIME.match(text)
        month = _MONTHS.index(m["month"].lower()) + 1 if m and m["month"].lower() in _MONTHS else 0
        if not m or not month:
            raise UsageError(said("time_moodle_writes_e", where=where, text=f"{text!r}"))
        year, day = int(m["year"]), int(m["day"])
        hour = int(m["hour"]) % 12 + (12 if m["ampm"].upper() == "PM" else 0)
    try:
        when = datetime(year, month, day, hour, int(m["minute"]), tzinfo=zone)
    except ValueError:
        raise UsageError(said("date_exists", where=where, text=f"{text!r}")) from None
    return within_years(when, where, text)


def lms_wall_time(stamp: str, zone: tzinfo) -> datetime | None:
    """An LMS's own submission time with no zone (Blackboard's ``2026-11-30-23-05-23``) read in
    ``zone``; None when ``stamp`` is not one."""
    m = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})-(\d{2})-(\d{2})-(\d{2})", stamp.strip())
    if not m:
        return None
    try:
        year, month, day, hour, minute, second = (int(g) for g in m.groups())
        return within_years(datetime(year, month, day, hour, minute, second, tzinfo=zone), "", stamp)
    except (ValueError, UsageError):  # (a stamp far outside the years says nothing about when)
        return None


#: the largest CSV file of the instructor's read whole (a Moodle worksheet of 10,000 students is
#: about 2 MB): a larger one is the wrong file
CSV_FILE_MAX = 64 * 1024**2
#: the longest value read from a column of those files (a student, a date, a reason)
CSV_CELL_MAX = 2000


def csv_records(path: Path | str, reader: Any, lines: Sequence[str] = ()) -> Iterator[Any]:
    """Each record of ``reader`` (a :func:`csv.reader` or :class:`csv.DictReader` over ``path``, or
    over its ``lines`` when given: the blank lines it skips are then counted too).

    Raises:
        UsageError: a record the csv module refuses (a value over :func:`csv.field_size_limit`, as a
            quote never closed makes of the rest of the file; a NUL byte), naming the file and the
            line the record starts on, never a traceback.
    """
    while True:
        start = reader.line_num + 1
        while start <= len(lines) and not lines[start - 1]:
            start += 1  # (the reader skips blank lines)
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            if "field larger than field limit" in str(exc):
                raise UsageError(said("csv_value_too_long", path=path, line=start,
                                      most=csv.field_size_limit())) from None
            raise UsageError(said("csv_record_unreadable", path=path, line=start, why=exc)) from None
        yield row


def _rows(path: Path, needed: tuple[str, ...], read: tuple[str, ...] = ()) -> list[tuple[int, dict[str, str]]]:
    """The CSV's records as ``(line, row)``: ``line`` is where the record starts in the file
    (blank lines and a quoted value over several lines counted). UTF-8 (with or without a BOM),
    else CP932, which Excel on Japanese Windows writes for "CSV (comma delimited)".

    Raises:
        UsageError: the file cannot be read, is in neither encoding, or lacks a column.
    """
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise UsageError(said("cannot_read_check_path", path=path, why=exc.strerror or exc)) from None
    if len(raw) > CSV_FILE_MAX:
        raise UsageError(said("csv_file_too_large", path=path, size=len(raw) // 1024**2, most=CSV_FILE_MAX // 1024**2))
    text = _decoded(raw)
    if text is None:
        raise UsageError(said("csv_not_utf8", path=path))
    lines = text.splitlines()
    reader = csv.DictReader(lines)
    header = next(csv_records(path, reader.reader, lines), None)  # (as DictReader reads it: the first record)
    reader.fieldnames = [name.strip() for name in header] if header is not None else []
    # (`student, days` as typed with spaces names the same columns)
    missing = [c for c in needed if c not in (reader.fieldnames or [])]
    if missing:
        columns, example = ", ".join(missing), ",".join(needed)
        raise UsageError(said("no_column_first_line", path=path, columns=columns, example=example))
    out: list[tuple[int, dict[str, str]]] = []
    end = reader.line_num  # the header's last line
    for row in csv_records(path, reader, lines):
        start = end + 1
        while start < reader.line_num and not lines[start - 1]:
            start += 1  # (the reader skips blank lines)
        end = reader.line_num
        values = {k: v or "" for k, v in row.items() if k is not None}
        for column in read or needed:  # (what is read, an extension's reason copied into reports too)
            if len(values.get(column, "")) > CSV_CELL_MAX:
                raise UsageError(said("csv_cell_too_long", path=path, line=start, column=column,
                                      n=len(values[column]), most=CSV_CELL_MAX))
        if any(v.strip() for v in values.values()):  # (a row of commas alone, as Excel leaves them, says nothing)
            out.append((start, values))
    return out


def _decoded(raw: bytes) -> str | None:
    """``raw`` as text: UTF-8 (a BOM dropped), else CP932; None if it is neither."""
    for encoding in ("utf-8-sig", "cp932"):
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    return None


def due_for(student: str, due: datetime, extensions: dict[str, Extension]) -> tuple[datetime, Extension | None]:
    """The student's own due date, and the extension it comes from (None: the assignment's)."""
    ext = extensions.get(student)
    if ext is None:
        return due, None
    return (ext.due if ext.due is not None else due + timedelta(days=ext.days)), ext


@dataclass(frozen=True)
class LatePolicyRule:
    """The rubric's late policy (percent of the maximum score)."""

    per_day_percent: float = 0.0
    max_percent: float = 100.0
    grace_minutes: float = 0.0
    per: str = "day"  #: ``day`` (each day or part of one) or ``once``


@dataclass(frozen=True)
class Lateness:
    """A late penalty with the inputs it came from (shown in the report and the gradebook)."""

    submitted: datetime
    due: datetime
    days: int
    percent: float
    score_before: float
    score: float


def late_penalty(submitted: datetime, due: datetime, score: float, max_score: float,
                 policy: LatePolicyRule) -> Lateness:
    """The penalty for a submission at ``submitted`` against the student's own ``due``."""
    days = 0
    if submitted > due + timedelta(minutes=policy.grace_minutes):
        days = math.ceil((submitted - due) / DAY)  # a part of a day is a day
    units = min(days, 1) if policy.per == "once" else days
    percent = min(units * policy.per_day_percent, policy.max_percent)
    after = max(0.0, score - max_score * percent / 100.0)
    return Lateness(submitted, due, days, percent, score, after)


# --------------------------------------------------------------------------- the policy on a report


class Timing(TypedDict):
    """When a submission came and when it was due, as ``grader batch`` measures lateness (ISO 8601
    with offsets): ``submitted`` is "" when only the LMS's late flag is known."""

    submitted: str
    due: str
    extension: str  # the extension's reason ("" without one)


class LateDict(TypedDict, total=False):
    """The late policy as applied to a report (its ``late`` entry; empty when none applied)."""

    score_before: float
    score: float
    penalty: float
    rule: dict[str, str]  # the policy in words, by language
    # measured from the times (--submitted, --extensions, due:) rather than the LMS's flag:
    submitted: str
    due: str
    days: int
    extension: str


class _ScoredCore(TypedDict):
    score: float
    max_score: float
    passed: bool
    pass_mark: float
    notes: list[str]


class Scored(_ScoredCore, total=False):
    """What the late policy reads and changes in a report's dict (a report's dict is one)."""

    late: LateDict


def apply_late(data: Scored, late: bool, rubric: Rubric, when: Timing | None = None) -> Scored:
    """The rubric's late policy on a report's dict whose ``score`` is the tests' score (changed in
    place, and returned).

    ``when`` (from ``--submitted`` / ``--extensions`` and the rubric's ``due:``, see
    this module): ``submitted`` and the student's own ``due`` (ISO, with offsets) and the
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
            data["late"].update({"submitted": when["submitted"], "due": when["due"], "days": days,
                                 "extension": when.get("extension", "")})
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


def undo_late(data: Scored) -> Scored:
    """A report's dict as before :func:`apply_late`: the tests' score back, the late note gone
    (changed in place, and returned)."""
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

