"""grader.workflows.pull, the one entry of ``grader pull``: ``--from`` picks the platform's pull
(canvas: grader.workflows.pull_canvas; moodle: grader.workflows.pull_moodle), each against its
double, and Canvas without a course is refused before anything is asked or written."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.errors import UsageError
from grader.workflows import pull_canvas, pull_moodle
from grader.workflows.pull import pull
from tests.canvas_double import CanvasDouble, Student, Upload
from tests.moodle_double import MoodleDouble, Submission, User

TOKEN = "0123456789abcdef0123456789abcdef"


def test_from_canvas_pulls_canvas_s_download_and_says_no_token(tmp_path: Path) -> None:
    double = CanvasDouble(TOKEN, {}, users={"101": Student("Ada Lovelace", "Lovelace, Ada", attempt=1,
                                                           submitted_at="2026-12-01T10:00:00Z",
                                                           files=[Upload(5001, "attention.py", b"x = 1\n")])}).start()
    try:
        result, scrub = pull(tmp_path / "src", "canvas", url=double.url, course=str(double.course),
                             assignment=str(double.assignment), token=TOKEN, lang="en")
    finally:
        double.stop()
    assert isinstance(result, pull_canvas.PullResult), result
    assert [(s.key, s.state) for s in result.students] == [("101", "new")]
    assert (tmp_path / "src" / "lovelaceada_101_5001_attention.py").read_bytes() == b"x = 1\n"
    assert scrub(f"token {TOKEN}") == "token ***"


def test_from_moodle_pulls_moodle_s_download(tmp_path: Path) -> None:
    double = MoodleDouble(TOKEN, {11: User(11, "Jane Doe", 123462)})
    double.submissions[11] = Submission(501, 11, 1_796_137_140, {"scaling.py": b"a = 1\n"})
    double.start()
    try:
        result, _ = pull(tmp_path / "src", "moodle", url=double.url, course=None, assignment=str(double.assignment),
                         token=TOKEN, lang="en")
    finally:
        double.stop()
    assert isinstance(result, pull_moodle.PullResult), result
    assert result.fetched == ["123462"]
    assert (tmp_path / "src" / "submissions" / "Jane Doe_123462_assignsubmission_file_" / "scaling.py").read_bytes() \
        == b"a = 1\n"


def test_canvas_without_a_course_is_refused_naming_the_option(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--from canvas needs --course"):
        pull(tmp_path / "src", "canvas", url="https://canvas.example.edu", course=None, assignment="42", token=TOKEN,
             lang="en")
    assert not (tmp_path / "src").exists()
