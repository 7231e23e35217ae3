"""One list of package data (grader/package_data.py), installed by the project and the release."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grader.package_data import PATTERNS
from grader.prepare.release import build_release
from grader.spec.rubric.load import load_rubric

from tests.helpers import ROOT


PACKAGE = ROOT / "grader"


def _data_files(package: Path) -> set[str]:
    """Every file in the package that is not Python source (what the grader reads besides code)."""
    return {p.relative_to(package).as_posix() for p in package.rglob("*")
            if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts}


def test_every_data_file_in_the_package_matches_the_one_list() -> None:
    matched = {p.relative_to(PACKAGE).as_posix() for pattern in PATTERNS for p in PACKAGE.glob(pattern)}
    data = _data_files(PACKAGE)
    assert data, "the package has data files (framework.yaml, suite.ini, templates)"
    assert sorted(data - matched) == []
    # and the list names nothing that is not there
    assert [p for p in PATTERNS if not list(PACKAGE.glob(p))] == []


def _wheel_names(source: Path, tmp: Path) -> set[str]:
    """Build a wheel of ``source`` as pip does for `pip install .`; the files it holds."""
    out = tmp / "wheel"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "-w", str(out), str(source)], check=True, timeout=600, capture_output=True)
    [wheel] = out.glob("grader-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        return {n.removeprefix("grader/") for n in zf.namelist() if n.startswith("grader/")}


@pytest.mark.slow
def test_the_projects_wheel_holds_every_data_file(tmp_path: Path) -> None:
    source = tmp_path / "project"
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copyfile(ROOT / name, source / name)
    shutil.copytree(PACKAGE, source / "grader", ignore=shutil.ignore_patterns("__pycache__"))
    names = _wheel_names(source, tmp_path)
    assert sorted(_data_files(PACKAGE) - names) == []


@pytest.mark.slow
def test_the_releases_wheel_holds_every_data_file_it_ships(tmp_path: Path) -> None:
    release = tmp_path / "release"
    build_release(load_rubric(ROOT / "rubrics" / "chapter07.yaml"), release)
    names = _wheel_names(release, tmp_path)
    shipped = _data_files(release / "grader")
    assert "framework.yaml" in shipped  # the grader's own mistake ids; the chapter's live with its plug-in
    assert sorted(shipped - names) == []
