"""Canvas REST: the grades and comments of one assignment, written as Canvas's own controllers take them.

The endpoints, as canvas-lms's controllers define them:

* ``GET /api/v1/courses/:course/assignments/:id`` (``AssignmentsApiController#show``): the
  assignment's ``published`` and ``post_manually`` (its posting policy).
* ``GET /api/v1/courses/:course/assignments/:id/submissions`` (``SubmissionsApiController#index``):
  one submission per student of the course, paginated (``Link: <…>; rel="next"``), with ``user_id``
  and ``score``.
* ``POST …/submissions/update_grades`` (``SubmissionsApiController#bulk_update``):
  ``grade_data[<user_id>][posted_grade]`` and ``[text_comment]``; answers a ``Progress``, refused
  (401) where the assignment is not published or the token may not manage grades.
* ``GET /api/v1/progress/:id`` (``ProgressController#show``): ``workflow_state`` ``queued``,
  ``running``, ``completed`` or ``failed``.
* ``PUT …/submissions/:user_id`` (``SubmissionsApiController#update``): ``submission[posted_grade]``
  and ``comment[text_comment]``, one student; used where the bulk update is refused or failed.

After a bulk update the submissions are read again: a student whose score Canvas did not take is
written on their own, and failed with Canvas's own words if that does not hold either.

A token that expires (or is deleted) midway is answered 401 with a ``WWW-Authenticate`` challenge
(canvas-lms's doc/api/oauth.md): no further write is sent; every student not yet written fails with
what to do (a new token), and the push run again with it converges.

For ``grader pull`` (:mod:`grader.workflows.pull_canvas`):

* ``GET /api/v1/courses/:course/enrollments`` (``EnrollmentsApiController#index``), every type and
  state: who is a student (``StudentEnrollment``), the test student (``StudentViewEnrollment``),
  withdrawn (``inactive``, ``deleted``…) or staff.
* ``GET …/submissions?include[]=user`` (``SubmissionsApiController#index``): each student's latest
  ``attempt``, ``submitted_at``, ``late``, ``attachments`` (``id``, ``display_name``, ``url``) and
  ``user`` (``name``, ``sortable_name``).
* each attachment's ``url``: the file, through Canvas's redirect to its file store.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from grader.i18n.messages import said
from grader.lms.platform import Cell, Current, Outcome, PlatformRefused
from grader.lms.transport import Answer, Failed, Transport, token_expired

__all__ = ["BULK", "ENROLLMENT_STATES", "CanvasPlatform", "canvas_error"]

#: students per bulk update
BULK = 100
#: how long a bulk update's Progress is polled (seconds), and how often
POLL_FOR = 600.0
POLL_EVERY = 1.0

_NEXT = re.compile(r'<([^>]+)>;\s*rel="next"')
#: every enrollment state EnrollmentsApiController#index filters by
ENROLLMENT_STATES = ("active", "invited", "creation_pending", "completed", "inactive", "rejected", "deleted")


class _Expired(Exception):
    """The token was refused midway (expired, deleted): no further write is sent."""


def canvas_error(answer: Answer) -> str:
    """What Canvas said in an error answer (``errors[].message``, ``error``, ``message``), with its status."""
    data = answer.data
    words: list[str] = []
    if isinstance(data, dict):
        errors = data.get("errors")
        if isinstance(errors, list):
            words += [str(e.get("message", e)) if isinstance(e, dict) else str(e) for e in errors]
        elif isinstance(errors, dict):
            words += [f"{k}: {v}" for k, v in errors.items()]
        for key in ("error", "message"):
            if isinstance(data.get(key), str):
                words.append(data[key])
    return f"HTTP {answer.status}" + (f": {'; '.join(words)[:300]}" if words else "")


def _score(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def _grade(score: float) -> str:
    text = f"{round(score, 2):.2f}".rstrip("0").rstrip(".")
    return text or "0"


class CanvasPlatform:
    """One Canvas assignment, through a :class:`grader.lms.transport.Transport` holding the token."""

    name = "canvas"

    def __init__(self, url: str, course: str, assignment: str, transport: Transport, *,
                 sleep: Callable[[float], None] = time.sleep, poll_every: float = POLL_EVERY) -> None:
        self.url, self.course, self.assignment = url.rstrip("/"), course, assignment
        self._http = transport
        self._sleep = sleep
        self._poll_every = poll_every
        self._base = f"/api/v1/courses/{course}/assignments/{assignment}"
        self._last: Answer | None = None  #: the last answer read (a token refused midway is told by it)

    def target(self) -> dict[str, str]:
        return {"platform": self.name, "url": self.url, "course": self.course, "assignment": self.assignment}

    def _get(self, path: str, params: list[tuple[str, str]] | None = None) -> Answer:
        try:
            answer = self._http.request("GET", path, params=params)
        except Failed as exc:
            raise PlatformRefused(said("canvas_unreachable", url=self.url, why=str(exc))) from None
        self._last = answer
        if answer.status == 401:
            raise PlatformRefused(said("canvas_token_refused", url=self.url, why=canvas_error(answer)))
        if not answer.ok:
            raise PlatformRefused(said("canvas_read_failed", path=path, why=canvas_error(answer)))
        return answer

    def check(self, *, public: bool) -> None:
        data = self._get(self._base).data or {}
        if data.get("published") is False:
            raise PlatformRefused(said("canvas_unpublished", assignment=self.assignment))
        if not public and not data.get("post_manually"):
            raise PlatformRefused(said("canvas_posts_automatically", assignment=self.assignment))

    def _pages(self, path: str, params: list[tuple[str, str]]) -> list[dict[str, Any]]:
        """Every item of a paginated listing, page after page by its ``Link: rel="next"``."""
        out: list[dict[str, Any]] = []
        next_path: str | None = path
        query: list[tuple[str, str]] | None = [*params, ("per_page", "100")]
        pages = 0
        while next_path and pages < 10_000:
            answer = self._get(next_path, query)
            out += [item for item in (answer.data if isinstance(answer.data, list) else []) if isinstance(item, dict)]
            link = _NEXT.search(answer.headers.get("link", "") or answer.headers.get("Link", ""))
            # only a page of the same Canvas: the token is never sent anywhere else
            next_path = link[1][len(self.url):] if link and link[1].startswith(self.url + "/") else None
            query, pages = None, pages + 1
        return out

    def current(self) -> dict[str, Current]:
        """Every student the assignment lists, with the score held; the course's test student
        (Student View: a StudentViewEnrollment, which the submissions index lists with the students,
        app/models/course.rb ``student_enrollments``) refused, never written."""
        held = self._held()
        testers = {str(e.get("user_id")) for e in self._pages(
            f"/api/v1/courses/{self.course}/enrollments",
            [("type[]", "StudentViewEnrollment"), *(("state[]", state) for state in ENROLLMENT_STATES)])}
        return {k: Current(v.score, refused=said("canvas_member_test_student")) if k in testers else v
                for k, v in held.items()}

    def _held(self) -> dict[str, Current]:
        return {str(sub["user_id"]): Current(_score(sub.get("score")))
                for sub in self._pages(f"{self._base}/submissions", []) if sub.get("user_id") is not None}

    def enrollments(self) -> list[dict[str, Any]]:
        """Every enrollment of the course, of every type and state (``grader pull``)."""
        return self._pages(f"/api/v1/courses/{self.course}/enrollments",
                           [("state[]", state) for state in ENROLLMENT_STATES])

    def submissions(self) -> list[dict[str, Any]]:
        """Every submission of the assignment, with its user and attachments (``grader pull``)."""
        return self._pages(f"{self._base}/submissions", [("include[]", "user")])

    def download(self, url: str, limit: int) -> bytes:
        """An attachment's bytes, from its ``url`` (see :meth:`grader.lms.transport.Transport.download`)."""
        return self._http.download(url, limit)

    def write(self, cells: list[Cell]) -> dict[str, Outcome]:
        outcomes: dict[str, Outcome] = {}
        try:
            self._write(cells, outcomes)
        except _Expired:
            stopped = Outcome(False, said("canvas_token_expired", url=self.url))
            for cell in cells:
                outcomes.setdefault(cell.key, stopped)
        return outcomes

    def _write(self, cells: list[Cell], outcomes: dict[str, Outcome]) -> None:
        single: list[Cell] = []
        for start in range(0, len(cells), BULK):
            chunk = cells[start:start + BULK]
            answer = self._bulk(chunk)
            if answer is None:
                single += chunk
                continue
            for cell in chunk:
                outcomes[cell.key] = Outcome(True, answer)
        if outcomes:  # what the bulk job said it did, checked against what Canvas holds now
            try:
                now = self._held()
            except PlatformRefused:
                if self._http_expired():
                    raise _Expired from None
                now = {}
            for cell in cells:
                held = now.get(cell.key)
                if cell.key in outcomes and (held is None or held.score is None
                                             or abs(held.score - round(cell.score, 2)) > 1e-9):
                    del outcomes[cell.key]
                    single.append(cell)
        for cell in single:
            outcomes[cell.key] = self._one(cell)

    def _http_expired(self) -> bool:
        return self._last is not None and token_expired(self._last)

    def _bulk(self, chunk: list[Cell]) -> str | None:
        """One bulk update, polled to its end: Canvas's answer, or None when refused or failed."""
        data: dict[str, str] = {}
        for cell in chunk:
            data[f"grade_data[{cell.key}][posted_grade]"] = _grade(cell.score)
            if cell.comment:
                data[f"grade_data[{cell.key}][text_comment]"] = cell.comment
        try:
            answer = self._http.request("POST", f"{self._base}/submissions/update_grades", data=data)
        except Failed:
            return None
        if token_expired(answer):
            raise _Expired
        if not answer.ok or not isinstance(answer.data, dict) or "id" not in answer.data:
            return None
        progress = answer.data
        waited = 0.0
        while progress.get("workflow_state") in ("queued", "running") and waited < POLL_FOR:
            self._sleep(self._poll_every)
            waited += max(self._poll_every, 0.001)
            try:
                polled = self._http.request("GET", f"/api/v1/progress/{progress['id']}")
            except Failed:
                continue
            if token_expired(polled):
                raise _Expired
            if polled.ok and isinstance(polled.data, dict):
                progress = polled.data
        if progress.get("workflow_state") != "completed":
            return None
        return f"progress {progress.get('id')} completed"

    def _one(self, cell: Cell) -> Outcome:
        data = {"submission[posted_grade]": _grade(cell.score)}
        if cell.comment:
            data["comment[text_comment]"] = cell.comment
        try:
            answer = self._http.request("PUT", f"{self._base}/submissions/{cell.key}", data=data)
        except Failed as exc:
            return Outcome(False, str(exc))
        if token_expired(answer):
            raise _Expired
        if answer.ok:
            return Outcome(True, f"HTTP {answer.status}")
        return Outcome(False, self._http.scrub(canvas_error(answer)))
