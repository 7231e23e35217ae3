"""The instructor's journey with real LMS downloads: Moodle, Canvas, Blackboard.

Each export is built the way the platform's own code names its files (see the module
docstring of ``grader.ingest.lms``): Canvas's ``ContentZipper`` (sortable name cleaned of
``_<digits>_`` and lower-cased, ``LATE``, user id, attachment id, the display name with
``\\ / : * ? " < > |`` replaced), Moodle's ``download_submissions`` (``clean_filename`` of the
full name with ``_`` turned into spaces, then ``_<participant id>_assignsubmission_file_``),
Blackboard's ``<assignment>_<username>_attempt_<time>_<file>`` with its ``.txt`` per attempt.
Then ``grader batch`` runs as an instructor runs it, and the gradebooks it writes are read
back with the column rules Canvas's and Moodle's importers apply.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import unicodedata
import zipfile
from pathlib import Path

import pytest
import yaml

from tests.helpers import FIXTURES, ROOT, RUBRIC, chromium, read_gradebook, run_grader, zip_bytes
from tests.lms_exports import (BROKEN, CORRECT, EMPTY_ZIP, SQRT_D_MODEL, STUB, blackboard_txt, canvas_entry,
                               canvas_import, canvas_text_entry, moodle_feedback_participants, moodle_prefix,
                               moodle_worksheet)


# --------------------------------------------------------------------------- running the batch


def _batch(source: Path, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_grader("batch", source, "--out", out, "--no-progress", "--seed", "3", "--rubric", RUBRIC, *args)


def _gradebook(out: Path) -> dict[str, dict[str, str]]:
    return read_gradebook(out, by="student_id")


def _keep(out: Path, lms: str, *names: str) -> None:
    """With GRADER_KEEP_SCREENSHOTS=DIR, copy what the instructor would upload to DIR/<lms>/."""
    keep = os.environ.get("GRADER_KEEP_SCREENSHOTS")
    if keep:
        dest = Path(keep) / lms
        dest.mkdir(parents=True, exist_ok=True)
        for name in names:
            shutil.copyfile(out / name, dest / name)


def _max(rows: dict[str, dict[str, str]]) -> float:
    return max(float(r["max_score"]) for r in rows.values() if r["max_score"])


# --------------------------------------------------------------------------- Moodle


LONG_NAME = "寿限無寿限無五劫の擦り切れ海砂利水魚の" * 8  # ~480 bytes in UTF-8


def _moodle_export(dest: Path) -> Path:
    export = dest / "CS101-Chapter 7-42.zip"
    nfd_name = unicodedata.normalize("NFD", "鈴木 ジロウ")  # as macOS tools write it
    folder = "_assignsubmission_file_/"
    with zipfile.ZipFile(export, "w", zipfile.ZIP_DEFLATED) as zf:
        def put(name: str, pid: int, files: dict[str, bytes], plugin: str = "file") -> None:
            for fname, data in files.items():
                zf.writestr(f"{moodle_prefix(name, pid)}_assignsubmission_{plugin}_/{fname}", data)

        put("山田 太郎", 123458, CORRECT)
        put("山田 太郎", 123458, {"onlinetext.html": b"<p>see files</p>"}, plugin="onlinetext")
        put("Taro Yamada", 123462, {"chapter07.zip": zip_bytes(CORRECT, "chapter07/")})
        put("Hanako Sato", 123463, {"chapter07.ipynb": (FIXTURES / "correct-notebook.ipynb").read_bytes()})
        put("Jiro Suzuki", 123464, SQRT_D_MODEL)
        put(nfd_name, 123465, CORRECT)
        put("Only Scaling", 123470, {"scaling.py": CORRECT["scaling.py"]})
        put("Empty Zip", 123471, {"chapter07.zip": EMPTY_ZIP})
        put("Broken Zip", 123472, {"chapter07.zip": b"PK\x03\x04 this is not really a zip"})
        # A student whose full name ends like another student's folder name.
        put("Eve_123458_assignsubmission_file_", 123473, CORRECT)
        put("Stub Only", 123474, STUB)
        put(LONG_NAME, 123475, CORRECT)  # longer than a file name may be: shortened, id kept
        zf.writestr("__MACOSX/" + moodle_prefix("山田 太郎", 123458) + folder + "._scaling.py", b"\0junk")
    return export


@pytest.mark.browser
def test_moodle_export_every_student_graded_as_moodle_names_them(tmp_path, english_left, japanese_outputs):
    export = _moodle_export(tmp_path)
    out = tmp_path / "out"
    proc = _batch(export, out, "--gradebook", "moodle", "--bom")
    assert proc.returncode == 0, proc.stderr
    rows = _gradebook(out)
    top = _max(rows)

    # who: the participant id from the fixed part, the name as Moodle wrote it (NFC)
    assert rows["123458"]["name"] == "山田 太郎" and rows["123458"]["lms"] == "moodle"
    assert rows["123465"]["name"] == "鈴木 ジロウ"
    assert unicodedata.is_normalized("NFC", rows["123465"]["name"])
    assert rows["123473"]["name"] == "Eve 123458 assignsubmission file"
    assert (out / "reports" / "山田_太郎_123458.yaml").is_file()

    # what: a zip alone in the folder is the submission, a notebook too
    assert rows["123475"]["name"] == LONG_NAME and rows["123475"]["submission"].endswith("_123475")
    for full in ("123458", "123462", "123463", "123465", "123473", "123475"):
        assert float(rows[full]["score"]) == top, (full, rows[full])
        assert rows[full]["errors"] == "", rows[full]
    assert "sqrt-d-model" in rows["123464"]["mistakes"] and rows["123464"]["passed"] == "yes"
    assert float(rows["123474"]["score"]) == 0.0
    # why not: plain reasons, Japanese first as the rubric's language says
    assert rows["123470"]["errors"].startswith("未提出のファイル: softmax.py, variance.py, answers.yaml")
    assert "missing: softmax.py, variance.py, answers.yaml" in rows["123470"]["errors"]
    assert rows["123471"]["score"] == "" and "the upload is empty" in rows["123471"]["errors"]
    assert "提出物が空です" in rows["123471"]["errors"]
    assert float(rows["123472"]["score"] or 0) == 0 and "could not be read" in rows["123472"]["errors"]
    assert "提出物を読み取れませんでした" in rows["123472"]["errors"]
    assert all(r["late"] == "no" for r in rows.values())
    # the online-text folder is not a second claim on 山田's id
    assert "claims student id" not in rows["123458"]["errors"]

    # the worksheet, read as Moodle's offline-grading importer reads it: for a Moodle shown in
    # Japanese, the batch's language (the rubric's first)
    sheet = moodle_worksheet(out / "gradebook.moodle.csv", "ja")
    assert sheet["123458"]["grade"] == top and sheet["123464"]["grade"] == float(rows["123464"]["score"])
    # every participant has a row; one with no grade changes none given by hand (its time is
    # before any grade, so Moodle's import keeps a grade changed since) and says why
    assert sheet["123471"]["grade"] == "" and sheet["123472"]["grade"] == ""
    assert "empty" in sheet["123471"]["feedback"]
    assert {"123458", "123462", "123463", "123464", "123465", "123470", "123473", "123474"} <= set(sheet)
    # feedback files, as Moodle's zip importer maps them to participants
    assert moodle_feedback_participants(out / "moodle-feedback-files.zip") >= {123458, 123462, 123473}

    # every Japanese output (the pages, each report as Markdown, HTML and on the terminal)
    from grader.spec.rubric.load import load_rubric

    shown = japanese_outputs(out, load_rubric(RUBRIC))
    assert {what: found for what, text in shown.items() if (found := english_left(text))} == {}
    _keep(out, "moodle", "gradebook.csv", "gradebook.moodle.csv", "moodle-feedback-files.zip", "summary.en.html")
    # the class summary's first screen, in the browser
    _summary_first_screen(out, tmp_path, english_left)


def _summary_first_screen(out: Path, tmp_path: Path, english_left) -> None:
    """What the instructor sees first: passed despite sqrt-d-model, common mistakes, errors."""
    page = (out / "summary.en.html").read_text(encoding="utf-8")
    first = page[page.index('id="first-screen"'):page.index('id="overview"')]
    assert "Passed despite the central mistake" in first and "1 of 1 submissions with sqrt-d-model" in first
    assert "Jiro Suzuki (123464)" in first  # the example of sqrt-d-model names the student
    assert "Empty Zip" in first and "Broken Zip" in first  # the entries that went wrong
    ja = (out / "summary.ja.md").read_text(encoding="utf-8")
    assert "核心の間違いがあっても合格した提出物" in ja.split("| | |")[0]
    assert english_left(ja) == []  # every reason and label of the grader's in Japanese
    browser = chromium()
    if browser is None:
        pytest.fail("the summary must be seen in a browser: install chromium (make system-deps)")
    shot = tmp_path / "summary-first-screen.png"
    run = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                          "--disable-background-networking", "--disable-component-update", "--disable-sync",
                          f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}",
                          "--window-size=1200,900", (out / "summary.en.html").as_uri()],
                         capture_output=True, text=True, timeout=120, check=False)
    assert shot.exists(), run.stderr[-2000:]
    import numpy as np
    from matplotlib import image

    pixels = np.asarray(image.imread(str(shot)))
    assert pixels.shape[0] >= 800 and float(pixels[..., :3].std()) > 0.02
    keep = os.environ.get("GRADER_KEEP_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, Path(keep) / shot.name)


# --------------------------------------------------------------------------- Canvas


def _canvas_export(dest: Path) -> Path:
    export = dest / "cs101-chapter-7_submissions.zip"  # make_zip_tmpdir: spaces to _, non-word dropped
    with zipfile.ZipFile(export, "w", zipfile.ZIP_DEFLATED) as zf:
        def put(name: str | None, uid: int | str, first_att: int, files: dict[str, bytes], late: bool = False,
                again: int = 0) -> None:
            for k, (fname, data) in enumerate(files.items()):
                stem, dot, ext = fname.rpartition(".")
                shown = f"{stem}-{again}.{ext}" if again else fname
                zf.writestr(canvas_entry(name, uid, first_att + k, shown, late=late), data)

        put("Doe, Jane", 98765, 7000, STUB)              # first upload: the stubs
        put("Doe, Jane", 98765, 7100, CORRECT, again=1)  # then again: scaling-1.py, ...
        put("山田, 太郎", 11111, 7200, CORRECT, late=True)
        put("Smith, John", 22222, 7300, SQRT_D_MODEL)
        put("Empty, Zip", 33333, 7400, {"chapter07.zip": EMPTY_ZIP})
        put("Zip, Student", 44444, 7500, {"chapter07.zip": (FIXTURES / "correct-zip.zip").read_bytes()})
        put("Note, Book", 55555, 7600, {"chapter07.ipynb": (FIXTURES / "correct-notebook.ipynb").read_bytes()})
        put("Re, Upload", 66666, 8000, CORRECT)
        put("Re, Upload", 66666, 8100, {"scaling.py": STUB["scaling.py"]}, again=1)
        put("Re, Upload", 66666, 8200, {"scaling.py": CORRECT["scaling.py"]}, again=2)
        put("Broken, Upload", 77777, 8300, {**CORRECT, "softmax.py": BROKEN["softmax.py"]})
        zf.writestr(canvas_text_entry("Text, Only", 88888), b"<p>my answer is 8</p>")
        put(None, "anon_Xy7Q2", 8400, CORRECT)
    return export


def test_canvas_export_newest_uploads_late_flags_and_the_import_file(tmp_path):
    export = _canvas_export(tmp_path)
    out = tmp_path / "out"
    proc = _batch(export, out, "--gradebook", "canvas", "--canvas-assignment-id", "4242")
    assert proc.returncode == 0, proc.stderr
    rows = _gradebook(out)
    top = _max(rows)

    # the re-uploads (scaling-1.py, scaling-2.py) are what is graded, not the first files
    assert float(rows["98765"]["score"]) == top
    assert float(rows["66666"]["score"]) == top
    jane = yaml.safe_load((out / "reports" / "doejane_98765.yaml").read_text(encoding="utf-8"))
    first_scaling = canvas_entry("Doe, Jane", 98765, 7000 + list(STUB).index("scaling.py"), "scaling.py")
    assert any("set aside" in n and first_scaling in n for n in jane["notes"])
    assert jane["student"]["id"] == "98765" and jane["student"]["lms"] == "canvas"
    # LATE: flagged, and the rubric's late policy (10 % of the maximum) taken off and shown
    late = rows["11111"]
    assert late["late"] == "yes" and late["name"] == "山田太郎"
    assert float(late["score"]) == pytest.approx(round(top * 0.9, 2))
    assert float(late["late_penalty"]) == pytest.approx(top - float(late["score"]))
    late_report = yaml.safe_load((out / "reports" / "山田太郎_11111.yaml").read_text(encoding="utf-8"))
    assert late_report["late"]["score_before"] == top
    assert any("提出期限後" in n and "late" in n for n in late_report["notes"])
    assert all(rows[k]["late"] == "no" for k in rows if k != "11111")
    # zips and notebooks uploaded on Canvas
    assert float(rows["44444"]["score"]) == top and float(rows["55555"]["score"]) == top
    assert float(rows["anon_Xy7Q2"]["score"]) == top
    assert "sqrt-d-model" in rows["22222"]["mistakes"]
    assert "SyntaxError" in rows["77777"]["errors"]
    assert rows["33333"]["score"] == "" and "the upload is empty" in rows["33333"]["errors"]
    assert rows["88888"]["score"] == "" and "online text" in rows["88888"]["errors"]

    # the import file, read with Canvas's GradebookImporter column rules
    grades = canvas_import(out / "gradebook.canvas.csv")
    assert grades["points_possible"] == top
    assert grades["by_id"]["98765"] == top and grades["by_id"]["11111"] == float(late["score"])
    assert "anon_Xy7Q2" not in grades["by_id"] and grades["by_id"]["33333"] is None
    assert {k for k, v in grades["by_id"].items() if v is not None} == {
        "98765", "11111", "22222", "44444", "55555", "66666", "77777"}
    assert grades["by_id"]["88888"] is None  # online text: a row, no grade
    assert "anon_Xy7Q2 は含めていません" in " ".join(proc.stderr.split())  # the rubric speaks ja first
    _keep(out, "canvas", "gradebook.csv", "gradebook.canvas.csv")

    # grader export: the same import file again from the reports alone, here with a BOM
    again = subprocess.run([sys.executable, "-m", "grader", "export", str(out), "--gradebook", "canvas", "--bom",
                            "--canvas-assignment-id", "4242"],
                           cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert (out / "gradebook.canvas.csv").read_bytes().startswith(b"\xef\xbb\xbf")
    assert canvas_import(out / "gradebook.canvas.csv") == grades


# --------------------------------------------------------------------------- Blackboard


def test_blackboard_export_latest_attempt_and_names_from_the_metadata(tmp_path):
    export = tmp_path / "gradebook_CS101_Chapter7_2026-12-01-10-00-00.zip"
    old, new = "2026-11-29-09-00-00", "2026-11-30-21-15-00"
    with zipfile.ZipFile(export, "w") as zf:
        def attempt(user: str, full: str, when: str, files: dict[str, bytes]) -> None:
            stored = [(f, f"Chapter7_{user}_attempt_{when}_{f}") for f in files]
            zf.writestr(f"Chapter7_{user}_attempt_{when}.txt",
                        blackboard_txt(full, user, "Chapter7", when, stored))
            for (orig, name), data in zip(stored, files.values()):
                zf.writestr(name, data)

        attempt("jdoe", "Jane Doe", old, STUB)
        attempt("jdoe", "Jane Doe", new, CORRECT)
        attempt("tyamada", "山田 太郎", new, SQRT_D_MODEL)
        attempt("nofiles", "No Files", new, {})
    out = tmp_path / "out"
    proc = _batch(export, out)
    assert proc.returncode == 0, proc.stderr
    rows = _gradebook(out)
    assert float(rows["jdoe"]["score"]) == _max(rows) and rows["jdoe"]["name"] == "Jane Doe"
    assert rows["jdoe"]["lms"] == "blackboard"
    assert rows["tyamada"]["name"] == "山田 太郎" and "sqrt-d-model" in rows["tyamada"]["mistakes"]
    assert rows["nofiles"]["score"] == "" and rows["nofiles"]["errors"]
    report = yaml.safe_load((out / "reports" / "Jane_Doe_jdoe.yaml").read_text(encoding="utf-8"))
    assert any(f"attempt_{old}" in n for n in report["notes"])


# --------------------------------------------------------------------------- nothing to grade


def test_an_export_with_nothing_to_grade_exits_2_saying_so(tmp_path):
    export = tmp_path / "empty-export.zip"
    with zipfile.ZipFile(export, "w") as zf:
        zf.writestr(f"{moodle_prefix('Empty Zip', 1)}_assignsubmission_file_/chapter07.zip", EMPTY_ZIP)
        zf.writestr("readme.txt", b"hello")
    proc = _batch(export, tmp_path / "out")
    assert proc.returncode == 2, proc.stderr
    assert "no submission found" in proc.stderr and "entries looked at: 2" in proc.stderr


def test_moodle_feedback_folders_keep_no_control_or_bidi_character(tmp_path):
    """A Moodle full name keeps what Moodle's clean_filename lets through: C1 controls (a CSI
    that a terminal would act on), bidi overrides and isolates, zero-width characters. The
    feedback-files zip names its folders after the student: none of them may be written raw,
    and Moodle's importer must still map each folder to its participant."""
    export = tmp_path / "CS101-Chapter 7-43.zip"
    hostile = {
        123480: "Mallory\u202e\u2066 evil\u2069\u0085\u009b31m\u200b Ito",
        123481: "Dora\x7f\x9d0;title\x9c Kato",  # DEL and an OSC pair, from a hand-made folder
    }
    with zipfile.ZipFile(export, "w", zipfile.ZIP_DEFLATED) as zf:
        for fname, data in CORRECT.items():
            zf.writestr(f"{moodle_prefix(hostile[123480], 123480)}_assignsubmission_file_/{fname}", data)
            zf.writestr(f"{hostile[123481]}_123481_assignsubmission_file_/{fname}", data)
    out = tmp_path / "out"
    proc = _batch(export, out, "--gradebook", "moodle")
    assert proc.returncode == 0, proc.stderr
    rows = _gradebook(out)
    assert set(rows) == {"123480", "123481"}
    with zipfile.ZipFile(out / "moodle-feedback-files.zip") as zf:
        names = zf.namelist()
    assert len(names) == 2, names
    bad = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
    assert not [n for n in names if bad.search(n)], names
    assert any(n.startswith("Mallory evil31m Ito_123480_") for n in names), names
    assert any(n.startswith("Dora0;title Kato_123481_") for n in names), names
    assert moodle_feedback_participants(out / "moodle-feedback-files.zip") == {123480, 123481}
    # the terminal never gets them raw either
    assert not bad.search(proc.stderr.replace("\n", "")) and not bad.search(proc.stdout.replace("\n", ""))
