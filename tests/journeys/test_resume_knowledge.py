"""``grader batch --resume`` follows the grader's knowledge of mistakes, not only the rubric.

A report says which mistakes a submission made; that depends on the mistake catalogue and
on the diagnosis code as much as on the rubric and the suites. So the fingerprint a resumed
batch compares includes both, and a class resumed after either changed is graded again.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.helpers import ROOT, run_grader


def _checkout(dest: Path) -> Path:
    """A copy of the parts of the course repository that grading reads, grader package included."""
    for name in ("grader", "rubrics", "suites", "solutions", "exercises"):
        shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    return dest


def _batch(checkout: Path, src: Path, out: Path, *extra: str) -> str:
    proc = run_grader("batch", src, "--out", out, "-j", "1", "--seed", "11", "--no-progress", "--lang", "en", *extra,
                      cwd=checkout)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stderr


def test_resume_regrades_after_the_catalogue_or_the_diagnosis_changed(tmp_path):
    """batch, resume (nothing regraded), edit the catalogue, resume (all regraded), edit the probes, resume"""
    checkout = _checkout(tmp_path / "course")
    # The copy is the grader that runs: `python -m grader` from the checkout imports its package.
    probe = subprocess.run([sys.executable, "-c", "import grader; print(grader.__file__)"], cwd=checkout,
                           capture_output=True, text=True, timeout=60)
    assert Path(probe.stdout.strip()).resolve().parent == (checkout / "grader").resolve()
    src = tmp_path / "src"
    src.mkdir()
    shutil.copytree(ROOT / "examples" / "submissions" / "correct", src / "correct")
    shutil.copytree(ROOT / "examples" / "submissions" / "divide-by-dk", src / "divide-by-dk")
    out = tmp_path / "out"

    assert "2 graded" in _batch(checkout, src, out)
    assert "0 graded, 2 kept from before" in _batch(checkout, src, out, "--resume")

    with (checkout / "suites" / "chapter07" / "plugin" / "mistakes.yaml").open("a", encoding="utf-8") as fh:
        fh.write("\n# an instructor's edit of the catalogue\n")
    assert "2 graded, 0 kept from before" in _batch(checkout, src, out, "--resume")
    assert "0 graded, 2 kept from before" in _batch(checkout, src, out, "--resume")

    with (checkout / "suites" / "chapter07" / "plugin" / "hooks.py").open("a", encoding="utf-8") as fh:
        fh.write("\n# a change to the recognisers\n")
    assert "2 graded, 0 kept from before" in _batch(checkout, src, out, "--resume")
