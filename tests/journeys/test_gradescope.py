"""The Gradescope autograder zip, run against a simulated /autograder layout."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader.cli import main

from tests.helpers import ROOT, RUBRIC, TESTS


SCHEMA = TESTS / "schemas" / "gradescope-results.json"


@pytest.fixture(scope="module")
def autograder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gradescope")
    result = CliRunner().invoke(main, ["gradescope", str(out), "--rubric", str(RUBRIC)])
    assert result.exit_code == 0, result.output
    return out / "autograder.zip"


def test_zip_holds_the_scripts_and_the_course(autograder: Path) -> None:
    with zipfile.ZipFile(autograder) as zf:
        names = set(zf.namelist())
        mode = zf.getinfo("run_autograder").external_attr >> 16
    assert {"setup.sh", "run_autograder", "rubrics/chapter07.yaml", "grader/cli/__init__.py",
            "grader/suite.ini", "grader/templates/report.html.j2"} <= names
    assert any(n.startswith("suites/chapter07/hidden/") for n in names)
    assert any(n.startswith("solutions/chapter07/") for n in names)
    assert not [n for n in names if "__pycache__" in n]
    assert mode & stat.S_IXUSR
    assert {"setup.py", "grader/package_data.py", "grader/framework.yaml",
            "suites/chapter07/plugin/mistakes.yaml", "suites/chapter07/plugin/hooks.py"} <= names  # pip install . works, and diagnosis with it
    from grader.install import TORCH_CPU_INSTALL

    with zipfile.ZipFile(autograder) as zf:
        setup = zf.read("setup.sh").decode("utf-8")
    assert f"pip install --break-system-packages {TORCH_CPU_INSTALL}" in setup  # CPU torch, not CUDA


def _simulate(autograder: Path, tmp_path: Path, submission: Path | None) -> dict:
    root = tmp_path / "autograder"
    (root / "source").mkdir(parents=True)
    (root / "submission").mkdir()
    with zipfile.ZipFile(autograder) as zf:
        zf.extractall(root / "source")
    if submission is not None:
        for f in submission.iterdir():
            shutil.copy(f, root / "submission" / f.name)
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_PYTHON": sys.executable}
    env.pop("GITHUB_ACTIONS", None)
    env.pop("GITHUB_STEP_SUMMARY", None)
    run = subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env,
                         capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))


def _valid(results: dict) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(results, json.loads(SCHEMA.read_text(encoding="utf-8")))


def test_run_autograder_grades_a_submission(autograder: Path, tmp_path: Path) -> None:
    """Full grading (public and hidden) of a correct submission gives full marks."""
    results = _simulate(autograder, tmp_path, ROOT / "examples" / "submissions" / "correct")
    _valid(results)
    assert results["score"] == results["extra_data"]["max_score"] > 0
    ids = [t["extra_data"]["id"] for t in results["tests"] if "extra_data" in t]
    assert any(i.startswith("hidden/") for i in ids) and any(i.startswith("public/") for i in ids)
    assert {"visible", "hidden"} <= {t["visibility"] for t in results["tests"]}


def test_run_autograder_names_the_mistake(autograder: Path, tmp_path: Path) -> None:
    results = _simulate(autograder, tmp_path, ROOT / "examples" / "submissions" / "sqrt-d-model")
    _valid(results)
    assert 0 < results["score"] < results["extra_data"]["max_score"]
    assert "sqrt-d-model" in results["extra_data"]["mistakes"]


def test_run_autograder_reports_a_grader_failure(autograder: Path, tmp_path: Path) -> None:
    """When the grader cannot run at all, the student still gets a results.json with a message."""
    with zipfile.ZipFile(autograder) as zf:
        script = zf.read("run_autograder").decode()
    broken = tmp_path / "broken.zip"
    with zipfile.ZipFile(autograder) as src, zipfile.ZipFile(broken, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename.startswith("rubrics/"):
                data = b"schema: [\n"  # not YAML: the grader stops with exit status 2
            dst.writestr(item, data)
    assert "results.json" in script
    results = _simulate(broken, tmp_path, ROOT / "examples" / "submissions" / "correct")
    _valid(results)
    assert results["score"] == 0
    assert [t["visibility"] for t in results["tests"]] == ["visible", "hidden"]
    assert "exit status 2" in results["tests"][1]["output"]
