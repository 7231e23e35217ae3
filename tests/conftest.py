"""Shared fixtures and options for the project's own tests, and how pytest-xdist shares them out.

``make test`` runs ``pytest -n auto --dist loadgroup``: the tests are dealt out to the workers
one at a time, except for the groups below, each of which one worker runs start to finish:

* ``TOGETHER``: a test module whose tests share a module- or class-scoped fixture (a graded
  batch, a built release, a running sandbox worker), so that the fixture is built once;
* ``RELEASE_VENV``: the journeys that ``pip install`` a release into the run's one
  ``release_venv``, so that two installs never write into it at the same time.

Groups are dealt out first, the slowest first, so that no long group starts last. Collection
fails, naming the fix, when a test module outside ``TOGETHER`` shares such a fixture, or a test
outside ``RELEASE_VENV`` asks for ``release_venv``.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: The tests that install into ``release_venv`` (a module, or one test of a module).
RELEASE_VENV = ("tests/test_release_journey.py",
                "tests/test_course.py::test_chapter08_release_installed_as_its_readme_says")

#: Modules whose tests share a module- or class-scoped fixture, the slowest first.
TOGETHER = (
    "tests/test_hostile_batch.py",
    "tests/test_attacks.py",
    "tests/test_grading_e2e.py",
    "tests/test_fastyaml.py",
    "tests/test_gradescope.py",
    "tests/test_golden.py",
    "tests/test_diagnosis.py",
    "tests/test_quiz_input.py",
    "tests/test_diagnosis_wording.py",
    "tests/test_plugin.py",
    "tests/test_sandbox.py",
    "tests/test_release.py",
    "tests/test_work_choice.py",
    "tests/test_sink_properties.py",
)


def group_of(nodeid: str) -> str:
    """The group a test runs in: ``release-venv``, its module's path, or its own id (alone)."""
    if any(nodeid == t or nodeid.startswith(t + "::") for t in RELEASE_VENV):
        return "release-venv"
    module = nodeid.split("::", 1)[0]
    return module if module in TOGETHER else nodeid


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-goldens", action="store_true", default=False,
                     help="Rewrite tests/golden/* from the current output instead of comparing.")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Collection fails when a test would break its group's promise (see the docstring)."""
    wrong = []
    for item in items:
        group = group_of(item.nodeid)
        if "release_venv" in getattr(item, "fixturenames", ()) and group != "release-venv":
            wrong.append(f"{item.nodeid} uses release_venv: add it to RELEASE_VENV in tests/conftest.py")
        info = getattr(item, "_fixtureinfo", None)
        shared = [name for name, defs in (info.name2fixturedefs.items() if info else ())
                  if defs and defs[-1].scope in ("module", "class")]
        if shared and group == item.nodeid:
            wrong.append(f"{item.nodeid} shares the {shared[0]} fixture (scope {info.name2fixturedefs[shared[0]][-1].scope}): "
                         "add its module to TOGETHER in tests/conftest.py")
    if wrong:
        raise pytest.UsageError("\n".join(dict.fromkeys(wrong)))


try:
    from xdist.scheduler import LoadScopeScheduling
except ImportError:  # pytest-xdist is a test extra; without it the tests run in one process
    pass
else:
    class _GroupScheduling(LoadScopeScheduling):
        """xdist's scope scheduling with ``group_of`` as the scope, the groups dealt first."""

        _first = ("release-venv", *TOGETHER)

        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid)

        def _assign_work_unit(self, node: Any) -> None:
            for scope in reversed(self._first):
                if scope in self.workqueue:
                    self.workqueue.move_to_end(scope, last=False)
            super()._assign_work_unit(node)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
        if config.getvalue("dist") == "loadgroup":
            return _GroupScheduling(config, log)
        return None


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def rubric():
    from grader.rubric import load_rubric

    return load_rubric(ROOT / "rubrics" / "chapter07.yaml")


@pytest.fixture(scope="session")
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` across the xdist workers (one process at a time)."""
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def release_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The one venv of this run for the journeys that install a release as its README says.

    Created once per run, by ``python -m venv`` as the README's first line does, under the run's
    temporary folder (shared by every xdist worker, created under a lock by the first to ask).
    A journey's own ``python -m venv .venv`` then runs on a link to it, so the first journey's
    ``pip install`` lines install torch and the grader's dependencies, and each journey's
    ``pip install .`` installs its own release over the last one: the journeys using it are one
    xdist group and so never run at the same time.
    """
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    venv = shared / "release-venv"
    ready = shared / "release-venv.ready"
    with _locked(shared / "release-venv.lock"):
        if not ready.exists():
            shutil.rmtree(venv, ignore_errors=True)
            done = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True, text=True,
                                  timeout=600)
            assert done.returncode == 0, done.stderr[-3000:]
            ready.touch()
    return venv
