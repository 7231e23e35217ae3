"""grader.lms.canvas and grader.lms.transport against the Canvas double (tests/canvas_double.py),
whose behaviours are read from canvas-lms's controllers (each named in its docstring)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from grader.errors import UsageError
from grader.lms.canvas import CanvasPlatform
from grader.lms.platform import Cell, PlatformRefused
from grader.lms.transport import Failed, Transport
from tests.canvas_double import CanvasDouble

TOKEN = "7~secretTOKENvalue0123456789"


@pytest.fixture
def double() -> Iterator[CanvasDouble]:
    d = CanvasDouble(TOKEN, {"101": None, "102": 5.0, "103": None}).start()
    yield d
    d.stop()


def platform(d: CanvasDouble, token: str = TOKEN, **kw: object) -> CanvasPlatform:
    transport = Transport(d.url, token, sleep=lambda s: None, **kw)  # type: ignore[arg-type]
    return CanvasPlatform(d.url, d.course, d.assignment, transport, sleep=lambda s: None)


def test_current_reads_every_page_of_submissions(double: CanvasDouble) -> None:
    """submissions_api_controller.rb#index paginates (Api.paginate, Link rel=next): every page is read."""
    double.page_size = 2
    now = platform(double).current()
    assert {k: v.score for k, v in now.items()} == {"101": None, "102": 5.0, "103": None}
    assert sum(1 for r in double.log if "/submissions" in r.path) == 2


def test_bulk_update_polls_progress_and_writes_grades_and_comments(double: CanvasDouble) -> None:
    """bulk_update answers a queued Progress; progress_controller.rb#show reports it completed."""
    double.polls_before_done = 3
    out = platform(double).write([Cell("101", 8.5, "Score 8.5 / 10"), Cell("103", 10.0, "")])
    assert all(o.ok for o in out.values()) and set(out) == {"101", "103"}
    assert double.scores == {"101": 8.5, "102": 5.0, "103": 10.0}
    assert double.comments == {"101": ["Score 8.5 / 10"]}
    assert [r.method for r in double.write_requests()] == ["POST"]
    assert sum(1 for r in double.log if r.path.startswith("/api/v1/progress/")) == 3


def test_a_refused_bulk_update_falls_back_to_one_put_per_student(double: CanvasDouble) -> None:
    """render_unauthorized_action (401) on bulk_update: each student is written by update (PUT)."""
    double.bulk_refused = True
    out = platform(double).write([Cell("101", 7.0, "c"), Cell("103", 9.0, "d")])
    assert all(o.ok for o in out.values())
    assert [r.method for r in double.write_requests()] == ["POST", "PUT", "PUT"]
    assert double.scores["101"] == 7.0 and double.scores["103"] == 9.0


def test_one_student_canvas_will_not_take_fails_alone(double: CanvasDouble) -> None:
    """update answers 404 for a user who is not a student; the others are written."""
    double.bulk_refused = True
    out = platform(double).write([Cell("999", 7.0, ""), Cell("101", 6.0, "")])
    assert out["101"].ok and not out["999"].ok
    assert "404" in out["999"].answer and "does not exist" in out["999"].answer


def test_transient_failures_and_429_are_retried(double: CanvasDouble) -> None:
    """503 on two requests and a 429 with Retry-After every third: every write still lands."""
    double.fail_requests = {1, 2, 5}
    double.rate_limit_every = 3
    waits: list[float] = []
    transport = Transport(double.url, TOKEN, sleep=waits.append)
    p = CanvasPlatform(double.url, double.course, double.assignment, transport, sleep=lambda s: None)
    out = p.write([Cell("101", 1.0, ""), Cell("102", 2.0, ""), Cell("103", 3.0, "")])
    assert all(o.ok for o in out.values())
    assert double.scores == {"101": 1.0, "102": 2.0, "103": 3.0}
    assert 0.0 in waits and 0.5 in waits  # Retry-After: 0 obeyed; backoff otherwise


def test_canvas_throttling_403_is_waited_out(double: CanvasDouble) -> None:
    """doc/api/throttling.md: over the quota, Canvas answers 403 Forbidden (Rate Limit Exceeded)."""
    double.rate_cap = 2
    waits: list[float] = []
    transport = Transport(double.url, TOKEN, sleep=lambda s: (waits.append(s), __import__("time").sleep(s)))
    p = CanvasPlatform(double.url, double.course, double.assignment, transport, sleep=lambda s: None)
    out = p.write([Cell("101", 4.0, ""), Cell("103", 5.0, "")])
    assert all(o.ok for o in out.values()) and double.scores["103"] == 5.0
    assert any(r.status == 403 for r in double.log) and waits


def test_no_answer_at_all_is_a_failure_that_names_no_token() -> None:
    """A port nobody listens on: every attempt fails, and the reason holds no token."""
    transport = Transport("http://127.0.0.1:9", TOKEN, sleep=lambda s: None, attempts=2)
    with pytest.raises(Failed) as caught:
        transport.request("GET", "/api/v1/courses/1/assignments/2")
    assert TOKEN not in str(caught.value) and "2 attempts" in str(caught.value)


def test_a_wrong_token_is_refused_naming_what_to_do(double: CanvasDouble) -> None:
    """application_controller.rb: an invalid token is 401 'Invalid access token.'"""
    with pytest.raises(PlatformRefused) as caught:
        platform(double, token="wrong").check(public=False)
    assert "Invalid access token" in str(caught.value) and "New Access Token" in str(caught.value)


def test_before_publication_only_an_assignment_posted_manually_is_written(double: CanvasDouble) -> None:
    """lib/api/v1/assignment.rb's post_manually: false while the results are not public is refused."""
    platform(double).check(public=False)
    double.post_manually = False
    with pytest.raises(PlatformRefused) as caught:
        platform(double).check(public=False)
    assert "posts grades automatically" in str(caught.value)
    platform(double).check(public=True)  # once published, students may see them


def test_an_unpublished_assignment_is_refused(double: CanvasDouble) -> None:
    """bulk_update refuses unpublished assignments (@assignments.all?(&:published?))."""
    double.published = False
    with pytest.raises(PlatformRefused) as caught:
        platform(double).check(public=True)
    assert "not published" in str(caught.value)


def test_a_next_page_on_another_host_is_not_followed(double: CanvasDouble) -> None:
    """The token goes to the Canvas given with --url only: a Link elsewhere ends the listing."""
    p = platform(double)
    double.page_size = 1
    real = double.url
    p.url = "http://127.0.0.1:1"  # (the Link now names a host that is not the platform's)
    assert list(p.current()) == ["101"]
    assert all(not r.path.startswith("http") for r in double.log)
    assert real.startswith("http://127.0.0.1:")


@pytest.mark.parametrize("url", ["http://canvas.example.edu", "canvas.example.edu", "ftp://x", "https://"])
def test_the_token_is_never_sent_in_clear_or_nowhere(url: str) -> None:
    with pytest.raises(UsageError, match="https://"):
        Transport(url, TOKEN)
    assert Transport("https://canvas.example.edu", TOKEN) and Transport("http://localhost:8080", TOKEN)


def test_the_token_is_scrubbed_from_any_text() -> None:
    transport = Transport("http://127.0.0.1:9", TOKEN)
    assert transport.scrub(f"Bearer {TOKEN} failed") == "Bearer *** failed"


def test_a_token_expiring_midway_stops_every_further_write(double: CanvasDouble) -> None:
    """doc/api/oauth.md: an expired or deleted token is answered 401 with a WWW-Authenticate header.
    The bulk update is refused from then on: no per-student write is tried, each student not yet
    written fails with what to do, and with a new token the rest is written."""
    cells = [Cell(str(k), float(k - 100), "") for k in (101, 102, 103)]
    double.bulk_refused = True  # one PUT per student, so that the expiry falls between writes
    double.expire_at = 4  # GET-less: POST 1 (refused), PUT 2, PUT 3, then expired
    out = platform(double).write(cells)
    assert out["101"].ok and out["102"].ok and not out["103"].ok
    assert "make a new access token" in out["103"].answer and TOKEN not in out["103"].answer
    assert [r.status for r in double.log] == [401, 200, 200, 401]  # nothing sent after the expiry
    assert double.log[-1].method == "PUT"
    double.token, double.expire_at = "7~another", 0
    assert platform(double, token="7~another").write([cells[2]])["103"].ok
    assert double.scores == {"101": 1.0, "102": 2.0, "103": 3.0}


def test_an_expired_token_while_a_bulk_update_is_polled_stops_too(double: CanvasDouble) -> None:
    double.polls_before_done = 5
    double.expire_at = 3  # POST 1, poll 2, poll 3 refused
    out = platform(double).write([Cell("101", 1.0, ""), Cell("103", 3.0, "")])
    assert not any(o.ok for o in out.values()) and "make a new access token" in out["101"].answer
    assert len(double.log) == 3


def test_a_download_sends_the_token_to_canvas_only(double: CanvasDouble) -> None:
    """lib/api/v1/attachment.rb: an attachment's url is file_download_url with its verifier; Canvas
    redirects it to its file store, which is another host and never gets the token."""
    from tests.canvas_double import Student, Upload

    double.users["101"] = Student("Ada", files=[Upload(7001, "a.py", b"x = 1\n")])
    transport = Transport(double.url, TOKEN, sleep=lambda s: None)
    url = f"{double.url}/files/7001/download?download_frd=1&verifier=v7001x"
    assert transport.download(url, 1000) == b"x = 1\n"
    assert [(r.path.split("?")[0], bool(r.auth)) for r in double.log] == [("/files/7001/download", True),
                                                                          ("/store/7001", False)]
    with pytest.raises(Failed, match="larger than 3 bytes"):
        transport.download(url, 3)
    with pytest.raises(Failed, match="HTTP 404"):
        transport.download(f"{double.url}/files/7001/download?verifier=wrong", 1000)
    with pytest.raises(Failed, match="not an http"):
        transport.download("file:///etc/passwd", 1000)


def test_the_test_student_is_refused_and_students_of_one_name_each_get_their_own() -> None:
    """The submissions index lists the course's student_enrollments, the test student's
    StudentViewEnrollment among them (app/models/course.rb); the enrollments index tells it
    (enrollments_api_controller.rb, ``type[]``). Two students named Jane Doe and two named 山田 太郎:
    each is written by their own Canvas id."""
    from grader.outputs.gradebook import GradebookRow
    from grader.workflows.push import plan
    from tests.canvas_double import Student

    users = {"201": Student("Jane Doe", "Doe, Jane"), "202": Student("Jane Doe", "Doe, Jane"),
             "203": Student("山田 太郎", "山田, 太郎"), "204": Student("山田 太郎", "山田, 太郎"),
             "205": Student("Test Student", "Student, Test", kind="StudentViewEnrollment"),
             "206": Student("Gone Away", "Away, Gone", state="deleted"),
             "207": Student("Tina Teacher", "Teacher, Tina", kind="TeacherEnrollment")}
    d = CanvasDouble(TOKEN, {}, users=users).start()
    try:
        canvas = platform(d)
        now = canvas.current()
        assert set(now) == {"201", "202", "203", "204", "205"}
        assert now["205"].refused and not any(now[k].refused for k in ("201", "202", "203", "204"))
        scores = {"201": 10.0, "202": 20.0, "203": 30.0, "204": 40.0, "205": 50.0, "206": 60.0, "207": 70.0}
        rows = [GradebookRow(f"s-{k}", k, name=users[k].name, lms="canvas", cells={"score": v}) for k, v in scores.items()]
        lines = plan(rows, now, {}, lms="canvas", ids={}, overwrite=False, lang="en")
        state = {line.key: (line.state, line.reason) for line in lines}
        assert state["205"] == ("skipped", "LMS id 205 is not written: Canvas's test student (Student View)")
        assert state["206"][0] == state["207"][0] == "skipped" and "not a student of this assignment" in state["206"][1]
        sent = canvas.write([Cell(line.key, float(line.new or 0), line.comment) for line in lines if line.state == "send"])
        assert all(o.ok for o in sent.values())
        assert {k: v for k, v in d.scores.items() if v is not None} == {k: scores[k] for k in ("201", "202", "203", "204")}
    finally:
        d.stop()
