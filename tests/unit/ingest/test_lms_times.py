"""Moodle's grading worksheet (``--worksheet``) read as Moodle writes it, in English or in Japanese:
its times in the due date's zone, and a worksheet written otherwise named by line with the fix.

The Japanese worksheet is built byte for byte by ``tests.lms_exports.moodle_grading_worksheet``
from Moodle's sources: the columns of ``mod/assign/gradingtable.php`` (downloaded through
``assignfeedback_offline``'s ``download_grades``), their names from ``mod/assign/lang/en/assign.php``,
``lang/en/moodle.php`` and the same files of the ``ja`` language pack, each time by ``userdate()``
with ``strftimedaydatetime`` of ``lang/ja/langconfig.php`` (``%Y年 %m月 %d日(%A) %H:%M``), the file
by OpenSpout's CSV writer (a BOM, PHP's ``fputcsv`` quoting, ``\n`` line ends)."""

from __future__ import annotations

import csv
import io
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from grader.spec.due import lms_wall_time, read_moodle_worksheet, worksheet_lang
from grader.errors import UsageError
from tests.lms_exports import WorksheetRow, moodle_grading_worksheet

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
    assert f"{bad}: line 3" in str(info.value) and "shown in English or Japanese" in str(info.value)
    assert "日本語か英語表示の Moodle" in translate(str(info.value), "ja")
    (tmp_path / "x.csv").write_text("Identifier,Grade\nParticipant 1,3\n", encoding="utf-8")
    with pytest.raises(UsageError, match="no column Last modified"):
        read_moodle_worksheet(tmp_path / "x.csv", JST)


def test_a_worksheet_from_a_moodle_shown_in_japanese_is_read_as_moodle_wrote_it(tmp_path):
    """参加者123458 (no space), 最終更新日時 (提出), the month with a leading zero and the day and the
    weekday as userdate() writes them, 24-hour, '-' for nothing submitted."""
    rows = [WorksheetRow(123458, "山田 太郎", "yamada@example.ac.jp", datetime(2026, 12, 1, 23, 5)),
            WorksheetRow(123462, "Jane Doe", "jane@example.ac.jp", datetime(2026, 12, 2, 9, 30)),
            WorksheetRow(123463, "鈴木 一郎", "suzuki@example.ac.jp", None),
            WorksheetRow(123464, "佐藤 花子", "sato@example.ac.jp", datetime(2027, 1, 4, 0, 0))]
    sheet = tmp_path / "評定ワークシート-CS101-第7章-42.csv"
    sheet.write_bytes(moodle_grading_worksheet(rows, "ja"))
    text = sheet.read_bytes().decode("utf-8")
    assert text.startswith("\ufeffID,フルネーム,メールアドレス,ステータス,評点,最大評点,評点変更可,"
                           '"最終更新日時 (提出)","最終更新日時 (評定)",フィードバックコメント\n')
    assert ('参加者123458,"山田 太郎",yamada@example.ac.jp,評定のために提出済み,,100.00,Yes,'
            '"2026年 12月 1日(火曜日) 23:05",-,\n') in text
    assert "参加者123463,\"鈴木 一郎\",suzuki@example.ac.jp,,,100.00,Yes,-,-,\n" in text
    assert '"2027年 01月 4日(月曜日) 00:00"' in text
    assert worksheet_lang(sheet) == "ja"
    assert read_moodle_worksheet(sheet, JST) == {"123458": datetime(2026, 12, 1, 23, 5, tzinfo=JST),
                                                 "123462": datetime(2026, 12, 2, 9, 30, tzinfo=JST),
                                                 "123464": datetime(2027, 1, 4, 0, 0, tzinfo=JST)}
    # the same worksheet from a Moodle shown in English reads the same
    english = tmp_path / "Grades-CS101-Chapter 7-42.csv"
    english.write_bytes(moodle_grading_worksheet(rows, "en"))
    assert worksheet_lang(english) == "en"
    assert read_moodle_worksheet(english, JST) == read_moodle_worksheet(sheet, JST)


def test_a_japanese_worksheet_with_a_time_moodle_never_writes_names_the_line(tmp_path):
    rows = [WorksheetRow(1, "山田 太郎", "a@example.ac.jp", datetime(2026, 12, 1, 23, 5))]
    sheet = tmp_path / "w.csv"
    text = moodle_grading_worksheet(rows, "ja").decode("utf-8")
    sheet.write_text(text + '参加者2,"田中 次郎",b@example.ac.jp,,,100.00,Yes,"2026/12/01 23:05",-,\n', encoding="utf-8")
    with pytest.raises(UsageError) as info:
        read_moodle_worksheet(sheet, JST)
    assert f"{sheet}: line 3" in str(info.value) and "2026/12/01 23:05" in str(info.value)
    sheet.write_text(text.replace("12月 1日", "13月 1日"), encoding="utf-8")
    with pytest.raises(UsageError, match="not a date that exists"):
        read_moodle_worksheet(sheet, JST)
    (tmp_path / "x.csv").write_text("ID,評点\n参加者1,3\n", encoding="utf-8")
    with pytest.raises(UsageError, match="no column 最終更新日時"):
        read_moodle_worksheet(tmp_path / "x.csv", JST)
