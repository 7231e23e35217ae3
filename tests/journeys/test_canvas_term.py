"""A term against the Canvas double (tests/canvas_double.py, read from canvas-lms's controllers), as
an instructor runs it with the real commands: ``grader pull`` the submissions, ``grader batch`` them
with the times the pull wrote and one extension, two adjustments, a wrong hidden test fixed and
graded again with ``grader regrade``, then ``grader push`` — a dry run first, whose cells are
exactly the ones the real push then writes (read from the double's request log); then Canvas holds
every expected score and comment, a second push writes nothing, and a grade changed in Canvas
survives a third push. Two grading commands in all (the batch and the regrade).

The course: Ada (correct, on time), 山田 太郎 (correct, a day late by Canvas's clock, with an
extension), Jiro (the √d_model mistake, a day late without one), Stub (the untouched stub); the
test student and a teacher who submitted (refused by the pull), and a withdrawn student.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from tests.canvas_double import CanvasDouble, Request, Student, Upload
from tests.helpers import EXAMPLES, FIXED_TEST, ROOT, course_with_a_wrong_test, files_of, grader_here, read_gradebook, run_grader

TOKEN = "7~termTOKENdoNotLeak0123456789abcdef"
DUE = "2026-12-01T23:59:00+09:00"
ADA, TARO, JIRO, STUB, TESTER, GONE, TEACHER = "3101", "3102", "3103", "3104", "3105", "3106", "3107"


def _course(dest: Path) -> Path:
    """The course, due on DUE, with FIXED_TEST wrong (it fails everyone)."""
    return course_with_a_wrong_test(dest, DUE)


def _uploads(folder: str, first: int) -> list[Upload]:
    return [Upload(first + i, name, data) for i, (name, data) in enumerate(sorted(files_of(EXAMPLES / folder).items()))]


def _canvas() -> CanvasDouble:
    users = {
        ADA: Student("Ada Lovelace", "Lovelace, Ada", attempt=1, submitted_at="2026-12-01T10:00:00Z",
                     files=_uploads("correct", 5100)),
        TARO: Student("山田 太郎", "山田, 太郎", attempt=2, submitted_at="2026-12-02T06:00:00Z", late=True,
                      files=_uploads("correct", 5200)),
        JIRO: Student("Jiro Suzuki", "Suzuki, Jiro", attempt=1, submitted_at="2026-12-02T03:00:00Z", late=True,
                      files=_uploads("sqrt-d-model", 5300)),
        STUB: Student("Sam Stub", "Stub, Sam", attempt=1, submitted_at="2026-12-01T12:00:00Z",
                      files=_uploads("untouched-stub", 5400)),
        TESTER: Student("Test Student", "Student, Test", kind="StudentViewEnrollment", attempt=1,
                        submitted_at="2026-12-01T09:00:00Z", files=_uploads("correct", 5500)),
        GONE: Student("Gone Away", "Away, Gone", state="deleted", attempt=1, submitted_at="2026-12-01T09:00:00Z",
                      files=_uploads("correct", 5600)),
        TEACHER: Student("Tina Teacher", "Teacher, Tina", kind="TeacherEnrollment"),
    }
    return CanvasDouble(TOKEN, {}, users=users, page_size=3).start()


def _lms(*args: str | Path, url: str) -> object:
    result = grader_here(*args, "--url", url, "--course", "7", "--assignment", "42", "--lang", "en",
                         env={"CANVAS_TOKEN": TOKEN})
    assert TOKEN not in result.stdout + result.stderr
    return result


def _written(requests: list[Request]) -> dict[str, float]:
    """The grades the requests wrote, as Canvas read them: bulk grade_data, or one student's PUT."""
    out: dict[str, float] = {}
    for r in requests:
        if r.method == "POST":
            for key, value in r.form.items():
                found = re.fullmatch(r"grade_data\[(\d+)\]\[posted_grade\]", key)
                if found:
                    out[found[1]] = float(value)
        elif r.method == "PUT":
            out[r.path.rsplit("/", 1)[1]] = float(r.form["submission[posted_grade]"])
    return out


def test_a_canvas_term_pull_batch_adjust_regrade_extension_push(tmp_path: Path) -> None:
    rubric = _course(tmp_path / "course")
    double = _canvas()
    src, out = tmp_path / "src", tmp_path / "out"
    try:
        # --- pull: the students' files as Canvas's download names them, and their times
        pulled = _lms("pull", src, "--from", "canvas", url=double.url)
        assert pulled.exit_code == 0, pulled.stderr
        lines = {re.search(r"\[(\d+)\]", x)[1]: x for x in pulled.stdout.splitlines()}  # type: ignore[index]
        assert set(lines) == {ADA, TARO, JIRO, STUB, TESTER, GONE}  # (the teacher submitted nothing)
        assert all(lines[k].endswith(": new") for k in (ADA, TARO, JIRO, STUB))
        assert "refused (Canvas's test student" in lines[TESTER]
        assert "refused (withdrawn from the course (enrollment deleted))" in lines[GONE]
        assert "--submitted" in pulled.stderr and "submitted.csv" in pulled.stderr
        assert not any(f"_{k}_" in p.name for p in src.iterdir() for k in (TESTER, GONE, TEACHER))
        again = _lms("pull", src, "--from", "canvas", url=double.url)
        assert again.exit_code == 0 and ": new" not in again.stdout and "unchanged 4" in again.stderr

        # --- batch, with the pull's times and one extension
        extensions = tmp_path / "extensions.csv"
        extensions.write_text(f"student,due,reason\n{TARO},2026-12-03T23:59:00+09:00,illness\n", encoding="utf-8")
        batch = run_grader("batch", src, "--out", out, "--no-progress", "--no-table", "--seed", "3", "--rubric", rubric,
                           "--submitted", src / ".pull" / "submitted.csv", "--extensions", extensions, "--lang", "en")
        assert batch.returncode == 0, batch.stderr
        rows = read_gradebook(out, by="student_id")
        assert set(rows) == {ADA, TARO, JIRO, STUB} and all(r["lms"] == "canvas" for r in rows.values())
        reports = {yaml.safe_load(p.read_text(encoding="utf-8"))["student"]["id"]: yaml.safe_load(
            p.read_text(encoding="utf-8")) for p in (out / "reports").glob("*.yaml")}
        assert "late" not in reports[TARO]  # Canvas flagged it late; the extension says otherwise
        assert reports[JIRO]["late"]["days"] == 1 and reports[JIRO]["late"]["submitted"] == "2026-12-02T03:00:00+00:00"
        assert "late" not in reports[ADA]

        # --- two adjustments
        for who, points, reason in ((ADA, "-1", "copied the softmax from a classmate"),
                                    (STUB, "2", "partial credit: the docstring was right")):
            adj = grader_here("adjust", out, who, f"--points={points}", "--reason", reason, "--lang", "en")
            assert adj.exit_code == 0, adj.stderr

        # --- the wrong test fixed, graded again
        shutil.copyfile(ROOT / "suites" / "chapter07" / "hidden" / "test_scaling.py",
                        rubric.parent.parent / "suites" / "chapter07" / "hidden" / "test_scaling.py")
        regrade = run_grader("regrade", src, "--out", out, "--test", FIXED_TEST, "--no-progress", "--rubric", rubric,
                             "--lang", "en")
        assert regrade.returncode == 0, regrade.stderr
        after = read_gradebook(out, by="student_id")
        final = {k: round(float(r["score"]), 2) for k, r in after.items()}
        assert float(after[TARO]["score"]) > float(rows[TARO]["score"])  # the regrade moved it
        assert float(after[ADA]["automatic_score"]) > float(rows[ADA]["automatic_score"])
        assert final[JIRO] < float(reports[JIRO]["late"]["score_before"]) + 1  # late penalty still in

        # --- the dry run: the cells a push would change, nothing written
        double.log.clear()
        dry = _lms("push", out, "--to", "canvas", "--dry-run", url=double.url)
        assert dry.exit_code == 0, dry.stderr
        assert double.write_requests() == []
        planned = {re.search(r"\[(\d+)\]", x)[1]: float(x.split("-> ")[1].split(" ")[0])  # type: ignore[index]
                   for x in dry.stdout.splitlines() if "->" in x}
        assert planned == final
        assert "copied the softmax from a classmate" in next(x for x in dry.stdout.splitlines() if f"[{ADA}]" in x)
        assert "late policy" in next(x for x in dry.stdout.splitlines() if f"[{JIRO}]" in x)

        # --- the push: exactly those cells, by the double's own log
        real = _lms("push", out, "--to", "canvas", url=double.url)
        assert real.exit_code == 0, real.stderr
        assert _written(double.write_requests()) == planned
        assert {k: v for k, v in double.scores.items() if v is not None} == final
        assert double.scores[TESTER] is None  # the test student: never written
        # every comment, in the rubric's first language (Japanese), with the instructor's reasons as written
        assert set(double.comments) == set(final) and all(len(c) == 1 for c in double.comments.values())
        assert all(double.comments[k][0].startswith(f"得点 {final[k]:g} / ") for k in final)
        assert "copied the softmax from a classmate" in double.comments[ADA][0]
        assert "partial credit: the docstring was right" in double.comments[STUB][0]
        assert "間違い: " in double.comments[JIRO][0]
        form = next(r for r in double.write_requests() if r.method == "POST").form
        assert not any("late" in k or "submitted_at" in k for k in form)  # the push makes no one late in Canvas

        # --- a second push writes nothing
        writes = len(double.write_requests())
        second = _lms("push", out, "--to", "canvas", url=double.url)
        assert second.exit_code == 0 and len(double.write_requests()) == writes
        assert all(": unchanged" in x for x in second.stdout.splitlines() if "[" in x and "[-]" not in x)

        # --- a grade changed in Canvas survives a third push
        double.scores[STUB] = 1.5
        third = _lms("push", out, "--to", "canvas", url=double.url)
        assert third.exit_code == 0 and len(double.write_requests()) == writes
        assert double.scores[STUB] == 1.5
        assert "changed in the LMS since the last push (it holds 1.5" in next(
            x for x in third.stdout.splitlines() if f"[{STUB}]" in x)
    finally:
        double.stop()
    for path in out.rglob("*"):
        if path.is_file():
            assert TOKEN.encode() not in path.read_bytes(), path
    for path in src.rglob("*"):
        if path.is_file():
            assert TOKEN.encode() not in path.read_bytes(), path


@pytest.fixture(autouse=True)
def _no_grader_lang(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRADER_LANG", raising=False)
