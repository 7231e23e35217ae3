"""A hang costs only its own function, in ``grader grade`` and in ``grader batch``.

The submission is the reference with ``softmax`` replaced by an endless loop. Its softmax
tests must be ``timeout``; scaling and variance keep full marks; each hanging function waits
its per-call limit once (later calls fail at once with the same message), so the whole
submission finishes well inside its per-submission budget, which the old behaviour (every
call waiting the full per-call limit) would have used up.
"""

from __future__ import annotations

import csv
import json
import shutil
import time
from pathlib import Path

import pytest

from tests.helpers import ROOT, run_grader


PER_CALL_S = 3
PER_SUBMISSION_S = 60
HANGS = '''

def softmax(x, dim=-1):
    while True:
        pass
'''


def _rubric(tmp_path: Path) -> Path:
    """The shipped rubric with short per-call limits and JSON reports."""
    from tests.helpers import rubric_copy

    def edit(data: dict) -> None:
        # cpu_s above the per-call limit: the loop must end by the wall clock (a timeout), not
        # by the CPU limit (a crash).
        data["limits"].update(per_call_s=PER_CALL_S, per_submission_s=PER_SUBMISSION_S, cpu_s=120)
        data["report"]["formats"] = ["json"]

    return rubric_copy(tmp_path, edit=edit)


def _hanging_submission(folder: Path) -> Path:
    shutil.copytree(ROOT / "solutions" / "chapter07", folder)
    with (folder / "softmax.py").open("a", encoding="utf-8") as fh:
        fh.write(HANGS)
    return folder


def _check(report: dict) -> None:
    # The submission's own grading time (not the tool's start-up): four waits of the per-call
    # limit plus ordinary grading, far inside the budget whatever the machine's speed.
    assert report["duration_s"] < PER_SUBMISSION_S, report["duration_s"]
    parts = {p["id"]: p for p in report["parts"]}
    for part in ("scaling", "variance"):
        assert parts[part]["score"] == parts[part]["max_score"] > 0, part
    softmax_tests = [t for t in report["tests"] if t["part"] == "softmax"]
    timed_out = [t for t in softmax_tests if t["status"] == "timeout"]
    # Only the tests of functions that call the endless softmax time out; the rest pass
    # (softmax_jacobian, and the temperature checks that raise before computing anything).
    assert timed_out and all(t["status"] in ("timeout", "passed") for t in softmax_tests)
    assert all(t["status"] != "timeout" for t in report["tests"] if t["part"] != "softmax")
    # Without containment every one of these tests would have waited the per-call limit:
    # more than the whole submission's budget.
    assert len(timed_out) * PER_CALL_S > PER_SUBMISSION_S, len(timed_out)
    # With it, each hanging function waited once: softmax itself and the three that call it.
    waits = [e for e in report["errors"] if "did not return" in e]
    assert len(waits) == 4, waits
    messages = {t["feedback"]["en"] for t in timed_out}
    assert len(messages) == 4, messages  # the same message for every call of one function
    print(f"{len(timed_out)} softmax tests timed out after {len(waits)} waits of {PER_CALL_S} s;", end=" ")


def test_grade_a_hanging_softmax_costs_only_softmax(tmp_path):
    rubric = _rubric(tmp_path)
    sub = _hanging_submission(tmp_path / "hangs")
    out = tmp_path / "report.json"
    started = time.monotonic()
    proc = run_grader("grade", str(sub), "--rubric", str(rubric), "--format", "json", "--out", str(out),
                   timeout=PER_SUBMISSION_S * 3)
    elapsed = time.monotonic() - started
    assert out.exists(), proc.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    _check(report)
    print(f"grade: the submission took {report['duration_s']:.1f} s ({elapsed:.1f} s with start-up) "
          f"although softmax hangs (per-call {PER_CALL_S} s, per-submission {PER_SUBMISSION_S} s)")


def test_batch_a_hanging_softmax_costs_only_softmax(tmp_path):
    rubric = _rubric(tmp_path)
    src = tmp_path / "src"
    src.mkdir()
    _hanging_submission(src / "hangs")
    shutil.copytree(ROOT / "examples" / "submissions" / "correct", src / "correct")
    out = tmp_path / "out"
    started = time.monotonic()
    proc = run_grader("batch", str(src), "--out", str(out), "--rubric", str(rubric), "-j", "1", "--no-progress",
                   timeout=PER_SUBMISSION_S * 3)
    elapsed = time.monotonic() - started
    assert proc.returncode in (0, 1), proc.stderr
    with (out / "gradebook.csv").open(encoding="utf-8") as fh:
        rows = {r["submission"]: r for r in csv.DictReader(fh)}
    assert rows["correct"]["score"] == rows["correct"]["max_score"]
    reports = {p.stem.split(".")[0]: p for p in out.rglob("*.json") if "hangs" in p.name}
    assert reports, sorted(p.name for p in out.rglob("*"))
    report = json.loads(next(iter(reports.values())).read_text(encoding="utf-8"))
    _check(report)
    print(f"batch: the hanging submission took {report['duration_s']:.1f} s; the whole batch of two "
          f"{elapsed:.1f} s")


@pytest.mark.parametrize("bad_cell", ["import os\nos._exit(3)", "import time\ntime.sleep(3600)"])
def test_a_notebook_cell_that_ends_or_hangs_the_worker_costs_only_that_cell(tmp_path, bad_cell):
    """A notebook whose every function is right, with one cell between them that ends the
    worker process or never finishes: that cell is set aside and named, the other cells run,
    and every function they define is graded (before, not one: the whole notebook was)."""
    import nbformat

    rubric = _rubric(tmp_path)
    cells = [nbformat.v4.new_code_cell((ROOT / "solutions" / "chapter07" / f"{name}.py").read_text(encoding="utf-8"))
             for name in ("scaling", "softmax")]
    cells.insert(1, nbformat.v4.new_code_cell(bad_cell))
    cells.append(nbformat.v4.new_code_cell((ROOT / "solutions" / "chapter07" / "variance.py").read_text(encoding="utf-8")))
    path = tmp_path / "student.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
    out = tmp_path / "report.json"
    proc = run_grader("grade", str(path), "--rubric", str(rubric), "--format", "json", "--out", str(out),
                   timeout=PER_SUBMISSION_S * 3)
    assert out.exists(), proc.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    parts = {p["id"]: p for p in report["parts"]}
    for part in ("scaling", "softmax", "variance"):
        assert parts[part]["score"] == parts[part]["max_score"] > 0, (part, report["errors"])
    said = "ended the worker process" if "_exit" in bad_cell else "did not finish within"
    assert any(e.startswith(f"running student.ipynb, cell 2 {said}") and "the other cells ran without it" in e
               for e in report["errors"]), report["errors"]
