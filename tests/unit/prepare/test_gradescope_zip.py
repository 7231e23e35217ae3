"""The Gradescope autograder zip (grader/prepare/gradescope_zip.py), built in process: the two
scripts Gradescope runs, executable, and the course with the grader package beside it."""

from __future__ import annotations

import stat
import zipfile

from grader.prepare.gradescope_zip import build_autograder, sandbox_note
from grader.spec.rubric.load import load_rubric

from tests.helpers import RUBRIC


def test_the_zip_holds_the_scripts_the_course_and_the_grader(tmp_path) -> None:
    target = build_autograder(load_rubric(RUBRIC), tmp_path / "gs")
    assert target == tmp_path / "gs" / "autograder.zip"
    with zipfile.ZipFile(target) as zf:
        names = set(zf.namelist())
        for script in ("setup.sh", "run_autograder"):
            assert stat.S_IMODE(zf.getinfo(script).external_attr >> 16) == 0o755, script
        run = zf.read("run_autograder").decode("utf-8")
    assert "rubrics/chapter07.yaml" in run
    assert {"rubrics/chapter07.yaml", "grader/__init__.py"} <= names
    assert any(n.startswith("suites/chapter07/hidden/") for n in names)
    assert not any("__pycache__" in n or n.endswith(".pyc") for n in names)


def test_the_note_says_which_sandbox_and_how_to_check_it() -> None:
    note = sandbox_note()
    assert note.startswith("sandbox on this machine: ") and "extra_data.sandbox" in note


def test_the_note_is_said_in_japanese_whole() -> None:
    """A Japanese session reads the same facts in Japanese, with no English sentence left in it."""
    from tests.conftest import _english_left

    note = sandbox_note("ja")
    assert note.startswith("このマシンのサンドボックス: ") and "extra_data.sandbox" in note
    assert "GRADER_SANDBOX=rlimits bash /autograder/run_autograder" in note
    assert [] == _english_left(note)
