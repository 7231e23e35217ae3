"""Rubric discovery: every command finds the course's or release's rubric from inside it."""

from __future__ import annotations

import csv
import io
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader.cli import main
from grader.errors import UsageError
from grader.i18n.messages import translate
from grader.ingest.find_rubric import find_rubric
from grader.spec.rubric.load import load_rubric

from tests.helpers import ROOT


def _course(tmp_path: Path, *rubrics: str) -> Path:
    """A course folder with rubrics/<name>.yaml files, each with its own exercises folder."""
    course = tmp_path / "course"
    (course / "rubrics").mkdir(parents=True)
    for name in rubrics:
        (course / "exercises" / name).mkdir(parents=True)
        (course / "rubrics" / f"{name}.yaml").write_text(
            f"exercises: ../exercises/{name}\n", encoding="utf-8")
    return course


def test_found_from_the_top_folder_and_from_deep_inside(tmp_path: Path) -> None:
    course = _course(tmp_path, "chapter07")
    want = (course / "rubrics" / "chapter07.yaml").resolve()
    assert find_rubric(course).resolve() == want
    assert find_rubric(course / "exercises" / "chapter07").resolve() == want
    assert find_rubric(course / "rubrics").resolve() == want


def test_found_from_the_submission_when_the_working_folder_is_elsewhere(tmp_path: Path) -> None:
    course = _course(tmp_path, "chapter07")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    sub = course / "exercises" / "chapter07"
    assert find_rubric(elsewhere, sub).resolve() == (course / "rubrics" / "chapter07.yaml").resolve()
    # a submission named as a file (notebook, zip) walks up from its folder
    (sub / "work.ipynb").write_text("{}", encoding="utf-8")
    assert find_rubric(elsewhere, sub / "work.ipynb").name == "chapter07.yaml"


def test_several_rubrics_choose_the_one_whose_exercises_hold_the_submission(tmp_path: Path) -> None:
    course = _course(tmp_path, "chapter07", "chapter08")
    assert find_rubric(course / "exercises" / "chapter08").name == "chapter08.yaml"
    assert find_rubric(course, "exercises/chapter07").name == "chapter07.yaml"
    with pytest.raises(UsageError) as info:
        find_rubric(course)
    message = str(info.value)
    assert "chapter07.yaml" in message and "chapter08.yaml" in message and "--rubric" in message


def test_the_error_says_where_it_looked(tmp_path: Path) -> None:
    lonely = tmp_path / "a" / "b"
    lonely.mkdir(parents=True)
    other = tmp_path / "c"
    other.mkdir()
    with pytest.raises(UsageError) as info:
        find_rubric(lonely, other)
    message = str(info.value)
    assert f"from {lonely.as_posix()} up to /" in message
    assert f"from {other.as_posix()} up to /" in message
    assert "rubrics/*.yaml" in message and "--rubric" in message
    japanese = translate(info.value.args[0], "ja")  # every walk in Japanese too, none left in English
    assert f"{lonely.as_posix()} から / まで、{other.as_posix()} から / まで" in japanese
    assert "from " not in japanese and "up to" not in japanese


def test_the_real_course_is_found_from_its_exercises_folder() -> None:
    got = find_rubric(ROOT / "exercises" / "chapter07")
    assert load_rubric(got).assignment == "chapter07"


@pytest.mark.slow
def test_check_from_a_notebook_cells_folder_grades_that_folder(tmp_path: Path) -> None:
    """Jupyter runs `!grader check` in exercises/chapter07: no --rubric, no folder named."""
    course = tmp_path / "course"
    for name in ("rubrics", "exercises", "suites", "solutions"):
        shutil.copytree(ROOT / name, course / name)
    here = Path.cwd()
    os.chdir(course / "exercises" / "chapter07")
    try:
        result = CliRunner().invoke(main, ["check", "--format", "yaml", "--lang", "en"])
    finally:
        os.chdir(here)
    assert result.exit_code == 0, result.output
    import yaml

    report = yaml.safe_load(result.stdout)
    assert report["suites"] == ["public"] and report["score"] == 0
    assert "not-implemented" in [m["id"] for m in report["mistakes"]]


def test_a_command_outside_any_course_says_where_it_looked(tmp_path: Path) -> None:
    here = Path.cwd()
    os.chdir(tmp_path)
    try:
        result = CliRunner().invoke(main, ["validate"])
    finally:
        os.chdir(here)
    assert result.exit_code == 2
    assert "no rubric found" in result.output and tmp_path.as_posix() in result.output.replace("\n", "")
    assert "--rubric PATH" in result.output


def test_commands_on_a_batch_folder_take_the_rubric_its_reports_name(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """In a course with several assignments, ``grader batch --rubric rubrics/chapter07.yaml`` was
    the only command that needed --rubric: adjust, export, publish and catalogue draft on its
    output folder take the rubric whose assignment its reports name, and ledger speaks the
    batch's language."""
    out = tmp_path / "out"
    (out / "reports").mkdir(parents=True)
    shutil.copyfile(ROOT / "tests" / "golden" / "sqrt-d-model.yaml", out / "reports" / "sqrt-d-model.yaml")
    monkeypatch.chdir(ROOT)  # two rubrics here: chapter07 and chapter08
    monkeypatch.delenv("GRADER_LANG", raising=False)
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(main, list(args), catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output

    run("export", str(out), "--lang", "en")
    run("adjust", str(out), "sqrt-d-model", "--points", "2", "--reason", "曖昧な設問", "--lang", "en")
    [row] = csv.DictReader(io.StringIO((out / "gradebook.csv").read_text(encoding="utf-8-sig")))
    assert (row["automatic_score"], row["adjustment"], row["score"]) == ("111", "2", "113")
    run("publish", str(out), "--lang", "en")
    listed = run("ledger", str(out))
    assert "曖昧な設問" in listed and "台帳を検証しました: 記録 1 件" in listed  # the reports' first language
    with pytest.raises(UsageError):  # without a batch's reports, the choice is still the user's
        find_rubric(ROOT)


def test_batch_resume_into_a_folder_takes_the_rubric_its_reports_name(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """``grader batch SRC --out OUT --resume`` reads OUT too: in a course with two assignments it
    takes the rubric OUT's reports name, as adjust and export do; into a new folder, SOURCE's
    place still has to choose (and says so)."""
    from grader.cli.shared import load_for_batch

    out, src = tmp_path / "out", tmp_path / "src" / "alice"
    (out / "reports").mkdir(parents=True)
    src.mkdir(parents=True)
    shutil.copyfile(ROOT / "tests" / "golden" / "sqrt-d-model.yaml", out / "reports" / "sqrt-d-model.yaml")
    monkeypatch.chdir(ROOT)  # two rubrics here: chapter07 and chapter08
    for resume in (True, False):
        assert load_for_batch(str(out), None, str(src.parent), resume).assignment == "chapter07"
    with pytest.raises(UsageError):
        load_for_batch(str(tmp_path / "new"), None, str(src.parent), True)
    assert load_for_batch(str(out), str(ROOT / "rubrics" / "chapter08.yaml"), str(src.parent),
                          True).assignment == "chapter08"  # --rubric still wins


@pytest.mark.slow
def test_commands_on_a_batch_folder_run_from_outside_the_course_take_the_batchs_rubric(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The batch notes its rubric file in OUT: adjust and export, run from a folder outside any
    course (the output folder itself, say), find it there; a rubric since moved away is not
    guessed at, and the error still says where to look."""
    course = tmp_path / "course"
    for name in ("rubrics", "exercises", "suites", "solutions"):
        shutil.copytree(ROOT / name, course / name, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path / "out"
    monkeypatch.delenv("GRADER_LANG", raising=False)
    runner = CliRunner()
    monkeypatch.chdir(course)
    src = tmp_path / "src"
    shutil.copytree(ROOT / "examples" / "submissions" / "sqrt-d-model", src / "alice")
    done = runner.invoke(main, ["batch", str(src), "--out", str(out), "--rubric", "rubrics/chapter07.yaml", "-j", "1",
                                "--no-progress", "--allow-weak-sandbox", "--lang", "en"], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    monkeypatch.chdir(out)
    adjusted = runner.invoke(main, ["adjust", str(out), "alice", "--points", "1", "--reason", "r", "--lang", "en"])
    assert adjusted.exit_code == 0, adjusted.output
    [row] = csv.DictReader(io.StringIO((out / "gradebook.csv").read_text(encoding="utf-8-sig")))
    assert row["adjustment"] == "1"
    shutil.move(course, tmp_path / "moved")
    refused = runner.invoke(main, ["export", str(out), "--lang", "en"])
    assert refused.exit_code != 0 and "no rubric found" in refused.output


def test_the_graders_own_failure_has_its_own_exit_status_not_a_failing_grades(monkeypatch) -> None:
    """1 means below the pass mark; a bug or a broken machine under the grader must not look like
    that in a student's CI: exit 3, the traceback to report, and a sentence in both languages."""
    from grader import cli
    from grader.cli import student

    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(student, "_grade_one", broken)
    result = CliRunner().invoke(main, ["check", "--lang", "en"])
    assert result.exit_code == int(cli.ExitCode.INTERNAL_ERROR) == 3
    assert "RuntimeError: disk on fire" in result.output
    assert "the grader itself failed (RuntimeError: disk on fire); this says nothing about the work graded" in result.output
