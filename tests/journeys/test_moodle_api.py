"""A term against Moodle's web services (the double of tests/moodle_double.py, built from Moodle's
own source), as an instructor runs it: ``grader pull --from moodle``, the batch of what it fetched
(with the submission times and the extension it wrote), two adjustments, a regrade, then
``grader push --to moodle``: a dry run, the push, the same push again, an LMS-side edit kept, the
results published and released. Then the refusals (no marking workflow before publication, an
expired token) and a second pull that fetches only the one changed submission.

One batch of five pulled submissions is graded for the module (and one regrade in the term)."""

from __future__ import annotations

import csv
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers import EXAMPLES, FIXED_TEST, ROOT, course_with_a_wrong_test, files_of, grader_here, read_gradebook, run_grader
from tests.moodle_double import MoodleDouble, Submission, User

TOKEN = "a1b2c3d4e5f60718293a4b5c6d7e8f90"
DUE = "2026-12-01T23:59:00+09:00"
DUE_EPOCH = 1_796_137_140  # the same instant
HOUR, DAY = 3600, 86400
MAX = 124  # the rubric's total, set as the assignment's Maximum grade in Moodle

#: user id: (full name, participant number, example submission, submitted relative to the due date)
CLASS = {
    11: ("山田 太郎", 123458, "correct", -HOUR),
    12: ("Jane Doe", 123462, "divide-by-dk", -HOUR),
    13: ("Ann Lee", 123463, "sqrt-d-model", 2 * HOUR),  # late, no extension
    14: ("Bob Ray", 123464, "softmax-overflow", 2 * HOUR),  # late, within the extension Moodle granted
    15: ("Cara Moss", 123465, "untouched-stub", -2 * HOUR),
}


def make_double() -> MoodleDouble:
    """The course: the five students above, one enrolled student who never submitted, one with a
    draft only, and a teacher who tried the assignment; the marking workflow on."""
    users = {uid: User(uid, name, pid) for uid, (name, pid, _, _) in CLASS.items()}
    users[16] = User(16, "Nobody Yet", 123466)
    users[17] = User(17, "Draft Dan", 123467)
    users[90] = User(90, "Teacher Tanaka", 123999, student=False)
    double = MoodleDouble(TOKEN, users, duedate=DUE_EPOCH, max_grade=MAX)
    for uid, (_, _, folder, offset) in CLASS.items():
        double.submissions[uid] = Submission(500 + uid, uid, DUE_EPOCH + offset, files_of(EXAMPLES / folder))
    double.submissions[17] = Submission(517, 17, DUE_EPOCH - HOUR, files_of(EXAMPLES / "correct"), status="draft")
    double.submissions[90] = Submission(590, 90, DUE_EPOCH - DAY, files_of(EXAMPLES / "correct"))
    double.extensions[14] = DUE_EPOCH + DAY
    return double


@dataclass(frozen=True)
class Term:
    course: Path
    rubric: Path
    src: Path
    out: Path
    pulled: str  # what the first pull said
    port: int  # where the double that was pulled from listened (the same Moodle is pulled again there)


@pytest.fixture(scope="module")
def term(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Term]:
    """The module's one pull and batch: a copy of the course whose hidden FIXED_TEST is wrong (it
    fails everyone; the term's regrade fixes it), the rubric's due date set."""
    base = tmp_path_factory.mktemp("moodle-term")
    course = base / "course"
    rubric = course_with_a_wrong_test(course, DUE)
    double = make_double().start()
    try:
        src = base / "src"
        pulled = grader_here("pull", src, "--from", "moodle", "--url", double.url, "--assignment", "42", "--lang", "en",
                             env={"MOODLE_TOKEN": TOKEN})
        assert pulled.exit_code == 0, pulled.stderr
        assert TOKEN not in pulled.stdout + pulled.stderr
    finally:
        double.stop()
    out = base / "out"
    done = run_grader("batch", src / "submissions", "--out", out, "--rubric", rubric, "--seed", "3", "-j", "2",
                      "--no-progress", "--no-table", "--lang", "en", "--submitted", src / "submitted.csv",
                      "--extensions", src / "extensions.csv")
    assert done.returncode in (0, 1), done.stderr[-3000:]
    yield Term(course, rubric, src, out, pulled.stderr, int(double.url.rsplit(":", 1)[1]))


def push(out: Path, double: MoodleDouble, *more: str, token: str = TOKEN) -> object:
    """``grader push`` as the instructor types it; what it prints never holds the token."""
    result = grader_here("push", out, "--to", "moodle", "--url", double.url, "--assignment", "42", "--lang", "en",
                         *more, env={"MOODLE_TOKEN": token})
    assert TOKEN not in result.stdout + result.stderr
    return result


def participants() -> dict[int, str]:
    return {uid: str(pid) for uid, (_, pid, _, _) in CLASS.items()}


def expected(out: Path) -> dict[str, float]:
    """Each student's final score as gradebook.csv has it, by participant number."""
    return {r["student_id"]: round(float(r["score"]), 2) for r in read_gradebook(out)
            if r["score"] not in ("", None) and not r["flags"]}


def files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def saved(double: MoodleDouble) -> list[tuple[str, float]]:
    """(participant, grade) of every grade the save requests carried, in order."""
    pid = {u.id: str(u.participant) for u in double.users.values()}
    return [(pid[int(g["userid"])], float(g["grade"])) for r in double.saves() for g in r.params["grades"]]


def test_the_pull_fetched_the_class_as_moodles_download_names_it(term: Term) -> None:
    names = sorted(p.name for p in (term.src / "submissions").iterdir())
    assert names == [f"{name}_{pid}_assignsubmission_file_" for name, pid, _, _ in
                     sorted(CLASS.values(), key=lambda c: f"{c[0]}_{c[1]}")]
    assert "pulled 5 submission(s)" in term.pulled and "1 draft(s)" in term.pulled
    assert f"--submitted {term.src / 'submitted.csv'}" in term.pulled
    book = read_gradebook(term.out, by="student_id")
    assert set(book) == {str(pid) for _, pid, _, _ in CLASS.values()}
    assert {float(r["max_score"]) for r in book.values()} == {MAX}
    assert float(book["123463"]["late_penalty"]) > 0  # late, no extension
    assert book["123464"]["late_penalty"] == "" and book["123458"]["late_penalty"] == ""  # the extension holds


def test_a_term_pushed_into_moodle(term: Term, tmp_path: Path) -> None:
    out = tmp_path / "out"
    import shutil

    shutil.copytree(term.out, out)
    # two adjustments, then the wrong hidden test fixed and graded again for everyone
    for student, points, reason in (("123462", "-1", "copied the softmax from a classmate"),
                                    ("123465", "2", "regrade request: 採点ミス")):
        adj = grader_here("adjust", out, student, f"--points={points}", "--reason", reason, "--rubric", term.rubric,
                          "--lang", "en")
        assert adj.exit_code == 0, adj.stderr
    before_regrade = expected(out)
    shutil.copyfile(ROOT / "suites" / "chapter07" / "hidden" / "test_scaling.py",
                    term.course / "suites" / "chapter07" / "hidden" / "test_scaling.py")
    again = run_grader("regrade", term.src / "submissions", "--out", out, "--test", FIXED_TEST, "-j", "1",
                       "--no-progress", "--rubric", term.rubric, "--lang", "en")
    assert again.returncode in (0, 1), again.stderr
    want = expected(out)
    assert want["123458"] > before_regrade["123458"]  # the regrade moved the correct submission up
    assert {"123458", "123462", "123463", "123464"} <= set(want)

    double = make_double().start()
    try:
        snapshot = files(out)
        dry = push(out, double, "--dry-run", "--rubric", term.rubric)
        assert dry.exit_code == 0, dry.stderr
        assert files(out) == snapshot and double.saves() == []  # the dry run wrote nothing, here or in Moodle
        planned = {line.split("]")[0].split("[")[1]: float(line.split("-> ")[1].split(" ")[0])
                   for line in dry.stdout.splitlines() if "->" in line}
        assert planned == want
        assert "copied the softmax from a classmate" in next(x for x in dry.stdout.splitlines() if "[123462]" in x)

        real = push(out, double, "--rubric", term.rubric)
        assert real.exit_code == 0, real.stderr
        # the dry run named exactly the grades the push saved, and nothing else was saved
        assert sorted(saved(double)) == sorted(planned.items())
        uid = {v: k for k, v in participants().items()}
        assert {participants()[u]: g for u, g in double.grades.items()} == want
        assert set(double.workflow.values()) == {"readyforrelease"}  # not public yet: unreleased
        assert double.seen_by_student(11) == (None, None)
        assert 16 not in double.grades and 90 not in double.grades and 17 not in double.grades
        # the comment: plain text, in the rubric's first language (Japanese), with the reasons as written
        jane = double.comments[uid["123462"]]
        assert jane.startswith(f"得点 {want['123462']:g} / ") and "copied the softmax from a classmate" in jane
        assert "採点ミス" in double.comments[uid["123465"]]
        # the late student's comment names the late policy; the one within Moodle's extension is not late
        assert "期限後" in double.comments[uid["123463"]] and "期限後" not in double.comments[uid["123464"]]
        assert set(double.comment_formats.values()) == {"2"}
        rows = list(csv.DictReader(next((out / "push").glob("*.csv")).open(encoding="utf-8")))
        assert sorted(r["state"] for r in rows if r["lms_id"] in want) == ["sent"] * len(want)
        assert all(r["reason"] for r in rows if r["state"] == "skipped")

        writes = len(double.saves())
        second = push(out, double, "--rubric", term.rubric)
        assert second.exit_code == 0 and len(double.saves()) == writes  # a second push writes nothing
        assert all(": unchanged" in line for line in second.stdout.splitlines() if "[" in line)

        double.grades[uid["123462"]] = 1.25  # the instructor changes Jane's grade in Moodle
        third = push(out, double, "--rubric", term.rubric)
        assert third.exit_code == 0 and len(double.saves()) == writes
        assert double.grades[uid["123462"]] == 1.25
        assert "changed in the LMS since the last push (it holds 1.25" in third.stdout

        published = grader_here("publish", out, "--rubric", term.rubric, "--lang", "en")
        assert published.exit_code == 0, published.stderr
        release = push(out, double, "--rubric", term.rubric)
        assert release.exit_code == 0, release.stderr
        for u, pid in participants().items():
            if pid != "123462" and pid in want:
                assert double.seen_by_student(u) == (want[pid], double.comments[u])
        assert double.grades[uid["123462"]] == 1.25 and double.workflow[uid["123462"]] == "readyforrelease"
        assert len(double.saves()) == writes + 1  # the others released in one batch

        assert grader_here("ledger", out, "--verify").exit_code == 0
        for where in (out, term.src):
            for name, data in files(where).items():
                assert TOKEN.encode() not in data, name
    finally:
        double.stop()


def test_moodle_refusals_name_the_reason_and_write_nothing(term: Term, tmp_path: Path) -> None:
    import shutil

    out = tmp_path / "out"
    shutil.copytree(term.out, out)
    double = make_double()
    double.markingworkflow = False
    double.start()
    try:
        refused = push(out, double, "--rubric", term.rubric)
        assert refused.exit_code == 2
        assert "does not use the marking workflow" in refused.stderr and "grader publish OUT" in refused.stderr
        double.markingworkflow = True
        double.expired = True
        expired = push(out, double, "--rubric", term.rubric)
        assert expired.exit_code == 2
        assert "invalidtimedtoken: Invalid token - token expired" in expired.stderr
        assert "Manage tokens" in expired.stderr
        japanese = grader_here("push", out, "--to", "moodle", "--url", double.url, "--assignment", "42", "--lang", "ja",
                               "--rubric", term.rubric, env={"MOODLE_TOKEN": TOKEN})
        assert japanese.exit_code == 2 and "トークンを拒否しました" in japanese.stderr
        token_file = tmp_path / "token"
        token_file.write_text(TOKEN)
        os.chmod(token_file, 0o644)
        loose = grader_here("push", out, "--to", "moodle", "--url", double.url, "--assignment", "42",
                            "--token-file", token_file, "--rubric", term.rubric, env={"MOODLE_TOKEN": ""})
        assert loose.exit_code == 2 and "chmod 600" in loose.stderr and TOKEN not in loose.stderr + loose.stdout
        assert double.saves() == [] and not (out / "push").exists()
        double.expired, double.max_grade = False, 100  # Moodle's default maximum, below the rubric's total
        low = push(out, double, "--rubric", term.rubric)
        assert low.exit_code == 4
        over = [x for x in low.stdout.splitlines() if "above the assignment's maximum grade in Moodle (100)" in x]
        assert over and all(": failed (" in x for x in over)
        assert all(g <= 100 for _, g in saved(double))
    finally:
        double.stop()


def test_a_second_pull_fetches_only_the_changed_submission(term: Term, tmp_path: Path) -> None:
    import shutil

    src = tmp_path / "src"
    shutil.copytree(term.src, src)
    double = make_double()
    double.submissions[13] = Submission(513, 13, DUE_EPOCH + 3 * HOUR, files_of(EXAMPLES / "correct"), attemptnumber=1)
    double.port = term.port
    double.start()
    try:
        again = grader_here("pull", src, "--from", "moodle", "--url", double.url, "--assignment", "42", "--lang", "en",
                            env={"MOODLE_TOKEN": TOKEN})
        assert again.exit_code == 0, again.stderr
        assert "pulled again: 1 submission(s) new or changed" in again.stderr and "4 unchanged" in again.stderr
        assert {d.split("/")[0] for d in double.downloads} == {"13"}
        assert files(src / "submissions" / "Ann Lee_123463_assignsubmission_file_") == {
            k: v for k, v in files_of(EXAMPLES / "correct").items()}
        rows = {r["student"]: r for r in csv.DictReader((src / "submitted.csv").open(encoding="utf-8"))}
        assert rows["123463"]["attempt"] == "1" and rows["123463"]["submitted"] == "2026-12-01T17:59:00+00:00"
    finally:
        double.stop()
