"""Moodle's grading worksheet (``--worksheet``) read as Moodle writes it: its times in the due date's
zone, and a worksheet written otherwise named by line with the fix."""

from __future__ import annotations

import csv
import io
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from grader.spec.due import lms_wall_time, read_moodle_worksheet
from grader.errors import UsageError

JST = timezone(timedelta(hours=9))

#: the columns of a worksheet downloaded from an assignment with file submissions and feedback comments
WORKSHEET_HEADER = ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade",
                    "Grade can be changed", "Last modified (submission)", "Last modified (grade)", "Feedback comments"]


def _worksheet(path: Path, rows: list[tuple[str, str, str]]) -> Path:
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(WORKSHEET_HEADER)
    for pid, name, when in rows:
        writer.writerow([f"Participant {pid}", name, f"{pid}@example.ac.jp", "Submitted for grading", "", "100.00",
                         "Yes", when, "-", ""])
    path.write_text(buf.getvalue(), encoding="utf-8")
    return path


def test_the_worksheet_is_read_in_the_due_dates_zone():
    """Moodle's day and hour without leading zeros, 12 AM/PM, '-' for no submission."""
    rows = [("123458", "山田 太郎", "Tuesday, 1 December 2026, 11:05 PM"),
            ("123462", "Jane Doe", "Wednesday, 2 December 2026, 12:10 AM"),
            ("123463", "No One", "-"),
            ("123464", "Noon", "Wednesday, 2 December 2026, 12:00 PM")]
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        got = read_moodle_worksheet(_worksheet(Path(tmp) / "w.csv", rows), JST)
    assert got == {"123458": datetime(2026, 12, 1, 23, 5, tzinfo=JST),
                   "123462": datetime(2026, 12, 2, 0, 10, tzinfo=JST),
                   "123464": datetime(2026, 12, 2, 12, 0, tzinfo=JST)}
    assert lms_wall_time("2026-12-02-01-30-00", JST) == datetime(2026, 12, 2, 1, 30, tzinfo=JST)
    assert lms_wall_time("not-a-time", JST) is None


def test_a_worksheet_not_as_moodle_writes_it_names_the_line_and_the_fix(tmp_path):
    from grader.i18n.messages import translate

    bad = _worksheet(tmp_path / "w.csv", [("1", "A", "Tuesday, 1 December 2026, 11:05 PM"),
                                          ("2", "B", "mardi 1 décembre 2026, 23:05")])
    with pytest.raises(UsageError) as info:
        read_moodle_worksheet(bad, JST)
    assert f"{bad}: line 3" in str(info.value) and "in English" in str(info.value)
    assert "英語表示" in translate(str(info.value), "ja")
    (tmp_path / "x.csv").write_text("Identifier,Grade\nParticipant 1,3\n", encoding="utf-8")
    with pytest.raises(UsageError, match="no column Last modified"):
        read_moodle_worksheet(tmp_path / "x.csv", JST)
