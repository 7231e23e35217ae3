"""The fail-closed rule for a grader that is not root, run as an instructor without root runs it.

Outside namespaces student code runs as the grader's own user. A user who can read the hidden
suites and the reference (it must, to grade with them) would hand them, the course files and
the grader's own package to every submission: ``grader grade`` refuses, naming the cause and
the fix in English and Japanese. ``grader check`` (public suites only: the student's own code
on the student's own machine) still runs, with the weak-level warning.

The tests run the real command as the unprivileged user ``nobody`` (the machine's tests run as
root), with an interpreter every user can read.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.public_python import nobody_can_read, public_python

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0,
                                 reason="switches to the user nobody to be a grader that is not root")]


@pytest.fixture(scope="module")
def as_nobody() -> Iterator[tuple[str, Path]]:
    """An interpreter nobody can run, and a world-writable folder to work in."""
    base = Path(tempfile.mkdtemp(prefix="grader-not-root-"))
    os.chmod(base, 0o755)
    try:
        python = public_python(base)
        if python is None or not nobody_can_read(ROOT / "rubrics" / "chapter07.yaml"):
            pytest.fail("needs a Python and a checkout that every user can read")
        work = base / "work"
        work.mkdir()
        shutil.copytree(ROOT / "examples" / "submissions" / "correct", work / "correct")
        nobody = pwd.getpwnam("nobody")
        for path in [work, *work.rglob("*")]:
            os.chown(path, nobody.pw_uid, nobody.pw_gid)
        yield python, work
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _run_as_nobody(python: str, work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    nobody = pwd.getpwnam("nobody")

    def become() -> None:
        os.setgroups([])
        os.setresgid(nobody.pw_gid, nobody.pw_gid, nobody.pw_gid)
        os.setresuid(nobody.pw_uid, nobody.pw_uid, nobody.pw_uid)

    env = {"PATH": "/usr/bin:/bin", "HOME": str(work), "LANG": "C.UTF-8", "GRADER_SANDBOX": "rlimits",
           "TMPDIR": str(work), "PYTHONPATH": str(ROOT)}  # the grader as the course checkout has it
    return subprocess.run([python, "-m", "grader", *args, "--rubric", str(ROOT / "rubrics" / "chapter07.yaml")],
                          cwd=work, env=env, preexec_fn=become, capture_output=True, text=True, timeout=600,
                          check=False)


def test_grade_as_a_user_who_can_read_the_hidden_suites_is_refused(as_nobody: tuple[str, Path]) -> None:
    python, work = as_nobody
    run = _run_as_nobody(python, work, "grade", str(work / "correct"))
    assert run.returncode == 2, (run.stdout[-2000:], run.stderr[-2000:])
    err = " ".join(run.stderr.split())
    assert "refusing to grade at the rlimits level: student code would run as your user (nobody, uid 65534)" in err
    assert "suites" in err and "hidden" in err  # what it could read
    assert "bubblewrap" in err and "as root" in err  # the fix
    assert "採点しません" in err  # and in Japanese: no language was chosen
    assert "score" not in run.stdout.lower()  # nothing was graded


def test_check_of_ones_own_code_still_runs_with_the_warning(as_nobody: tuple[str, Path]) -> None:
    python, work = as_nobody
    run = _run_as_nobody(python, work, "check", str(work / "correct"), "--lang", "en")
    assert run.returncode == 0, (run.stdout[-2000:], run.stderr[-2000:])
    assert "rlimits" in run.stdout + run.stderr
