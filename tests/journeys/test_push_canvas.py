"""``grader push OUT --to canvas``: the session's graded class pushed into the Canvas double
(tests/canvas_double.py, built from canvas-lms's controllers), as an instructor runs it: a dry
run, a real push, the same push again, an adjustment with a grade changed in Canvas meanwhile,
the posting-policy refusal, and a push killed midway and run again."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.canvas_double import CanvasDouble, Request
from tests.helpers import ROOT, grader_here, read_gradebook

TOKEN = "7~journeyTOKENdoNotLeak0123456789abcdef"


@pytest.fixture
def term(graded_class, tmp_path: Path) -> Iterator[tuple[Path, CanvasDouble, dict[str, str], Path]]:  # type: ignore[no-untyped-def]
    """A copy of the graded class, a Canvas user id for each of its students (and one enrolled
    student the batch does not know), and the double holding no grade yet."""
    out = graded_class.copy(tmp_path / "out")
    book = read_gradebook(out)
    ids = {r["student_id"]: str(2001 + i) for i, r in enumerate(book)}
    ids_file = tmp_path / "ids.csv"
    ids_file.write_text("student,lms_id\n" + "".join(f"{s},{k}\n" for s, k in ids.items()), encoding="utf-8")
    double = CanvasDouble(TOKEN, {**{k: None for k in ids.values()}, "2999": None}).start()
    yield out, double, ids, ids_file
    double.stop()


def push(out: Path, double: CanvasDouble, ids_file: Path, *more: str) -> object:
    """``grader push`` as the instructor types it; what it prints never holds the token."""
    result = grader_here("push", out, "--to", "canvas", "--url", double.url, "--course", double.course,
                         "--assignment", double.assignment, "--lms-ids", ids_file, "--lang", "en", *more,
                         env={"CANVAS_TOKEN": TOKEN})
    assert TOKEN not in result.stdout + result.stderr
    return result


def expected(out: Path, ids: dict[str, str]) -> dict[str, float]:
    """Each graded student's final score as gradebook.csv has it, by Canvas id."""
    return {ids[r["student_id"]]: round(float(r["score"]), 2) for r in read_gradebook(out)
            if r["score"] not in ("", None) and not r["flags"]}


def files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_dry_run_then_push_then_nothing_then_an_lms_edit_survives(term) -> None:  # type: ignore[no-untyped-def]
    out, double, ids, ids_file = term
    want = expected(out, ids)
    assert len(want) >= 5
    before = files(out)

    dry = push(out, double, ids_file, "--dry-run")
    assert dry.exit_code == 0, dry.stderr
    assert files(out) == before  # the dry run wrote nothing here…
    assert double.write_requests() == []  # …nor in Canvas
    planned = {line.split("]")[0].split("[")[1]: float(line.split("-> ")[1].split(" ")[0])
               for line in dry.stdout.splitlines() if "->" in line}
    assert planned == want
    assert "nothing was written" in dry.stderr

    real = push(out, double, ids_file)
    assert real.exit_code == 0, real.stderr
    # the dry run named exactly the cells the real push wrote
    assert {uid: score for uid, score in double.writes} == planned
    assert {k: v for k, v in double.scores.items() if v is not None} == want
    assert double.scores["2999"] is None  # enrolled, not in the batch: untouched
    # a short comment in the rubric's first language (Japanese): the score and the mistake named
    divide = ids["divide-by-dk"]
    assert double.comments[divide][0].startswith(f"得点 {want[divide]:g} / ")
    assert "間違い: " in double.comments[divide][0]
    csvs = sorted((out / "push").glob("*.csv"))
    assert len(csvs) == 1
    rows = list(csv.DictReader(csvs[0].open(encoding="utf-8")))
    assert len(rows) == len(ids) and {r["state"] for r in rows} <= {"sent", "skipped"}
    assert all(r["reason"] for r in rows if r["state"] == "skipped")
    ledger = [json.loads(x) for x in (out / "ledger.jsonl").read_text(encoding="utf-8").splitlines()]
    assert ledger[-1]["op"] == "push" and ledger[-1]["push"]["platform"] == "canvas"
    assert set(ledger[-1]["push"]["students"]) == set(want)
    assert grader_here("ledger", out, "--verify").exit_code == 0

    writes = len(double.write_requests())
    again = push(out, double, ids_file)
    assert again.exit_code == 0, again.stderr
    assert len(double.write_requests()) == writes  # a second push writes nothing
    assert "sent" not in {line.split(": ")[1].split(" ")[0] for line in again.stdout.splitlines() if ": " in line}

    # the instructor changes one grade in Canvas, and adjusts another student in the grader
    edited, adjusted = sorted(want)[:2]
    double.scores[edited] = 1.25
    student = next(s for s, k in ids.items() if k == adjusted)
    adj = grader_here("adjust", out, student, "--points=-1", "--reason", "copied the softmax from a classmate",
                      "--lang", "en")
    assert adj.exit_code == 0, adj.stderr
    third = push(out, double, ids_file)
    assert third.exit_code == 0, third.stderr
    assert double.scores[edited] == 1.25  # the edit in Canvas survives
    assert "changed in the LMS since the last push (it holds 1.25, the last push wrote" in third.stdout
    assert double.scores[adjusted] == round(want[adjusted] - 1, 2)
    assert "copied the softmax from a classmate" in double.comments[adjusted][-1]
    assert len(double.write_requests()) == writes + 1

    forced = push(out, double, ids_file, "--overwrite-lms-edits")
    assert forced.exit_code == 0 and double.scores[edited] == want[edited]

    # the token is nowhere in what the push wrote
    for name, data in files(out).items():
        assert TOKEN.encode() not in data, name


def test_an_assignment_posting_automatically_is_refused_before_publication(term, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out, double, ids, ids_file = term
    double.post_manually = False
    refused = push(out, double, ids_file)
    assert refused.exit_code == 2
    assert "posts grades automatically" in refused.stderr and "grader publish" in refused.stderr
    assert double.write_requests() == [] and not (out / "push").exists()
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN)
    os.chmod(token_file, 0o644)
    loose = grader_here("push", out, "--to", "canvas", "--url", double.url, "--course", "7", "--assignment", "42",
                        "--token-file", token_file, "--lang", "ja", env={"CANVAS_TOKEN": ""})
    assert loose.exit_code == 2 and "chmod 600" in loose.stderr and TOKEN not in loose.stderr + loose.stdout


def test_one_student_canvas_refuses_fails_alone_and_the_exit_status_says_so(term) -> None:  # type: ignore[no-untyped-def]
    out, double, ids, ids_file = term
    want = expected(out, ids)
    refused = sorted(want)[0]
    double.refuse_users = {refused}
    result = push(out, double, ids_file)
    assert result.exit_code == 4, result.stderr
    assert double.scores[refused] is None
    assert {k: v for k, v in double.scores.items() if v is not None} == {k: v for k, v in want.items() if k != refused}
    line = next(x for x in result.stdout.splitlines() if f"[{refused}]" in x)
    assert "failed (HTTP 404: The specified resource does not exist.)" in line
    rows = list(csv.DictReader(next((out / "push").glob("*.csv")).open(encoding="utf-8")))
    assert [r["state"] for r in rows if r["lms_id"] == refused] == ["failed"]
    double.refuse_users = set()
    assert push(out, double, ids_file).exit_code == 0 and double.scores[refused] == want[refused]


def test_a_push_killed_midway_converges_when_run_again(term) -> None:  # type: ignore[no-untyped-def]
    """The process is killed (SIGKILL) as Canvas receives the bulk update; run again, every
    student holds the expected score, no one is written twice, and the ledger holds."""
    out, double, ids, ids_file = term
    want = expected(out, ids)
    proc: subprocess.Popen[str] | None = None
    double.polls_before_done = 1000

    def kill(request: Request) -> None:
        if request.method == "POST" and proc is not None:
            os.kill(proc.pid, signal.SIGKILL)

    double.on_request = kill
    proc = subprocess.Popen([sys.executable, "-m", "grader", "push", str(out), "--to", "canvas", "--url", double.url,
                             "--course", double.course, "--assignment", double.assignment, "--lms-ids", str(ids_file)],
                            cwd=ROOT, env={**os.environ, "CANVAS_TOKEN": TOKEN}, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.communicate(timeout=300)
    assert proc.returncode == -signal.SIGKILL
    double.on_request = None
    double.polls_before_done = 1
    again = push(out, double, ids_file)
    assert again.exit_code == 0, again.stderr
    assert {k: v for k, v in double.scores.items() if v is not None} == want
    written = [uid for uid, _ in double.writes]
    assert len(written) == len(set(written))  # the bulk job ran once; the re-run found it done
    assert grader_here("ledger", out, "--verify").exit_code == 0


def test_a_token_expired_midway_is_said_once_with_the_count_and_each_student_in_the_csv(term) -> None:  # type: ignore[no-untyped-def]
    """Canvas stops taking the token after two students' writes: every student after them fails for
    that one long reason, which the terminal says once, with how many it stopped and where each one is
    listed; each student's line stays short and points to it; the CSV has the reason on every line."""
    out, double, ids, ids_file = term
    want = expected(out, ids)
    double.bulk_refused = True  # one PUT per student, so that the token expires between two of them

    def expire(request: Request) -> None:
        if request.method == "PUT" and not double.expire_at and sum(r.method == "PUT" for r in double.log) == 2:
            double.expire_at = len(double.log) + 1

    double.on_request = expire
    result = push(out, double, ids_file)
    assert result.exit_code == 4, result.stderr
    stopped = len(want) - 2
    assert len(double.writes) == 2 and stopped >= 3
    failed = [x for x in result.stdout.splitlines() if ": failed" in x]
    assert len(failed) == stopped and all(x.endswith(": failed (reason 1 below)") for x in failed)
    assert (result.stdout + result.stderr).count("make a new access token") == 1
    csv_path = next((out / "push").glob("*.csv"))
    assert f"reason 1, for {stopped} students (each one is listed with it in {csv_path}): Canvas at" in result.stderr
    rows = list(csv.DictReader(csv_path.open(encoding="utf-8")))
    assert sorted(r["lms_id"] for r in rows if r["state"] == "failed") == sorted(
        x.split("[")[1].split("]")[0] for x in failed)
    assert all("make a new access token" in r["reason"] for r in rows if r["state"] == "failed")
