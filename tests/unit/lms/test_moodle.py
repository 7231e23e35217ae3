"""grader.lms.moodle against the Moodle double (tests/moodle_double.py), whose behaviours are read
from Moodle's own source (each file named in its docstring)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from grader.lms.moodle import Moodle, MoodleError, MoodlePlatform, flatten
from grader.lms.platform import Cell, PlatformRefused
from grader.lms.transport import Transport
from tests.moodle_double import MoodleDouble, Submission, User, nested

TOKEN = "0123456789abcdef0123456789abcdef"


@pytest.fixture
def double() -> Iterator[MoodleDouble]:
    d = MoodleDouble(TOKEN, {
        11: User(11, "山田 太郎", 123458), 12: User(12, "Jane Doe", 123462), 13: User(13, "Ann Lee", 123463),
        90: User(90, "Teacher", 123999, student=False)})
    d.submissions[11] = Submission(501, 11, 1_800_000_000, {"scaling.py": b"x = 1\n"})
    d.start()
    yield d
    d.stop()


def moodle(d: MoodleDouble, token: str = TOKEN) -> Moodle:
    return Moodle(d.url, token, Transport(d.url, token, sleep=lambda s: None, bearer=False))


def platform(d: MoodleDouble, token: str = TOKEN, **kw: int) -> MoodlePlatform:
    return MoodlePlatform(moodle(d, token), str(d.assignment), **kw)


def test_flatten_is_read_back_as_php_reads_nested_arrays() -> None:
    params = {"assignmentid": 42, "applytoall": False, "grades": [
        {"userid": 11, "grade": "7.5", "plugindata": {"assignfeedbackcomments_editor": {"text": "a&b=c", "format": "2"}}}]}
    form = flatten(params)
    assert form["grades[0][plugindata][assignfeedbackcomments_editor][text]"] == "a&b=c"
    assert form["applytoall"] == "0"
    assert nested(form) == {"assignmentid": "42", "applytoall": "0", "grades": [
        {"userid": "11", "grade": "7.5", "plugindata": {"assignfeedbackcomments_editor": {"text": "a&b=c", "format": "2"}}}]}


def test_a_refused_token_is_named_with_what_to_do_and_never_said(double: MoodleDouble) -> None:
    """webservice/lib.php: invalidtoken, and invalidtimedtoken once the token's validuntil passed —
    both answered HTTP 200 with the exception object."""
    wrong = "ffffffffffffffffffffffffffffffff"
    with pytest.raises(PlatformRefused) as caught:
        platform(double, wrong).check(public=False)
    text = str(caught.value)
    assert "invalidtoken: Invalid token - token not found" in text and "Manage tokens" in text
    assert wrong not in text and "MOODLE_TOKEN" in text
    double.expired = True
    with pytest.raises(PlatformRefused, match="invalidtimedtoken: Invalid token - token expired"):
        platform(double).check(public=False)


def test_a_function_the_service_lacks_is_named(double: MoodleDouble) -> None:
    """lib/externallib.php: a function outside the token's service is webservice_access_exception."""
    double.functions = {"mod_assign_get_assignments"}
    p = platform(double)
    p.check(public=False)
    with pytest.raises(PlatformRefused, match="core_enrol_get_enrolled_users.*accessexception"):
        p.current()


def test_an_unknown_assignment_is_refused_naming_the_id(double: MoodleDouble) -> None:
    with pytest.raises(PlatformRefused, match="no assignment 999") as caught:
        MoodlePlatform(moodle(double), "999").check(public=False)
    assert "The assignments there: 42 'Chapter 7' (view.php?id=542)" in str(caught.value)


def test_without_the_marking_workflow_nothing_is_written_before_publication(double: MoodleDouble) -> None:
    """mod/assign/locallib.php gradebook_item_update: without the workflow a grade reaches the
    gradebook at once; before the results are public that is refused, and after it allowed."""
    double.markingworkflow = False
    with pytest.raises(PlatformRefused, match="marking workflow"):
        platform(double).check(public=False)
    p = platform(double)
    p.check(public=True)
    p.current()
    assert p.write([Cell("123462", 8.0, "ok")])["123462"].ok
    assert double.seen_by_student(12) == (8.0, "ok")


def test_students_are_known_by_participant_number_and_teachers_are_not_listed(double: MoodleDouble) -> None:
    """enrol/externallib.php withcapability=mod/assign:submit lists students only;
    mod_assign_get_user_mappings gives the participant numbers Moodle's download names."""
    double.grades[11] = 6.0
    p = platform(double)
    p.check(public=False)
    now = p.current()
    assert {k: v.score for k, v in now.items()} == {"123458": 6.0, "123462": None, "123463": None}


def test_grades_are_saved_unreleased_with_a_plain_text_comment_then_released(double: MoodleDouble) -> None:
    """save_grades' workflowstate: readyforrelease before publication (the student sees nothing),
    released after; the comment goes in assignfeedbackcomments_editor as FORMAT_PLAIN."""
    p = platform(double)
    p.check(public=False)
    p.current()
    out = p.write([Cell("123458", 7.5, "<b>Score</b> 7.5"), Cell("123462", 9.0, "")])
    assert all(o.ok for o in out.values())
    assert double.grades == {11: 7.5, 12: 9.0}
    assert double.workflow == {11: "readyforrelease", 12: "readyforrelease"}
    assert double.comments == {11: "<b>Score</b> 7.5"} and double.comment_formats == {11: "2"}
    assert double.seen_by_student(11) == (None, None)
    later = platform(double)
    later.check(public=True)
    now = later.current()
    assert now["123458"].unreleased and now["123462"].unreleased and not now["123463"].unreleased
    later.write([Cell("123458", 7.5, "<b>Score</b> 7.5")])
    assert double.seen_by_student(11) == (7.5, "<b>Score</b> 7.5")
    assert platform(double).current()["123458"].unreleased is False  # (not public: nothing to release)


def test_grades_go_in_batches_and_one_refused_student_fails_alone(double: MoodleDouble) -> None:
    """save_grades saves one by one and stops at the first exception: the batch is saved again
    student by student, and the one Moodle refuses fails with Moodle's words."""
    double.refuse_users = {12}
    p = platform(double, batch=2)
    p.check(public=False)
    p.current()
    out = p.write([Cell("123458", 1.0, ""), Cell("123462", 2.0, ""), Cell("123463", 3.0, "")])
    assert out["123458"].ok and out["123463"].ok
    assert not out["123462"].ok and out["123462"].answer == "dmlwriteexception: Error writing to database"
    assert len(double.saves()) == 4  # [11, 12] refused, then 11 and 12 alone, then [13]
    assert double.grades == {11: 1.0, 13: 3.0}


def test_a_participant_who_is_not_a_student_is_failed_without_a_request(double: MoodleDouble) -> None:
    """mod_assign_save_grades does not itself ask whether a user id is a student of the course (the
    double saves any): the platform sends only the ids of the students it listed."""
    p = platform(double)
    p.check(public=False)
    p.current()
    out = p.write([Cell("123999", 5.0, "")])
    assert not out["123999"].ok and "not a student" in out["123999"].answer
    assert double.saves() == []


def test_a_grade_above_moodles_maximum_fails_alone_naming_the_fix(double: MoodleDouble) -> None:
    double.max_grade = 10
    p = platform(double)
    p.check(public=False)
    p.current()
    out = p.write([Cell("123458", 12.5, ""), Cell("123462", 9.0, "")])
    assert not out["123458"].ok and "above the assignment's maximum grade in Moodle (10)" in out["123458"].answer
    assert out["123462"].ok and double.grades == {12: 9.0}


def test_transient_failures_are_retried(double: MoodleDouble) -> None:
    double.fail_requests = {1, 3}
    double.rate_limit_every = 5
    p = platform(double)
    p.check(public=False)
    assert set(p.current()) == {"123458", "123462", "123463"}


def test_a_file_is_fetched_from_this_moodle_only(double: MoodleDouble) -> None:
    m = moodle(double)
    url = f"{double.url}/webservice/pluginfile.php/77/assignsubmission_file/submission_files/501/scaling.py"
    assert m.download(url) == b"x = 1\n"
    with pytest.raises(MoodleError, match="fileurl"):
        m.download("http://127.0.0.2:1/webservice/pluginfile.php/77/x")
    with pytest.raises(MoodleError, match="invalidtoken"):
        moodle(double, "f" * 32).download(url)


def test_a_token_refused_midway_fails_the_rest_with_what_to_do_and_sends_nothing_more(double: MoodleDouble) -> None:
    p = platform(double, batch=1)
    p.check(public=False)
    p.current()

    def expire(request) -> None:  # type: ignore[no-untyped-def]
        if request.function == "mod_assign_save_grades" and len(double.saves()) == 2:
            double.expired = True

    double.on_request = expire
    out = p.write([Cell("123458", 1.0, ""), Cell("123462", 2.0, ""), Cell("123463", 3.0, "")])
    assert out["123458"].ok and not out["123462"].ok and not out["123463"].ok
    assert "invalidtimedtoken" in out["123463"].answer and "Manage tokens" in out["123463"].answer
    assert len(double.saves()) == 2 and double.grades == {11: 1.0}


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


def test_a_thousand_students_under_faults_an_expiry_and_a_kill_converge() -> None:
    """1,000 students; ~5 % of requests 503, a 429 every 50th, the token expiring during the first
    push (named; a new one given), the second killed at a random request; pushing again until
    nothing is left reaches every expected grade, saves no student twice, and no one else."""
    import random

    from grader.outputs.gradebook import GradebookRow
    from grader.workflows.push import plan

    rng = random.Random(48)
    n = 1000
    users = {100 + i: User(100 + i, f"S{i}", 200_000 + i) for i in range(n)}
    users[99] = User(99, "Teacher", 199_999, student=False)
    expected = {str(200_000 + i): float(rng.randint(0, 100)) for i in range(n)}
    d = MoodleDouble(TOKEN, users, rate_limit_every=50,
                     fail_requests={i for i in range(1, 3000) if rng.random() < 0.05}).start()

    def expire(request) -> None:  # type: ignore[no-untyped-def]
        if request.function == "mod_assign_save_grades" and len(d.saves()) == 4:
            d.expired = True

    d.on_request = expire
    rows = [GradebookRow(f"sub-{k}", k, lms="moodle", cells={"score": v}) for k, v in expected.items()]
    token, runs, failed, killed = TOKEN, 0, 0, 0
    try:
        while True:
            transport = Dying(d.url, token, sleep=lambda s: None, bearer=False,
                              at=rng.randint(5, 10) if runs == 1 else 0)  # (4 reads, then 7 saves)
            p = MoodlePlatform(Moodle(d.url, token, transport), str(d.assignment))
            runs += 1
            try:
                p.check(public=False)
                lines = plan(rows, p.current(), {}, lms="moodle", ids={}, overwrite=False, lang="en")
                to_send = [line for line in lines if line.state == "send"]
                if not to_send:
                    break
                out = p.write([Cell(line.key, float(line.new or 0), "") for line in to_send])
                if not all(o.ok for o in out.values()):
                    failed += 1
                    assert {o.answer for o in out.values() if not o.ok} == {
                        next(o.answer for o in out.values() if not o.ok)}
                    assert "invalidtimedtoken" in next(o.answer for o in out.values() if not o.ok)
                    token = "fedcba9876543210fedcba9876543210"  # a new token, as the message says
                    d.token, d.expired, d.on_request = token, False, None
            except Killed:
                killed += 1
            finally:
                transport.close()
            assert runs < 6
    finally:
        d.stop()
    assert failed == 1 and killed == 1
    assert {str(users[u].participant): g for u, g in d.grades.items()} == expected
    written = [uid for uid, _, _ in d.writes]
    assert 99 not in written and set(written) <= set(range(100, 100 + n))
    assert len(written) == len(set(written)) == n  # no student saved twice


def test_a_withdrawn_student_is_refused_and_students_of_one_name_each_get_their_own(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """enrol/externallib.php get_enrolled_users lists a suspended enrolment with the rest unless asked
    ``onlyactive``: the withdrawn student is refused with the reason, and not pulled. Two students
    named Jane Doe and two named 山田 太郎: each is written by their own participant number. The push
    makes no one late in Moodle: it saves grades and reads, nothing else."""
    from grader.outputs.gradebook import GradebookRow
    from grader.workflows.pull_moodle import pull_moodle
    from grader.workflows.push import plan

    d = MoodleDouble(TOKEN, {
        21: User(21, "Jane Doe", 723401), 22: User(22, "Jane Doe", 723402), 23: User(23, "山田 太郎", 723403),
        24: User(24, "山田 太郎", 723404), 25: User(25, "Gone Away", 723405, active=False),
        90: User(90, "Teacher", 723999, student=False)}, max_grade=100)
    for uid in (21, 25):
        d.submissions[uid] = Submission(600 + uid, uid, 1_800_000_000, {"scaling.py": b"x = 1\n"})
    d.start()
    try:
        moodle_platform = platform(d)
        now = moodle_platform.current()
        assert set(now) == {"723401", "723402", "723403", "723404", "723405"}
        assert now["723405"].refused and not any(now[k].refused for k in ("723401", "723402", "723403", "723404"))
        scores = {"723401": 10.0, "723402": 20.0, "723403": 30.0, "723404": 40.0, "723405": 50.0, "723999": 60.0}
        rows = [GradebookRow(f"s-{k}", k, lms="moodle", cells={"score": v}) for k, v in scores.items()]
        lines = plan(rows, now, {}, lms="moodle", ids={}, overwrite=False, lang="en")
        state = {line.key: (line.state, line.reason) for line in lines}
        assert state["723405"] == ("skipped", "LMS id 723405 is not written: withdrawn from the course "
                                   "(the enrolment is suspended or has ended in Moodle)")
        assert state["723999"][0] == "skipped" and "not a student of this assignment" in state["723999"][1]
        sent = moodle_platform.write([Cell(line.key, float(line.new or 0), "") for line in lines if line.state == "send"])
        assert all(o.ok for o in sent.values())
        assert d.grades == {21: 10.0, 22: 20.0, 23: 30.0, 24: 40.0}
        # the push makes no one late in Moodle: it saves grades only (no new attempt, no submission
        # time, no extension), and every other call was a read
        assert {r.function for r in d.log if not r.function.startswith(("mod_assign_get_", "core_enrol_get_"))} \
            == {"mod_assign_save_grades"}
        entries = [g for r in d.saves() for g in r.params["grades"]]
        assert all(set(g) <= {"userid", "grade", "attemptnumber", "addattempt", "workflowstate", "plugindata"}
                   and str(g["addattempt"]) == "0" and str(g["attemptnumber"]) == "-1" for g in entries)
        assert d.submissions[21].timemodified == 1_800_000_000 and d.extensions == {}
        pull_moodle(tmp_path / "src", moodle(d), str(d.assignment))  # the withdrawn student's file is not pulled
        assert [p.name for p in (tmp_path / "src" / "submissions").iterdir()] == ["Jane Doe_723401_assignsubmission_file_"]
    finally:
        d.stop()
