"""The fault tests of ``grader push`` to Canvas and to LTI 1.3 (the second at the end): 1,000 students into the Canvas double
(tests/canvas_double.py) with 5 % of requests answered 503, a 429 with ``Retry-After`` every 50th
request, the token expiring once midway and the process killed (SIGKILL) at a random request;
running the push again reaches the expected value for every student, writes no one twice, writes no
one who is not theirs, and creates nothing in Canvas (no assignment, no column).

The push is :func:`grader.workflows.push.push` itself, in a process of its own (so that it can be
killed), on an OUT folder whose rows are made here rather than graded: the 1,000 rows the push
reads are given to it as ``batch_rows`` would give them (as bench/push_canvas.py does), and its
ledger and push CSVs are the real ones. Seeded: the same faults every run. No real sleep: the
transport's waits are recorded, not slept (Retry-After is 1 s each time, and would cost minutes)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

from tests.canvas_double import CanvasDouble, Request
from tests.helpers import ROOT

TOKEN, NEW_TOKEN = "7~faultTOKENfirst0123456789", "7~faultTOKENsecond0123456789"
N = 1000

#: the push as ``grader push`` runs it, on rows made by the test; prints its counts and the waits
CHILD = r"""
import json, os, sys
from pathlib import Path
import grader.workflows.push as pushing
from grader.lms.canvas import CanvasPlatform
from grader.lms.transport import Transport
from grader.outputs.gradebook import GradebookRow
from grader.spec.rubric.load import load_rubric

out, url, scores = Path(sys.argv[1]), sys.argv[2], json.loads(Path(sys.argv[3]).read_text())
rows = [GradebookRow(k, k, lms="canvas", cells={"score": v}) for k, v in scores.items()]
pushing.batch_rows = lambda outdir, rubric: rows
pushing.with_lms_ids = lambda outdir, given: list(given)
waits = []
transport = Transport(url, os.environ["CANVAS_TOKEN"], sleep=waits.append)
platform = CanvasPlatform(url, "7", "42", transport, sleep=lambda s: None, poll_every=0)
result = pushing.push(out, load_rubric(Path(sys.argv[4])), platform, by="fault test", lang="en")
reasons = sorted({l.reason for l in result.lines if l.state == "failed"})
print(json.dumps({"counts": result.counts, "waits": waits, "failed": reasons}))
sys.exit(4 if result.failed else 0)
"""


def run(out: Path, double: CanvasDouble, scores: Path, token: str) -> subprocess.Popen[str]:
    """The push in a process of its own, the token in CANVAS_TOKEN as ``grader push`` reads it."""
    return subprocess.Popen([sys.executable, "-c", CHILD, str(out), double.url, str(scores),
                             str(ROOT / "rubrics" / "chapter07.yaml")], cwd=ROOT, text=True,
                            env={**os.environ, "CANVAS_TOKEN": token}, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish(proc: subprocess.Popen[str]) -> tuple[int, dict, str]:  # type: ignore[type-arg]
    stdout, stderr = proc.communicate(timeout=600)
    return proc.returncode, (json.loads(stdout) if stdout.strip() else {}), stderr


def test_a_thousand_students_under_faults_a_token_expiry_and_a_kill_converge(tmp_path: Path) -> None:
    rng = random.Random(4848)
    expected = {str(20_000 + i): rng.randint(0, 248) / 2 for i in range(N)}
    scores = tmp_path / "scores.json"
    scores.write_text(json.dumps(expected), encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    # one more student enrolled (never in the batch), and Canvas refusing the bulk update: one
    # PUT per student, so that the faults fall on writes
    double = CanvasDouble(TOKEN, {**{k: None for k in expected}, "29999": None}, bulk_refused=True,
                          fail_share=0.05, seed=48, rate_limit_every=50, retry_after="1").start()
    try:
        # 1. killed at a random request, somewhere among the writes
        kill_at = rng.randint(150, 900)
        proc: subprocess.Popen[str] | None = None

        def kill(request: Request) -> None:
            if proc is not None and len(double.log) == kill_at:
                os.kill(proc.pid, signal.SIGKILL)

        double.on_request = kill
        proc = run(out, double, scores, TOKEN)
        code, _, _ = finish(proc)
        double.on_request = None
        assert code == -signal.SIGKILL
        first = len(double.writes)
        assert 0 < first < N
        assert not (out / "ledger.jsonl").exists() or "push" not in (out / "ledger.jsonl").read_text(encoding="utf-8")

        # 2. run again; the token expires midway: no further write, the reason says what to do
        double.expire_at = len(double.log) + rng.randint(150, 400)
        code, said, _ = finish(run(out, double, scores, TOKEN))
        assert code == 4
        assert len(said["failed"]) == 1 and "make a new access token" in said["failed"][0]
        after_expiry = len(double.log)
        assert all(r.status == 401 for r in double.log[double.expire_at - 1:]) and after_expiry - double.expire_at < 3
        second = len(double.writes)
        assert first < second < N
        assert said["counts"]["failed"] == N - second and said["counts"]["unchanged"] == first

        # 3. with a new token, the rest is written
        double.token, double.expire_at = NEW_TOKEN, 0
        code, said, stderr = finish(run(out, double, scores, NEW_TOKEN))
        assert code == 0, stderr
        assert said["counts"] == {"sent": N - second, "unchanged": second, "skipped": 0, "failed": 0}
        assert 1.0 in said["waits"]  # Retry-After obeyed (recorded, not slept)

        # 4. and once more: nothing to write
        writes = len(double.write_requests())
        code, said, _ = finish(run(out, double, scores, NEW_TOKEN))
        assert code == 0 and said["counts"]["unchanged"] == N and len(double.write_requests()) == writes
    finally:
        double.stop()

    faults = [r.status for r in double.log]
    assert faults.count(503) > 0.03 * len(faults) and faults.count(429) >= len(faults) // 50 - 1
    # the expected state, for every student, and nobody else's cell touched
    assert {k: v for k, v in double.scores.items() if k != "29999"} == expected
    assert double.scores["29999"] is None
    written = [uid for uid, _ in double.writes]
    assert len(written) == len(set(written)) == N  # no student written twice
    assert all(expected[uid] == score for uid, score in double.writes)  # 0 wrong-person writes
    # nothing created: only the assignment's own submissions were written (no new assignment/column)
    assert {r.method for r in double.log} <= {"GET", "POST", "PUT"}
    assert all(r.path.endswith("/submissions/update_grades") for r in double.log if r.method == "POST")
    assert all("/assignments/42/submissions/" in r.path for r in double.log if r.method == "PUT")
    # the ledger: the two pushes that finished (the killed one left none), and no token anywhere
    ledger = [json.loads(x) for x in (out / "ledger.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [e["op"] for e in ledger] == ["push", "push", "push"]
    for path in out.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert TOKEN.encode() not in data and NEW_TOKEN.encode() not in data, path


#: the push to LTI 1.3 as ``grader push --to lti13`` runs it, on rows made by the test
CHILD_LTI = r"""
import json, sys
from pathlib import Path
import grader.workflows.push as pushing
from grader.lms.lti13 import open_platform
from grader.outputs.gradebook import GradebookRow
from grader.spec.rubric.load import load_rubric

out, platform_path, scores = Path(sys.argv[1]), Path(sys.argv[2]), json.loads(Path(sys.argv[3]).read_text())
rows = [GradebookRow(k, k, lms="lti13", cells={"score": v}) for k, v in scores.items()]
pushing.batch_rows = lambda outdir, rubric: rows
pushing.with_lms_ids = lambda outdir, given: list(given)
waits = []
platform, http = open_platform(platform_path, maximum=124.0, expected=list(scores), sleep=waits.append)
try:
    result = pushing.push(out, load_rubric(Path(sys.argv[4])), platform, by="fault test", lang="en",
                          ids={k: k for k in scores}, scrub=http.scrub)
finally:
    http.close()
reasons = sorted({l.reason for l in result.lines if l.state == "failed"})
print(json.dumps({"counts": result.counts, "waits": waits, "failed": reasons}))
sys.exit(4 if result.failed else 0)
"""


def test_a_thousand_students_into_lti13_under_faults_a_token_expiry_and_a_kill_converge(tmp_path: Path) -> None:
    """The same faults against the LTI 1.3 platform (tests/lti_platform.py: lti1p3platform's services):
    5 % of requests 503, a 429 every 50th, the access token expiring once midway (renewed by the push:
    nothing fails for it) and a SIGKILL at a random request; running the push again reaches the
    expected score for every student, with one line item made, no one written twice and no
    wrong-person write. Seeded; the waits are recorded, not slept."""
    from grader.report.outdir import write_published
    from tests.lti_platform import INSTRUCTOR, LEARNER, LtiPlatform, platform_file, rsa_pem
    from tests.lti_platform import Request as LtiRequest

    private, public = rsa_pem()
    rng = random.Random(4849)
    expected = {str(30_000 + i): rng.randint(0, 248) / 2 for i in range(N)}
    scores = tmp_path / "scores.json"
    scores.write_text(json.dumps(expected), encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    write_published(out, "fault test", datetime(2026, 12, 8, tzinfo=timezone.utc))  # LTI: written only once public
    members = [{"user_id": k, "roles": [LEARNER]} for k in expected]
    members += [{"user_id": "39999", "roles": [LEARNER]}, {"user_id": "t-1", "roles": [INSTRUCTOR]}]
    lti = LtiPlatform(public, "fault-kid", members, rate_limit_every=50,
                      fail_requests=set(rng.sample(range(1, 4000), 200))).start()
    folder = tmp_path / "lti"
    folder.mkdir()
    platform = platform_file(folder, lti, private)

    def run() -> subprocess.Popen[str]:
        return subprocess.Popen([sys.executable, "-c", CHILD_LTI, str(out), str(platform), str(scores),
                                 str(ROOT / "rubrics" / "chapter07.yaml")], cwd=ROOT, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        # 1. killed at a random request, somewhere among the scores
        kill_at = rng.randint(150, 900)
        proc: subprocess.Popen[str] | None = None

        def kill(request: LtiRequest) -> None:
            if proc is not None and len(lti.log) == kill_at:
                os.kill(proc.pid, signal.SIGKILL)

        lti.on_request = kill
        proc = run()
        code, _, _ = finish(proc)
        lti.on_request = None
        assert code == -signal.SIGKILL
        first = len(lti.writes)
        assert 0 < first < N and len(lti.lineitems) == 1

        # 2. run again; the access token expires midway: renewed, the same score sent again
        lti.expire_at = len(lti.log) + rng.randint(150, 400)
        issued = len(lti.tokens_issued)
        code, said, stderr = finish(run())
        assert code == 0, stderr
        assert said["counts"] == {"sent": N - first, "unchanged": first, "skipped": 0, "failed": 0}
        assert lti.expirations == 1 and len(lti.tokens_issued) == issued + 2  # the first, and its renewal
        assert sum(1 for r in lti.log if r.status == 401) == 1
        assert 0.0 in said["waits"]  # the 429's Retry-After: 0, obeyed (recorded, not slept)

        # 3. and once more: nothing to write
        writes = len(lti.write_requests())
        code, said, _ = finish(run())
        assert code == 0 and said["counts"]["unchanged"] == N and len(lti.write_requests()) == writes
    finally:
        lti.stop()

    faults = [r.status for r in lti.log]
    assert faults.count(503) > 0.03 * len(faults) and faults.count(429) >= len(faults) // 50 - 1
    held = lti.held()
    assert held == expected and "39999" not in held and "t-1" not in held
    written = [uid for uid, _ in lti.writes]
    assert len(written) == len(set(written)) == N  # no student written twice
    assert all(expected[uid] == score for uid, score in lti.writes)  # 0 wrong-person writes
    # one line item, made by one POST: the re-runs found it
    assert len(lti.lineitems) == 1
    assert sum(1 for r in lti.log if r.method == "POST" and r.path.endswith("/lineitems") and r.status < 300) == 1
    ledger = [json.loads(x) for x in (out / "ledger.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [e["op"] for e in ledger] == ["push", "push"]  # the killed push left none
    for path in out.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert not any(t.encode() in data for t in lti.tokens_issued), path
