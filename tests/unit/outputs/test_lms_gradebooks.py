"""The Moodle grading worksheet the grader writes, in the words of a Moodle shown in English or in
Japanese, read back as Moodle's importer reads it.

Moodle's importer (``mod/assign/feedback/offline/importgradeslib.php``) finds its columns by
comparing each header with ``get_string('recordid', 'assign')``, ``get_string('gradenoun')`` and
``get_string('lastmodifiedgrade', 'assign')`` in the importing teacher's language, strips
``strlen(get_string('hiddenuser', 'assign'))`` bytes off the identifier, and reads the last-modified
time with PHP's ``strtotime``. The strings are Moodle's own (``tests.lms_exports.MOODLE_STRINGS``,
which names the files they come from).
"""

from __future__ import annotations

import csv
import io
from datetime import datetime, timezone
from pathlib import Path

import pytest

from grader.outputs.gradebook import GradebookRow
from grader.outputs.lms_gradebooks import moodle_lang_of, moodle_time, write_moodle
from grader.report.outdir import note_moodle_lang
from tests.lms_exports import MOODLE_STRINGS, moodle_worksheet, strtotime


def _rows() -> list[GradebookRow]:
    graded = GradebookRow("yamada_123458", "123458", name="山田 太郎", lms="moodle",
                          cells={"score": 87.5, "max_score": 100.0, "graded_at": "2026-12-07T01:00:00+00:00"},
                          feedback="得点 87.5 / 100")
    broken = GradebookRow("doe_123462", "123462", name="Jane Doe", lms="moodle", flagged=True,
                          errors="the upload is empty", cells={"score": "", "max_score": 100.0})
    plain = GradebookRow("someone", "someone", lms="")  # not a Moodle participant: no row
    return [graded, broken, plain]


def _columns(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))


def test_the_japanese_worksheet_has_moodles_japanese_columns_and_imports_there(tmp_path):
    path = tmp_path / "gradebook.moodle.csv"
    written = write_moodle(path, _rows(), 100.0, bom=True, langs=("ja", "en"), moodle_lang="ja")
    ja = MOODLE_STRINGS["ja"]
    header = next(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"))))
    assert header == [ja["recordid"], ja["fullname"], ja["status"], ja["gradenoun"], ja["maxgrade"],
                      ja["gradecanbechanged"], ja["lastmodifiedgrade"], ja["feedbackcomments"]]
    rows = _columns(path)
    assert [r["ID"] for r in rows] == ["参加者123458", "参加者123462"]  # no space: Moodle strips len('参加者')
    yamada, doe = rows
    assert (yamada["フルネーム"], yamada["ステータス"], yamada["評点"], yamada["最大評点"], yamada["評点変更可"]) == (
        "山田 太郎", "評定済み", "87.5", "100", "Yes")
    assert yamada["最終更新日時 (評定)"] == "2026-12-07T01:00:00+00:00"
    assert yamada["フィードバックコメント"] == "得点 87.5 / 100"
    assert (doe["ステータス"], doe["評点"], doe["最終更新日時 (評定)"]) == ("評点なし", "", "1970-01-01T00:00:00+00:00")
    assert "the upload is empty" in doe["フィードバックコメント"]
    # as the importer of a Japanese Moodle reads it: every column found, every time read exactly
    sheet = moodle_worksheet(path, "ja")
    assert sheet["123458"]["grade"] == 87.5
    assert sheet["123458"]["modified"] == datetime(2026, 12, 7, 1, 0, tzinfo=timezone.utc)
    assert sheet["123462"]["grade"] == "" and sheet["123462"]["modified"] == datetime(1970, 1, 1, tzinfo=timezone.utc)
    # an English Moodle finds none of its columns in it (so the terminal says which language it is for)
    with pytest.raises(ValueError):
        moodle_worksheet(path, "en")
    assert written.rows == 2 and written.graded == 1 and "Japanese" in written.note
    assert [who for who, _ in written.left_out] == ["someone"]


def test_the_english_worksheet_is_as_before(tmp_path):
    path = tmp_path / "gradebook.moodle.csv"
    written = write_moodle(path, _rows(), 100.0, bom=True, langs=("en",))
    rows = _columns(path)
    assert list(rows[0]) == ["Identifier", "Full name", "Status", "Grade", "Maximum Grade", "Grade can be changed",
                             "Last modified (grade)", "Feedback comments"]
    assert rows[0]["Identifier"] == "Participant 123458" and rows[0]["Status"] == "Graded"
    assert rows[0]["Last modified (grade)"] == "Monday, 7 December 2026, 1:00 AM"
    assert rows[1]["Status"] == "No grade" and rows[1]["Last modified (grade)"] == "Thursday, 1 January 1970, 12:00 AM"
    assert moodle_worksheet(path, "en")["123458"]["grade"] == 87.5
    assert "English" in written.note


def test_moodles_japanese_date_is_not_what_its_importer_reads():
    """Why the Japanese file carries ISO 8601: strtotime returns false for Moodle's own Japanese date."""
    with pytest.raises(ValueError):
        strtotime("2026年 12月 7日(月曜日) 10:00")
    assert strtotime(moodle_time("2026-12-07T10:00:00+09:00", "ja")) == datetime.fromisoformat("2026-12-07T10:00:00+09:00")
    assert moodle_time("2026-12-07T10:00:00", "ja") == "2026-12-07T10:00:00+00:00"  # (no offset: UTC, as graded_at)


def test_the_moodle_language_follows_the_worksheet_then_the_note_then_the_batch(tmp_path):
    assert moodle_lang_of(tmp_path, "ja") == "ja"
    assert moodle_lang_of(tmp_path, "en") == "en"
    assert moodle_lang_of(tmp_path, "fr") == "en"
    note_moodle_lang(tmp_path, "en")
    assert moodle_lang_of(tmp_path, "ja") == "en"  # a refresh keeps the language the batch wrote it in
    assert moodle_lang_of(tmp_path, "en", "ja") == "ja"  # a worksheet downloaded in Japanese decides
