"""LMS entry names: ids only from the part the LMS fixes; shared ids flagged; CSV cells inert."""

from __future__ import annotations

import csv
import io
import zipfile

import pytest

from grader.ingest.discovery import find_submissions
from grader.outputs.gradebook import cell, csv_text
from grader.ingest.lms import disk_name, lms_name
from tests.lms_exports import CORRECT, canvas_entry, moodle_prefix


@pytest.mark.parametrize(
    ("entry", "is_dir", "lms", "student_id", "name"),
    [
        ("山田 太郎_123458_assignsubmission_file_", True, "moodle", "123458", "山田 太郎"),
        ("Participant_777_assignsubmission_file_", True, "moodle", "777", "Participant"),
        # a blind-marking download from Moodle shown in Japanese: get_string('participant', 'assign')
        ("参加者_778_assignsubmission_file_", True, "moodle", "778", "参加者"),
        ("参加者_779_assignsubmission_file_scaling.py", False, "moodle", "779", "参加者"),
        # a full name ending like a victim's folder: Moodle's own number comes last
        ("Eve_123458_assignsubmission_file__999_assignsubmission_file_", True, "moodle", "999",
         "Eve_123458_assignsubmission_file_"),
        ("Jane Doe_1234567_assignsubmission_file_hw1.ipynb", False, "moodle", "1234567", "Jane Doe"),
        ("smithjohn_LATE_123456_7890123_hw1.py", False, "canvas", "123456", "smithjohn"),
        ("doejane_98765_7890999_analysis-1.ipynb", False, "canvas", "98765", "doejane"),
        ("anon_AbC12_9100_scaling.py", False, "canvas", "anon_AbC12", ""),
        ("Chapter7_jdoe_attempt_2026-11-30-21-15-00_scaling.py", False, "blackboard", "jdoe", ""),
    ],
)
def test_ids_come_from_the_fixed_part_of_the_name(entry, is_dir, lms, student_id, name):
    parsed = lms_name(entry, is_dir=is_dir)
    assert parsed is not None
    assert (parsed.lms, parsed.student_id, parsed.name) == (lms, student_id, name)


def test_a_flat_moodle_name_repeating_the_marker_is_not_read_as_the_victims(tmp_path):
    assert lms_name("Eve_123458_assignsubmission_file__999_assignsubmission_file_x.py", is_dir=False,
                    lms="moodle") is None


def test_late_flag_and_unicode_names_survive_canvas_naming():
    entry = canvas_entry("山田, 太郎", 11111, 7200, "scaling.py", late=True)
    assert entry == "山田太郎_LATE_11111_7200_scaling.py"
    parsed = lms_name(entry, is_dir=False, lms="canvas")
    assert parsed.late and parsed.name == "山田太郎" and parsed.student_id == "11111"
    assert disk_name(parsed.name, parsed.student_id) == "山田太郎_11111"


def test_two_entries_claiming_one_id_are_both_flagged_and_never_exported(tmp_path):
    export = tmp_path / "moodle.zip"
    with zipfile.ZipFile(export, "w") as zf:
        for name in ("Victim One", "Impostor"):
            for f, data in CORRECT.items():
                zf.writestr(f"{moodle_prefix(name, 123458)}_assignsubmission_file_/{f}", data)
        for f, data in CORRECT.items():
            zf.writestr(f"{moodle_prefix('Other', 5)}_assignsubmission_file_/{f}", data)
    found = find_submissions(export, tmp_path / "s")
    flagged = {f.name: [k for k, _ in f.flags] for f in found.found}
    assert flagged["Victim One"] == ["duplicate_id"] and flagged["Impostor"] == ["duplicate_id"]
    assert flagged["Other"] == []


def test_a_canvas_name_that_can_be_split_two_ways_is_flagged(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    # the student "x_111" (Canvas keeps a trailing _<digits>) has user id 222
    (src / "x_111_222_333_scaling.py").write_bytes(CORRECT["scaling.py"])
    (src / canvas_entry("Victim", 111, 400, "scaling.py")).write_bytes(CORRECT["scaling.py"])
    found = find_submissions(src, tmp_path / "s")
    keys = {f.entry: [k for k, _ in f.flags] for f in [*found.found, *found.skipped]}
    assert "ambiguous_id" in keys["x_111_222_333_scaling.py"]
    assert len(keys) == 2 and all("duplicate_id" in k for k in keys.values())


@pytest.mark.parametrize("text", ["=HYPERLINK(\"http://x\",\"y\")", "+1+1", "-2+3", "@SUM(A1)", "\t=1",
                                  "\r=1", "＝1+1"])
def test_csv_cells_never_start_a_formula(text):
    assert cell(text).startswith("'")
    [row] = list(csv.reader(io.StringIO(csv_text(["a"], [[text]]).split("\r\n", 1)[1])))
    assert row[0] == cell(text) and row[0].startswith("'")


@pytest.mark.parametrize(("value", "shown"), [(-2.5, "-2.5"), (119, "119"), (107.1, "107.1"), ("山田 太郎", "山田 太郎")])
def test_numbers_and_names_are_kept(value, shown):
    assert cell(value) == shown
