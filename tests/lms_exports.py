"""LMS downloads as each platform writes them, and our files as each platform reads them.

The names follow the platforms' own code (see the module docstring of ``grader.ingest.lms``):
Canvas's ``ContentZipper``, Moodle's ``download_submissions``, Blackboard's
``<assignment>_<username>_attempt_<time>_<file>`` with its ``.txt`` per attempt. The readers
apply the column rules of Canvas's and Moodle's importers to the gradebooks a batch writes.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

from tests.helpers import EXAMPLES, FIXTURES, files_of, zip_bytes

#: What a student uploads: the files of one example submission, by name.
CORRECT = files_of(EXAMPLES / "correct")
STUB = files_of(EXAMPLES / "untouched-stub")
SQRT_D_MODEL = files_of(EXAMPLES / "sqrt-d-model")
BROKEN = files_of(FIXTURES / "broken-softmax")
EMPTY_ZIP = zip_bytes({})


# --------------------------------------------------------------------------- how each LMS names files


def canvas_entry(sortable_name: str | None, user_id: int | str, attachment_id: int, display_name: str,
                 *, late: bool = False) -> str:
    """Canvas ContentZipper: get_filename + "_#{file.id}_#{sanitize_attachment_filename}"."""
    parts = []
    if sortable_name is not None:
        parts.append(re.sub(r"_(\d+)_", r"\1", sortable_name).lower())  # sanitize_user_name
    if late:
        parts.append("LATE")
    parts.append(str(user_id))
    prefix = re.sub(r"[^\w]", "", "_".join(parts))  # gsub(/[^[[:word:]]]/, "")
    shown = re.sub(r'[\x00/\\:*?"<>|]+', "_", display_name)  # sanitize_attachment_filename
    return f"{prefix}_{attachment_id}_{shown}"


def canvas_text_entry(sortable_name: str, user_id: int) -> str:
    return re.sub(r"[^\w]", "", "_".join([sortable_name.lower(), str(user_id)])) + "_text.html"


def moodle_prefix(full_name: str, participant: int) -> str:
    """Moodle: clean_filename(str_replace('_', ' ', fullname) . '_' . uniqueid)."""
    cleaned = re.sub(r"[\x00-\x1f\x7f&<>\"`|':\\/]", "", full_name.replace("_", " ") + f"_{participant}")
    return cleaned


def blackboard_txt(full_name: str, username: str, assignment: str, when: str, files: list[tuple[str, str]]) -> str:
    listing = "".join(f"\tOriginal filename: {orig}\n\tFilename: {stored}\n" for orig, stored in files)
    return (f"Name: {full_name} ({username})\nAssignment: {assignment}\n"
            f"Date Submitted: Monday, 30 November 2026 {when} o'clock JST\nCurrent Grade: Needs Grading\n\n"
            "Submission Field:\nThere is no student submission text data for this assignment.\n\n"
            "Comments:\nThere are no student comments for this assignment.\n\n"
            "Files:\n" + (listing or "No files were attached to this submission.\n"))


# --------------------------------------------------------------------------- how each LMS reads ours


#: Moodle's words in its grading worksheet, by the teacher's language, copied here from Moodle
#: itself (not from the grader) so that a slip in the grader's own table shows:
#: English from Moodle's source, ``mod/assign/lang/en/assign.php`` (recordid, hiddenuser, status,
#: submissionstatus_submitted, graded, maxgrade, gradecanbechanged, lastmodifiedsubmission,
#: lastmodifiedgrade), ``lang/en/moodle.php`` (gradenoun, fullname, email, yes) and
#: ``mod/assign/feedback/comments/lang/en/assignfeedback_comments.php`` (pluginname); Japanese from
#: the same files of Moodle's ``ja`` language pack (AMOS; mod/assign's strings of version 4.4).
MOODLE_STRINGS = {
    "en": {"recordid": "Identifier", "hiddenuser": "Participant ", "fullname": "Full name", "email": "Email address",
           "status": "Status", "submitted": "Submitted for grading", "graded": "Graded", "gradenoun": "Grade",
           "maxgrade": "Maximum Grade", "gradecanbechanged": "Grade can be changed", "yes": "Yes",
           "lastmodifiedsubmission": "Last modified (submission)", "lastmodifiedgrade": "Last modified (grade)",
           "feedbackcomments": "Feedback comments"},
    "ja": {"recordid": "ID", "hiddenuser": "参加者", "fullname": "フルネーム", "email": "メールアドレス",
           "status": "ステータス", "submitted": "評定のために提出済み", "graded": "評定済み", "gradenoun": "評点",
           "maxgrade": "最大評点", "gradecanbechanged": "評点変更可", "yes": "Yes",
           "lastmodifiedsubmission": "最終更新日時 (提出)", "lastmodifiedgrade": "最終更新日時 (評定)",
           "feedbackcomments": "フィードバックコメント"},
}
_EN_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_JA_DAYS = ("月曜日", "火曜日", "水曜日", "木曜日", "金曜日", "土曜日", "日曜日")


def moodle_userdate(when: datetime, lang: str) -> str:
    """Moodle's ``userdate($time)``: ``strftimedaydatetime`` of the language's langconfig.php
    (en ``%A, %d %B %Y, %I:%M %p``, ja ``%Y年 %m月 %d日(%A) %H:%M``), with ``%d`` and ``%I``
    written without a leading zero (the calendar's fixday / fixhour) and ``%A`` in the locale."""
    if lang == "ja":
        return f"{when.year}年 {when.month:02d}月 {when.day}日({_JA_DAYS[when.weekday()]}) {when.hour:02d}:{when.minute:02d}"
    return (f"{_EN_DAYS[when.weekday()]}, {when.day} {when:%B} {when.year}, "
            f"{when.hour % 12 or 12}:{when.minute:02d} {'AM' if when.hour < 12 else 'PM'}")


def php_fputcsv(fields: list[str]) -> str:
    """One line as PHP's ``fputcsv`` writes it (Moodle's CSV download: OpenSpout's CSV writer):
    a field is quoted when it holds the delimiter, a quote, a space, a tab or a line break; the
    line ends with ``\\n``."""
    def one(field: str) -> str:
        return '"' + field.replace('"', '""') + '"' if re.search(r'[,"\s]', field) else field

    return ",".join(one(f) for f in fields) + "\n"


class WorksheetRow(NamedTuple):
    participant: int
    full_name: str
    email: str
    submitted: datetime | None  # None: nothing submitted ("-")


def moodle_grading_worksheet(rows: list[WorksheetRow], lang: str, max_grade: str = "100.00") -> bytes:
    """The bytes of "Download grading worksheet" (assignfeedback_offline: mod/assign's grading
    table downloaded as CSV) for an assignment with file submissions, feedback comments, no
    grade yet and no due date set in Moodle (so the status says nothing of lateness): a UTF-8 BOM
    (OpenSpout's CSV writer adds it), then the columns in the teacher's language."""
    w = MOODLE_STRINGS[lang]
    header = [w["recordid"], w["fullname"], w["email"], w["status"], w["gradenoun"], w["maxgrade"],
              w["gradecanbechanged"], w["lastmodifiedsubmission"], w["lastmodifiedgrade"], w["feedbackcomments"]]
    text = php_fputcsv(header)
    for row in rows:
        text += php_fputcsv([f"{w['hiddenuser']}{row.participant}", row.full_name, row.email,
                             w["submitted"] if row.submitted else "", "", max_grade, w["yes"],
                             moodle_userdate(row.submitted, lang) if row.submitted else "-", "-", ""])
    return b"\xef\xbb\xbf" + text.encode("utf-8")


def moodle_worksheet(path: Path, lang: str = "en") -> dict[str, dict]:
    """assignfeedback_offline_grade_importer, for a teacher whose Moodle is shown in ``lang``:
    the identifier, grade, last-modified and feedback columns found by headers equal to that
    language's strings, ``hiddenuser`` stripped by its length, the time read by ``strtotime``."""
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # --bom; Moodle's csv reader strips it
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))
    header = rows[0]
    w = MOODLE_STRINGS[lang]
    idx = {k: header.index(w[k]) for k in ("recordid", "gradenoun", "lastmodifiedgrade")}
    feedback = header.index(w["feedbackcomments"])
    assert feedback > 0  # the importer ignores a feedback column at index 0 (!empty($index))
    out = {}
    for row in rows[1:]:
        assert row[idx["recordid"]].startswith(w["hiddenuser"])
        pid = row[idx["recordid"]][len(w["hiddenuser"]):]
        grade = row[idx["gradenoun"]]
        out[pid] = {"grade": float(grade) if grade else "", "feedback": row[feedback],
                    "modified": strtotime(row[idx["lastmodifiedgrade"]])}
    return out


def strtotime(text: str) -> datetime:
    """The two forms of a time PHP's ``strtotime`` reads that the grader writes: Moodle's English
    ``userdate`` and ISO 8601 with an offset; anything else (Moodle's Japanese ``userdate``
    among them) fails, as ``strtotime`` returns false for it."""
    try:
        return datetime.strptime(text, "%A, %d %B %Y, %I:%M %p")
    except ValueError:
        when = datetime.fromisoformat(text)
        assert when.tzinfo is not None, text
        return when


def moodle_feedback_participants(path: Path) -> set[int]:
    """assignfeedback_file_zip_importer::is_valid_filename_for_import, on each member's path."""
    found = set()
    with zipfile.ZipFile(path) as zf:
        for name in zf.namelist():
            for part in name.split("/"):
                info = part.split("_", 4)
                if len(info) >= 4 and info[1].isdigit() and (info[2], info[3]) == ("assignsubmission", "file"):
                    found.add(int(info[1]))
                    break
    return found


def canvas_import(path: Path) -> dict:
    """Canvas: col 0 contains Student, col 1 contains ID, the last student column contains
    Section, then assignments; a 'Points Possible' row; students matched by ID."""
    text = path.read_text(encoding="utf-8-sig")
    sep = ";" if text.splitlines()[0].count(";") > text.splitlines()[0].count(",") else ","
    rows = list(csv.reader(io.StringIO(text), delimiter=sep))
    header = rows[0]
    assert "Student" in header[0] and "ID" in header[1]
    section = max(i for i, h in enumerate(header) if "Section" in h)
    ignored = re.compile(r"(Current|Final|Unposted) (Score|Points|Grade)|Override")
    columns = [i for i in range(section + 1, len(header)) if not ignored.search(header[i])]
    assert len(columns) == 1
    col = columns[0]
    assert re.search(r"\(\d+\)$", header[col])  # Title (id): Canvas updates that assignment
    out: dict = {"by_id": {}}
    for row in rows[1:]:
        if "Points Possible" in row[0]:
            out["points_possible"] = float(row[col])
            continue
        out["by_id"][row[1]] = float(row[col]) if row[col] else None  # empty: Canvas leaves it
    return out
