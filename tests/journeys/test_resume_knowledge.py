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


def _imports(stderr: str) -> set[str]:
    """The top-level packages ``python -X importtime`` says a process imported."""
    return {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in stderr.splitlines()
            if line.startswith("import time:")}


def test_a_resume_with_nothing_to_grade_or_only_new_views_imports_no_torch(tmp_path):
    """A class graded, then the rubric's view-only options changed (formats, hidden details):
    --resume grades nothing again, writes every report's new views, and neither it nor a
    second --resume with nothing new imports torch, pytest or matplotlib (in the batch's
    process or any it starts: no grading process is started)."""
    import yaml

    from tests.helpers import rubric_copy

    src = tmp_path / "src"
    src.mkdir()
    for name in ("correct", "divide-by-dk"):
        shutil.copytree(ROOT / "examples" / "submissions" / name, src / name)
    shutil.copyfile(ROOT / "examples" / "submissions" / "notebook-student.ipynb", src / "notebook-student.ipynb")
    rubric = rubric_copy(tmp_path)
    out = tmp_path / "out"
    args = ("batch", src, "--out", out, "--rubric", rubric, "-j", "1", "--seed", "3", "--no-progress", "--lang", "en")
    first = run_grader(*args)
    assert first.returncode in (0, 1) and "3 graded" in first.stderr, first.stderr
    records = {p.name: p.read_bytes() for p in (out / "reports").glob("*.yaml")}
    assert not list((out / "reports").glob("*.md"))

    data = yaml.safe_load(rubric.read_text(encoding="utf-8"))
    data["report"].update(formats=["yaml", "markdown"], hidden_details="after_publish")
    rubric.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    for step in ("new views", "nothing new"):
        done = subprocess.run([sys.executable, "-X", "importtime", "-m", "grader", *map(str, args), "--resume"],
                              cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert done.returncode in (0, 1), done.stderr[-3000:]
        assert "0 graded, 3 kept from before" in done.stderr, (step, done.stderr[-3000:])
        assert not _imports(done.stderr) & {"torch", "pytest", "matplotlib"}, step
        assert records == {p.name: p.read_bytes() for p in (out / "reports").glob("*.yaml")}, step
        assert {p.name[: -len(".md")] for p in (out / "reports").glob("*.md")} == {n[: -len(".yaml")] for n in records}
    # a submission changed since: the resume finds it and grades it, its sandbox chosen then
    with (src / "correct" / "scaling.py").open("a", encoding="utf-8") as fh:
        fh.write("\n# edited after the deadline\n")
    done = run_grader(*args, "--resume")
    assert done.returncode in (0, 1) and "1 graded, 2 kept from before" in done.stderr, done.stderr[-3000:]
    assert yaml.safe_load((out / "reports" / "correct.yaml").read_text(encoding="utf-8"))["sandbox"]["level"] in (
        "namespaces", "rlimits", "subprocess")
    assert records["divide-by-dk.yaml"] == (out / "reports" / "divide-by-dk.yaml").read_bytes()
