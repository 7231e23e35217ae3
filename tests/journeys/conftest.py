"""The journeys: every test below this folder runs the grader end to end, as its users run it.

Each is marked ``slow`` here, by its folder (``make quick`` leaves them out), and they share what
costs most, built once per run by the first xdist worker to ask, under a lock:

* ``graded_class``: one ``grader batch`` of a class of every kind of submission, read-only. A
  test that only reads a batch's folder reads it; one that continues the term (adjust, publish,
  regrade, export, ``--resume``) starts from ``graded_class.copy(tmp_path / "out")``. A test
  grades a class of its own only where what it tests changes the grading itself (``--cluster``,
  ``--anonymous``, due dates, LMS exports, hostile input, interrupts).
* ``release_venv``: a venv holding what a chapter-7 release needs, for the install journeys.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers import EXAMPLES, FIXTURES, ROOT, RUBRIC, run_grader


HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test in this folder is ``slow``: it grades in processes of its own."""
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.slow)


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` across the xdist workers (one process at a time)."""
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's temporary folder that every xdist worker sees (each has one of its own below it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


# --------------------------------------------------------------------------- the graded class


#: The class: the README's example submissions and two of the tests' own, one of each kind (a
#: folder, a notebook, a zip; correct, named mistakes, the untouched stubs, a syntax error).
CLASS = {
    "correct": EXAMPLES / "correct",
    "divide-by-dk": EXAMPLES / "divide-by-dk",
    "notebook-student.ipynb": EXAMPLES / "notebook-student.ipynb",
    "softmax-overflow": EXAMPLES / "softmax-overflow",
    "sqrt-d-model": EXAMPLES / "sqrt-d-model",
    "untouched-stub": EXAMPLES / "untouched-stub",
    "broken-softmax": FIXTURES / "broken-softmax",
    "correct-zip.zip": FIXTURES / "correct-zip.zip",
}
#: How it is graded: chapter 7's rubric, a fixed seed, two jobs, the similarity check, English lines.
SEED = 5
ARGS = ("--rubric", str(RUBRIC), "--seed", str(SEED), "-j", "2", "--similarity", "--no-progress", "--lang", "en")


@dataclass(frozen=True)
class GradedClass:
    """One ``grader batch SOURCE --out OUT`` of ``CLASS`` with ``ARGS``, done once per run.

    ``source`` and ``out`` are read-only: a test that writes (or runs a command that writes,
    such as adjust, publish, regrade, export or ``batch --resume``) works on ``copy``. The run
    checks at its end that nothing below them changed.
    """

    source: Path
    out: Path
    returncode: int
    stdout: str
    stderr: str
    #: the batch's options after SOURCE and --out (to run it again the same way)
    args: tuple[str, ...] = ARGS
    seed: int = SEED
    #: its reports' names (OUT/reports/<name>.yaml), one per entry of CLASS
    names: tuple[str, ...] = tuple(name.rsplit(".", 1)[0] if name.endswith((".zip", ".ipynb")) else name
                                   for name in CLASS)

    def copy(self, dest: Path) -> Path:
        """A copy of OUT at ``dest``, for a test to continue the term in."""
        shutil.copytree(self.out, dest, symlinks=True)
        return dest

    def copy_source(self, dest: Path) -> Path:
        """A copy of SOURCE at ``dest``, for a test to change before a ``--resume`` or a regrade."""
        shutil.copytree(self.source, dest, symlinks=True)
        return dest


def _digest(*folders: Path) -> str:
    """Every file's path, bytes and mode below ``folders``: any change changes it."""
    sha = hashlib.sha256()
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            sha.update(f"{path.relative_to(folder.parent)}\0{path.lstat().st_mode}\0".encode())
            if path.is_file() and not path.is_symlink():
                sha.update(path.read_bytes())
    return sha.hexdigest()


@pytest.fixture(scope="session")
def graded_class(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GradedClass]:
    """The run's one graded class (see the module docstring), graded by the first worker to ask."""
    shared = _shared(tmp_path_factory)
    base = shared / "graded-class"
    ready = shared / "graded-class.json"
    with _locked(shared / "graded-class.lock"):
        if not ready.exists():
            shutil.rmtree(base, ignore_errors=True)
            source = base / "src"
            source.mkdir(parents=True)
            for name, origin in CLASS.items():
                if origin.is_dir():
                    shutil.copytree(origin, source / name)
                else:
                    shutil.copyfile(origin, source / name)
            out = base / "out"
            done = run_grader("batch", source, "--out", out, *ARGS)
            assert done.returncode in (0, 1), done.stderr[-3000:]
            ready.write_text(json.dumps({"returncode": done.returncode, "stdout": done.stdout, "stderr": done.stderr,
                                         "digest": _digest(source, out)}), encoding="utf-8")
    record = json.loads(ready.read_text(encoding="utf-8"))
    yield GradedClass(base / "src", base / "out", record["returncode"], record["stdout"], record["stderr"])
    assert _digest(base / "src", base / "out") == record["digest"], (
        "a test changed the graded class: work on graded_class.copy(tmp_path / 'out') instead")


# --------------------------------------------------------------------------- the release venv


@pytest.fixture(scope="session")
def release_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site-packages of this run's one venv holding what a release needs but itself.

    Built once per run under the run's temporary folder (shared by every xdist worker, under a
    lock, by the first to ask): ``python -m venv``, the release README's torch line, then a
    chapter-7 release installed with pip (so every dependency is resolved as a student's
    ``pip install .`` resolves it) and its grader uninstalled again, leaving the dependencies.
    A journey makes its own venv by its README's lines and adds this folder to it with a
    ``.pth`` file: its ``pip install`` of torch and of the dependencies is then already
    satisfied, and its ``pip install .`` installs the release's grader into its own venv.
    """
    from grader.install import TORCH

    shared = _shared(tmp_path_factory)
    venv = shared / "release-venv"
    ready = shared / "release-venv.ready"
    with _locked(shared / "release-venv.lock"):
        if not ready.exists():
            shutil.rmtree(venv, ignore_errors=True)
            env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
            python = str(venv / "bin" / "python")
            release = shared / "release-venv-source"
            shutil.rmtree(release, ignore_errors=True)
            for args in ([sys.executable, "-m", "grader", "release", str(release),
                          "--rubric", str(ROOT / "rubrics" / "chapter07.yaml")],
                         [sys.executable, "-m", "venv", str(venv)], [python, "-m", "pip", "install", TORCH],
                         [python, "-m", "pip", "install", str(release)],
                         [python, "-m", "pip", "uninstall", "--yes", "grader"]):
                done = subprocess.run(args, capture_output=True, text=True, timeout=1800, env=env, cwd=shared)
                assert done.returncode == 0, f"{args}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
            ready.write_text(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                                            capture_output=True, text=True, check=True).stdout.strip())
    return Path(ready.read_text())
