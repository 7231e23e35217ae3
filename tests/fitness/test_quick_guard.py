"""``make quick`` leaves out every test that grades in a process of its own, and says which.

The guard lives in ``tests/conftest.py``; here it runs in a pytest of its own over two small
tests that start a stand-in ``grader`` script (it only exits), one marked ``slow`` and one not.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from tests.conftest import NOT_QUICK, grading_command
from tests.helpers import ROOT


pytest_plugins = ["pytester"]


@pytest.mark.parametrize(("args", "command"), [
    ([sys.executable, "-m", "grader", "batch", "src", "--out", "out"], "grader batch"),
    (["/venv/bin/grader", "check", "work"], "grader check"),
    (["/venv/bin/python3", "/venv/bin/grader", "regrade", "src"], "grader regrade"),
    ((Path("/venv/bin/grader"), "validate"), "grader validate"),
    ([sys.executable, "-m", "grader", "adjust", "out", "alice"], None),
    ([sys.executable, "-m", "grader", "batch", "--help"], None),
    ([sys.executable, "-m", "grader"], None),
    (["git", "grader", "batch"], None),
    ("grader", None),
])
def test_the_grading_commands_are_told_apart(args, command):
    assert grading_command(args) == command


def test_the_guard_allows_exactly_the_markers_make_quick_leaves_out():
    [recipe] = [line for line in (ROOT / "Makefile").read_text(encoding="utf-8").split("\nquick:", 1)[1].splitlines()
                if "$(PYTEST)" in line]
    left_out = re.findall(r"not (\w+)", recipe)
    assert sorted(left_out) == sorted(NOT_QUICK), recipe


def test_an_unmarked_test_that_grades_fails_naming_the_marker(pytester: pytest.Pytester,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    grader = pytester.path / "bin" / "grader"
    grader.parent.mkdir()
    grader.write_text("#!/bin/sh\nexit \"${GRADER_EXIT:-1}\"\n", encoding="utf-8")
    grader.chmod(0o755)
    pytester.makepyfile(test_journeys=f'''
import os
import subprocess

import pytest

GRADER = {str(grader)!r}


def test_unmarked_grades():
    subprocess.run([GRADER, "batch", "src"], check=False)


@pytest.mark.slow
def test_marked_grades():
    subprocess.run([GRADER, "batch", "src"], check=False)


def test_unmarked_refused():
    subprocess.run([GRADER, "batch", "src"], check=False, env={{**os.environ, "GRADER_EXIT": "2"}})


def test_unmarked_runs_no_grading():
    subprocess.run([GRADER, "adjust", "out"], check=False)


@pytest.fixture
def graded():
    subprocess.run([GRADER, "validate"], check=False)


def test_unmarked_whose_fixture_grades(graded):
    pass
''')
    # (the pytest below takes this environment: it imports the project's conftest as a plugin)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("GRADER_WORKER_PYTHON", sys.executable)
    result = pytester.runpytest_subprocess("-p", "tests.conftest", "-p", "no:cacheprovider",
                                           "-o", "markers=slow", "-q")
    result.assert_outcomes(passed=3, failed=2)
    out = result.stdout.str()
    assert "test_unmarked_grades runs grader batch, which grades in processes of its own: mark it @pytest.mark.slow" in out
    assert "test_unmarked_whose_fixture_grades runs grader validate" in out
    for passed in ("test_marked_grades", "test_unmarked_refused", "test_unmarked_runs_no_grading"):
        assert f"{passed} runs" not in out
