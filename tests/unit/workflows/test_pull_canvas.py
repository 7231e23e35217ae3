"""grader.workflows.pull_canvas against the Canvas double (tests/canvas_double.py): who is pulled, the
files as Canvas's own download names them, the times file batch reads, and a second pull that
fetches only what changed. Each behaviour of the double is read from canvas-lms's source (named in
its docstring: submissions_api_controller.rb#index with lib/api/v1/submission.rb's fields,
enrollments_api_controller.rb#index, lib/api/v1/attachment.rb's url)."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.errors import UsageError
from grader.ingest.lms import detect, lms_name
from grader.lms.canvas import CanvasPlatform
from grader.lms.transport import Transport
from grader.spec.due import read_submitted
from grader.workflows.pull_canvas import canvas_file_name, pull_canvas
from tests.canvas_double import CanvasDouble, Student, Upload
from tests.lms_exports import canvas_entry

TOKEN = "7~pullTOKENsecret0123456789"
CODE = b"import torch\n"


def course() -> dict[str, Student]:
    return {
        "101": Student("Ada Lovelace", "Lovelace, Ada", attempt=1, submitted_at="2026-12-01T10:00:00Z",
                       files=[Upload(5001, "attention.py", CODE)]),
        "102": Student("山田 太郎", "山田, 太郎", attempt=2, submitted_at="2026-12-02T03:00:00Z", late=True,
                       files=[Upload(5002, "attention.py", b"# two\n" * 10), Upload(5003, "notes.yaml", b"a: 1\n")]),
        "103": Student("No Show", "Show, No"),
        "104": Student("Test Student", "Student, Test", kind="StudentViewEnrollment", attempt=1,
                       submitted_at="2026-12-01T09:00:00Z", files=[Upload(5004, "attention.py", CODE)]),
        "105": Student("Gone Away", "Away, Gone", state="deleted", attempt=1,
                       submitted_at="2026-12-01T09:00:00Z", files=[Upload(5005, "attention.py", CODE)]),
        "106": Student("Tina Teacher", "Teacher, Tina", kind="TeacherEnrollment"),
        "107": Student("Evil ../../x", "../../etc, <script>", attempt=1, submitted_at="2026-12-01T11:00:00Z",
                       files=[Upload(5007, "../../../evil\x07.py", b"x = 1\n")]),
    }


@pytest.fixture
def double() -> Iterator[CanvasDouble]:
    d = CanvasDouble(TOKEN, {}, users=course(), page_size=2).start()
    yield d
    d.stop()


def platform(d: CanvasDouble) -> CanvasPlatform:
    return CanvasPlatform(d.url, d.course, d.assignment, Transport(d.url, TOKEN, sleep=lambda s: None))


def states(result) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {s.key: s.state for s in result.students}


def test_the_folder_is_canvas_s_download_with_times_and_refusals_named(double: CanvasDouble, tmp_path: Path) -> None:
    src = tmp_path / "src"
    result = pull_canvas(src, platform(double), lang="en")
    assert states(result) == {"101": "new", "102": "new", "103": "not_submitted", "104": "refused", "105": "refused",
                              "107": "new"}
    reasons = {s.key: s.reason for s in result.students}
    assert "test student" in reasons["104"]
    assert reasons["105"] == "withdrawn from the course (enrollment deleted)"  # (Canvas lists no submission)
    # the files as Canvas's ContentZipper names them (tests/lms_exports.canvas_entry), read back by batch
    names = sorted(p.name for p in src.iterdir() if not p.name.startswith("."))
    assert canvas_entry("Lovelace, Ada", 101, 5001, "attention.py") in names
    assert canvas_entry("山田, 太郎", 102, 5002, "attention.py", late=True) in names
    assert (src / canvas_entry("Lovelace, Ada", 101, 5001, "attention.py")).read_bytes() == CODE
    assert detect(src) == "canvas"
    read = {lms_name(n, is_dir=False).student_id for n in names}  # type: ignore[union-attr]
    assert read == {"101", "102", "107"}
    # a hostile name stays one file inside the folder, its id intact
    evil = next(n for n in names if "_107_" in n)
    assert "/" not in evil and "\x07" not in evil and (src / evil).parent == src
    # the times file grader batch reads (--submitted)
    times = read_submitted(src / ".pull" / "submitted.csv")
    assert {k: v.isoformat() for k, v in times.items()} == {
        "101": "2026-12-01T10:00:00+00:00", "102": "2026-12-02T03:00:00+00:00", "107": "2026-12-01T11:00:00+00:00"}
    table = {r["lms_id"]: r for r in csv.DictReader((src / ".pull" / "students.csv").open(encoding="utf-8"))}
    assert table["104"]["state"] == "refused" and table["104"]["reason"]
    assert table["107"]["name"] == "Evil ../../x"
    # the token was sent to Canvas only, never to the file store it redirects to
    stored = [r for r in double.log if r.path.startswith("/store/")]
    assert len(stored) == 4 and all(r.auth == "" for r in stored)
    assert all(r.auth == f"Bearer {TOKEN}" for r in double.log if not r.path.startswith("/store/"))


def test_a_second_pull_fetches_only_what_changed_and_says_so(double: CanvasDouble, tmp_path: Path) -> None:
    src = tmp_path / "src"
    pull_canvas(src, platform(double), lang="en")
    first = len([r for r in double.log if "/download" in r.path])
    # Ada submits again (a new attempt, a new attachment); No Show submits; Yamada withdraws
    double.users["101"].attempt, double.users["101"].submitted_at = 2, "2026-12-03T10:00:00Z"
    double.users["101"].files = [Upload(6001, "attention.py", b"# better\n")]
    double.users["103"].attempt, double.users["103"].submitted_at = 1, "2026-12-03T12:00:00Z"
    double.users["103"].files = [Upload(6003, "attention.py", CODE)]
    double.users["102"].state = "inactive"
    again = pull_canvas(src, platform(double), lang="en")
    assert states(again) == {"101": "changed", "103": "new", "104": "refused", "105": "refused", "107": "unchanged",
                             "102": "refused"}
    assert [r.path.split("?")[0] for r in double.log if "/download" in r.path][first:] == ["/files/6001/download",
                                                                              "/files/6003/download"]
    names = {p.name for p in src.iterdir() if not p.name.startswith(".")}
    assert canvas_entry("Lovelace, Ada", 101, 5001, "attention.py") not in names  # the old attempt replaced
    assert canvas_entry("Lovelace, Ada", 101, 6001, "attention.py") in names
    assert not any("_102_" in n for n in names)
    yamada = next(s for s in again.students if s.key == "102")
    assert "withdrawn" in yamada.reason and "moved to" in yamada.reason
    assert len(list((src / ".pull" / "set-aside" / "102").iterdir())) == 2  # set aside, not deleted
    third = pull_canvas(src, platform(double), lang="ja")
    assert states(third)["101"] == "unchanged" and states(third)["103"] == "unchanged"
    assert "テスト学生" in next(s.reason for s in third.students if s.key == "104")


def test_a_folder_of_other_files_or_another_assignment_is_refused(double: CanvasDouble, tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("x")
    with pytest.raises(UsageError, match="holds files no pull wrote"):
        pull_canvas(mine, platform(double), lang="en")
    assert [p.name for p in mine.iterdir()] == ["thesis.tex"]
    src = tmp_path / "src"
    pull_canvas(src, platform(double), lang="en")
    state = json.loads((src / ".pull" / "canvas.json").read_text(encoding="utf-8"))
    state["target"]["assignment"] = "99"
    (src / ".pull" / "canvas.json").write_text(json.dumps(state), encoding="utf-8")
    with pytest.raises(UsageError, match="assignment 99"):
        pull_canvas(src, platform(double), lang="en")


def test_a_file_too_large_fails_that_student_alone(double: CanvasDouble, tmp_path: Path) -> None:
    result = pull_canvas(tmp_path / "src", platform(double), lang="en", limit=len(CODE))
    assert states(result)["102"] == "failed" and states(result)["101"] == "new"
    assert "larger than" in next(s.reason for s in result.students if s.key == "102")
    assert not any("_102_" in p.name for p in (tmp_path / "src").iterdir())  # nothing half-written


def test_the_canvas_file_name_follows_content_zipper() -> None:
    assert canvas_file_name("O'Brien, Séan", "12", "34", "my:file?.py", late=True) == canvas_entry(
        "O'Brien, Séan", 12, 34, "my:file?.py", late=True)
    assert canvas_file_name("Doe, Jane", "12", "text", "", late=False) == "doejane_12_text.html"


def test_a_very_long_name_is_shortened_and_still_reads_back_as_that_student() -> None:
    name = canvas_file_name("山田, " + "太郎" * 200, "123", "456", "ß" * 300 + ".py", late=False)
    assert len(name.encode()) <= 200
    read = lms_name(name, is_dir=False)
    assert read is not None and (read.student_id, read.order, read.file.endswith(".py")) == ("123", (456,), True)


def test_a_token_expiring_midway_stops_the_downloads_and_a_new_one_finishes(double: CanvasDouble,
                                                                             tmp_path: Path) -> None:
    """doc/api/oauth.md: an expired token is answered 401 with WWW-Authenticate. What was downloaded
    is kept and recorded; nothing further is asked; with a new token the rest comes."""
    src = tmp_path / "src"
    double.expire_at = 10  # 4 pages of enrollments, 3 of submissions, Ada's file and its store, then refused
    first = pull_canvas(src, platform(double), lang="en")
    assert states(first) == {"101": "new", "102": "failed", "103": "not_submitted", "104": "refused",
                             "105": "refused", "107": "failed"}
    assert all("make a new access token" in s.reason for s in first.students if s.state == "failed")
    assert len(double.log) == 10 and first.failed
    double.token, double.expire_at = "7~fresh", 0
    fresh = CanvasPlatform(double.url, double.course, double.assignment, Transport(double.url, "7~fresh"))
    again = pull_canvas(src, fresh, lang="en")
    assert states(again) == {"101": "unchanged", "102": "new", "103": "not_submitted", "104": "refused",
                             "105": "refused", "107": "new"}


def test_a_pull_cut_off_midway_is_finished_by_running_it_again(double: CanvasDouble, tmp_path: Path) -> None:
    class Cut(BaseException):
        pass

    class Dying(CanvasPlatform):
        def download(self, url: str, limit: int) -> bytes:
            if "5002" in url:
                raise Cut  # (as a kill or Ctrl-C would, after Ada's file was written)
            return super().download(url, limit)

    src = tmp_path / "src"
    with pytest.raises(Cut):
        pull_canvas(src, Dying(double.url, double.course, double.assignment, Transport(double.url, TOKEN)), lang="en")
    assert any("_101_" in p.name for p in src.iterdir())
    again = pull_canvas(src, platform(double), lang="en")
    assert states(again)["101"] == "new" and states(again)["102"] == "new"
    assert sorted(p.name for p in src.iterdir() if "_101_" in p.name) == [
        canvas_entry("Lovelace, Ada", 101, 5001, "attention.py")]


def test_a_file_is_written_through_the_pulls_own_record_folder(double: CanvasDouble, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A pull killed while it writes a file leaves its part file in ``.pull/``, which no batch
    grades, never at the top of the folder where a batch would take it for a student's entry."""
    import grader.workflows.pull_canvas as module

    moved: list[tuple[Path, Path]] = []
    real = module.os.replace

    def replace(src: str, dst: str) -> None:
        moved.append((Path(src), Path(dst)))
        real(src, dst)

    monkeypatch.setattr(module.os, "replace", replace)
    src = tmp_path / "src"
    pull_canvas(src, platform(double), lang="en")
    files = [(a, b) for a, b in moved if b.parent == src and not b.name.startswith(".")]
    assert files, moved
    assert all(a.parent == src / ".pull" and a.name.startswith(".part.") for a, _ in files), files
