"""A Canvas test double: a small HTTP server on 127.0.0.1 that answers as canvas-lms's controllers do.

Each behaviour is read from canvas-lms's own source (instructure/canvas-lms):

* ``GET /api/v1/courses/:c/assignments/:a`` — app/controllers/assignments_api_controller.rb
  (``show``), with the fields of lib/api/v1/assignment.rb: ``published``, ``post_manually``,
  ``points_possible``.
* ``GET …/submissions`` — app/controllers/submissions_api_controller.rb (``index``): one
  submission per student enrollment, ordered by ``user_id``, paginated by ``Api.paginate``
  (``per_page``, ``page``; ``Link: <…>; rel="next"``).
* ``POST …/submissions/update_grades`` — submissions_api_controller.rb (``bulk_update``): 400
  ``{"error": "'grade_data' parameter required"}`` without grade data; ``render_unauthorized_action``
  (401) unless the assignment is published and the user may manage grades; else a queued
  ``Progress`` (``Submission.queue_bulk_update``), its grades applied by a job.
* ``GET /api/v1/progress/:id`` — app/controllers/progress_controller.rb (``show``):
  ``workflow_state`` one of queued, running, completed, failed.
* ``PUT …/submissions/:user_id`` — submissions_api_controller.rb (``update``):
  ``submission[posted_grade]`` sets score and grade, ``comment[text_comment]`` adds a comment;
  an unknown user is 404.
* Throttling — doc/api/throttling.md: a request over the quota is answered ``403 Forbidden
  (Rate Limit Exceeded)`` (plain text), to be retried later.
* A missing or wrong token is 401 ``{"errors": [{"message": "Invalid access token."}]}``, and a
  refused action 401 ``{"status": "unauthorized", "errors": [{"message": "user not authorized to
  perform that action"}]}`` — app/controllers/application_controller.rb (``render_unauthorized_action``).
  A token that expired or was deleted is answered 401 with a ``WWW-Authenticate`` header
  (doc/api/oauth.md, "Storing Tokens": "If the token is deleted or expires, the application will get
  a 401 Unauthorized error from the API, with a WWW-Authenticate header"); the double's challenge
  carries ``error="invalid_token"`` as RFC 6750 §3 names it.
* Throttling headers — doc/api/throttling.md: every answer carries ``X-Request-Cost`` and
  ``X-Rate-Limit-Remaining``; a 429 here carries ``Retry-After`` (seconds).

For ``grader pull``:

* ``GET …/submissions?include[]=user`` — submissions_api_controller.rb (``index``) with the
  fields of lib/api/v1/submission.rb (``SUBMISSION_JSON_FIELDS``: ``id``, ``user_id``, ``attempt``,
  ``submitted_at``, ``workflow_state``, ``submission_type``, ``score``, ``grade``; the method
  ``late``; ``attachments`` from ``versioned_attachments``, the latest attempt's); ``include[]=user``
  adds ``user`` (lib/api/v1/user.rb ``user_json``: ``id``, ``name``, ``sortable_name``,
  ``short_name``). The students listed are the course's ``student_enrollments``
  (app/models/course.rb: ``has_many :student_enrollments``, types StudentEnrollment and
  StudentViewEnrollment, the test student's, in workflow states other than rejected, completed,
  deleted and inactive).
* ``GET /api/v1/courses/:c/enrollments`` — app/controllers/enrollments_api_controller.rb
  (``index``): ``type[]`` and ``state[]`` filters (``active`` and ``invited`` when no state is
  given), each enrollment's ``user_id``, ``type`` (StudentEnrollment, StudentViewEnrollment,
  TeacherEnrollment, TaEnrollment, …) and ``enrollment_state``; paginated as above.
* An attachment (lib/api/v1/attachment.rb ``attachment_json``): ``id``, ``display_name``,
  ``filename``, ``size``, ``content-type`` and ``url``, ``file_download_url`` with ``download_frd=1``
  and the attachment's ``verifier``. Canvas answers that URL with a redirect to its file store
  (app/controllers/files_controller.rb ``show``/``send_stored_file``): here, to the same double under
  another host name (``localhost``), which must not be sent the token.

Faults a test can ask for: a 5xx answer on chosen request numbers (or a share of them, seeded), a
429 with ``Retry-After`` every n-th request, the token expiring at a request, the bulk update
refused, a delay before every answer.
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

UNAUTHORIZED = {"status": "unauthorized", "errors": [{"message": "user not authorized to perform that action"}]}
BAD_TOKEN = {"errors": [{"message": "Invalid access token."}]}


@dataclass
class Request:
    method: str
    path: str
    form: dict[str, str]
    status: int = 0
    #: the Authorization header it came with ("" without one)
    auth: str = ""
    host: str = ""


@dataclass
class Upload:
    """One file a student handed in: Canvas's attachment."""

    id: int
    display_name: str
    data: bytes
    content_type: str = "text/x-python"


@dataclass
class Student:
    """One user of the course as Canvas holds them: the enrollment and the latest submission.

    ``kind``: StudentEnrollment, StudentViewEnrollment (the test student), TeacherEnrollment…;
    ``state``: the enrollment's workflow state (active, invited, completed, inactive, deleted)."""

    name: str
    sortable_name: str = ""
    kind: str = "StudentEnrollment"
    state: str = "active"
    attempt: int | None = None
    submitted_at: str | None = None
    late: bool = False
    files: list[Upload] = field(default_factory=list)
    #: a submission's body (online text) instead of files
    body: str | None = None


#: enrollment states Course#student_enrollments leaves out (app/models/course.rb)
HIDDEN_STATES = ("rejected", "completed", "deleted", "inactive")
EXPIRED_CHALLENGE = 'Bearer realm="canvas-lms", error="invalid_token"'


@dataclass
class CanvasDouble:
    """One course's assignment in Canvas. ``scores`` holds every student enrolled, by user id."""

    token: str
    scores: dict[str, float | None]
    course: str = "7"
    assignment: str = "42"
    published: bool = True
    post_manually: bool = True
    bulk_refused: bool = False
    page_size: int = 100
    #: request numbers (1, 2, …) answered 503 instead
    fail_requests: set[int] = field(default_factory=set)
    #: every n-th request is answered 429 with Retry-After: ``retry_after`` (0: never)
    rate_limit_every: int = 0
    retry_after: str = "0"
    #: this share of requests (seeded by ``seed``) is answered 503 before it is handled
    fail_share: float = 0.0
    seed: int = 0
    #: from this request number on, the token has expired (401 with a WWW-Authenticate challenge)
    #: until a test gives the double a new ``token``
    expire_at: int = 0
    #: the course's users by Canvas user id (``grader pull``); ``scores`` holds the gradebook
    users: dict[str, Student] = field(default_factory=dict)
    #: polls of a Progress before its job runs
    polls_before_done: int = 1
    latency: float = 0.0
    #: requests a second before Canvas's throttle answers 403 (0: no cap)
    rate_cap: int = 0
    #: students listed by index whom the bulk job skips and update answers 404, as for a user
    #: outside the token's sections (submissions_api_controller.rb: get_user_considering_section)
    refuse_users: set[str] = field(default_factory=set)
    #: called with each request before it is answered (a test may kill a process there)
    on_request: Callable[[Request], None] | None = None
    comments: dict[str, list[str]] = field(default_factory=dict)
    log: list[Request] = field(default_factory=list)
    #: (user id, score) of every grade written, in order
    writes: list[tuple[str, float]] = field(default_factory=list)
    _progress: dict[int, dict[str, Any]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None
    _recent: list[float] = field(default_factory=list)
    _expired: set[str] = field(default_factory=set)
    _random: random.Random | None = None

    def __post_init__(self) -> None:
        for uid, user in self.users.items():  # every student of the course has a cell in the gradebook
            if user.kind in ("StudentEnrollment", "StudentViewEnrollment") and user.state not in HIDDEN_STATES:
                self.scores.setdefault(uid, None)

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> CanvasDouble:
        double = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # (quiet)
                pass

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode("utf-8") if length else ""
                form = {k: v[-1] for k, v in parse_qs(body, keep_blank_values=True).items()}
                status, data, headers = double.handle(self.command, self.path, form,
                                                      self.headers.get("Authorization", ""),
                                                      self.headers.get("Host", ""))
                plain = isinstance(data, (str, bytes))
                raw = data if isinstance(data, bytes) else (data if plain else json.dumps(data)).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/octet-stream" if isinstance(data, bytes)
                                 else "text/plain" if plain else "application/json")
                self.send_header("Content-Length", str(len(raw)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(raw)

            do_GET = do_POST = do_PUT = _answer

        class Server(ThreadingHTTPServer):
            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # (a client killed mid-answer: a test's own doing)

        self._server = Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    # ------------------------------------------------------------------ the controllers

    def handle(self, method: str, target: str, form: dict[str, str], auth: str,
               host: str = "") -> tuple[int, Any, dict[str, str]]:
        if self.latency:
            time.sleep(self.latency)
        parts = urlsplit(target)
        request = Request(method, target, form, auth=auth, host=host)
        with self._lock:
            self.log.append(request)
            n = len(self.log)
            if self._random is None:
                self._random = random.Random(self.seed)
            unlucky = self._random.random() < self.fail_share
            now = time.monotonic()
            self._recent = [t for t in self._recent if now - t < 1.0]
            throttled = bool(self.rate_cap) and len(self._recent) >= self.rate_cap
            if not throttled:
                self._recent.append(now)
        if throttled:
            request.status = 403
            return 403, "403 Forbidden (Rate Limit Exceeded)\n", {"X-Rate-Limit-Remaining": "0"}
        if self.on_request is not None:
            self.on_request(request)
        if parts.path.startswith("/store/"):  # the file store: no token wanted, the verifier is the key
            status, data, headers = self._stored(parts.path, parse_qs(parts.query))
        elif n in self.fail_requests or unlucky:
            status, data, headers = 503, {"errors": [{"message": "Service Unavailable"}]}, {}
        else:
            status, data, headers = self._route(method, parts.path, parse_qs(parts.query), form, auth, n)
        request.status = status
        return status, data, {"X-Request-Cost": "1.0", "X-Rate-Limit-Remaining": "600.0", **headers}

    def _route(self, method: str, path: str, query: dict[str, list[str]], form: dict[str, str], auth: str,
               n: int) -> tuple[int, Any, dict[str, str]]:
        if self.rate_limit_every and n % self.rate_limit_every == 0:
            return 429, {"errors": [{"message": "Rate Limit Exceeded"}]}, {"Retry-After": self.retry_after}
        given = auth.removeprefix("Bearer ")
        if self.expire_at and n >= self.expire_at and given == self.token:
            self._expired.add(self.token)
        if given in self._expired:
            return 401, BAD_TOKEN, {"WWW-Authenticate": EXPIRED_CHALLENGE}
        if auth != f"Bearer {self.token}":
            return 401, BAD_TOKEN, {}
        found = re.fullmatch(r"/files/(\d+)/download", path)
        if method == "GET" and found:
            return self._download(int(found[1]), query)
        if method == "GET" and path == f"/api/v1/courses/{self.course}/enrollments":
            return self._enrollments(path, query)
        base = f"/api/v1/courses/{self.course}/assignments/{self.assignment}"
        if method == "GET" and path == base:
            return 200, {"id": int(self.assignment), "published": self.published, "post_manually": self.post_manually,
                         "points_possible": 100}, {}
        if method == "GET" and path == f"{base}/submissions":
            return self._index(path, query)
        if method == "POST" and path == f"{base}/submissions/update_grades":
            return self._bulk(form)
        found = re.fullmatch(r"/api/v1/progress/(\d+)", path)
        if method == "GET" and found:
            return self._poll(int(found[1]))
        found = re.fullmatch(re.escape(base) + r"/submissions/(\d+)", path)
        if method == "PUT" and found:
            return self._update(found[1], form)
        return 404, {"errors": [{"message": "The specified resource does not exist."}]}, {}

    def _submission(self, uid: str, include: list[str] | None = None) -> dict[str, Any]:
        score = self.scores.get(uid)
        user = self.users.get(uid)
        submitted = user is not None and user.submitted_at is not None
        state = "graded" if score is not None else "submitted" if submitted else "unsubmitted"
        out: dict[str, Any] = {"id": 90_000 + int(uid), "user_id": int(uid), "assignment_id": int(self.assignment),
                               "score": score, "grade": None if score is None else f"{score:g}",
                               "workflow_state": state, "late": bool(user and user.late),
                               "attempt": user.attempt if user else None,
                               "submitted_at": user.submitted_at if user else None,
                               "submission_type": None if not submitted else
                               "online_text_entry" if user and user.body is not None else "online_upload",
                               "body": user.body if user else None}
        if user and user.files:
            out["attachments"] = [self._attachment(f) for f in user.files]
        if include and "user" in include and user is not None:
            out["user"] = {"id": int(uid), "name": user.name, "sortable_name": user.sortable_name or user.name,
                           "short_name": user.name}
        return out

    def _attachment(self, upload: Upload) -> dict[str, Any]:
        return {"id": upload.id, "uuid": f"v{upload.id}x", "display_name": upload.display_name,
                "filename": re.sub(r"[^\w.-]", "_", upload.display_name), "content-type": upload.content_type,
                "size": len(upload.data),
                "url": f"{self.url}/files/{upload.id}/download?download_frd=1&verifier=v{upload.id}x"}

    def _listed(self) -> list[str]:
        """Whom the submissions index lists: the course's student_enrollments (and whoever holds a
        grade, for the push's tests that give only ``scores``)."""
        ids = set(self.scores)
        for uid, user in self.users.items():
            if user.kind in ("StudentEnrollment", "StudentViewEnrollment") and user.state not in HIDDEN_STATES:
                ids.add(uid)
            else:
                ids.discard(uid)
        return sorted(ids, key=int)

    def _page(self, path: str, query: dict[str, list[str]], items: list[Any]) -> tuple[int, Any, dict[str, str]]:
        per = min(int((query.get("per_page") or [str(self.page_size)])[0]), self.page_size)
        page = int((query.get("page") or ["1"])[0])
        headers = {}
        if page * per < len(items):
            keep = "".join(f"&{k}={v}" for k, vs in query.items() if k not in ("page", "per_page") for v in vs)
            headers["Link"] = f'<{self.url}{path}?page={page + 1}&per_page={per}{keep}>; rel="next"'
        return 200, items[(page - 1) * per: page * per], headers

    def _index(self, path: str, query: dict[str, list[str]]) -> tuple[int, Any, dict[str, str]]:
        with self._lock:
            for p in self._progress.values():  # a queued job has run by the time anyone reads again
                if p["state"] != "completed":
                    self._run(p)
            items = [self._submission(u, query.get("include[]")) for u in self._listed()]
        return self._page(path, query, items)

    def _enrollments(self, path: str, query: dict[str, list[str]]) -> tuple[int, Any, dict[str, str]]:
        kinds, states = query.get("type[]"), query.get("state[]") or ["active", "invited"]
        items = [{"id": 70_000 + int(uid), "user_id": int(uid), "course_id": int(self.course), "type": u.kind,
                  "enrollment_state": u.state, "user": {"id": int(uid), "name": u.name,
                                                        "sortable_name": u.sortable_name or u.name}}
                 for uid, u in sorted(self.users.items(), key=lambda x: int(x[0]))
                 if (not kinds or u.kind in kinds) and u.state in states]
        return self._page(path, query, items)

    def _upload(self, fid: int) -> Upload | None:
        return next((f for u in self.users.values() for f in u.files if f.id == fid), None)

    def _download(self, fid: int, query: dict[str, list[str]]) -> tuple[int, Any, dict[str, str]]:
        upload = self._upload(fid)
        if upload is None or (query.get("verifier") or [""])[0] != f"v{fid}x":
            return 404, {"errors": [{"message": "The specified resource does not exist."}]}, {}
        assert self._server is not None
        store = f"http://localhost:{self._server.server_address[1]}/store/{fid}?sig=v{fid}x"
        return 302, "", {"Location": store}

    def _stored(self, path: str, query: dict[str, list[str]]) -> tuple[int, Any, dict[str, str]]:
        found = re.fullmatch(r"/store/(\d+)", path)
        upload = self._upload(int(found[1])) if found else None
        if upload is None or (query.get("sig") or [""])[0] != f"v{upload.id}x":
            return 403, "AccessDenied", {}
        return 200, upload.data, {}

    def _bulk(self, form: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        grades: dict[str, dict[str, str]] = {}
        for key, value in form.items():
            found = re.fullmatch(r"grade_data\[(\w+)\]\[(\w+)\]", key)
            if found:
                grades.setdefault(found[1], {})[found[2]] = value
        if not grades:
            return 400, {"error": "'grade_data' parameter required"}, {}
        if self.bulk_refused or not self.published:
            return 401, UNAUTHORIZED, {}
        with self._lock:
            pid = len(self._progress) + 1
            self._progress[pid] = {"grades": grades, "polls": 0, "state": "queued"}
        return 200, self._progress_json(pid), {}

    def _progress_json(self, pid: int) -> dict[str, Any]:
        p = self._progress[pid]
        return {"id": pid, "workflow_state": p["state"], "tag": "submissions_update",
                "completion": 100 if p["state"] == "completed" else 0, "url": f"{self.url}/api/v1/progress/{pid}"}

    def _poll(self, pid: int) -> tuple[int, Any, dict[str, str]]:
        with self._lock:
            p = self._progress.get(pid)
            if p is None:
                return 404, {"errors": [{"message": "The specified resource does not exist."}]}, {}
            p["polls"] += 1
            if p["state"] != "completed" and p["polls"] >= self.polls_before_done:
                self._run(p)
            elif p["state"] == "queued":
                p["state"] = "running"
            return 200, self._progress_json(pid), {}

    def _run(self, p: dict[str, Any]) -> None:
        """The job of a bulk update (Submission.queue_bulk_update): it runs whether or not anyone polls."""
        for uid, grade in p["grades"].items():
            if uid in self.scores and uid not in self.refuse_users:  # (the job skips whom it cannot grade)
                self._apply(uid, grade.get("posted_grade"), grade.get("text_comment"))
        p["state"] = "completed"

    def _update(self, uid: str, form: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        with self._lock:
            if uid not in self.scores or uid in self.refuse_users:
                return 404, {"errors": [{"message": "The specified resource does not exist."}]}, {}
            self._apply(uid, form.get("submission[posted_grade]"), form.get("comment[text_comment]"))
            return 200, self._submission(uid), {}

    def _apply(self, uid: str, grade: str | None, comment: str | None) -> None:
        if grade is not None:
            self.scores[uid] = float(grade)
            self.writes.append((uid, float(grade)))
        if comment:
            self.comments.setdefault(uid, []).append(comment)

    # ------------------------------------------------------------------ what a test reads

    def write_requests(self) -> list[Request]:
        """The requests that write (bulk updates and per-student updates)."""
        return [r for r in self.log if r.method in ("POST", "PUT")]
