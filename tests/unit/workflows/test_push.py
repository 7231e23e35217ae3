"""grader.workflows.push: the plan of a push (one state per student), the token and ids files,
what the ledger says was pushed last, and convergence under faults against the Canvas double."""

from __future__ import annotations

import os
import random
from datetime import datetime, timezone
from pathlib import Path

import pytest

from grader.errors import UsageError
from grader.lms.canvas import CanvasPlatform
from grader.lms.platform import Cell, Current
from grader.lms.transport import Transport
from grader.outputs.gradebook import GradebookRow
from grader.report.ledger import Entry
from grader.workflows.push import comment_hash, last_pushed, plan, read_ids, read_token
from tests.canvas_double import CanvasDouble

TOKEN = "7~anotherSECRETtoken9876543210"


def row(sid: str, score: float | None, *, lms: str = "canvas", flagged: bool = False, name: str = "") -> GradebookRow:
    return GradebookRow(f"sub-{sid}", sid, name=name, lms=lms, flagged=flagged,
                        cells={} if score is None else {"score": score})


def states(lines: list) -> dict[str, str]:  # type: ignore[type-arg]
    return {line.submission: line.state for line in lines}


def test_each_student_gets_one_state_with_a_reason_where_skipped() -> None:
    rows = [row("1", 8.0), row("2", 7.0), row("3", None), row("4", 6.0, lms=""), row("5", 5.0), row("5", 4.0),
            row("6", 3.0), row("7", 9.0, flagged=True)]
    current = {"1": Current(None), "2": Current(7.0), "5": Current(None)}
    lines = plan(rows, current, {}, lms="canvas", ids={}, overwrite=False, lang="en")
    assert [line.state for line in lines] == ["send", "unchanged", "skipped", "skipped", "skipped", "skipped",
                                             "skipped", "skipped"]
    reasons = [line.reason for line in lines]
    assert "no grade" in reasons[2] and "no canvas user id" in reasons[3]
    assert "2 rows claim LMS id 5" in reasons[4] == reasons[5] or "2 rows claim LMS id 5" in reasons[5]
    assert "not a student of this assignment" in reasons[6]
    assert "no grade" in reasons[7]


def test_a_plain_folder_is_mapped_by_the_ids_file_only() -> None:
    rows = [row("alice", 8.0, lms=""), row("bob", 6.0, lms="")]
    lines = plan(rows, {"11": Current(None)}, {}, lms="canvas", ids={"alice": "11"}, overwrite=False, lang="en")
    assert [(line.key, line.state) for line in lines] == [("11", "send"), ("", "skipped")]


def test_an_lms_side_edit_is_kept_unless_overwritten() -> None:
    rows = [row("1", 8.0), row("2", 8.0), row("3", 8.0)]
    current = {"1": Current(9.5), "2": Current(None), "3": Current(4.0)}
    last = {"1": {"score": 6.0, "comment": ""}, "2": {"score": 6.0, "comment": ""}}
    lines = plan(rows, current, last, lms="canvas", ids={}, overwrite=False, lang="en")
    assert [line.state for line in lines] == ["skipped", "skipped", "skipped"]
    assert "holds 9.5, the last push wrote 6" in lines[0].reason
    assert "holds —, the last push wrote 6" in lines[1].reason
    assert "holds 4, which no push wrote" in lines[2].reason
    again = plan(rows, current, last, lms="canvas", ids={}, overwrite=True, lang="en")
    assert [line.state for line in again] == ["send", "send", "send"]


def test_what_the_last_push_wrote_is_sent_again_only_when_it_changed() -> None:
    rows = [row("1", 8.0), row("2", 5.0)]
    current = {"1": Current(6.0), "2": Current(5.0)}
    last = {"1": {"score": 6.0, "comment": comment_hash("")}, "2": {"score": 5.0, "comment": comment_hash("old")}}
    lines = plan(rows, current, last, lms="canvas", ids={}, overwrite=False, lang="en")
    assert states(lines) == {"sub-1": "send", "sub-2": "send"}  # 2: the same score, a new comment
    last["2"]["comment"] = comment_hash("")
    assert states(plan(rows, current, last, lms="canvas", ids={}, overwrite=False, lang="en"))["sub-2"] == "unchanged"


def test_reasons_are_said_in_japanese_too() -> None:
    lines = plan([row("4", 6.0, lms="")], {}, {}, lms="canvas", ids={}, overwrite=False, lang="ja")
    assert "ユーザー ID がありません" in lines[0].reason


def test_last_pushed_reads_only_pushes_to_the_same_assignment() -> None:
    target = {"platform": "canvas", "url": "u", "course": "7", "assignment": "42"}
    entries = [
        Entry(1, "adjust", "alice", points=1.0),
        Entry(2, "push", "", push={**target, "students": {"11": {"state": "sent", "score": 8.0, "comment": "a"}}}),
        Entry(3, "push", "", push={**target, "assignment": "43",
                                   "students": {"11": {"state": "sent", "score": 1.0, "comment": "x"}}}),
        Entry(4, "push", "", push={**target, "students": {"11": {"state": "failed", "score": 9.0, "comment": "b"},
                                                          "12": {"state": "unchanged", "score": 3.0, "comment": "c"}}}),
    ]
    assert last_pushed(entries, target) == {"11": {"score": 8.0, "comment": "a"}, "12": {"score": 3.0, "comment": "c"}}


def test_the_token_file_must_be_the_owners_alone(tmp_path: Path) -> None:
    path = tmp_path / "canvas.token"
    path.write_text(TOKEN + "\n")
    os.chmod(path, 0o644)
    with pytest.raises(UsageError) as caught:
        read_token({}, "CANVAS_TOKEN", path)
    assert "chmod 600" in str(caught.value) and "canvas.token" in str(caught.value) and TOKEN not in str(caught.value)
    os.chmod(path, 0o600)
    assert read_token({}, "CANVAS_TOKEN", path) == TOKEN
    assert read_token({"CANVAS_TOKEN": " t "}, "CANVAS_TOKEN", None) == "t"
    with pytest.raises(UsageError, match="CANVAS_TOKEN"):
        read_token({}, "CANVAS_TOKEN", None)


def test_the_ids_file_refuses_a_student_twice(tmp_path: Path) -> None:
    path = tmp_path / "ids.csv"
    path.write_text("student,lms_id\nalice,11\nbob,12\n", encoding="utf-8")
    assert read_ids(path) == {"alice": "11", "bob": "12"}
    path.write_text("student,lms_id\nalice,11\nalice,12\n", encoding="utf-8")
    with pytest.raises(UsageError, match="alice is listed twice"):
        read_ids(path)


class Killed(BaseException):
    """The push cut off at one request, as a kill would."""


class Dying(Transport):
    """A transport whose process dies as its ``at``-th request is about to be sent."""

    def __init__(self, *args: object, at: int = 0, **kw: object) -> None:
        super().__init__(*args, **kw)  # type: ignore[arg-type]
        self.at, self.n = at, 0

    def request(self, *args: object, **kw: object) -> object:  # type: ignore[override]
        self.n += 1
        if self.n == self.at:
            raise Killed
        return super().request(*args, **kw)  # type: ignore[arg-type]


def test_a_push_under_faults_and_killed_midway_converges_when_run_again() -> None:
    """300 students; ~5 % of requests 503, a 429 every 50th, the first run killed at a random
    request; running it again until nothing is left reaches every expected value, writes no
    student twice, and writes no one who is not in the class."""
    rng = random.Random(48)
    n = 300
    expected = {str(1000 + i): float(rng.randint(0, 100)) for i in range(n)}
    double = CanvasDouble(TOKEN, {k: None for k in expected}, rate_limit_every=50, polls_before_done=2,
                          fail_requests={i for i in range(1, 2000) if rng.random() < 0.05}).start()
    kill_at = rng.randint(5, 8)  # after the first bulk update, before or while it is polled

    rows = [row(k, v) for k, v in expected.items()]
    runs, killed = 0, 0
    try:
        while True:
            transport = Dying(double.url, TOKEN, sleep=lambda s: None, at=kill_at if runs == 0 else 0)
            platform = CanvasPlatform(double.url, double.course, double.assignment, transport, sleep=lambda s: None)
            runs += 1
            try:
                lines = plan(rows, platform.current(), {}, lms="canvas", ids={}, overwrite=False, lang="en")
                to_send = [line for line in lines if line.state == "send"]
                if not to_send:
                    break
                out = platform.write([Cell(line.key, float(line.new or 0), "") for line in to_send])
                assert all(o.ok for o in out.values())
            except Killed:
                killed += 1
            finally:
                transport.close()
            assert runs < 5
    finally:
        double.stop()
    assert killed == 1 and runs >= 3  # killed, run again, then nothing left to send
    assert double.scores == expected
    written = [uid for uid, _ in double.writes]
    assert set(written) <= set(expected)
    assert len(written) == len(set(written)) == n  # no student written twice
    assert all(double.scores[uid] == score for uid, score in double.writes)


def test_an_anonymous_batch_is_mapped_back_through_identities_at_push_time(tmp_path: Path) -> None:
    from grader.ingest.anonymous import FILE
    from grader.outputs.lms_gradebooks import with_lms_ids

    (tmp_path / FILE).write_text("anonymous_id,student_id,name,lms,entry\r\n"
                                 "anon-aaaaaa,12345,Tanaka Hanako,canvas,tanakahanako_12345_1_a.py\r\n",
                                 encoding="utf-8")
    rows = with_lms_ids(tmp_path, [row("anon-aaaaaa", 7.0), row("anon-bbbbbb", 6.0)])
    lines = plan(rows, {"12345": Current(None)}, {}, lms="canvas", ids={}, overwrite=False, lang="en")
    assert [(line.who, line.key, line.state) for line in lines] == [("anon-aaaaaa", "12345", "send"),
                                                                   ("anon-bbbbbb", "", "skipped")]
    assert all("Tanaka" not in line.who + line.reason for line in lines)


def test_the_comment_is_plain_text_whatever_the_report_and_the_reasons_hold() -> None:
    """A mistake's message and an instructor's reason with a terminal escape, markup and a line
    separator: the comment the LMS gets holds no control character, and stays within the cap."""
    from grader import sinks
    from grader.report.model import GradeReport, Mistake

    hostile = "\x1b[2J<script>alert(1)</script>\u2028" + "x" * 20000
    report = GradeReport(assignment="chapter07", submission="sub-1", score=5.0, max_score=10.0, tests=[], parts=[],
                         mistakes=[Mistake(id="divide-by-d-k", part="scaling", message={"en": hostile, "ja": hostile},
                                           evidence={})],
                         sandbox={}, errors=[], seed=1, graded_at="",
                         adjustment={"automatic_score": 6.0, "delta": -1.0, "score": 5.0,
                                     "entries": [{"n": 1, "status": "applied", "by": "ta", "reason": hostile, "points": -1.0}]})
    r = GradebookRow("sub-1", "1", lms="canvas", cells={"score": 5.0}, report=report)
    [line] = plan([r], {"1": Current(None)}, {}, lms="canvas", ids={}, overwrite=False, lang="en")
    assert line.state == "send" and "<script>" in line.comment  # the LMS shows it as text
    assert "\x1b" not in line.comment and "\u2028" not in line.comment
    assert len(line.comment.encode("utf-8")) <= sinks.VALUE_MAX


def test_a_score_the_lms_holds_unreleased_is_sent_again_once_the_results_are_public() -> None:
    """Moodle's marking workflow: the same score held ``readyforrelease`` is sent again (to be
    released) once public; one already released is unchanged."""
    rows = [row("1", 8.0, lms="moodle"), row("2", 8.0, lms="moodle")]
    current = {"1": Current(8.0, unreleased=True), "2": Current(8.0)}
    last = {k: {"score": 8.0, "comment": comment_hash("")} for k in ("1", "2")}
    lines = plan(rows, current, last, lms="moodle", ids={}, overwrite=False, lang="en")
    assert states(lines) == {"sub-1": "send", "sub-2": "unchanged"}


def test_the_ids_file_with_an_over_long_value_is_refused_naming_its_line(tmp_path: Path) -> None:
    path = tmp_path / "ids.csv"
    path.write_text("student,lms_id\nalice,11\nbob,\"12" + "9" * 200_000 + "\"\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"ids.csv: line 3: a value longer than \d+ characters"):
        read_ids(path)


def test_a_reviewers_comments_on_lines_travel_in_the_comment() -> None:
    """grader review's comments (the report's ``comments``, from the ledger) are pushed with the score, in the
    comment's language, as plain text."""
    from grader.report.model import GradeReport

    note = {"n": 3, "file": "scaling.py", "start": 16, "end": 18, "lines": ["x"], "text": "√d_k で割りましょう\x1b[2J",
            "by": "tanaka", "at": "2026-12-07T00:00:00+00:00"}
    report = GradeReport(assignment="chapter07", submission="sub-1", score=5.0, max_score=10.0, tests=[], parts=[],
                         mistakes=[], sandbox={}, errors=[], seed=1, graded_at="", comments=[note])  # type: ignore[list-item]
    r = GradebookRow("sub-1", "1", lms="canvas", cells={"score": 5.0}, report=report)
    for lang, where in (("en", "scaling.py, lines 16–18: √d_k で割りましょう"), ("ja", "scaling.py の 16〜18 行: √d_k で割りましょう")):
        [line] = plan([r], {"1": Current(None)}, {}, lms="canvas", ids={}, overwrite=False, lang=lang)
        assert where in line.comment and "\x1b" not in line.comment


# --- an --anonymous batch, pushed to each platform: the LMS ids from identities.csv at push time only

BLIND = [("anon-aaaaaa", "Tanaka Hanako", 100.5), ("anon-bbbbbb", "山田 太郎", 88.0), ("anon-cccccc", "山田 太郎", 61.5)]


def blind_out(tmp_path: Path, lms: str, real_ids: list[str]) -> Path:
    """An OUT as ``grader batch --anonymous`` leaves it, made here rather than graded: a report per
    anonymous id (no name in it), identities.csv (0600) pairing each with the student's own id and
    name (two students of one Japanese name), the results published."""
    import yaml

    from grader.ingest.anonymous import FILE
    from grader.report.outdir import write_published

    out = tmp_path / "out"
    (out / "reports").mkdir(parents=True)
    rows = ["anonymous_id,student_id,name,lms,entry"]
    for (aid, name, score), real in zip(BLIND, real_ids):
        report = {"schema": 1, "assignment": "chapter07", "submission": aid, "score": score, "max_score": 124.0,
                  "student": {"id": aid, "name": "", "lms": lms, "entry": aid}}
        (out / "reports" / f"{aid}.yaml").write_text(yaml.safe_dump(report, allow_unicode=True), encoding="utf-8")
        rows.append(f"{aid},{real},{name},{lms},{name.replace(' ', '')}_{real}_1_scaling.py")
    (out / FILE).write_text("\r\n".join(rows) + "\r\n", encoding="utf-8")
    os.chmod(out / FILE, 0o600)
    write_published(out, "ta", datetime(2026, 12, 8, tzinfo=timezone.utc))
    return out


def blind_push(out: Path, platform: object, **kw: object) -> object:
    from grader.spec.rubric.load import load_rubric
    from grader.workflows.push import push
    from tests.helpers import ROOT

    return push(out, load_rubric(ROOT / "rubrics" / "chapter07.yaml"), platform, by="ta", lang="en", **kw)  # type: ignore[arg-type]


def assert_blind_after(out: Path, real_ids: list[str], lms_ids: list[str]) -> None:
    """Nothing the pushes wrote into OUT names a student or an LMS id, but the push CSVs (0600, as
    identities.csv is): the ledger knows them by their anonymous ids alone."""
    import json

    csvs = sorted(str(p.relative_to(out)) for p in (out / "push").glob("*.csv"))
    assert csvs and all(os.stat(out / c).st_mode & 0o077 == 0 for c in csvs)

    def holding(text: str) -> list[str]:
        return sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file() and text.encode() in p.read_bytes())

    for real in real_ids:  # (an LMS id in every push CSV; a folder's name, in identities.csv alone)
        assert set(holding(real)) <= {"identities.csv", *csvs} and holding(real), real
    for key in lms_ids:
        assert set(csvs) <= set(holding(key)), key
    for name in ("Tanaka", "Hanako", "山田", "太郎"):
        assert holding(name) == ["identities.csv"], name
    pushes = [json.loads(x)["push"] for x in (out / "ledger.jsonl").read_text(encoding="utf-8").splitlines()]
    assert all(set(p["students"]) <= {aid for aid, _, _ in BLIND} for p in pushes)


def test_an_anonymous_batch_reaches_canvas_by_identities_and_the_ledger_stays_blind(tmp_path: Path) -> None:
    real = ["12345", "12346", "12347"]
    out = blind_out(tmp_path, "canvas", real)
    double = CanvasDouble(TOKEN, {**{k: None for k in real}, "12399": None}).start()
    transport = Transport(double.url, TOKEN, sleep=lambda s: None)
    try:
        canvas = CanvasPlatform(double.url, double.course, double.assignment, transport, sleep=lambda s: None,
                                poll_every=0)
        first = blind_push(out, canvas)
        assert {k: v for k, v in double.scores.items() if v is not None} == {k: s for k, (_, _, s) in zip(real, BLIND)}
        assert [(line.who, line.key, line.state) for line in first.lines] == [  # type: ignore[attr-defined]
            (aid, k, "sent") for k, (aid, _, _) in zip(real, BLIND)]
        writes = len(double.write_requests())
        assert blind_push(out, canvas).counts["unchanged"] == 3 and len(double.write_requests()) == writes  # type: ignore[attr-defined]
        double.scores["12346"] = 50.0  # changed in Canvas: the ledger, by anonymous id, still tells
        third = blind_push(out, canvas)
        assert "changed in the LMS since the last push (it holds 50, the last push wrote 88)" in \
            next(line.reason for line in third.lines if line.key == "12346")  # type: ignore[attr-defined]
        assert double.scores["12346"] == 50.0 and len(double.write_requests()) == writes
    finally:
        transport.close()
        double.stop()
    assert_blind_after(out, real, real)


def test_an_anonymous_batch_reaches_moodle_by_participant_number(tmp_path: Path) -> None:
    from grader.lms.moodle import Moodle, MoodlePlatform
    from tests.moodle_double import MoodleDouble, User

    token = "0123456789abcdef0123456789abcdef"
    real = ["723458", "723462", "723463"]
    out = blind_out(tmp_path, "moodle", real)
    double = MoodleDouble(token, {11: User(11, "Tanaka Hanako", 723458), 12: User(12, "山田 太郎", 723462),
                                  13: User(13, "山田 太郎", 723463), 14: User(14, "Ann Lee", 723464)},
                          max_grade=124).start()
    transport = Transport(double.url, token, sleep=lambda s: None, bearer=False)
    try:
        moodle = MoodlePlatform(Moodle(double.url, token, transport), str(double.assignment))
        first = blind_push(out, moodle)
        assert first.counts["sent"] == 3  # type: ignore[attr-defined]
        assert double.grades == {11: 100.5, 12: 88.0, 13: 61.5}  # each 山田 太郎 by their own number
        assert blind_push(out, moodle).counts["unchanged"] == 3  # type: ignore[attr-defined]
    finally:
        transport.close()
        double.stop()
    assert_blind_after(out, real, real)


def test_an_anonymous_plain_folder_reaches_lti13_through_identities_and_the_ids_file(tmp_path: Path) -> None:
    """A plain folder graded blind: identities.csv gives each anonymous id back its folder's name at
    push time, and ``--lms-ids`` (by those names) the LTI user id."""
    from grader.lms.lti13 import open_platform
    from tests.lti_platform import LEARNER, LtiPlatform, platform_file, rsa_pem

    private, public = rsa_pem()
    folders = ["hanako-t", "taro-y1", "taro-y2"]
    out = blind_out(tmp_path, "", folders)
    uids = {"hanako-t": "f81d4fae-01", "taro-y1": "f81d4fae-02", "taro-y2": "f81d4fae-03"}
    lti = LtiPlatform(public, "kid-blind", [{"user_id": u, "roles": [LEARNER]} for u in uids.values()]).start()
    (tmp_path / "lti").mkdir()
    try:
        platform, http = open_platform(platform_file(tmp_path / "lti", lti, private), maximum=124.0,
                                       expected=list(uids.values()), sleep=lambda s: None)
        first = blind_push(out, platform, ids=uids, scrub=http.scrub)
        assert [(line.who, line.key, line.state) for line in first.lines] == [  # type: ignore[attr-defined]
            (aid, uids[f], "sent") for f, (aid, _, _) in zip(folders, BLIND)]
        assert lti.held() == {uids[f]: s for f, (_, _, s) in zip(folders, BLIND)}
        http.close()
        platform, http = open_platform(platform_file(tmp_path / "lti", lti, private), maximum=124.0,
                                       expected=list(uids.values()), sleep=lambda s: None)
        assert blind_push(out, platform, ids=uids, scrub=http.scrub).counts["unchanged"] == 3  # type: ignore[attr-defined]
        http.close()
    finally:
        lti.stop()
    assert_blind_after(out, folders + list(uids.values()), list(uids.values()))


def test_a_blind_batchs_push_recorded_by_lms_id_still_counts(tmp_path: Path) -> None:
    """A ledger whose push line named a blind batch's student by Canvas id (as pushes did before the
    ledger used anonymous ids): what it wrote is still known, so a new score is sent, not kept back
    as a value the LMS holds from elsewhere; the new line names the student by anonymous id."""
    import json

    from grader.report import ledger

    real = ["12345", "12346", "12347"]
    out = blind_out(tmp_path, "canvas", real)
    double = CanvasDouble(TOKEN, {"12345": None, "12346": 80.0, "12347": None}).start()
    transport = Transport(double.url, TOKEN, sleep=lambda s: None)
    try:
        canvas = CanvasPlatform(double.url, double.course, double.assignment, transport, sleep=lambda s: None,
                                poll_every=0)
        ledger.append(out, op="push", submission="", reason="earlier", by="ta", at="2026-12-08T09:00:00+00:00",
                      push={**canvas.target(), "students": {"12346": {"state": "sent", "score": 80.0, "comment": "x"}}})
        result = blind_push(out, canvas)
        assert {line.key: line.state for line in result.lines} == {k: "sent" for k in real}  # type: ignore[attr-defined]
        assert double.scores == {"12345": 100.5, "12346": 88.0, "12347": 61.5}
    finally:
        transport.close()
        double.stop()
    last = json.loads((out / "ledger.jsonl").read_text(encoding="utf-8").splitlines()[-1])
    assert set(last["push"]["students"]) == {aid for aid, _, _ in BLIND}
