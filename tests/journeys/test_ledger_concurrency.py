"""Two TAs at once: ``grader adjust`` run by 8 processes at a time, 50 rounds, the first round
while a ``grader regrade`` of the same folder runs. The folder's lock makes them take turns: the
chain verifies after every round, every adjustment is in every output (each report, the
gradebook), and the regrade neither loses the adjustments made while it ran nor says the tests
moved a score that only an adjustment did."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
import time
from pathlib import Path

from grader.report import ledger

from tests.helpers import ROOT, RUBRIC, read_gradebook, read_report

#: the students adjusted (scores well inside 0..124: no adjustment below is cut at either end)
STUDENTS = ("broken-softmax", "divide-by-dk", "softmax-overflow", "sqrt-d-model")
ROUNDS, AT_ONCE = 50, 8
#: the test graded again: it moves no score (the batch's seed, the same suite)
TEST = "public/test_scaling.py::test_head_dim[[]*"


def _adjust(out: Path, student: str, points: float, reason: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "grader", "adjust", str(out), student, "--points", f"{points:g}",
                             "--reason", reason, "--by", "ta", "--rubric", str(RUBRIC), "--lang", "en"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _round(out: Path, r: int) -> dict[str, float]:
    """8 adjustments at once, two of each student: points by student and reasons, as asked."""
    points = 0.25 if r % 2 == 0 else -0.25
    procs = [_adjust(out, STUDENTS[i % len(STUDENTS)], points, f"round {r} ta {i}") for i in range(AT_ONCE)]
    for proc in procs:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
    return {s: 2 * points for s in STUDENTS}


def _wait_for_regrade_to_hold_the_ledger(out: Path, pid: int, regrade: subprocess.Popen[str]) -> None:
    """Until the regrade has read the ledger (its pid is written in the lock file when it takes
    the folder's lock), so what follows is made while it runs."""
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and regrade.poll() is None:
        lock = out / "ledger.lock"
        if lock.exists() and f"pid {pid}: grader regrade" in lock.read_text(encoding="utf-8", errors="replace"):
            return
        time.sleep(0.02)
    raise AssertionError(f"the regrade never took the folder's lock: {regrade.poll()}")


def test_eight_adjusts_at_once_fifty_times_and_during_a_regrade_lose_nothing(graded_class, tmp_path):
    out = graded_class.copy(tmp_path / "out")
    automatic = {s: float(read_report(out, s)["score"]) for s in STUDENTS}
    given = dict.fromkeys(STUDENTS, 0.0)

    regrade = subprocess.Popen([sys.executable, "-m", "grader", "regrade", str(graded_class.source), "--out", str(out),
                                "--test", TEST, "--rubric", str(RUBRIC), "--no-progress", "--lang", "en", "-j", "1"],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for_regrade_to_hold_the_ledger(out, regrade.pid, regrade)
    for s, p in _round(out, 0).items():
        given[s] += p
    _, err = regrade.communicate(timeout=900)
    assert regrade.returncode == 0, err
    assert "8 graded again, 0 changed" in err, err  # no score moved by the test, none blamed on it
    record = next((out / "regrades").glob("*.csv")).read_text(encoding="utf-8-sig")
    assert list(csv.DictReader(io.StringIO(record))) == [], record
    assert ledger.verify(out) == AT_ONCE

    for r in range(1, ROUNDS):
        for s, p in _round(out, r).items():
            given[s] += p
        assert ledger.verify(out) == AT_ONCE * (r + 1), f"round {r}"

    entries = ledger.read(out)
    assert [e.n for e in entries] == list(range(1, ROUNDS * AT_ONCE + 1))
    book = read_gradebook(out, by="submission")
    for s in STUDENTS:
        mine = ledger.for_submission(entries, s)
        assert len(mine) == ROUNDS * AT_ONCE // len(STUDENTS)
        report = read_report(out, s)
        assert sorted(e["n"] for e in report["adjustment"]["entries"]) == [e.n for e in mine], s
        assert report["adjustment"]["automatic_score"] == automatic[s]
        assert abs(float(report["score"]) - (automatic[s] + given[s])) < 1e-9, s
        row = book[s]
        assert abs(float(row["score"]) - float(report["score"])) < 1e-9, s
        assert abs(float(row["adjustment"]) - given[s]) < 1e-9, s
        assert all(e.reason in row["adjustment_reasons"] for e in mine), s


def test_resume_never_takes_a_hidden_copy_that_disagrees_with_its_report(graded_class, tmp_path):
    """The JSON copy of a report under OUT/.cache edited (its hash of the yaml left as it was): the
    --resume reads the report itself, names the student, removes the copy, and every output keeps
    the report's score."""
    import json

    out = graded_class.copy(tmp_path / "out")
    copy = out / ".cache" / "reports" / "divide-by-dk.json"
    kept = json.loads(copy.read_text(encoding="utf-8"))
    score = kept["report"]["score"]
    kept["report"]["score"] = 124.0
    copy.write_text(json.dumps(kept), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "grader", "batch", str(graded_class.source), "--out", str(out),
                           *graded_class.args, "--resume"], cwd=ROOT, capture_output=True, text=True, timeout=900,
                          check=False)
    assert done.returncode in (0, 1), done.stderr
    assert "divide-by-dk: the hidden copy of its report" in done.stderr, done.stderr
    assert "the copy was removed and the report itself used" in done.stderr
    assert float(read_gradebook(out, by="submission")["divide-by-dk"]["score"]) == score
    assert read_report(out, "divide-by-dk")["score"] == score
