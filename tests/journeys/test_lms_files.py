"""The instructor's journey with LMS files: names from any zip, long names, colliding names,
the Canvas file for the right assignment, no student silently left out of any gradebook, and
the batch's flags carried into ``grader export`` and ``grader gradebook``.

Exports are built byte for byte as the platforms name their entries (``tests.test_lms_journey``
has the naming rules); zips are also written by Info-ZIP's ``zip`` and, without the UTF-8 flag,
with the bytes Windows Explorer writes (cp932). Gradebooks are read back with the importers'
column rules.
"""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

import yaml

from tests.helpers import ROOT, RUBRIC, read_gradebook, run_grader
from tests.lms_exports import (CORRECT, EMPTY_ZIP, STUB, canvas_entry, canvas_text_entry, moodle_feedback_participants,
                               moodle_prefix, moodle_worksheet)


# --------------------------------------------------------------------------- names from any zip


# --------------------------------------------------------------------------- one entry fails alone


# --------------------------------------------------------------------------- colliding names


# --------------------------------------------------------------------------- choosing the assignment


def test_every_command_chooses_the_assignment_by_one_rule_in_a_two_rubric_course(tmp_path):
    """From the course folder (chapter 7 and chapter 8 rubrics) with no --rubric: a Canvas zip of
    chapter-7 work is batched with chapter 7, `grader export` takes the assignment its reports name,
    and `release`, which has nothing to go by, stops with the one message that names both rubrics
    and --rubric, as `check` without work to go by does."""
    canvas = tmp_path / "cs101_submissions.zip"  # a name that says nothing of the chapter
    with zipfile.ZipFile(canvas, "w") as zf:
        for k, (fname, data) in enumerate(CORRECT.items()):
            zf.writestr(canvas_entry("Doe, Jane", 98765, 7000 + k, fname), data)
    out = tmp_path / "out"
    proc = run_grader("batch", str(canvas), "--out", str(out), "-j", "1", "--no-progress", "--no-table",
                   "--canvas-assignment-id", "4242", "--lang", "en")
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    [report] = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in (out / "reports").glob("*.yaml")]
    assert report["assignment"] == "chapter07" and report["score"] == report["max_score"], report["score"]
    proc = run_grader("export", str(out), "--gradebook", "canvas", "--canvas-assignment-id", "4242", "--lang", "en")
    assert proc.returncode == 0, proc.stderr[-3000:]
    [row] = read_gradebook(out / "gradebook.canvas.csv")[1:] or read_gradebook(out / "gradebook.canvas.csv")
    assert row["ID"] == "98765", row
    said = []
    for args in (("release", str(tmp_path / "release")), ("check", str(tmp_path / "nothing-here"))):
        (tmp_path / "nothing-here").mkdir(exist_ok=True)
        proc = run_grader(*args)  # no language asked: the message in both
        assert proc.returncode == 2, (args, proc.stdout[-2000:], proc.stderr[-2000:])
        text = " ".join(proc.stderr.split())
        assert "holds 2 rubrics" in text and "--rubric" in text, text
        assert "chapter07.yaml" in text and "chapter08.yaml" in text, text
        said.append(text[text.index("holds 2 rubrics"):])
    assert said[0] == said[1]  # the same sentence for every command
    assert not (tmp_path / "release").exists()


# --------------------------------------------------------------------------- no silent loss, flags travel


def _canvas_export(dest: Path) -> Path:
    export = dest / "cs101-chapter-7_submissions.zip"
    with zipfile.ZipFile(export, "w", zipfile.ZIP_DEFLATED) as zf:
        def put(name: str | None, uid: int | str, first: int, files: dict[str, bytes]) -> None:
            for k, (fname, data) in enumerate(files.items()):
                zf.writestr(canvas_entry(name, uid, first + k, fname), data)

        put("Doe, Jane", 98765, 7000, CORRECT)
        put("Stub, Only", 22222, 7100, STUB)
        put("Empty, Zip", 33333, 7200, {"chapter07.zip": EMPTY_ZIP})
        put("Twin, One", 44444, 7300, CORRECT)  # two people whose entries claim one id
        put("Twin, Two", 44444, 7400, STUB)
        put(None, "anon_Xy7Q2", 7500, CORRECT)
        zf.writestr(canvas_text_entry("Text, Only", 88888), b"<p>my answer is 8</p>")
    return export


INSTRUCTOR_EXPORT = (
    "Student,ID,SIS User ID,SIS Login ID,Section,Quiz 1 (4100),Chapter 7: scaled attention (4242),"
    "Current Score,Final Score\r\n"
    "    Points Possible,,,,,10,124,,\r\n"
    '"Doe, Jane",98765,A001,jdoe,CS101-01,7,,70,70\r\n'
    '"Stub, Only",22222,A002,sonly,CS101-02,9,3,90,90\r\n'
    '"Empty, Zip",33333,A003,ezip,CS101-01,8,,80,80\r\n'
    '"Twin, One",44444,A004,tone,CS101-02,6,50,60,60\r\n'
    '"Never, Submitted",55555,A005,nsub,CS101-02,5,,50,50\r\n'
)


def test_every_student_has_a_row_in_every_gradebook_and_flags_travel(tmp_path):
    export = _canvas_export(tmp_path)
    out = tmp_path / "out"
    base = ["batch", str(export), "--out", str(out), "--no-progress", "--seed", "3", "--rubric",
            str(RUBRIC)]

    # Canvas without its assignment: refused before any grading, saying what to pass
    proc = run_grader(*base, "--gradebook", "canvas")
    assert proc.returncode == 2 and "--canvas-assignment-id" in proc.stderr and "--canvas-gradebook" in proc.stderr
    assert not (out / "reports").exists()
    # a gradebook for an LMS the export did not come from: refused with the reason
    proc = run_grader(*base, "--gradebook", "moodle")
    assert proc.returncode == 2 and "came from Canvas" in " ".join(proc.stderr.split())

    proc = run_grader(*base, "--canvas-assignment-id", "4242", "--lang", "en")
    assert proc.returncode == 0, proc.stderr
    said = " ".join(proc.stderr.split())
    book = read_gradebook(out / "gradebook.csv")
    by_id: dict[str, list[dict[str, str]]] = {}
    for row in book:
        by_id.setdefault(row["student_id"], []).append(row)
    assert {"98765", "22222", "33333", "44444", "anon_Xy7Q2", "88888"} <= set(by_id)
    assert len(by_id["44444"]) == 2 and all("duplicate_id" in r["flags"] for r in by_id["44444"])

    # the Canvas file: Title (id), every Canvas student a row, no grade where it is not to be trusted
    text = (out / "gradebook.canvas.csv").read_text(encoding="utf-8")
    header = next(csv.reader(io.StringIO(text)))
    assert header[-1].endswith("(4242)")
    canvas_rows = list(csv.DictReader(io.StringIO(text)))
    ids = [r["ID"] for r in canvas_rows if "Points Possible" not in r["Student"]]
    assert sorted(ids) == ["22222", "33333", "44444", "44444", "88888", "98765"]
    cells = {r["ID"]: r[header[-1]] for r in canvas_rows if r["ID"] in ("33333", "88888", "98765", "44444")}
    assert cells["33333"] == "" and cells["88888"] == "" and cells["44444"] == ""
    assert float(cells["98765"]) > 0
    # and the terminal says per file how many rows, and why each has no grade or no row
    assert "gradebook.canvas.csv: 6 rows, 2 with a grade" in said, said
    assert "no grade for emptyzip (33333)" in said and "the upload is empty" in said
    assert "left out anon_Xy7Q2" in said and "anonymous" in said

    # grader export: the batch's rows again, the assignment read from the reports (no --rubric)
    before = read_gradebook(out / "gradebook.csv")
    (tmp_path / "instructor.csv").write_text(INSTRUCTOR_EXPORT, encoding="utf-8")
    proc = run_grader("export", str(out), "--canvas-gradebook", str(tmp_path / "instructor.csv"), cwd=ROOT)
    # the column is titled otherwise in Canvas: refused, naming the columns, nothing rewritten
    assert proc.returncode == 2 and "Chapter 7: scaled attention (4242)" in proc.stderr
    assert read_gradebook(out / "gradebook.csv") == before
    proc = run_grader("export", str(out), "--canvas-gradebook", str(tmp_path / "instructor.csv"),
                   "--canvas-assignment-id", "4242", cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    said = " ".join(proc.stderr.split())  # in the rubric's first language, Japanese
    assert "gradebook.canvas.csv: 5 行、うち成績のある行 2" in said, said
    assert "emptyzip (33333) には成績がありません" in said and "anon_Xy7Q2 は含めていません" in said
    after = read_gradebook(out / "gradebook.csv")
    key = ["submission", "student_id", "score", "errors", "flags"]
    assert [[r[k] for k in key] for r in after] == [[r[k] for k in key] for r in before]
    filled = list(csv.reader(io.StringIO((out / "gradebook.canvas.csv").read_text(encoding="utf-8"))))
    original = list(csv.reader(io.StringIO(INSTRUCTOR_EXPORT)))
    assert filled[0] == original[0] and len(filled) == len(original)
    assert [r[:6] for r in filled] == [r[:6] for r in original]  # every row, section, other assignment kept
    column = {r[1]: r[6] for r in filled[2:]}
    jane = next(r for r in after if r["student_id"] == "98765")
    assert float(column["98765"]) == float(jane["score"])
    assert column["22222"] == next(r["score"] for r in after if r["student_id"] == "22222")
    assert column["44444"] == "50" and column["33333"] == "" and column["55555"] == ""  # kept as they were
    parsed = _canvas_import_filled(out / "gradebook.canvas.csv")
    assert parsed["98765"] == float(jane["score"])

    # grader adjust fills the same column of the instructor's file again, every other cell kept
    proc = run_grader("adjust", str(out), "98765", "--points", "-2", "--reason", "late upload", "--lang", "en", cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    again = list(csv.reader(io.StringIO((out / "gradebook.canvas.csv").read_text(encoding="utf-8"))))
    assert [r[:6] + r[7:] for r in again] == [r[:6] + r[7:] for r in filled]
    assert float({r[1]: r[6] for r in again[2:]}["98765"]) == float(jane["score"]) - 2
    after = read_gradebook(out / "gradebook.csv")

    # grader gradebook: the duplicate id is no score, and says why
    proc = run_grader("gradebook", str(out), "--out", str(tmp_path / "course.csv"))
    assert proc.returncode == 0, proc.stderr
    course = {r["student"]: r for r in read_gradebook(tmp_path / "course.csv")}
    assert course["44444"]["chapter07"] == "" and "2 rows claim this student" in course["44444"]["notes"]
    assert course["33333"]["chapter07"] == "" and "empty" in course["33333"]["notes"]
    assert "no score for 44444 in chapter07" in " ".join(proc.stderr.split())

    # a gradebook is never shrunk: a report removed, export refuses
    jane_report = next((out / "reports").glob("doejane_98765.yaml"))
    jane_report.unlink()
    proc = run_grader("export", str(out), "--canvas-assignment-id", "4242", cwd=ROOT)
    assert proc.returncode == 2 and "not rewritten" in proc.stderr
    assert read_gradebook(out / "gradebook.csv") == after


def _moodle_export(dest: Path) -> Path:
    """A Moodle export in which two folders claim one participant id (two downloads merged by
    hand, a folder renamed), beside a student of their own."""
    export = dest / "CS101-Chapter 7-44.zip"
    with zipfile.ZipFile(export, "w", zipfile.ZIP_DEFLATED) as zf:
        def put(name: str, pid: int, files: dict[str, bytes]) -> None:
            for fname, data in files.items():
                zf.writestr(f"{moodle_prefix(name, pid)}_assignsubmission_file_/{fname}", data)

        put("Jane Doe", 123600, CORRECT)
        put("Twin One", 123601, CORRECT)  # two people whose folders claim one id
        put("Twin Two", 123601, STUB)
    return export


def test_a_duplicate_moodle_id_is_credited_nowhere_and_says_so(tmp_path):
    """The Moodle side of the flags: the grading worksheet gives neither claimant a grade (and
    keeps a grade given by hand), the feedback-files zip has no folder for the id, the
    terminal and the course gradebook say why."""
    export = _moodle_export(tmp_path)
    out = tmp_path / "out"
    proc = run_grader("batch", str(export), "--out", str(out), "--no-progress", "--seed", "3",
                   "--rubric", str(RUBRIC), "--gradebook", "moodle", "--bom", "--lang", "en")
    assert proc.returncode == 0, proc.stderr
    said = " ".join(proc.stderr.split())
    book = read_gradebook(out / "gradebook.csv")
    twins = [r for r in book if r["student_id"] == "123601"]
    assert len(twins) == 2 and all("duplicate_id" in r["flags"] for r in twins), twins
    assert all(r["score"] for r in twins)  # both were graded: which one counts is for a person

    # the worksheet, as Moodle's offline-grading importer reads it: a row per claimant, no grade
    with (out / "gradebook.moodle.csv").open(encoding="utf-8-sig", newline="") as fh:
        sheet = list(csv.DictReader(fh))
    rows = [r for r in sheet if r["Identifier"] == "Participant 123601"]
    assert len(rows) == 2 and {r["Full name"] for r in rows} == {"Twin One", "Twin Two"}
    for row in rows:
        assert row["Grade"] == "" and row["Status"] == "No grade", row
        assert row["Last modified (grade)"] == "Thursday, 1 January 1970, 12:00 AM"  # a hand grade stays
        assert "more than one entry claims student id 123601" in row["Feedback comments"], row
    graded = moodle_worksheet(out / "gradebook.moodle.csv")
    assert isinstance(graded["123600"]["grade"], float) and graded["123600"]["grade"] > 0
    # the feedback files: Jane's report, none for the disputed id
    assert moodle_feedback_participants(out / "moodle-feedback-files.zip") == {123600}
    # and the terminal says per file what it left without a grade, and why
    assert "gradebook.moodle.csv: 3 rows, 1 with a grade" in said, said
    assert "moodle-feedback-files.zip: 1 rows, 1 with a grade" in said, said
    assert "no grade for Twin One (123601)" in said and "no grade for Twin Two (123601)" in said, said

    # an adjustment (no --lang: the rubric's first language is Japanese) refreshes the worksheet
    # in the language the batch wrote it in, English, for the twins as for Jane
    before = {r["Full name"]: r["Feedback comments"] for r in sheet}
    proc = run_grader("adjust", str(out), "123600", "--points", "-1", "--reason", "late upload")
    assert proc.returncode == 0, proc.stderr
    assert "ledger entry 1 written" in proc.stderr, proc.stderr  # (English, as the batch)
    with (out / "gradebook.moodle.csv").open(encoding="utf-8-sig", newline="") as fh:
        after = {r["Full name"]: r["Feedback comments"] for r in csv.DictReader(fh)}
    assert {k: v for k, v in after.items() if k != "Jane Doe"} == {k: v for k, v in before.items() if k != "Jane Doe"}
    assert "late upload" in after["Jane Doe"] and "Automatic score" in after["Jane Doe"], after["Jane Doe"]

    # grader gradebook: the duplicate id is no score, and says why
    proc = run_grader("gradebook", str(out), "--out", str(tmp_path / "course.csv"))
    assert proc.returncode == 0, proc.stderr
    course = {r["student"]: r for r in read_gradebook(tmp_path / "course.csv")}
    assert course["123601"]["chapter07"] == "" and "2 rows claim this student" in course["123601"]["notes"]
    assert float(course["123600"]["chapter07"]) > 0


def _canvas_import_filled(path: Path) -> dict[str, float]:
    """Canvas's importer on a filled export: Current/Final columns ignored, ids matched."""
    text = path.read_text(encoding="utf-8-sig")
    rows = list(csv.reader(io.StringIO(text)))
    header = rows[0]
    section = max(i for i, h in enumerate(header) if "Section" in h)
    import re

    ignored = re.compile(r"(Current|Final|Unposted) (Score|Points|Grade)|Override")
    columns = [i for i in range(section + 1, len(header)) if not ignored.search(header[i])]
    col = next(i for i in columns if header[i].endswith("(4242)"))
    return {r[1]: float(r[col]) for r in rows[1:] if "Points Possible" not in r[0] and r[col]}


def test_an_unreadable_upload_graded_by_hand_keeps_its_score_on_every_run_and_in_every_gradebook(tmp_path):
    """An upload nobody could read is no grade in the worksheet and the course table alike; once
    the instructor grades it by hand (grader adjust --set), the score is in both, and a re-run
    of the batch into the same folder keeps it."""
    export = tmp_path / "CS101-Chapter 7-45.zip"
    with zipfile.ZipFile(export, "w", zipfile.ZIP_DEFLATED) as zf:
        for fname, data in CORRECT.items():
            zf.writestr(f"{moodle_prefix('Jane Doe', 123700)}_assignsubmission_file_/{fname}", data)
        zf.writestr(f"{moodle_prefix('Eve Broken', 123701)}_assignsubmission_file_/eve.zip", b"PK\x03\x04 not a zip")
    out = tmp_path / "out"
    batch = ["batch", str(export), "--out", str(out), "-j", "1", "--no-progress", "--rubric", str(RUBRIC),
             "--gradebook", "moodle", "--bom", "--lang", "en"]

    def course() -> dict[str, dict[str, str]]:
        proc = run_grader("gradebook", str(out), "--out", str(tmp_path / "course.csv"))
        assert proc.returncode == 0, proc.stderr
        return {r["student"]: r for r in read_gradebook(tmp_path / "course.csv")}

    proc = run_grader(*batch)
    assert proc.returncode == 0, proc.stderr
    assert moodle_worksheet(out / "gradebook.moodle.csv")["123701"]["grade"] == ""
    before = course()
    assert before["123701"]["chapter07"] == "" and "could not be read" in before["123701"]["notes"]
    assert before["123701"]["total"] == "0" and float(before["123700"]["chapter07"]) > 0

    proc = run_grader("adjust", str(out), "123701", "--set", "50", "--reason", "read the upload by hand")
    assert proc.returncode == 0, proc.stderr
    for run in ("adjusted", "run again"):
        assert moodle_worksheet(out / "gradebook.moodle.csv")["123701"]["grade"] == 50.0, run
        assert float({r["student_id"]: r for r in read_gradebook(out / "gradebook.csv")}["123701"]["score"]) == 50.0, run
        assert course()["123701"]["chapter07"] == "50", run
        if run == "adjusted":
            proc = run_grader(*batch)  # into the same folder, no --resume
            assert proc.returncode == 0, proc.stderr
