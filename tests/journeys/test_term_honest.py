"""A term in which no score changes without saying so, as an instructor runs it with the real commands.

A Moodle export of three students and its grading worksheet, downloaded from a Moodle shown in
Japanese (one student late by the worksheet's time, written as that Moodle writes it); a hidden test that is wrong; a ``--set`` adjustment and an ``adjust --part``; the test
fixed and graded again with ``grader regrade``, which moves the automatic score under the
``--set``; an extension granted, applied by ``--resume``; the adjustment that needs review
confirmed. Every line the terminal says about a moved score, every record, every gradebook
column of lateness and review, and ``grader ledger``'s states are checked as they read.
Two grading commands in all (the batch and the regrade).
"""

from __future__ import annotations

import csv
import json
import shutil
import zipfile
from pathlib import Path

import pytest
import yaml

from tests.helpers import EXAMPLES, FIXED_TEST, ROOT, course_with_a_wrong_test, files_of, read_gradebook, run_grader
from datetime import datetime

from tests.lms_exports import WorksheetRow, moodle_grading_worksheet, moodle_prefix, moodle_worksheet

DUE = "2026-12-01T23:59:00+09:00"
TARO, JANE, JIRO = "123458", "123462", "123464"


def _course(dest: Path) -> Path:
    """The course, its rubric due on DUE with every report format, and FIXED_TEST wrong (it
    fails everyone)."""
    rubric = course_with_a_wrong_test(dest, DUE)
    text = rubric.read_text(encoding="utf-8").replace("  formats: [yaml]\n", "  formats: [yaml, json, markdown, html]\n")
    rubric.write_text(text, encoding="utf-8")
    return rubric


def _moodle(dest: Path) -> tuple[Path, Path, tuple[str, ...]]:
    """(export, grading worksheet, the batch's options for them): the Moodle part of the term in one
    place, from a Moodle shown in Japanese (its worksheet's headers and dates, ``2026年 12月 2日(水曜日)
    10:00``). Taro handed in ten hours late by the worksheet's time; Jane and Jiro on time."""
    export = dest / "CS101-Chapter 7-42.zip"
    with zipfile.ZipFile(export, "w") as zf:
        for name, pid, folder in (("山田 太郎", TARO, "correct"), ("Jane Doe", JANE, "correct"),
                                  ("Jiro Suzuki", JIRO, "sqrt-d-model")):
            for fname, data in files_of(EXAMPLES / folder).items():
                zf.writestr(f"{moodle_prefix(name, int(pid))}_assignsubmission_file_/{fname}", data)
    sheet = dest / "Grades-CS101-Chapter 7-42.csv"
    sheet.write_bytes(moodle_grading_worksheet(
        [WorksheetRow(int(TARO), "山田 太郎", "taro@example.ac.jp", datetime(2026, 12, 2, 10, 0)),
         WorksheetRow(int(JANE), "Jane Doe", "jane@example.ac.jp", datetime(2026, 12, 1, 21, 0)),
         WorksheetRow(int(JIRO), "Jiro Suzuki", "jiro@example.ac.jp", datetime(2026, 12, 1, 20, 0))], "ja"))
    assert "最終更新日時 (提出)".encode() in sheet.read_bytes() and "2026年 12月 2日(水曜日) 10:00".encode() in sheet.read_bytes()
    return export, sheet, ("--worksheet", str(sheet), "--gradebook", "moodle", "--bom")


def _n(x: float | str) -> str:
    return f"{float(x):g}"


def _adds_up(row: dict[str, str]) -> None:
    """automatic − late penalty + adjustment = final, as the columns read."""
    auto, penalty = float(row["automatic_score"]), float(row["late_penalty"] or 0)
    assert auto - penalty + float(row["adjustment"]) == pytest.approx(float(row["score"])), row


def test_a_term_in_which_every_moved_score_is_named_with_why(tmp_path):
    rubric = _course(tmp_path / "course")
    export, sheet, moodle = _moodle(tmp_path)
    out = tmp_path / "out"
    r, en = ("--rubric", str(rubric)), ("--lang", "en")

    first = run_grader("batch", str(export), "--out", str(out), "--no-progress", "--no-table", "--seed", "5",
                       *moodle, *r, *en)
    assert first.returncode == 0, first.stderr
    rows = read_gradebook(out, by="student_id")
    taro, jane, jiro = rows[TARO], rows[JANE], rows[JIRO]
    top = float(jane["max_score"])
    wrong = top - float(jane["automatic_score"])  # what the wrong test costs a correct submission
    assert wrong > 0
    # lateness reads right: late where the penalty was taken, the penalty counted once
    assert (taro["late"], jane["late"], jiro["late"]) == ("yes", "no", "no")
    assert float(taro["late_penalty"]) == pytest.approx(0.1 * top) and jane["late_penalty"] == ""
    assert float(taro["automatic_score"]) == float(jane["automatic_score"])  # the same work: the same automatic score
    for row in rows.values():
        _adds_up(row)
        assert row["extension"] == "" and row["needs_review"] == ""

    # Jane's oral exam: her score set to 110 by hand
    set_to = run_grader("adjust", str(out), JANE, "--set", "110", "--reason", "oral exam", "--by", "tanaka", *r, *en)
    assert set_to.returncode == 0, set_to.stderr
    jane_name = jane["submission"]
    assert f"{jane_name}: final score {_n(jane['score'])} → 110" in set_to.stderr
    # Jiro's scaling part: one point back by hand, in every output
    jiro_name = jiro["submission"]
    part_before = float(jiro["part:scaling"])
    by_part = run_grader("adjust", str(out), JIRO, "--part", "scaling", "--points", "1", "--reason", "partial credit",
                         *r, *en)
    assert by_part.returncode == 0, by_part.stderr
    assert f"{jiro_name}: final score {_n(jiro['score'])} → {_n(float(jiro['score']) + 1)}" in by_part.stderr
    assert f"{jiro_name}: part scaling {_n(part_before)} → {_n(part_before + 1)}" in by_part.stderr
    reports = out / "reports"
    assert {p["id"]: p["score"] for p in yaml.safe_load((reports / f"{jiro_name}.yaml").read_text(
        encoding="utf-8"))["parts"]}["scaling"] == part_before + 1
    assert {p["id"]: p["score"] for p in json.loads((reports / f"{jiro_name}.json").read_text(
        encoding="utf-8"))["parts"]}["scaling"] == part_before + 1
    part_max = _n(next(p["max_score"] for p in yaml.safe_load((reports / f"{jiro_name}.yaml").read_text(
        encoding="utf-8"))["parts"] if p["id"] == "scaling"))
    md = (reports / f"{jiro_name}.md").read_text(encoding="utf-8")
    assert f" | {_n(part_before + 1)} / {part_max} |" in md and f" | {_n(part_before)} / {part_max} |" not in md
    html = (reports / f"{jiro_name}.html").read_text(encoding="utf-8")
    assert f'<tr data-part="scaling" data-score="{part_before + 1}"' in html
    assert float(read_gradebook(out, by="student_id")[JIRO]["part:scaling"]) == part_before + 1

    # the wrong test is fixed and graded again: the automatic score moves under Jane's --set
    shutil.copyfile(ROOT / "suites" / "chapter07" / "hidden" / "test_scaling.py",
                    rubric.parent.parent / "suites" / "chapter07" / "hidden" / "test_scaling.py")
    again = run_grader("regrade", str(export), "--out", str(out), "--test", FIXED_TEST, "--no-progress", *r, *en)
    assert again.returncode == 0, again.stderr
    rows = read_gradebook(out, by="student_id")
    auto_before, auto_after = _n(top - wrong), _n(top)
    # Jane keeps 110 (it did not fall back to the automatic score), and the terminal says why
    assert float(rows[JANE]["score"]) == 110 and rows[JANE]["needs_review"] == "#1"
    assert (f"{jane_name}: 110 → 110 (tests graded again: {FIXED_TEST}; automatic score {auto_before} → "
            f"{auto_after}; adjustment #1 now needs review (made against an automatic score of {auto_before}, now "
            f"{auto_after}); it stays applied until you decide: grader adjust OUT {jane_name} --confirm 1 or "
            f"--undo 1)") in again.stderr
    taro_from, taro_to = float(taro["score"]), float(rows[TARO]["score"])
    assert taro_to == pytest.approx(0.9 * top)
    assert (f"{taro['submission']}: {_n(taro_from)} → {_n(taro_to)} (tests graded again: {FIXED_TEST}; automatic "
            f"score {auto_before} → {auto_after})") in again.stderr
    # Jiro's part moved too: his +1 on scaling now needs review, still applied on the new score
    jiro_report = yaml.safe_load((reports / f"{jiro_name}.yaml").read_text(encoding="utf-8"))
    [entry] = jiro_report["adjustment"]["entries"]
    scaling_now = jiro_report["adjustment"]["automatic_parts"]["scaling"]
    assert (entry["status"], entry["now"]) == ("review", scaling_now) and scaling_now != part_before
    assert {p["id"]: p["score"] for p in jiro_report["parts"]}["scaling"] == scaling_now + 1
    jiro_auto = float(jiro_report["adjustment"]["automatic_score"])
    assert (f"{jiro_name}: {_n(float(jiro['score']) + 1)} → {_n(jiro_auto + 1)} (tests graded again: {FIXED_TEST}; "
            f"automatic score {_n(jiro['automatic_score'])} → {_n(jiro_auto)}; adjustment #2 now needs review (made "
            f"against an automatic score of {_n(part_before)}, now {_n(scaling_now)}); it stays applied until you "
            f"decide: grader adjust OUT {jiro_name} --confirm 2 or --undo 2)") in again.stderr
    [record] = sorted((out / "regrades").glob("*.csv"))
    changed = {c["student_id"]: c for c in csv.DictReader(record.open(encoding="utf-8"))}
    assert (changed[JANE]["from"], changed[JANE]["to"]) == ("110", "110")
    assert "adjustment #1 now needs review" in changed[JANE]["why"] and "調整 #1 が要確認" in changed[JANE]["why_ja"]
    assert [ln for ln in record.with_suffix(".md").read_text(encoding="utf-8").splitlines()
            if ln.startswith(f"| {jane_name} |")][0].startswith(f"| {jane_name} | 110 | 110 |")
    for row in rows.values():
        _adds_up(row)

    # the ledger and the gradebook page say the same
    listed = run_grader("ledger", str(out), *en)
    assert listed.returncode == 0, listed.stderr
    states = {line.split("\t")[0]: line.split("\t")[5] for line in listed.stdout.splitlines()}
    assert states == {"1": "needs review (still applied)", "2": "needs review (still applied)"}
    page = (out / "gradebook.en.html").read_text(encoding="utf-8")
    assert "2 with an adjustment that needs review (still applied" in page and page.count('<tr class="review">') == 2
    ja_page = (out / "gradebook.ja.html").read_text(encoding="utf-8")
    assert "うち要確認の調整がある行 2" in ja_page

    # Taro is granted a day: --resume grades nothing again, applies it and says so
    extensions = tmp_path / "extensions.csv"
    extensions.write_text(f"student,due,days,reason\n{TARO},,1,illness\n", encoding="utf-8")
    resumed = run_grader("batch", str(export), "--out", str(out), "--no-progress", "--no-table", "--resume",
                         "--extensions", str(extensions), *moodle, *r, *en)
    assert resumed.returncode == 0, resumed.stderr
    assert "0 graded, 3 kept" in resumed.stderr
    penalty = _n(0.1 * top)
    assert (f"{taro['submission']}: {_n(taro_to)} → {_n(top)} (extension applied (illness): late penalty "
            f"{penalty} → 0)") in resumed.stderr
    assert len([ln for ln in resumed.stderr.splitlines() if " → " in ln]) == 1, resumed.stderr  # nobody else moved
    [resume_record] = (out / "resumes").glob("*.csv")
    [line] = list(csv.DictReader(resume_record.open(encoding="utf-8")))
    assert (line["student_id"], line["from"], line["to"]) == (TARO, _n(taro_to), _n(top))
    assert line["why_ja"] == f"期限延長を適用しました（illness）。遅延による減点 {penalty} → 0"
    rows = read_gradebook(out, by="student_id")
    assert (rows[TARO]["late"], rows[TARO]["late_penalty"], rows[TARO]["extension"]) == ("no", "", "illness")
    assert float(rows[TARO]["score"]) == top
    assert float(rows[JANE]["score"]) == 110  # still applied, still in review
    # the import file is for that Moodle: its Japanese headers, Jane's 110 in it
    imported = moodle_worksheet(out / "gradebook.moodle.csv", "ja")
    assert imported[JANE]["grade"] == 110 and imported[TARO]["grade"] == top

    # the instructor decides: Jane's 110 holds
    confirmed = run_grader("adjust", str(out), JANE, "--confirm", "1", "--reason", "the oral exam stands", *r, *en)
    assert confirmed.returncode == 0, confirmed.stderr
    assert f"{jane_name}: final score 110 → 110" in confirmed.stderr
    rows = read_gradebook(out, by="student_id")
    assert rows[JANE]["needs_review"] == "" and float(rows[JANE]["score"]) == 110
    states = {ln.split("\t")[0]: ln.split("\t")[5] for ln in run_grader("ledger", str(out), *en).stdout.splitlines()}
    assert states == {"1": "confirmed", "2": "needs review (still applied)", "3": "recorded"}
    for row in rows.values():
        _adds_up(row)
