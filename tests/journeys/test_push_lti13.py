"""``grader push OUT --to lti13 --platform FILE``: the session's graded class pushed into an LTI 1.3
platform (tests/lti_platform.py: lti1p3platform's token endpoint and services, with Moodle's
gradebook storage), as an instructor runs it: refused before publication; then a dry run, a push,
the same push again, a grade changed in the platform kept, a token that expires mid-push, and a
push killed as the line item is created, run again."""

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

from tests.helpers import ROOT, grader_here, read_gradebook
from tests.lti_platform import INSTRUCTOR, LEARNER, TEST_USER, LtiPlatform, Request, platform_file, rsa_pem

KID = "grader-tool-2026"
PRIVATE, PUBLIC = rsa_pem()


@pytest.fixture
def term(graded_class, tmp_path: Path) -> Iterator[tuple[Path, LtiPlatform, dict[str, str], Path, Path]]:  # type: ignore[no-untyped-def]
    """A copy of the graded class; an LTI user id for each of its students, all learners of the
    course but one made inactive and one the platform's test student; a learner the batch does not
    know and an instructor; the platform holding no line item yet."""
    out = graded_class.copy(tmp_path / "out")
    book = read_gradebook(out)
    ids = {r["student_id"]: f"a1b2-{2001 + i}" for i, r in enumerate(book)}
    graded = sorted(ids[r["student_id"]] for r in book if r["score"] not in ("", None) and not r["flags"])
    inactive, tester = graded[-1], graded[-2]
    members = [{"user_id": k, "roles": [LEARNER] + ([TEST_USER] if k == tester else []),
                **({"status": "Inactive"} if k == inactive else {})} for k in ids.values()]
    members += [{"user_id": "a1b2-2999", "roles": [LEARNER]}, {"user_id": "t-1", "roles": [INSTRUCTOR]}]
    lti = LtiPlatform(PUBLIC, KID, members).start()
    ids_file = tmp_path / "ids.csv"
    ids_file.write_text("student,lms_id\n" + "".join(f"{s},{k}\n" for s, k in ids.items()), encoding="utf-8")
    folder = tmp_path / "lti"
    folder.mkdir()
    yield out, lti, ids, ids_file, platform_file(folder, lti, PRIVATE)
    lti.stop()


def push(out: Path, lti: LtiPlatform, ids_file: Path, platform: Path, *more: str) -> object:
    """``grader push`` as the instructor types it; what it prints holds no token nor assertion."""
    result = grader_here("push", out, "--to", "lti13", "--platform", platform, "--lms-ids", ids_file,
                         "--lang", "en", *more)
    assert not any(t in result.stdout + result.stderr for t in lti.tokens_issued)
    return result


def expected(out: Path, ids: dict[str, str], lti: LtiPlatform) -> dict[str, float]:
    """Each graded student's final score as gradebook.csv has it, by LTI user id: active learners only."""
    return {ids[r["student_id"]]: round(float(r["score"]), 2) for r in read_gradebook(out)
            if r["score"] not in ("", None) and not r["flags"] and lti.gradable(ids[r["student_id"]])
            and not any("TestUser" in x for m in lti.members if m["user_id"] == ids[r["student_id"]]
                        for x in m["roles"])}


def files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def secrets_in(folder: Path, lti: LtiPlatform) -> list[str]:
    return [name for name, data in files(folder).items() for t in lti.tokens_issued if t.encode() in data]


def test_push_before_publication_is_refused_and_writes_nothing(term) -> None:  # type: ignore[no-untyped-def]
    out, lti, ids, ids_file, platform = term
    before = files(out)
    refused = push(out, lti, ids_file, platform)
    assert refused.exit_code == 2
    assert "results are not public yet" in refused.stderr and "grader publish" in refused.stderr
    assert lti.log == [] and files(out) == before
    ja = grader_here("push", out, "--to", "lti13", "--platform", platform, "--lang", "ja")
    assert ja.exit_code == 2 and "先に結果を公開してください" in ja.stderr
    bare = grader_here("push", out, "--to", "lti13", "--lang", "en")
    assert bare.exit_code == 2 and "needs --platform FILE" in bare.stderr
    canvas = grader_here("push", out, "--to", "canvas", "--course", "7", "--lang", "en")
    assert canvas.exit_code == 2 and "needs --url, --assignment" in canvas.stderr


def test_dry_run_push_nothing_then_an_lms_edit_survives_and_a_token_expires_midway(term) -> None:  # type: ignore[no-untyped-def]
    out, lti, ids, ids_file, platform = term
    assert grader_here("publish", out, "--lang", "en").exit_code == 0
    want = expected(out, ids, lti)
    assert len(want) >= 4
    before = files(out)

    dry = push(out, lti, ids_file, platform, "--dry-run")
    assert dry.exit_code == 0, dry.stderr
    assert files(out) == before  # the dry run wrote nothing here…
    assert lti.write_requests() == [] and lti.lineitems == {}  # …nor in the platform: no line item made
    planned = {line.split("]")[0].split("[")[1]: float(line.split("-> ")[1].split(" ")[0])
               for line in dry.stdout.splitlines() if "->" in line}
    assert planned == want

    lti.token_life_uses = 4  # the token expires after four requests: renewed mid-push
    real = push(out, lti, ids_file, platform)
    assert real.exit_code == 0, real.stderr
    # the dry run named exactly the cells the real push wrote
    assert {uid: score for uid, score in lti.writes} == planned
    assert lti.held() == want
    assert len(lti.lineitems) == 1 and lti.lineitems["1"]["resourceLinkId"] == "rl-ch7"
    assert sum(1 for r in lti.log if r.status == 401) >= 1 and len(set(lti.tokens_issued)) >= 1
    assert len([r for r in lti.log if r.path.endswith("/token.php")]) >= 2
    # a comment in the rubric's first language (Japanese) with every score
    divide = ids["divide-by-dk"]
    assert lti.comments()[divide].startswith(f"得点 {want[divide]:g} / ") and "間違い: " in lti.comments()[divide]
    lines = {x.split("[")[1].split("]")[0]: x for x in real.stdout.splitlines() if "[" in x}
    inactive = next(k for k in ids.values() if any(m["user_id"] == k and m.get("status") == "Inactive"
                                                   for m in lti.members))
    tester = next(m["user_id"] for m in lti.members if TEST_USER in m["roles"])
    assert "skipped (LMS id " + inactive + " is not written: not active in the course (status Inactive))" \
        in lines[inactive]
    assert "not written: the platform's test student" in lines[tester]
    rows = list(csv.DictReader(next((out / "push").glob("*.csv")).open(encoding="utf-8")))
    assert len(rows) == len(ids) and {r["state"] for r in rows} <= {"sent", "skipped"}
    ledger = [json.loads(x) for x in (out / "ledger.jsonl").read_text(encoding="utf-8").splitlines()]
    assert ledger[-1]["op"] == "push" and ledger[-1]["push"]["platform"] == "lti13"
    assert set(ledger[-1]["push"]["students"]) == set(want)
    assert grader_here("ledger", out, "--verify").exit_code == 0

    writes = len(lti.write_requests())
    again = push(out, lti, ids_file, platform)
    assert again.exit_code == 0, again.stderr
    assert len(lti.write_requests()) == writes  # a second push writes nothing
    assert ": sent" not in again.stdout

    # the instructor changes one grade in the platform, and adjusts another student in the grader
    edited, adjusted = sorted(want)[:2]
    lti.edit(edited, 1.25)
    student = next(s for s, k in ids.items() if k == adjusted)
    adj = grader_here("adjust", out, student, "--points=-1", "--reason", "copied the softmax from a classmate",
                      "--lang", "en")
    assert adj.exit_code == 0, adj.stderr
    third = push(out, lti, ids_file, platform)
    assert third.exit_code == 0, third.stderr
    assert lti.held()[edited] == 1.25  # the edit in the platform survives
    assert "changed in the LMS since the last push (it holds 1.25, the last push wrote" in third.stdout
    assert lti.held()[adjusted] == round(want[adjusted] - 1, 2)
    assert "copied the softmax from a classmate" in (lti.comments()[adjusted] or "")
    assert len(lti.write_requests()) == writes + 1
    assert len(lti.lineitems) == 1  # found every time, never made again

    assert secrets_in(out, lti) == []  # no token in anything the pushes wrote


def test_a_push_killed_as_the_line_item_is_made_never_makes_a_second_one(term) -> None:  # type: ignore[no-untyped-def]
    """SIGKILL as the platform receives the line item's POST (it is made, the answer is lost): run
    again, the line item is found, not made twice, and every student holds the expected score."""
    out, lti, ids, ids_file, platform = term
    assert grader_here("publish", out, "--lang", "en").exit_code == 0
    want = expected(out, ids, lti)
    proc: subprocess.Popen[str] | None = None

    def kill(request: Request) -> None:
        if request.method == "POST" and request.path.endswith("/lineitems") and proc is not None:
            os.kill(proc.pid, signal.SIGKILL)

    lti.on_request = kill
    proc = subprocess.Popen([sys.executable, "-m", "grader", "push", str(out), "--to", "lti13", "--platform",
                             str(platform), "--lms-ids", str(ids_file)], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.communicate(timeout=300)
    assert proc.returncode == -signal.SIGKILL
    lti.on_request = None
    assert len(lti.lineitems) == 1 and lti.writes == []  # made, and nothing scored yet
    again = push(out, lti, ids_file, platform)
    assert again.exit_code == 0, again.stderr
    assert len(lti.lineitems) == 1 and sum(1 for r in lti.log if r.method == "POST" and
                                           r.path.endswith("/lineitems")) == 1
    assert lti.held() == want
    assert grader_here("ledger", out, "--verify").exit_code == 0


def test_without_the_roster_one_student_the_platform_refuses_fails_alone_and_the_exit_status_says_so(
        term, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A platform file without ``memberships``: the grader cannot tell the inactive learner, the
    platform refuses their score (Moodle's scores.php: 400 "Incorrect score received"); that student
    alone fails with the platform's words, every other one is written, and the exit status is 4."""
    out, lti, ids, ids_file, _ = term
    assert grader_here("publish", out, "--lang", "en").exit_code == 0
    folder = tmp_path / "bare"
    folder.mkdir()
    bare = platform_file(folder, lti, PRIVATE, memberships="")
    inactive = next(m["user_id"] for m in lti.members if m.get("status") == "Inactive")
    result = push(out, lti, ids_file, bare)
    assert result.exit_code == 4, result.stderr
    assert next(x for x in result.stdout.splitlines() if f"[{inactive}]" in x).endswith(
        ": failed (HTTP 400: Incorrect score received)")
    rows = list(csv.DictReader(next((out / "push").glob("*.csv")).open(encoding="utf-8")))
    assert [r["lms_id"] for r in rows if r["state"] == "failed"] == [inactive]
    sent = {r["lms_id"] for r in rows if r["state"] == "sent"}
    assert inactive not in lti.held() and set(lti.held()) == sent and len(sent) >= 4
    assert {r["state"] for r in rows} <= {"sent", "failed", "skipped"}
