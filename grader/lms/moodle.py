"""Moodle web services: one assignment's grades and feedback comments, and its submissions.

Every call is a ``POST`` to ``/webservice/rest/server.php`` with ``wsfunction``,
``moodlewsrestformat=json``, the token as the form field ``wstoken`` (never in a URL) and the
function's parameters flattened as PHP reads them (``grades[0][userid]=…``). The functions, as
Moodle's ``mod/assign/externallib.php`` and ``enrol/externallib.php`` define them:

* ``mod_assign_get_assignments``: the assignments of the token's user's courses, with ``course``,
  ``grade`` (the maximum), ``duedate``, ``markingworkflow`` and ``blindmarking``.
* ``core_enrol_get_enrolled_users`` with ``withcapability=mod/assign:submit``: the students (who
  may submit); teachers and other roles are not listed.
* ``mod_assign_get_user_mappings``: each student's participant number (``assign_user_mapping``),
  the number Moodle's own "Download all submissions" and grading worksheet name students by; the
  grader knows a Moodle student by it (``Participant 123456``), as it does for those files.
* ``mod_assign_get_grades``: the grade each student holds now (``-1`` is Moodle's "no grade").
* ``mod_assign_get_user_flags``: each student's marking workflow state and extension.
* ``mod_assign_save_grades``: grades and feedback comments in batches of :data:`BATCH`, each with
  ``workflowstate``; the comment as plain text (``FORMAT_PLAIN``), so nothing in it is markup.
* ``mod_assign_get_submissions``: the submissions changed since a time, their file areas and each
  file's ``fileurl`` (``webservice/pluginfile.php``), fetched with the token as a form field.

Moodle answers an error with HTTP 200 and ``{"exception", "errorcode", "message"}``
(``webservice/rest/locallib.php``, ``generate_error``): :meth:`Moodle.call` raises it as
:class:`MoodleError`, or as :class:`grader.lms.platform.PlatformRefused` naming what to do when
the token is refused (``invalidtoken``, ``invalidtimedtoken``: a new token) or may not call the
function (``accessexception``: add it to the service).

With the marking workflow on, a grade is kept from the gradebook and the student until its state
is ``released`` (``mod/assign/locallib.php``, ``gradebook_item_update``): before the results are
public the grades are saved ``readyforrelease``; once they are public, ``released``. Without the
workflow a saved grade is shown at once, so :meth:`MoodlePlatform.check` refuses before then.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from grader.i18n.messages import said
from grader.lms.platform import Cell, Current, Outcome, PlatformRefused
from grader.lms.transport import Failed, Transport

__all__ = ["BATCH", "ENDPOINT", "FORMAT_PLAIN", "Assignment", "Moodle", "MoodleError", "MoodlePlatform",
           "flatten"]

ENDPOINT = "/webservice/rest/server.php"
#: students per mod_assign_save_grades
BATCH = 100
#: lib/weblib.php: FORMAT_PLAIN, text shown as it is (escaped), never read as HTML
FORMAT_PLAIN = "2"
#: the workflow states (mod/assign/locallib.php: ASSIGN_MARKING_WORKFLOW_STATE_*)
READY, RELEASED = "readyforrelease", "released"
#: the errorcodes that mean the token itself, not one call, is refused (webservice/lib.php,
#: lib/externallib.php): no token, an expired one, one from another address, a user the service
#: does not allow, a function the service does not hold
_TOKEN_CODES = {"invalidtoken", "invalidtimedtoken", "invalidiptoken", "usernotallowed", "invalidtokensession"}
_ACCESS_CODES = {"accessexception", "servicerequireslogin", "servicenotavailable"}


class MoodleError(Exception):
    """Moodle's exception object: its errorcode and message (scrubbed of the token)."""

    def __init__(self, errorcode: str, message: str) -> None:
        super().__init__(f"{errorcode}: {message}" if errorcode else message)
        self.errorcode, self.message = errorcode, message


def flatten(params: Mapping[str, Any] | list[Any], prefix: str = "") -> dict[str, str]:
    """``params`` as PHP's form decoding reads nested arrays: ``{"a": [{"b": 1}]}`` -> ``a[0][b]=1``."""
    out: dict[str, str] = {}
    items = params.items() if isinstance(params, Mapping) else enumerate(params)
    for key, value in items:
        name = f"{prefix}[{key}]" if prefix else str(key)
        if isinstance(value, (Mapping, list)):
            out.update(flatten(value, name))
        elif isinstance(value, bool):
            out[name] = "1" if value else "0"
        else:
            out[name] = str(value)
    return out


def _int(value: Any, default: int = 0) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


@dataclass(frozen=True)
class Assignment:
    """What mod_assign_get_assignments says of the assignment."""

    id: str
    course: str
    name: str
    grade: float
    duedate: int
    markingworkflow: bool
    blindmarking: bool
    revealidentities: bool = False

    @property
    def blind(self) -> bool:
        """Blind marking whose identities are not revealed yet: markers see no names."""
        return self.blindmarking and not self.revealidentities


@dataclass(frozen=True)
class Student:
    """An enrolled student: Moodle's user id, participant number and full name; ``active``: False
    for a withdrawn student (the enrolment suspended, or its end date passed), whom Moodle still
    lists among the enrolled users unless asked for the active ones only."""

    userid: str
    participant: str
    fullname: str
    active: bool = True


class Moodle:
    """Moodle's web services at ``url``, through a :class:`Transport` that sends no header token."""

    def __init__(self, url: str, token: str, transport: Transport) -> None:
        self.url = url.rstrip("/")
        self._token = token
        self._http = transport

    def scrub(self, text: str) -> str:
        return self._http.scrub(text)

    def call(self, function: str, params: Mapping[str, Any] | None = None) -> Any:
        """One web-service function's answer (its JSON).

        Raises:
            PlatformRefused: Moodle cannot be reached, or refuses the token or the function.
            MoodleError: Moodle's exception for this call (HTTP 200 with an exception object), or
                an HTTP error after every retry.
        """
        data = {"wstoken": self._token, "wsfunction": function, "moodlewsrestformat": "json",
                **flatten(params or {})}
        try:
            answer = self._http.request("POST", ENDPOINT, data=data)
        except Failed as exc:
            raise PlatformRefused(said("moodle_unreachable", url=self.url, why=str(exc))) from None
        if not answer.ok:
            raise MoodleError(f"HTTP {answer.status}", function)
        body = answer.data
        if isinstance(body, dict) and "exception" in body:
            code = self.scrub(str(body.get("errorcode") or ""))[:100]
            message = self.scrub(str(body.get("message") or ""))[:300]
            if code in _TOKEN_CODES:
                raise PlatformRefused(said("moodle_token_refused", url=self.url, code=code, message=message))
            if code in _ACCESS_CODES:
                raise PlatformRefused(said("moodle_function_refused", url=self.url, function=function,
                                           code=code, message=message))
            raise MoodleError(code, message)
        return body

    def read(self, function: str, params: Mapping[str, Any] | None = None) -> Any:
        """:meth:`call` for a read the push or pull cannot go on without: a failure is a refusal."""
        try:
            return self.call(function, params)
        except MoodleError as exc:
            raise PlatformRefused(said("moodle_read_failed", function=function, why=str(exc))) from None

    def download(self, fileurl: str) -> bytes:
        """The bytes of a submission's file at ``fileurl`` (webservice/pluginfile.php on this Moodle).

        Raises:
            MoodleError: the address is not this Moodle's, or Moodle refused or never sent the file.
        """
        prefix = f"{self.url}/webservice/pluginfile.php/"
        if not fileurl.startswith(prefix):  # the token is sent to this Moodle only
            raise MoodleError("fileurl", self.scrub(fileurl)[:200])
        try:
            answer = self._http.request("POST", fileurl[len(self.url):], data={"token": self._token})
        except Failed as exc:
            raise MoodleError("download", str(exc)) from None
        if isinstance(answer.data, dict) and "exception" in answer.data:
            raise MoodleError(self.scrub(str(answer.data.get("errorcode") or "")),
                              self.scrub(str(answer.data.get("message") or ""))[:300])
        if not answer.ok:
            raise MoodleError(f"HTTP {answer.status}", "download")
        return answer.content

    # ------------------------------------------------------------------ what pull and push read

    def assignment(self, assignment: str) -> Assignment:
        """The assignment ``assignment`` among the token's user's courses.

        Raises:
            PlatformRefused: no course of the token's user holds it.
        """
        data = self.read("mod_assign_get_assignments")
        known: list[str] = []
        for course in (data or {}).get("courses") or []:
            for a in course.get("assignments") or []:
                if str(a.get("id")) == str(assignment):
                    return Assignment(str(assignment), str(a.get("course") or course.get("id")), str(a.get("name", "")),
                                      float(a.get("grade") or 0), _int(a.get("duedate")),
                                      bool(_int(a.get("markingworkflow"))), bool(_int(a.get("blindmarking"))),
                                      bool(_int(a.get("revealidentities"))))
                known.append(f"{a.get('id')} {str(a.get('name', ''))[:60]!r} (view.php?id={a.get('cmid')})")
        listed = "; ".join(known[:20]) + ("; …" if len(known) > 20 else "") or "—"
        raise PlatformRefused(said("moodle_no_assignment", url=self.url, assignment=assignment, known=listed))

    def students(self, assignment: Assignment) -> tuple[list[Student], list[str]]:
        """The students of the assignment's course with their participant numbers, and the user ids
        of students who have none yet (Moodle numbers them when a teacher opens the grading table)."""
        submit = {"name": "withcapability", "value": "mod/assign:submit"}
        users = self.read("core_enrol_get_enrolled_users", {"courseid": assignment.course, "options": [submit]})
        # (enrol/externallib.php get_enrolled_users: without onlyactive, suspended and ended enrolments
        # are listed too; with it, only the active ones: the others are withdrawn)
        active = {str(u.get("id")) for u in self.read("core_enrol_get_enrolled_users", {
            "courseid": assignment.course, "options": [submit, {"name": "onlyactive", "value": "1"}]}) or []
            if isinstance(u, dict)}
        data = self.read("mod_assign_get_user_mappings", {"assignmentids": [assignment.id]})
        numbers: dict[str, str] = {}
        for a in (data or {}).get("assignments") or []:
            if str(a.get("assignmentid")) == assignment.id:
                for m in a.get("mappings") or []:
                    numbers[str(m.get("userid"))] = str(m.get("id"))
        found, unnumbered = [], []
        for user in users or []:
            uid = str(user.get("id"))
            if uid in numbers:
                found.append(Student(uid, numbers[uid], str(user.get("fullname") or ""), active=uid in active))
            else:
                unnumbered.append(uid)
        return found, unnumbered

    def flags(self, assignment: Assignment) -> dict[str, dict[str, Any]]:
        """Each student's user flags (workflowstate, extensionduedate), by user id."""
        data = self.read("mod_assign_get_user_flags", {"assignmentids": [assignment.id]})
        out: dict[str, dict[str, Any]] = {}
        for a in (data or {}).get("assignments") or []:
            if str(a.get("assignmentid")) == assignment.id:
                for f in a.get("userflags") or []:
                    out[str(f.get("userid"))] = f
        return out

    def grades(self, assignment: Assignment) -> dict[str, float | None]:
        """The grade each student holds now, by user id (None: Moodle's -1, no grade)."""
        data = self.read("mod_assign_get_grades", {"assignmentids": [assignment.id]})
        out: dict[str, float | None] = {}
        for a in (data or {}).get("assignments") or []:
            if str(a.get("assignmentid")) == assignment.id:
                for g in a.get("grades") or []:
                    try:
                        value: float | None = float(g.get("grade"))
                    except (TypeError, ValueError):
                        value = None
                    out[str(g.get("userid"))] = None if value is None or value < 0 else value
        return out


class MoodlePlatform:
    """One Moodle assignment as ``grader push`` writes into it (:class:`grader.lms.platform.Platform`).

    Students are known by their participant numbers (the LMS ids of a Moodle download and of a
    ``grader pull --from moodle``); grades are saved by user id.
    """

    name = "moodle"

    def __init__(self, moodle: Moodle, assignment: str, *, batch: int = BATCH) -> None:
        self.moodle = moodle
        self.assignment = str(assignment)
        self._batch = max(1, batch)
        self._info: Assignment | None = None
        self._public = False
        self._userid: dict[str, str] = {}

    def target(self) -> dict[str, str]:
        course = self._info.course if self._info else ""
        return {"platform": self.name, "url": self.moodle.url, "course": course, "assignment": self.assignment}

    def _assignment(self) -> Assignment:
        if self._info is None:
            self._info = self.moodle.assignment(self.assignment)
        return self._info

    def check(self, *, public: bool) -> None:
        info = self._assignment()
        self._public = public
        if not public and not info.markingworkflow:
            raise PlatformRefused(said("moodle_no_workflow", assignment=self.assignment, name=info.name))

    def current(self) -> dict[str, Current]:
        info = self._assignment()
        students, _ = self.moodle.students(info)
        grades = self.moodle.grades(info)
        flags = self.moodle.flags(info) if info.markingworkflow and self._public else {}
        out: dict[str, Current] = {}
        for s in students:
            self._userid[s.participant] = s.userid
            score = grades.get(s.userid)
            # public now, and the grade Moodle holds is not released yet: the push releases it
            held = score is not None and s.userid in flags and flags[s.userid].get("workflowstate") != RELEASED
            out[s.participant] = Current(score, unreleased=held,
                                         refused="" if s.active else said("moodle_student_withdrawn"))
        return out

    def _state(self) -> str:
        info = self._assignment()
        if not info.markingworkflow:
            return ""  # (the parameter is required; without the workflow Moodle does not read it)
        return RELEASED if self._public else READY

    def _entry(self, cell: Cell) -> dict[str, Any]:
        entry: dict[str, Any] = {"userid": self._userid[cell.key], "grade": f"{round(cell.score, 5):g}",
                                 "attemptnumber": -1, "addattempt": 0, "workflowstate": self._state()}
        if cell.comment:
            entry["plugindata"] = {"assignfeedbackcomments_editor": {"text": cell.comment, "format": FORMAT_PLAIN}}
        return entry

    def _save(self, cells: list[Cell]) -> MoodleError | PlatformRefused | None:
        try:
            self.moodle.call("mod_assign_save_grades", {"assignmentid": self.assignment, "applytoall": 0,
                                                        "grades": [self._entry(c) for c in cells]})
        except (MoodleError, PlatformRefused) as exc:
            return exc
        return None

    def write(self, cells: list[Cell]) -> dict[str, Outcome]:
        outcomes: dict[str, Outcome] = {}
        known = [c for c in cells if c.key in self._userid]
        top = self._assignment().grade
        for cell in cells:
            if cell.key not in self._userid:
                outcomes[cell.key] = Outcome(False, said("moodle_not_a_student", key=cell.key))
            elif top > 0 and cell.score > top + 1e-9:  # (a scale, grade < 0, is not checked here)
                outcomes[cell.key] = Outcome(False, said("moodle_above_maximum", score=f"{cell.score:g}",
                                                         top=f"{top:g}"))
        known = [c for c in known if c.key not in outcomes]
        state = self._state() or "-"
        stopped: PlatformRefused | None = None  # the token refused midway (expired): no request more
        for start in range(0, len(known), self._batch):
            chunk = known[start:start + self._batch]
            error = stopped or self._save(chunk)
            if error is None:
                for cell in chunk:
                    outcomes[cell.key] = Outcome(True, f"mod_assign_save_grades ({state})")
                continue
            if isinstance(error, PlatformRefused):
                stopped = error
                for cell in chunk:
                    outcomes[cell.key] = Outcome(False, self.moodle.scrub(str(error)))
                continue
            # Moodle saves the grades one by one and stops at the first it refuses: each student
            # is saved on their own, and the one refused is failed with Moodle's words
            for cell in chunk:
                one = stopped or (self._save([cell]) if len(chunk) > 1 else error)
                if isinstance(one, PlatformRefused):
                    stopped = one
                outcomes[cell.key] = (Outcome(True, f"mod_assign_save_grades ({state})") if one is None
                                      else Outcome(False, self.moodle.scrub(str(one))))
        return outcomes
