"""Submission times from the LMS itself: Moodle's grading worksheet (``--worksheet``) and
Blackboard's attempt time, measured against the rubric's ``due:`` by its late policy.

The worksheet is written as Moodle's "Download grading worksheet" writes it (mod/assign's
grading table: ``Identifier`` = ``Participant <id>``, ``Last modified (submission)`` = the
teacher's ``userdate()``, ``-`` when nothing was submitted); the Blackboard export as
Blackboard names its entries (``<assignment>_<user>_attempt_<YYYY-MM-DD-HH-MM-SS>_<file>``).
"""

from __future__ import annotations

import csv
import subprocess
import zipfile
from datetime import timedelta, timezone
from pathlib import Path

import pytest
import yaml


from tests.helpers import EXAMPLES, course_copy, run_grader
from tests.lms_exports import blackboard_txt, canvas_entry
from tests.unit.ingest.test_lms_times import _worksheet

JST = timezone(timedelta(hours=9))
DUE = "2026-12-01T23:59:00+09:00"


def _course(dest: Path) -> Path:
    rubric = course_copy(dest) / "rubrics" / "chapter07.yaml"
    rubric.write_text(rubric.read_text(encoding="utf-8") + f"\ndue: {DUE}\n", encoding="utf-8")
    return rubric


def _batch(rubric: Path, source: Path, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_grader("batch", source, "--out", out, "--no-progress", "--no-table", "--seed", "3", "--rubric", rubric,
                      *args)


def _lateness(out: Path) -> dict[str, dict]:
    got = {}
    for path in sorted((out / "reports").glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        got[data["student"]["id"]] = data
    return got


def _correct() -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((EXAMPLES / "correct").iterdir()) if p.is_file()}


def _moodle_three(tmp_path: Path, yamada_at: str) -> tuple[Path, Path, Path]:
    """(rubric, export, worksheet): three correct uploads; the worksheet has Yamada at
    ``yamada_at``, Jane Doe on 2 December at 9:30 AM, and no time for the third."""
    rubric = _course(tmp_path / "course")
    export = tmp_path / "CS101-Chapter 7-42.zip"
    with zipfile.ZipFile(export, "w") as zf:
        for name, pid in (("山田 太郎", "123458"), ("Jane Doe", "123462"), ("No Time", "123463")):
            for fname, data in _correct().items():
                zf.writestr(f"{name}_{pid}_assignsubmission_file_/{fname}", data)
    sheet = _worksheet(tmp_path / "Grades-CS101-Chapter 7-42.csv",
                       [("123458", "山田 太郎", yamada_at), ("123462", "Jane Doe", "Wednesday, 2 December 2026, 9:30 AM"),
                        ("123463", "No Time", "-")])
    return rubric, export, sheet


def test_moodle_worksheet_times_decide_who_is_late(tmp_path):
    """A Moodle export and its worksheet: the one who submitted after the due date (on the
    teacher's clock, the due date's zone) loses one day's penalty, with the times in the report;
    the one on time and the one the worksheet has no time for lose nothing."""
    rubric, export, sheet = _moodle_three(tmp_path, "Tuesday, 1 December 2026, 11:05 PM")
    out = tmp_path / "out"
    proc = _batch(rubric, export, out, "--worksheet", str(sheet))
    assert proc.returncode == 0, proc.stderr
    reports = _lateness(out)
    assert "late" not in reports["123458"] and "late" not in reports["123463"]
    late = reports["123462"]["late"]
    assert late["days"] == 1 and late["submitted"] == "2026-12-02T09:30:00+09:00" and late["due"] == DUE
    assert late["score"] == pytest.approx(late["score_before"] * 0.9)
    with (out / "gradebook.csv").open(encoding="utf-8-sig", newline="") as fh:
        rows = {r["student_id"]: r for r in csv.DictReader(fh)}
    assert float(rows["123462"]["score"]) == pytest.approx(late["score"])
    assert float(rows["123458"]["score"]) == pytest.approx(late["score_before"])
    # without the worksheet nothing says they were late: nobody loses anything
    plain = _batch(rubric, export, tmp_path / "plain")
    assert plain.returncode == 0, plain.stderr
    assert all("late" not in r for r in _lateness(tmp_path / "plain").values())


def test_a_blind_batch_measures_lateness_by_each_students_own_time_and_extension(tmp_path):
    """--anonymous: the worksheet, --submitted and --extensions name students by their own ids,
    the reports by random ones; each late penalty still lands on the right student."""
    rubric, export, sheet = _moodle_three(tmp_path, "Thursday, 3 December 2026, 11:05 PM")
    submitted = tmp_path / "submitted.csv"
    submitted.write_text("student,submitted\n123463,2026-12-02T08:00:00+09:00\n", encoding="utf-8")
    extensions = tmp_path / "extensions.csv"
    extensions.write_text("student,days,reason\n123462,1,illness\n", encoding="utf-8")
    out = tmp_path / "out"
    proc = _batch(rubric, export, out, "--anonymous", "--worksheet", str(sheet), "--submitted", str(submitted),
                  "--extensions", str(extensions))
    assert proc.returncode == 0, proc.stderr
    with (out / "identities.csv").open(encoding="utf-8", newline="") as fh:
        pid_of = {r["anonymous_id"]: r["student_id"] for r in csv.DictReader(fh)}
    reports = {pid_of[aid]: data for aid, data in _lateness(out).items()}
    assert set(reports) == {"123458", "123462", "123463"}
    assert reports["123458"]["late"]["days"] == 2  # the worksheet's time, on the teacher's clock
    assert "late" not in reports["123462"]  # a day late, with a day's extension
    assert reports["123463"]["late"]["days"] == 1 and reports["123463"]["late"]["submitted"] == "2026-12-02T08:00:00+09:00"
    for data in reports.values():  # the rubric's policy: a tenth of the maximum, however late
        if "late" in data:
            assert data["score"] == pytest.approx(data["late"]["score_before"] - 0.1 * data["max_score"])
        else:
            assert data["score"] == data["max_score"]


def test_blackboard_attempt_time_decides_who_is_late(tmp_path):
    """Blackboard names each attempt with its time: the later attempt counts, and it is late
    by two days on the due date's clock; --submitted, where given, wins over it."""
    rubric = _course(tmp_path / "course")
    export = tmp_path / "gradebook_CS101_Chapter7_2026-12-05-10-00-00.zip"
    with zipfile.ZipFile(export, "w") as zf:
        for user, full, when in (("jdoe", "Jane Doe", "2026-11-30-21-15-00"), ("jdoe", "Jane Doe", "2026-12-03-08-00-00"),
                                 ("tyamada", "山田 太郎", "2026-12-01-23-00-00")):
            stored = [(f, f"Chapter7_{user}_attempt_{when}_{f}") for f in _correct()]
            zf.writestr(f"Chapter7_{user}_attempt_{when}.txt", blackboard_txt(full, user, "Chapter7", when, stored))
            for (_, name), data in zip(stored, _correct().values()):
                zf.writestr(name, data)
    out = tmp_path / "out"
    proc = _batch(rubric, export, out)
    assert proc.returncode == 0, proc.stderr
    reports = _lateness(out)
    assert "late" not in reports["tyamada"]
    assert reports["jdoe"]["late"]["days"] == 2 and reports["jdoe"]["late"]["submitted"] == "2026-12-03T08:00:00+09:00"
    submitted = tmp_path / "submitted.csv"
    submitted.write_text("student,submitted\njdoe,2026-12-01T20:00:00+09:00\n", encoding="utf-8")
    again = _batch(rubric, export, tmp_path / "again", "--submitted", str(submitted))
    assert again.returncode == 0, again.stderr
    assert all("late" not in r for r in _lateness(tmp_path / "again").values())


def test_no_student_silently_misses_their_time_or_extension(tmp_path):
    """A Canvas export (only LATE flags) with the instructor's files as Excel on Japanese Windows
    writes them (CP932, CRLF): a student flagged LATE who has an extension but no time loses
    nothing and the report says why; a full-width id in --submitted still finds its student; a
    row that matches no submission is named on the terminal, never silently dropped."""
    rubric = _course(tmp_path / "course")
    export = tmp_path / "submissions.zip"
    with zipfile.ZipFile(export, "w") as zf:
        for who, uid, late in (("yamadataro", 11111, True), ("suzukihanako", 22222, False), ("doejane", 33333, True)):
            for k, (fname, data) in enumerate(_correct().items()):
                zf.writestr(canvas_entry(who, uid, 900 + k, fname, late=late), data)
    extensions = tmp_path / "extensions.csv"
    extensions.write_bytes("student,days,reason\r\n11111,2,病気（診断書あり）\r\n99999,1,番号の打ち間違い\r\n"
                           .encode("cp932"))
    submitted = tmp_path / "submitted.csv"
    submitted.write_bytes("student,submitted\r\n\r\n２２２２２,2026-12-03T09:00:00+09:00\r\n".encode("cp932"))
    out = tmp_path / "out"
    proc = _batch(rubric, export, out, "--extensions", str(extensions), "--submitted", str(submitted))
    assert proc.returncode == 0, proc.stderr
    reports = _lateness(out)
    extended = reports["11111"]
    assert "late" not in extended and extended["score"] == extended["max_score"]
    assert any("no submission time is known" in n and "延長" in n for n in extended["notes"])
    assert reports["22222"]["late"]["days"] == 2  # its full-width id found it
    assert reports["33333"]["late"]["score"] < reports["33333"]["max_score"]  # LATE, no extension: the flag
    assert "警告: --extensions に書かれた学生のうち 1 人が、採点した提出のどれとも一致しません: 99999。" in proc.stderr
    assert "警告: 延長のある学生 1 人は提出時刻がわからないため" in proc.stderr and "11111" in proc.stderr
    assert "--submitted に書かれた" not in proc.stderr  # (２２２２２ is 22222)
    # --resume keeps one note, not two
    again = _batch(rubric, export, out, "--extensions", str(extensions), "--submitted", str(submitted), "--resume")
    assert again.returncode == 0, again.stderr
    notes = _lateness(out)["11111"]["notes"]
    assert sum("no submission time is known" in n for n in notes) == 1


def test_a_japanese_moodle_worksheet_decides_lateness_and_the_import_file_is_for_that_moodle(tmp_path):
    """Moodle shown in Japanese, end to end: the grading worksheet as that Moodle downloads it
    (``tests.lms_exports.moodle_grading_worksheet``: Moodle's Japanese column names and dates,
    from mod/assign/gradingtable.php, mod/assign/lang/*/assign.php and lang/ja/langconfig.php)
    decides who is late; gradebook.moodle.csv carries the Japanese columns Moodle's importer
    (mod/assign/feedback/offline/importgradeslib.php) looks for, column by column, with a time
    its strtotime reads; a later adjustment keeps them."""
    from datetime import datetime

    from tests.lms_exports import MOODLE_STRINGS, WorksheetRow, moodle_grading_worksheet, moodle_worksheet

    rubric = _course(tmp_path / "course")
    export = tmp_path / "CS101-第7章-42.zip"
    people = (("山田 太郎", 123458), ("Jane Doe", 123462), ("鈴木 一郎", 123463))
    with zipfile.ZipFile(export, "w") as zf:
        for name, pid in people:
            for fname, data in _correct().items():
                zf.writestr(f"{name}_{pid}_assignsubmission_file_/{fname}", data)
    sheet = tmp_path / "評定ワークシート-CS101-第7章-42.csv"
    sheet.write_bytes(moodle_grading_worksheet(
        [WorksheetRow(123458, "山田 太郎", "yamada@example.ac.jp", datetime(2026, 12, 1, 23, 5)),
         WorksheetRow(123462, "Jane Doe", "jane@example.ac.jp", datetime(2026, 12, 2, 9, 30)),
         WorksheetRow(123463, "鈴木 一郎", "suzuki@example.ac.jp", None)], "ja"))
    assert "2026年 12月 2日(水曜日) 09:30".encode() in sheet.read_bytes()
    out = tmp_path / "out"
    proc = _batch(rubric, export, out, "--worksheet", str(sheet), "--gradebook", "moodle", "--bom", "--lang", "en")
    assert proc.returncode == 0, proc.stderr

    # the Japanese times decide lateness: Jane, at 09:30 the next morning, is a day late
    reports = _lateness(out)
    assert "late" not in reports["123458"] and "late" not in reports["123463"]
    late = reports["123462"]["late"]
    assert late["days"] == 1 and late["submitted"] == "2026-12-02T09:30:00+09:00" and late["due"] == DUE

    # the import file, for the Moodle the worksheet came from (Japanese, though the reports are English)
    said = " ".join(proc.stderr.split())
    assert "gradebook.moodle.csv is in the words of Moodle shown in Japanese" in said, said
    ja = MOODLE_STRINGS["ja"]
    text = (out / "gradebook.moodle.csv").read_bytes()
    assert text.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(text.decode("utf-8-sig").splitlines()))
    assert rows[0] == [ja["recordid"], ja["fullname"], ja["status"], ja["gradenoun"], ja["maxgrade"],
                       ja["gradecanbechanged"], ja["lastmodifiedgrade"], ja["feedbackcomments"]]
    with (out / "gradebook.csv").open(encoding="utf-8-sig", newline="") as fh:
        book = {r["student_id"]: r for r in csv.DictReader(fh)}
    got = {row[0]: row for row in rows[1:]}
    assert set(got) == {"参加者123458", "参加者123462", "参加者123463"}
    for name, pid in people:
        ident, full, status, grade, top, changeable, modified, feedback = got[f"参加者{pid}"]
        assert (ident, full, status, changeable) == (f"参加者{pid}", name, ja["graded"], ja["yes"])
        assert float(grade) == float(book[str(pid)]["score"]) and float(top) == float(book[str(pid)]["max_score"])
        assert modified == book[str(pid)]["graded_at"] == reports[str(pid)]["graded_at"]  # ISO 8601, with its offset
        assert feedback.startswith(f"Score {float(grade):g} / {float(top):g}"), feedback  # (the reports' language)
    assert "(late: from" in got["参加者123462"][7] and "(late" not in got["参加者123458"][7]
    assert float(got["参加者123462"][3]) == pytest.approx(late["score"])
    # read as a Japanese Moodle's importer reads it
    imported = moodle_worksheet(out / "gradebook.moodle.csv", "ja")
    assert {pid: row["grade"] for pid, row in imported.items()} == {
        str(pid): float(book[str(pid)]["score"]) for _, pid in people}

    # an adjustment without --lang refreshes it for the same Moodle
    proc = run_grader("adjust", str(out), "123458", "--points", "-1", "--reason", "late upload")
    assert proc.returncode == 0, proc.stderr
    again = moodle_worksheet(out / "gradebook.moodle.csv", "ja")
    assert again["123458"]["grade"] == float(book["123458"]["score"]) - 1
    assert again["123462"] == imported["123462"]
