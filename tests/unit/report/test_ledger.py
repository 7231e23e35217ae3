"""The ledger of hand adjustments (grader/report/ledger.py, grader/workflows/adjust.py): chain, views, commands."""

from __future__ import annotations

import csv
import io
import json
import shutil
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from grader.report import ledger
from grader.workflows.adjust import adjust, undo
from grader.outputs.course_gradebook import merge, write_course_gradebook
from grader.ingest.discovery import Found
from grader.outputs.gradebook import gradebook_rows, write_gradebook
from grader.report import render
from grader.report.model import GradeReport
from grader.report.terminal import show
from grader.spec.rubric.load import load_rubric

from tests.helpers import GOLDEN, RUBRIC, read_gradebook, read_report, run_grader


@pytest.fixture
def rubric():
    return load_rubric(RUBRIC)


def _outdir(tmp: Path, rubric, names=("divide-by-dk", "sqrt-d-model", "untouched-stub")) -> Path:
    """A batch's output folder as grader batch leaves it: reports/*.yaml and gradebook.csv."""
    out = tmp / "out"
    (out / "reports").mkdir(parents=True)
    rows = []
    for name in names:
        shutil.copyfile(GOLDEN / f"{name}.yaml", out / "reports" / f"{name}.yaml")
        report = GradeReport.from_dict(yaml.safe_load((GOLDEN / f"{name}.yaml").read_text(encoding="utf-8")))
        rows.append((Found(None, name, name), report, []))
    write_gradebook(out / "gradebook.csv", gradebook_rows(rows, rubric), rubric)
    return out


# --------------------------------------------------------------------------- the chain


def _three(out: Path) -> None:
    for i, reason in enumerate(["one", "two", "three"]):
        ledger.append(out, op="adjust", submission="a", points=float(i + 1), reason=reason, by="t", against=10.0)


def _lines(out: Path) -> list[str]:
    return (out / "ledger.jsonl").read_text(encoding="utf-8").splitlines()


def _write(out: Path, lines: list[str]) -> None:
    (out / "ledger.jsonl").write_text("".join(x + "\n" for x in lines), encoding="utf-8")


def test_an_intact_chain_verifies_and_each_line_holds_the_hash_of_the_one_before(tmp_path):
    _three(tmp_path)
    assert ledger.verify(tmp_path) == 3
    lines = _lines(tmp_path)
    import hashlib

    assert json.loads(lines[0])["prev"] == "0" * 64
    assert json.loads(lines[2])["prev"] == hashlib.sha256(lines[1].encode()).hexdigest()
    assert [e.reason for e in ledger.read(tmp_path)] == ["one", "two", "three"]


@pytest.mark.parametrize(("tamper", "line"), [
    (lambda ls: [ls[0], ls[1].replace('"points":2.0', '"points":20.0'), ls[2]], 2),   # a middle line edited
    (lambda ls: [ls[0].replace("one", "uno"), ls[1], ls[2]], 1),                     # the first edited
    (lambda ls: [ls[0], ls[1], ls[2].replace("three", "tres")], 3),                  # the last edited
    (lambda ls: [ls[0], ls[2], ls[1]], 1),                                           # two lines swapped
    (lambda ls: [ls[0], ls[2]], 1),                                                  # a middle line deleted
    (lambda ls: [ls[1], ls[2]], 1),                                                  # the first deleted
    (lambda ls: [ls[0]], 2),                                                         # the last two deleted
    (lambda ls: [ls[0], "{not json", ls[1], ls[2]], 2),                              # a line inserted
])
def test_an_edited_reordered_or_deleted_line_is_named(tmp_path, tamper, line):
    _three(tmp_path)
    _write(tmp_path, tamper(_lines(tmp_path)))
    with pytest.raises(ledger.LedgerError, match=rf"ledger.jsonl: line {line}: "):
        ledger.read(tmp_path)
    with pytest.raises(ledger.LedgerError):  # and nothing is appended to a broken chain
        ledger.append(tmp_path, op="adjust", submission="a", points=1.0, reason="x", against=10.0)


def test_the_broken_chain_message_is_japanese_too(tmp_path):
    from grader.i18n.messages import translate

    _three(tmp_path)
    _write(tmp_path, [_lines(tmp_path)[0], _lines(tmp_path)[2]])
    with pytest.raises(ledger.LedgerError) as exc:
        ledger.read(tmp_path)
    ja = translate(str(exc.value), "ja")
    assert "1 行目" in ja and "台帳" in ja and "line" not in ja


def test_a_deleted_ledger_with_its_head_left_is_refused(tmp_path):
    _three(tmp_path)
    (tmp_path / "ledger.jsonl").unlink()
    with pytest.raises(ledger.LedgerError, match="line 1: missing"):
        ledger.read(tmp_path)


def test_a_forged_newest_line_is_refused_even_with_the_hash_of_the_line_before_copied(tmp_path):
    """ledger.head never lags: a line added after the last, its prev copied from the head (so the
    chain itself holds), is refused naming it; so is the newest line edited in place."""
    _three(tmp_path)
    n, digest = ledger.head(tmp_path)
    forged = ledger.Entry(n=n + 1, op="adjust", submission="a", points=50.0, reason="forged", by="t",
                          at="2026-01-01T00:00:00+00:00", prev=digest).line()
    _write(tmp_path, [*_lines(tmp_path), forged])
    with pytest.raises(ledger.LedgerError, match=r"ledger.jsonl: line 4: not recorded in ledger.head"):
        ledger.read(tmp_path)
    _write(tmp_path, [*_lines(tmp_path)[:2], _lines(tmp_path)[2].replace('"points":3.0', '"points":30.0')])
    with pytest.raises(ledger.LedgerError, match=r"ledger.jsonl: line 3: does not match the hash ledger.head"):
        ledger.read(tmp_path)


@pytest.mark.parametrize(("damage", "line", "why"), [
    (lambda raw: raw.replace(b'"two"', b'"tw\xff"'), 2, "not UTF-8 text"),
    (lambda raw: raw.replace(b"\n", b"\n" + b"[" * 100_000 + b"]" * 100_000 + b"\n", 1), 2, "nested too deep"),
    (lambda raw: raw[: raw.rindex(b'"reason"')], 3, "cut short"),
    (lambda raw: raw.replace(b'"points":2.0', b'"points":"2"'), 2, "field points has the wrong type"),
])
def test_a_damaged_ledger_is_refused_naming_the_line_never_a_traceback(tmp_path, damage, line, why):
    _three(tmp_path)
    path = tmp_path / "ledger.jsonl"
    path.write_bytes(damage(path.read_bytes()))
    (tmp_path / "ledger.head").write_text("3 " + "0" * 64 + "\n", encoding="utf-8")  # (no line to finish from)
    with pytest.raises(ledger.LedgerError, match=rf"ledger.jsonl: line {line}: .*{why}"):
        ledger.read(tmp_path)


def test_an_append_cut_short_is_finished_from_the_head_and_said(tmp_path, capsys):
    """The head is written (holding the line) before the line: a line cut short, or not written
    at all, is written in full by the next reader, which says so; the chain then verifies."""
    _three(tmp_path)
    path = tmp_path / "ledger.jsonl"
    whole = path.read_bytes()
    for cut in (whole[: whole.rindex(b'"reason"')], whole[: whole.rindex(b"{")]):
        path.write_bytes(cut)
        assert [e.reason for e in ledger.read(tmp_path)] == ["one", "two", "three"]
        assert path.read_bytes() == whole
        assert "line 3 was cut short when it was appended; it was written in full from ledger.head" in \
            capsys.readouterr().err


def test_two_appenders_at_once_take_turns_and_the_waiting_one_says_who_holds_the_lock(tmp_path, monkeypatch):
    """The folder's lock: a second process waits while the first holds it, says who holds it
    (its pid and command, from the lock file), then appends after it; the chain holds."""
    import multiprocessing
    import sys
    import time

    monkeypatch.setattr(ledger, "NOTICE_AFTER", 0.2)
    ctx = multiprocessing.get_context("fork")
    held, go = ctx.Event(), ctx.Event()
    said_file = tmp_path / "said.txt"

    def holder():
        with ledger.locked(tmp_path):
            ledger.append(tmp_path, op="adjust", submission="a", points=1.0, reason="first", against=1.0)
            held.set()
            go.wait(60)

    def second():
        sys.stderr = open(said_file, "w", encoding="utf-8")  # (this process's own terminal, read below)
        ledger.append(tmp_path, op="adjust", submission="a", points=1.0, reason="second", against=1.0)
        sys.stderr.close()

    proc = ctx.Process(target=holder)
    proc.start()
    waiting = ctx.Process(target=second)
    try:
        assert held.wait(60)
        waiting.start()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (said_file.exists() and "waiting for" in said_file.read_text()):
            time.sleep(0.05)
        assert waiting.exitcode is None, "the second appender did not wait"
    finally:
        go.set()
        proc.join(60)
    waiting.join(60)
    assert waiting.exitcode == 0
    text = said_file.read_text(encoding="utf-8")
    assert f"another grader command is writing this folder (pid {proc.pid}: grader" in text, text
    assert "the folder is free now; going on" in text
    assert [e.reason for e in ledger.read(tmp_path)] == ["first", "second"]


# --------------------------------------------------------------------------- applying


def _data(score=10.0, parts=(("p", 6.0, 10.0), ("q", 4.0, 10.0))) -> dict:
    return {"score": score, "max_score": 20.0, "passed": True, "pass_mark": 50.0,
            "parts": [{"id": i, "score": s, "max_score": m, "title": {}} for i, s, m in parts]}


def test_apply_adds_points_sets_scores_and_is_idempotent(tmp_path, rubric):
    ledger.append(tmp_path, op="adjust", submission="a", points=2.0, reason="r1", against=10.0)
    ledger.append(tmp_path, op="adjust", submission="a", part="q", set=9.0, reason="r2", against=4.0)
    entries = ledger.for_submission(ledger.read(tmp_path), "a")
    once = ledger.apply(_data(), entries, rubric)
    assert (once["score"], once["adjustment"]["automatic_score"], once["adjustment"]["delta"]) == (17.0, 10.0, 7.0)
    twice = ledger.apply(json.loads(json.dumps(once)), entries, rubric)
    assert twice == once  # applying again changes nothing
    assert ledger.apply(twice, [], rubric) == _data()  # and taking them off restores the automatic report


def test_undo_takes_back_one_adjustment_and_keeps_the_record(tmp_path, rubric):
    ledger.append(tmp_path, op="adjust", submission="a", points=2.0, reason="r1", against=10.0)
    ledger.append(tmp_path, op="adjust", submission="a", points=-3.0, reason="r2", against=10.0)
    ledger.append(tmp_path, op="undo", submission="a", target=1, reason="wrong student")
    data = ledger.apply(_data(), ledger.for_submission(ledger.read(tmp_path), "a"), rubric)
    assert data["score"] == 7.0 and [e["n"] for e in data["adjustment"]["entries"]] == [2]
    assert len(ledger.read(tmp_path)) == 3


def test_an_adjustment_against_a_changed_automatic_score_needs_review_and_stays_applied_until_confirmed(
        tmp_path, rubric):
    """The test was fixed: the part's automatic score moved from 6 to 8. The +3 made against 6 is
    shown for review but still applied (no score moves without the instructor deciding); once
    confirmed it is applied as before, and only the status changes."""
    ledger.append(tmp_path, op="adjust", submission="a", part="p", points=3.0, reason="unfair test", against=6.0)
    changed = _data(score=12.0, parts=(("p", 8.0, 10.0), ("q", 4.0, 10.0)))  # the test was fixed
    data = ledger.apply(changed, ledger.for_submission(ledger.read(tmp_path), "a"), rubric)
    [entry] = data["adjustment"]["entries"]
    assert entry["status"] == "review" and entry["now"] == 8.0
    assert data["score"] == 14.0 and data["parts"][0]["score"] == 10.0  # p: 8 + 3, within its 10
    assert [e["n"] for e in ledger.review_of(data)] == [1]
    assert ledger.states(ledger.read(tmp_path), {1}) == {1: "review"}
    ledger.append(tmp_path, op="confirm", submission="a", target=1, reason="still owed", against=8.0)
    data = ledger.apply(data, ledger.for_submission(ledger.read(tmp_path), "a"), rubric)
    assert data["adjustment"]["entries"][0]["status"] == "applied" and data["score"] == 14.0
    assert ledger.review_of(data) == [] and ledger.states(ledger.read(tmp_path), set()) == {1: "confirmed",
                                                                                          2: "recorded"}


def test_a_total_set_before_a_regrade_keeps_the_score_it_set(tmp_path, rubric):
    """--set 18 against an automatic 10; a regrade moves the automatic score to 13: the student
    keeps 18 (it does not fall to 13), the entry needs review, and undoing it gives 13."""
    ledger.append(tmp_path, op="adjust", submission="a", set=18.0, reason="oral exam", against=10.0)
    moved = ledger.apply(_data(score=13.0, parts=(("p", 9.0, 10.0), ("q", 4.0, 10.0))),
                         ledger.for_submission(ledger.read(tmp_path), "a"), rubric)
    assert moved["score"] == 18.0 and moved["adjustment"]["entries"][0]["status"] == "review"
    assert moved["adjustment"]["automatic_score"] == 13.0 and moved["adjustment"]["delta"] == 5.0
    ledger.append(tmp_path, op="undo", submission="a", target=1, reason="decided")
    assert ledger.apply(moved, ledger.for_submission(ledger.read(tmp_path), "a"), rubric)["score"] == 13.0
    assert ledger.states(ledger.read(tmp_path), set()) == {1: "undone", 2: "recorded"}


def test_a_part_adjustment_changes_the_parts_score_and_is_taken_off_again(tmp_path, rubric):
    """--part q --points 3: the part's own score is 7 in the report (every view reads it), its
    automatic 4 is kept, and applying nothing restores the part as it was graded."""
    ledger.append(tmp_path, op="adjust", submission="a", part="q", points=3.0, reason="r", against=4.0)
    data = ledger.apply(_data(), ledger.for_submission(ledger.read(tmp_path), "a"), rubric)
    assert [p["score"] for p in data["parts"]] == [6.0, 7.0] and data["score"] == 13.0
    assert data["adjustment"]["automatic_parts"] == {"q": 4.0}
    assert ledger.automatic_of(ledger.apply(json.loads(json.dumps(data)), [], rubric), "q") == 4.0
    assert ledger.apply(data, [], rubric) == _data()


def test_a_part_set_twice_takes_the_second_and_points_stay_within_the_part(tmp_path, rubric):
    """--part p --set 9 then --set 7: the part scores 7 (not both changes added); --points on a
    part cannot take it past its own maximum or below zero, whatever the total allows."""
    for kw in ({"set": 9.0}, {"set": 7.0}):
        ledger.append(tmp_path, op="adjust", submission="a", part="p", reason="r", against=6.0, **kw)
    assert ledger.apply(_data(), ledger.for_submission(ledger.read(tmp_path), "a"), rubric)["score"] == 11.0
    ledger.append(tmp_path, op="adjust", submission="b", part="q", points=30.0, reason="r", against=4.0)
    ledger.append(tmp_path, op="adjust", submission="c", part="q", points=-30.0, reason="r", against=4.0)
    ledger.append(tmp_path, op="adjust", submission="c", part="q", points=2.0, reason="r", against=4.0)
    assert ledger.apply(_data(), ledger.for_submission(ledger.read(tmp_path), "b"), rubric)["score"] == 16.0
    assert ledger.apply(_data(), ledger.for_submission(ledger.read(tmp_path), "c"), rubric)["score"] == 8.0


def test_scores_stay_between_zero_and_the_maximum(tmp_path, rubric):
    ledger.append(tmp_path, op="adjust", submission="a", points=50.0, reason="r", against=10.0)
    assert ledger.apply(_data(), ledger.for_submission(ledger.read(tmp_path), "a"), rubric)["score"] == 20.0


@pytest.mark.parametrize(("kwargs", "wanted"), [
    ({"points": float("nan")}, "--points nan: not a number of points"),
    ({"points": float("-inf")}, "--points -inf: not a number of points"),
    ({"set_to": float("inf")}, "--set inf: not a number of points"),
    ({"set_to": 500.0}, "--set 500: sqrt-d-model's total is scored out of 124; set it from 0 to 124"),
    ({"set_to": -5.0}, "--set -5: sqrt-d-model's total is scored out of 124"),
    ({"set_to": 20.0, "part": "quiz"}, "--set 20: sqrt-d-model's part quiz is scored out of 14"),
])
def test_a_score_that_is_no_score_is_refused_and_nothing_is_written(tmp_path, rubric, kwargs, wanted):
    """NaN or infinity (click reads both as floats), or --set outside 0..max, would be clamped or
    spread as "nan" into every gradebook: refused, naming the range, in both languages."""
    from grader.errors import UsageError
    from grader.i18n.messages import translate

    out = _outdir(tmp_path, rubric)
    before = (out / "gradebook.csv").read_bytes()
    with pytest.raises(UsageError) as err:
        adjust(out, rubric, "sqrt-d-model", reason="r", **kwargs)
    assert wanted in str(err.value)
    assert translate(str(err.value), "ja") != str(err.value)
    assert not (out / "ledger.jsonl").exists() and (out / "gradebook.csv").read_bytes() == before
    adjust(out, rubric, "sqrt-d-model", reason="r", set_to=14.0, part="quiz")  # the edge is allowed
    assert ledger.read(out)[0].set == 14.0


# --------------------------------------------------------------------------- every view


def test_every_view_shows_the_automatic_score_the_change_and_the_reason(tmp_path, rubric):
    out = _outdir(tmp_path, rubric)
    adjust(out, rubric, "divide-by-dk", points=-2.0, reason="コピーでした", by="tanaka")
    adjust(out, rubric, "divide-by-dk", part="scaling", points=5.0, reason="unfair <b>test</b>", by="sato")
    adjust(out, rubric, "sqrt-d-model", set_to=100.0, reason="accommodation", by="tanaka")
    undo(out, rubric, "divide-by-dk", 1, reason="entered twice", by="tanaka")

    rows = read_gradebook(out, by="submission")
    d = rows["divide-by-dk"]
    assert (float(d["automatic_score"]), float(d["adjustment"]), float(d["score"])) == (72.0, 5.0, 77.0)
    assert "unfair <b>test</b>" in d["adjustment_reasons"] and "コピー" not in d["adjustment_reasons"]
    assert float(rows["sqrt-d-model"]["score"]) == 100.0 and float(rows["sqrt-d-model"]["automatic_score"]) == 111
    assert rows["untouched-stub"]["adjustment"] == "0" and rows["untouched-stub"]["adjustment_reasons"] == ""

    report = GradeReport.from_dict(read_report(out, "divide-by-dk"))
    assert report.score == 77.0 and report.adjustment["automatic_score"] == 72.0
    for lang, heading, said in (("en", "Adjustments by hand", "Automatic score 72"),
                                ("ja", "手作業による得点の調整", "自動採点の得点 72")):
        md = render(report, "markdown", rubric=rubric, lang=lang)
        assert heading in md and said in md and "unfair" in md and "unfair <b>" not in md  # escaped
        html = render(report, "html", rubric=rubric, lang=lang)
        assert heading in html and "unfair &lt;b&gt;test&lt;/b&gt;" in html
        buf = io.StringIO()
        show(report, Console(file=buf, width=200), lang)
        assert said in buf.getvalue() and "sato" in buf.getvalue()

    # the course gradebook
    book = write_course_gradebook(tmp_path / "course.csv", *merge([out]))
    course = {r["student"]: r for r in csv.DictReader(book.open(encoding="utf-8"))}
    assert course["divide-by-dk"]["chapter07"] == "77" and course["divide-by-dk"]["chapter07:automatic"] == "72"
    assert "unfair" in course["divide-by-dk"]["chapter07:adjustment"]


def test_the_lms_gradebooks_and_moodle_feedback_carry_the_final_score_and_why(tmp_path, rubric):
    out = _outdir(tmp_path, rubric)
    for name in ("divide-by-dk", "sqrt-d-model"):  # as a Moodle export names them
        data = read_report(out, name)
        data["student"] = {"id": "1234" if name == "divide-by-dk" else "5678", "name": name, "lms": "moodle",
                           "entry": name, "late": False, "flags": []}
        (out / "reports" / f"{name}.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    from grader.outputs.lms_gradebooks import export_gradebooks

    export_gradebooks(out, rubric, ("moodle",), lang="en")
    adjust(out, rubric, "1234", points=3.0, reason="regrade request", by="tanaka")
    sheet = list(csv.DictReader((out / "gradebook.moodle.csv").open(encoding="utf-8", newline="")))
    row = next(r for r in sheet if r["Identifier"] == "Participant 1234")
    assert float(row["Grade"]) == 75.0
    assert "Automatic score 72" in row["Feedback comments"] and "regrade request" in row["Feedback comments"]
    import zipfile

    with zipfile.ZipFile(out / "moodle-feedback-files.zip") as zf:
        page = next(zf.read(n).decode() for n in zf.namelist() if "_1234_" in n)
    assert "regrade request" in page and "Adjustments by hand" in page


# --------------------------------------------------------------------------- the commands


def test_the_commands_write_list_verify_and_refuse_a_broken_chain(tmp_path, rubric):
    out = _outdir(tmp_path, rubric)
    r = ("--rubric", str(RUBRIC))
    assert run_grader("adjust", str(out), "divide-by-dk", "--points=-2", "--reason", "late by agreement", *r).returncode == 0
    assert run_grader("adjust", str(out), "divide-by-dk", "--undo", "1", "--reason", "wrong:\nsee the mail\tof 3 May",
                   "--by", "ta\x1b[2J", *r).returncode == 0
    listed = run_grader("ledger", str(out))
    assert listed.returncode == 0 and "late by agreement" in listed.stdout and "\tundo\t" in listed.stdout
    verified = run_grader("ledger", str(out), "--verify", "--lang", "en")
    n, digest = ledger.head(out)
    assert verified.returncode == 0 and "ledger verified: 2 entries, chain intact" in verified.stderr
    assert "the chain has no key, so whoever can write this folder can still do that" in verified.stderr
    assert f"compare ledger.head's first line ({n} {digest}) with a copy kept elsewhere" in verified.stderr
    # one line of ten tab-separated fields per entry, a reason typed over two lines included
    rows = [line.split("\t") for line in listed.stdout.splitlines()]
    assert [len(row) for row in rows] == [10, 10]
    assert rows[1][9] == "wrong:\\nsee the mail\\tof 3 May" and rows[1][7] == "ta\\x1b[2J"
    assert rows[0][5] in ("undone", "取り消し済み") and rows[1][5] in ("recorded", "記録")
    assert float(read_gradebook(out, by="submission")["divide-by-dk"]["score"]) == 72.0
    # neither two changes at once nor none, nor an unknown student
    assert run_grader("adjust", str(out), "divide-by-dk", "--points", "1", "--set", "3", "--reason", "x", *r).returncode == 2
    nobody = run_grader("adjust", str(out), "nobody", "--points", "1", "--reason", "x", *r)
    assert nobody.returncode == 2 and "no report for nobody" in nobody.stderr and "のレポートがありません" in nobody.stderr

    lines = _lines(out)
    _write(out, [lines[0].replace("late by agreement", "late by agreement!"), lines[1]])
    for args in (("ledger", str(out), "--verify"), ("export", str(out), *r),
                 ("adjust", str(out), "sqrt-d-model", "--points", "1", "--reason", "x", *r),
                 ("gradebook", str(out), "--out", str(tmp_path / "c.csv"))):
        proc = run_grader(*args)
        assert proc.returncode == 2, args
        assert "ledger.jsonl: line 1:" in proc.stderr and "1 行目" in proc.stderr, args
    assert len(_lines(out)) == 2  # nothing was appended


# --------------------------------------------------------------------------- a property: 1,000 sequences


OPS = st.lists(st.tuples(st.sampled_from(["batch", "resume", "adjust", "set", "undo", "regrade", "export"]),
                         st.integers(0, 2), st.integers(-5, 5), st.sampled_from([None, "p", "q"])),
               min_size=1, max_size=12)


@settings(max_examples=1000, deadline=None, suppress_health_check=list(HealthCheck))
@given(OPS, st.randoms(use_true_random=False))
def test_no_adjustment_is_lost_or_applied_twice_in_any_sequence(rubric, ops, rnd):
    """batch / resume / adjust / undo / regrade / export in any order: every standing adjustment
    is in the report exactly once and applied, marked for review exactly when its automatic score
    no longer holds, and the final score is the automatic one plus those changes (checked against
    a plain model)."""
    students = ["s0", "s1", "s2"]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        auto = {s: {"p": 6.0, "q": 4.0} for s in students}  # the fake grade step's part scores
        stored: dict[str, dict] = {}
        model: list[dict] = []  # the reference: each adjustment made, and whether it was undone

        def grade(s: str) -> dict:
            parts = auto[s]
            return _data(score=sum(parts.values()), parts=tuple((k, v, 10.0) for k, v in parts.items()))

        def view(s: str) -> dict:  # what batch, resume and export all do: automatic report + ledger
            return ledger.apply(json.loads(json.dumps(stored[s])), ledger.for_submission(ledger.read(out), s), rubric)

        for op, who, amount, part in ops:
            s = students[who]
            if op == "batch" or s not in stored:
                stored = {x: ledger.apply(grade(x), ledger.for_submission(ledger.read(out), x), rubric)
                          for x in students}
            if op == "resume":
                stored = {x: view(x) for x in students}
            elif op in ("adjust", "set"):
                against = ledger.automatic_of(ledger.apply(json.loads(json.dumps(stored[s])), [], rubric), part)
                kw = {"points": float(amount)} if op == "adjust" else {"set": float(abs(amount))}
                e = ledger.append(out, op="adjust", submission=s, part=part, reason=f"r{len(model)}", against=against,
                                  **kw)
                model.append({"n": e.n, "s": s, "part": part, "against": against, "undone": False, **kw})
                stored[s] = view(s)
            elif op == "undo":
                mine = [m for m in model if m["s"] == s and not m["undone"]]
                if mine:
                    m = rnd.choice(mine)
                    ledger.append(out, op="undo", submission=s, target=m["n"], reason="u")
                    m["undone"] = True
                    stored[s] = view(s)
            elif op == "regrade":  # a fixed test changes one part's automatic score
                auto[s][part or "p"] = float(abs(amount))
                stored[s] = ledger.apply(grade(s), ledger.for_submission(ledger.read(out), s), rubric)
            elif op == "export":
                stored = {x: view(x) for x in students}

        for s in students:
            data = view(s)
            mine = [m for m in model if m["s"] == s and not m["undone"]]
            shown = (data.get("adjustment") or {}).get("entries", [])
            assert [e["n"] for e in shown] == [m["n"] for m in mine]  # none lost, none twice
            base = sum(auto[s].values())
            expect = base
            part_now = dict(auto[s])  # a part moves within 0..10 from where the entries before left it
            for m, e in zip(mine, shown):  # each applied, needing review or not
                now = base if m["part"] is None else auto[s][m["part"]]
                holds = abs(now - m["against"]) < 1e-9
                assert e["status"] == ("applied" if holds else "review")
                if m["part"] is None:
                    expect = expect + m["points"] if "points" in m else min(m["set"], 20.0)
                else:
                    was = part_now[m["part"]]
                    part_now[m["part"]] = min(max(was + m["points"] if "points" in m else m["set"], 0.0), 10.0)
                    expect += part_now[m["part"]] - was
                expect = round(min(max(expect, 0.0), 20.0), 2)
            assert data["score"] == pytest.approx(expect)
            assert (data.get("adjustment") or {}).get("automatic_score", data["score"]) == base
            assert {p["id"]: p["score"] for p in data["parts"]} == pytest.approx(part_now)  # each part's own


def test_points_as_a_japanese_keyboard_types_them():
    """--points and --set take full-width digits and point and the minus sign U+2212; a decimal
    comma is refused with the number it stands for, in both languages."""
    import click

    from grader.cli.term import _Points, adjust
    from grader.cli.usage_ja import _usage_in_japanese

    points = _Points()
    assert [points.convert(v, None, None) for v in ("２", "１．５", "\u22122", "-0.5", " 3 ")] == [2.0, 1.5, -2.0, -0.5, 3.0]
    with pytest.raises(click.BadParameter) as comma:
        points.convert("1,5", None, None)
    assert "'1,5' is not a number; write the decimal with a point: 1.5" in comma.value.message
    with pytest.raises(click.BadParameter) as word:
        points.convert("two", None, None)
    assert "'two' is not a number of points" in word.value.message
    ctx = click.Context(adjust, info_name="grader adjust")
    param = next(p for p in adjust.params if p.name == "points")
    with pytest.raises(click.BadParameter) as bad:
        points.convert("1,5", param, ctx)
    japanese = _usage_in_japanese(bad.value)
    assert "'1,5' は数ではありません。小数点はピリオドで書いてください: 1.5" in japanese
    assert "is not" not in japanese


def test_a_process_forked_while_the_lock_is_held_does_not_keep_it(tmp_path):
    """A worker forked while the folder's lock is held (a batch starting a process mid-write)
    gets no share of it: once its parent lets go, another command takes it at once."""
    import fcntl
    import multiprocessing
    import os

    ctx = multiprocessing.get_context("fork")
    ready, stop = ctx.Event(), ctx.Event()

    def worker():
        ready.set()
        stop.wait(60)

    with ledger.locked(tmp_path):
        child = ctx.Process(target=worker)
        child.start()
        assert ready.wait(60)
    try:
        fd = os.open(tmp_path / "ledger.lock", os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # (BlockingIOError if the child kept it)
        finally:
            os.close(fd)
    finally:
        stop.set()
        child.join(60)


def test_a_reader_shares_the_lock_and_writes_nothing_into_the_folder(tmp_path: Path) -> None:
    """Reading the ledger (a dry run, a listing) takes the lock shared and leaves every byte of
    the folder as it was, the lock file's note of the last writer included; two readers at once
    do not wait for each other."""
    import fcntl
    import os
    import threading

    ledger.append(tmp_path, op="adjust", submission="a", points=1.0, reason="r", by="t", against=10.0)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert before[ledger.LOCK].startswith(b"pid ")
    fd = os.open(tmp_path / ledger.LOCK, os.O_RDWR)  # another reader (a lock of its own open file)
    fcntl.flock(fd, fcntl.LOCK_SH)
    try:
        got: list[int] = []
        reader = threading.Thread(target=lambda: got.append(len(ledger.read(tmp_path))), daemon=True)
        reader.start()
        reader.join(10)
        assert got == [1], "a reader waited for another reader"
    finally:
        os.close(fd)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


# --------------------------------------------------------------------------- the issued variants


def test_the_issued_table_goes_into_the_ledger_once_and_the_chain_holds(tmp_path: Path) -> None:
    from grader.spec.rubric.load import load_rubric
    from grader.spec.variants import issued_table

    spec = load_rubric(RUBRIC).variants
    assert spec is not None
    table = issued_table(spec, "chapter07")
    out = tmp_path / "out"
    assert ledger.record_variants(out, "chapter07", table, spec.fingerprint())
    assert not ledger.record_variants(out, "chapter07", table, spec.fingerprint())  # that table again: no line
    [entry] = ledger.read(out)
    assert entry.op == "variants" and entry.variants is not None
    assert entry.variants["assignment"] == "chapter07" and len(entry.variants["table"]) == len(table)
    assert ledger.verify(out) == 1
