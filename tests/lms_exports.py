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


def moodle_worksheet(path: Path) -> dict[str, dict]:
    """assignfeedback_offline_grade_importer: headers equal to the strings, 'Participant ' stripped."""
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # --bom; Moodle's csv reader strips it
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))
    header = rows[0]
    idx = {k: header.index(k) for k in ("Identifier", "Grade", "Last modified (grade)")}
    feedback = header.index("Feedback comments")
    assert feedback > 0  # the importer ignores a feedback column at index 0 (!empty($index))
    out = {}
    for row in rows[1:]:
        assert row[idx["Identifier"]].startswith("Participant ")
        pid = row[idx["Identifier"]][len("Participant "):]
        datetime.strptime(row[idx["Last modified (grade)"]], "%A, %d %B %Y, %I:%M %p")  # strtotime-readable
        grade = row[idx["Grade"]]
        out[pid] = {"grade": float(grade) if grade else "", "feedback": row[feedback]}
    return out


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
