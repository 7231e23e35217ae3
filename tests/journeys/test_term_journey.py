"""A term of grading, as an instructor runs it with the real commands.

Batch a Canvas export (one student late, by the submission times given); two adjustments and one
undo; a hidden test that was wrong is fixed and graded again for the class with ``grader regrade``;
an extension and ``--resume``; the Canvas
import file read back with Canvas's importer rules; the ledger verifies. Then one ledger line is
edited by hand, and every command that reads the ledger names that line and refuses.
"""

from __future__ import annotations

import csv
import shutil
import zipfile
from pathlib import Path

import pytest
import yaml

from tests.helpers import EXAMPLES, FIXED_TEST, ROOT, course_with_a_wrong_test, files_of, read_gradebook, run_grader
from tests.lms_exports import canvas_entry, canvas_import




def _export(dest: Path) -> Path:
    export = dest / "cs101-chapter-7_submissions.zip"
    with zipfile.ZipFile(export, "w") as zf:
        for name, uid, folder, late in (("Doe, Jane", 98765, "correct", False), ("山田, 太郎", 11111, "correct", True),
                                        ("Smith, John", 22222, "sqrt-d-model", False)):
            for k, (fname, data) in enumerate(files_of(EXAMPLES / folder).items()):
                zf.writestr(canvas_entry(name, uid, 7000 + 100 * (uid % 7) + k, fname, late=late), data)
    return export


def _course(dest: Path) -> Path:
    """A copy of the course whose hidden test FIXED_TEST is wrong: it fails every submission."""
    return course_with_a_wrong_test(dest, "2026-12-01T23:59:00+09:00")


def _tests(out: Path) -> dict[str, dict[str, str]]:
    """Each report's tests, each dumped as its own YAML text (to compare byte for byte)."""
    got = {}
    for path in sorted((out / "reports").glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        got[path.name] = {t["id"]: yaml.safe_dump(t, allow_unicode=True, sort_keys=True) for t in data["tests"]}
    return got


def test_a_term_of_grading(tmp_path):
    rubric = _course(tmp_path / "course")
    export = _export(tmp_path)
    out = tmp_path / "out"
    r = ("--rubric", str(rubric))

    submitted = tmp_path / "submitted.csv"  # Taro handed in ten hours late (Tokyo time); the others on time
    submitted.write_text("student,submitted\n98765,2026-12-01T20:00:00+09:00\n11111,2026-12-02T10:00:00+09:00\n"
                         "22222,2026-12-01T14:59:00+00:00\n", encoding="utf-8")
    first = run_grader("batch", str(export), "--out", str(out), "--no-progress", "--seed", "5",
                 "--gradebook", "canvas", "--canvas-assignment-id", "4242", "--submitted", str(submitted), *r)
    assert first.returncode == 0, first.stderr
    rows = read_gradebook(out, by="student_id")
    top = float(rows["98765"]["max_score"])
    points = 1.0 * [t for t in yaml.safe_load((out / "reports" / "doejane_98765.yaml").read_text(encoding="utf-8"))
                    ["tests"] if t["id"] == FIXED_TEST][0]["max_score"]
    assert float(rows["98765"]["score"]) == top - points  # the wrong test cost everyone its points
    late_before = float(rows["11111"]["score"])
    assert rows["11111"]["late"] == "yes" and float(rows["11111"]["late_penalty"]) > 0
    taro = yaml.safe_load((out / "reports" / "山田太郎_11111.yaml").read_text(encoding="utf-8"))
    assert taro["late"]["days"] == 1 and taro["late"]["due"] == "2026-12-01T23:59:00+09:00"
    assert any("提出 2026-12-02T10:00:00+09:00" in n for n in taro["notes"])

    # two adjustments and one undo
    assert run_grader("adjust", str(out), "22222", "--points", "3", "--reason", "regrade request: 採点ミス", "--by", "tanaka",
                *r).returncode == 0
    assert run_grader("adjust", str(out), "98765", "--part", "quiz", "--points=-1", "--reason", "wrong student",
                *r).returncode == 0
    assert run_grader("adjust", str(out), "98765", "--undo", "2", "--reason", "entered for the wrong student",
                *r).returncode == 0
    rows = read_gradebook(out, by="student_id")
    auto_smith = float(rows["22222"]["automatic_score"])
    assert float(rows["22222"]["score"]) == auto_smith + 3 and "採点ミス" in rows["22222"]["adjustment_reasons"]
    assert float(rows["98765"]["score"]) == top - points and rows["98765"]["adjustment_reasons"] == ""

    # the wrong test is fixed, and graded again for the class
    before = _tests(out)
    shutil.copyfile(ROOT / "suites" / "chapter07" / "hidden" / "test_scaling.py",
                    rubric.parent.parent / "suites" / "chapter07" / "hidden" / "test_scaling.py")
    again = run_grader("regrade", str(export), "--out", str(out), "--test", FIXED_TEST, "--no-progress", *r)
    assert again.returncode == 0, again.stderr
    after = _tests(out)
    for report, tests in before.items():
        assert tests.keys() == after[report].keys()
        for test_id, text in tests.items():
            if test_id != FIXED_TEST:
                assert after[report][test_id] == text, (report, test_id)  # byte for byte
            else:
                assert "passed" in after[report][test_id] and "a wrong test" not in after[report][test_id]
    [record] = sorted((out / "regrades").glob("*.csv"))
    changed = {r["student_id"]: r for r in csv.DictReader(record.open(encoding="utf-8"))}
    assert set(changed) == {"98765", "11111", "22222"} and all(FIXED_TEST in c["tests"] for c in changed.values())
    assert float(changed["98765"]["from"]) == top - points and float(changed["98765"]["to"]) == top
    rows = read_gradebook(out, by="student_id")
    assert float(rows["98765"]["score"]) == top
    for path in (out / "reports").glob("*.yaml"):  # every cell a report decides says what the report says
        report = yaml.safe_load(path.read_text(encoding="utf-8"))
        row = rows[report["student"]["id"]]
        assert float(row["max_score"]) == report["max_score"] and float(row["score"]) == report["score"]
        assert {p["id"]: float(row[f"part:{p['id']}"]) for p in report["parts"]} == {
            p["id"]: p["score"] for p in report["parts"]}, (row, report["parts"])
    assert float(rows["11111"]["score"]) == pytest.approx(round(top * 0.9, 2))  # the late policy, again
    assert float(rows["11111"]["score"]) > late_before
    # Smith's +3 was made against the score before the fix: shown for review, and still applied
    assert float(rows["22222"]["automatic_score"]) == auto_smith + points
    assert float(rows["22222"]["score"]) == auto_smith + points + 3
    assert "needs review" in rows["22222"]["adjustment_reasons"] and rows["22222"]["needs_review"] == "#1"
    # graded again with nothing changed since: no record is written again, and none is listed
    # (nor the gradebook and its pages: every row already says the same)
    def kept() -> dict[Path, tuple[int, bytes]]:
        files = [*(out / "reports").glob("*.yaml"), out / "gradebook.csv", *out.glob("gradebook.*.html")]
        return {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in files}

    records = kept()
    assert len(records) > 5 and out / "gradebook.en.html" in records
    same = run_grader("regrade", str(export), "--out", str(out), "--test", FIXED_TEST, "-j", "1", "--no-progress", *r)
    assert same.returncode == 0, same.stderr
    assert records == kept()
    newest = sorted((out / "regrades").glob("*.csv"))[-1]
    assert newest != record and [] == list(csv.DictReader(newest.open(encoding="utf-8")))
    assert run_grader("adjust", str(out), "22222", "--confirm", "1", "--reason", "still owed after the fix",
                *r).returncode == 0
    assert float(read_gradebook(out, by="student_id")["22222"]["score"]) == auto_smith + points + 3

    # Taro is granted a day's extension; --resume grades nothing again, applies it and keeps the ledger once
    extensions = tmp_path / "extensions.csv"
    extensions.write_text("student,due,days,reason\n11111,,1,illness (doctor's note)\n", encoding="utf-8")
    resumed = run_grader("batch", str(export), "--out", str(out), "--no-progress", "--resume",
                   "--gradebook", "canvas", "--canvas-assignment-id", "4242", "--submitted", str(submitted),
                   "--extensions", str(extensions), "--lang", "en", *r)
    assert resumed.returncode == 0, resumed.stderr
    assert "0 graded, 3 kept" in resumed.stderr
    rows = read_gradebook(out, by="student_id")
    assert float(rows["22222"]["score"]) == auto_smith + points + 3
    assert float(rows["22222"]["adjustment"]) == 3
    assert float(rows["11111"]["score"]) == top and rows["11111"]["late_penalty"] == ""

    # the Canvas import file, as Canvas reads it
    assert run_grader("export", str(out), "--gradebook", "canvas", "--canvas-assignment-id", "4242", *r).returncode == 0
    grades = canvas_import(out / "gradebook.canvas.csv")
    assert grades["points_possible"] == top
    assert grades["by_id"] == {"98765": top, "11111": top, "22222": auto_smith + points + 3}
    verified = run_grader("ledger", str(out), "--verify")  # in the language of the batch's reports
    assert verified.returncode == 0 and "記録 4 件" in verified.stderr, verified.stderr

    # one line edited by hand: every command that reads the ledger names it and refuses
    ledger = out / "ledger.jsonl"
    lines = ledger.read_text(encoding="utf-8").splitlines()
    lines[0] = lines[0].replace('"points":3.0', '"points":30.0')
    ledger.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for args in (("ledger", str(out), "--verify"),
                 ("adjust", str(out), "98765", "--points", "1", "--reason", "x", *r),
                 ("export", str(out), "--gradebook", "canvas", "--canvas-assignment-id", "4242", *r),
                 ("batch", str(export), "--out", str(out), "-j", "1", "--no-progress", "--resume", *r),
                 ("regrade", str(export), "--out", str(out), "--test", FIXED_TEST, "-j", "1", *r),
                 ("gradebook", str(out), "--out", str(tmp_path / "course.csv"))):
        proc = run_grader(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert "ledger.jsonl: line 1:" in proc.stderr and "1 行目" in proc.stderr, (args, proc.stderr)
    assert canvas_import(out / "gradebook.canvas.csv") == grades  # nothing was written from it


def test_a_regrade_lists_every_report_it_left_as_it_was_and_why(tmp_path, graded_class):
    """A submission gone from SOURCE since the batch (a withdrawn student, an export taken again)
    keeps its report byte for byte, and the regrade's record names it with why, in both languages.
    (The term goes on from a copy of the run's graded class.)"""
    src, out = graded_class.copy_source(tmp_path / "src"), graded_class.copy(tmp_path / "out")
    rubric = ROOT / "rubrics" / "chapter07.yaml"
    [gone] = [p for p in (out / "reports").glob("*.yaml") if "sqrt-d-model" in p.name]
    kept = gone.read_bytes()
    shutil.rmtree(src / "sqrt-d-model")
    again = run_grader("regrade", str(src), "--out", str(out), "--test", FIXED_TEST, "-j", "1", "--no-progress",
                 "--rubric", str(rubric))
    assert again.returncode == 0, again.stderr
    assert gone.read_bytes() == kept
    [record] = (out / "regrades").glob("*.md")
    text = record.read_text(encoding="utf-8")
    assert "Not graded again:" in text and "再採点していないもの:" in text, text
    [line] = [ln for ln in text.splitlines() if ln.startswith("- sqrt-d-model")]
    assert "SOURCE holds no submission of this name now" in line and "今この名前の提出物がない" in line
    assert not any(ln.startswith("- correct") for ln in text.splitlines())


def test_a_regrade_keeps_the_late_penalty_measured_from_the_submission_times(tmp_path):
    """A plain folder, --submitted times: the late student's penalty is measured again by the
    regrade from the same times, not dropped (the score went back to full, the record said why not)."""
    rubric = _course(tmp_path / "course")
    src = tmp_path / "src"
    for name in ("s1001", "s1002"):
        shutil.copytree(EXAMPLES / "correct", src / name)
    submitted = tmp_path / "submitted.csv"
    submitted.write_text("student,submitted\ns1001,2026-12-03T10:00:00+09:00\ns1002,2026-12-01T10:00:00+09:00\n",
                         encoding="utf-8")
    out = tmp_path / "out"
    first = run_grader("batch", str(src), "--out", str(out), "-j", "1", "--no-progress", "--rubric", str(rubric),
                 "--submitted", str(submitted))
    assert first.returncode == 0, first.stderr
    before = read_gradebook(out, by="student_id")
    assert float(before["s1001"]["late_penalty"]) > 0 and before["s1002"]["late_penalty"] == ""
    shutil.copyfile(ROOT / "suites" / "chapter07" / "hidden" / "test_scaling.py",
                    rubric.parent.parent / "suites" / "chapter07" / "hidden" / "test_scaling.py")  # the test fixed
    again = run_grader("regrade", str(src), "--out", str(out), "--test", FIXED_TEST, "-j", "1", "--no-progress",
                 "--rubric", str(rubric))
    assert again.returncode == 0, again.stderr
    after = read_gradebook(out, by="student_id")
    top = float(after["s1002"]["max_score"])
    assert float(after["s1002"]["score"]) == top
    assert float(after["s1001"]["score"]) == pytest.approx(top - float(after["s1001"]["late_penalty"]))
    assert float(after["s1001"]["late_penalty"]) == pytest.approx(0.1 * top)
    report = yaml.safe_load((out / "reports" / "s1001.yaml").read_text(encoding="utf-8"))
    assert report["late"]["submitted"] == "2026-12-03T10:00:00+09:00" and report["score"] < top


def test_a_name_and_its_adjustments_stay_with_their_student_as_others_leave_and_join(tmp_path):
    """``Carol/`` and ``carol/`` are two students whose report names fold together (``Carol`` and
    ``carol-2``). When Carol leaves SOURCE and a ``CAROL/`` joins, carol keeps ``carol-2`` and the
    adjustment made under it, CAROL is given a name nobody held, Carol's report stays out of every
    gradebook (export says so, adjust refuses it), and export keeps each folder's own student id."""
    src, out, rubric = tmp_path / "src", tmp_path / "out", ROOT / "rubrics" / "chapter07.yaml"
    for folder, example in (("Carol", "divide-by-dk"), ("carol", "sqrt-d-model"), ("dave", "divide-by-dk")):
        shutil.copytree(EXAMPLES / example, src / folder)
    common = ("--no-progress", "--rubric", str(rubric), "--lang", "en", "-j", "1")
    first = run_grader("batch", str(src), "--out", str(out), *common)
    assert first.returncode == 0, first.stderr
    assert {r["submission"]: sid for sid, r in read_gradebook(out, by="student_id").items()} == {"Carol": "Carol", "carol-2": "carol",
                                                                       "dave": "dave"}
    adjusted = run_grader("adjust", str(out), "carol-2", "--points", "5", "--reason", "regrade request", *common[1:5])
    assert adjusted.returncode == 0, adjusted.stderr
    carol_before = float(read_gradebook(out, by="student_id")["carol"]["score"])

    shutil.rmtree(src / "Carol")
    shutil.copytree(EXAMPLES / "correct", src / "CAROL")
    again = run_grader("batch", str(src), "--out", str(out), "--resume", *common)
    assert again.returncode == 0, again.stderr
    book = read_gradebook(out, by="student_id")
    assert {sid: r["submission"] for sid, r in book.items()} == {"carol": "carol-2", "dave": "dave",
                                                                 "CAROL": "CAROL-3"}
    assert float(book["carol"]["score"]) == carol_before
    assert float(book["carol"]["adjustment"]) == 5 and "regrade request" in book["carol"]["adjustment_reasons"]
    assert float(book["CAROL"]["adjustment"]) == 0

    exported = run_grader("export", str(out), *common[1:5])
    assert exported.returncode == 0, exported.stderr
    assert "left out 1 report(s) of entries no longer in SOURCE (kept in reports/): Carol" in exported.stderr
    assert {sid: r["submission"] for sid, r in read_gradebook(out, by="student_id").items()} == {"carol": "carol-2", "dave": "dave",
                                                                       "CAROL": "CAROL-3"}
    refused = run_grader("adjust", str(out), "Carol", "--points", "1", "--reason", "x", *common[1:5])
    assert refused.returncode != 0 and "Carol is not in the last batch" in refused.stderr
    assert (out / "reports" / "Carol.yaml").is_file()


def test_a_rerun_into_the_folder_grades_with_its_seed_so_adjustments_stay_in_force(tmp_path):
    """Run again without --resume (say, after a fix in the rubric's wording), the batch grades with
    the seed the folder's reports hold and says so: the random inputs are the same, the automatic
    scores too, and a hand adjustment stays applied instead of waiting for review. --seed still
    draws the inputs afresh."""
    src, out, rubric = tmp_path / "src", tmp_path / "out", ROOT / "rubrics" / "chapter07.yaml"
    shutil.copytree(EXAMPLES / "divide-by-dk", src / "alice")
    common = ("--no-progress", "--rubric", str(rubric), "--lang", "en", "-j", "1")
    assert run_grader("batch", str(src), "--out", str(out), *common).returncode == 0
    seed = yaml.safe_load((out / "reports" / "alice.yaml").read_text(encoding="utf-8"))["seed"]
    adjusted = run_grader("adjust", str(out), "alice", "--part", "scaling", "--points", "2", "--reason", "typo", *common[1:5])
    assert adjusted.returncode == 0, adjusted.stderr
    before = read_gradebook(out, by="student_id")["alice"]

    again = run_grader("batch", str(src), "--out", str(out), *common)
    assert again.returncode == 0, again.stderr
    assert f"grading with seed {seed}, as the reports already in the folder were" in again.stderr + again.stdout
    after = read_gradebook(out, by="student_id")["alice"]
    assert yaml.safe_load((out / "reports" / "alice.yaml").read_text(encoding="utf-8"))["seed"] == seed
    assert (after["score"], after["adjustment"]) == (before["score"], before["adjustment"]) and float(after["adjustment"]) == 2

    other = run_grader("batch", str(src), "--out", str(out), "--seed", str(seed + 1), *common)
    assert other.returncode == 0, other.stderr
    assert yaml.safe_load((out / "reports" / "alice.yaml").read_text(encoding="utf-8"))["seed"] == seed + 1


def test_a_student_keeps_name_and_adjustment_across_a_zip_a_twin_spelling_and_an_empty_upload(tmp_path):
    """``bob/`` handed in again as ``bob.zip`` is still bob, with his adjustment. Two folders named
    ``José`` whose names differ only in Unicode normalisation are two students: when one leaves,
    the other keeps their own name and adjustment and inherits nothing. And when bob then hands in
    an empty folder, adjust says why the batch did not grade him, not that he left SOURCE."""
    import unicodedata

    src, out, rubric = tmp_path / "src", tmp_path / "out", ROOT / "rubrics" / "chapter07.yaml"
    nfc, nfd = unicodedata.normalize("NFC", "José"), unicodedata.normalize("NFD", "José")
    assert nfc != nfd
    for folder, example in (("bob", "divide-by-dk"), (nfc, "correct"), (nfd, "sqrt-d-model")):
        shutil.copytree(EXAMPLES / example, src / folder)
    common = ("--no-progress", "--rubric", str(rubric), "--lang", "en", "-j", "1")
    first = run_grader("batch", str(src), "--out", str(out), *common)
    assert first.returncode == 0, first.stderr
    scores = {r["submission"]: float(r["score"]) for r in read_gradebook(out)}
    assert set(scores) == {"bob", "José", "José-2"}
    # The folder whose name is byte-identical to the label (NFC, as this file spells it) is that
    # row: the correct one; its NFD twin (divided by sqrt(d_model)) is José-2.
    assert "José" == nfc and scores["José"] > scores["José-2"], scores
    weaker, stronger = "José-2", "José"
    for who, points in (("bob", "3"), (weaker, "4")):
        adjusted = run_grader("adjust", str(out), who, "--points", points, "--reason", f"for {who}", *common[1:5])
        assert adjusted.returncode == 0, adjusted.stderr

    shutil.rmtree(src / "bob")
    with zipfile.ZipFile(src / "bob.zip", "w") as zf:
        for fname, data in files_of(EXAMPLES / "divide-by-dk").items():
            zf.writestr(fname, data)
    shutil.rmtree(src / nfc)
    again = run_grader("batch", str(src), "--out", str(out), *common)
    assert again.returncode == 0, again.stderr
    rows = {r["submission"]: r for r in read_gradebook(out)}
    assert set(rows) == {"bob", weaker}, rows.keys()
    assert float(rows["bob"]["adjustment"]) == 3 and "for bob" in rows["bob"]["adjustment_reasons"]
    assert float(rows[weaker]["adjustment"]) == 4 and float(rows[weaker]["automatic_score"]) == scores[weaker]
    exported = run_grader("export", str(out), *common[1:5])
    assert exported.returncode == 0, exported.stderr
    assert f"no longer in SOURCE (kept in reports/): {stronger}" in exported.stderr

    (src / "bob.zip").unlink()
    (src / "bob").mkdir()
    third = run_grader("batch", str(src), "--out", str(out), *common)
    assert third.returncode == 0, third.stderr
    refused = run_grader("adjust", str(out), "bob", "--points", "1", "--reason", "x", *common[1:5])
    assert refused.returncode != 0
    assert "bob has no report to adjust, since the batch did not grade it" in refused.stderr, refused.stderr
