"""A Moodle test double: a small HTTP server on 127.0.0.1 that answers as Moodle's web services do.

Each behaviour is read from Moodle's own source (moodle/moodle):

* The REST endpoint — webservice/rest/server.php and webservice/rest/locallib.php
  (``webservice_rest_server``): ``POST /webservice/rest/server.php`` with ``wstoken``,
  ``wsfunction``, ``moodlewsrestformat=json`` and the parameters as PHP reads nested arrays
  (``grades[0][userid]``). An error is answered with HTTP 200 and the exception object
  ``{"exception": <class>, "errorcode": …, "message": …}`` (``generate_error``).
* The token — webservice/lib.php (``authenticate_by_token``) and lang/en/webservice.php: an
  unknown token is ``moodle_exception`` ``invalidtoken`` "Invalid token - token not found", one
  past its ``validuntil`` ``invalidtimedtoken`` "Invalid token - token expired"; a function the
  service does not hold is ``webservice_access_exception`` ``accessexception`` "Access control
  exception" (lib/externallib.php, ``external_api::call_external_function``).
* A parameter missing or of the wrong type — lib/externallib.php (``validate_parameters``):
  ``invalid_parameter_exception`` ``invalidparameter`` "Invalid parameter value detected".
* ``mod_assign_get_assignments``, ``mod_assign_get_grades`` (grades of the latest attempt of students
  with a submission record, ``grade`` a string, ``-1`` for none), ``mod_assign_get_user_flags``
  (``workflowstate``, ``extensionduedate``), ``mod_assign_get_user_mappings`` (the participant
  number, ``assign_user_mapping.id``), ``mod_assign_get_submissions`` (latest attempt,
  ``timemodified >= since``, the file areas with each file's ``fileurl`` on
  webservice/pluginfile.php) and ``mod_assign_save_grades`` (``assignmentid``, ``applytoall``,
  ``grades[i][userid|grade|attemptnumber|addattempt|workflowstate|plugindata]``; the grades saved
  one by one, so an exception stops the batch after the grades before it were saved; answers
  ``null``) — mod/assign/externallib.php. ``save_grades`` checks the caller's context and hands
  each ``userid`` to ``assign::save_grade`` without asking whether it is a student of the course:
  the double saves a grade for any user id, the worst case a client must guard against.
* The comment — mod/assign/feedback/comments/locallib.php (``get_external_parameters``:
  ``assignfeedbackcomments_editor`` with ``text`` and ``format``): one comment per grade, replaced
  by the next save.
* The workflow — mod/assign/locallib.php: the states ``notmarked``, ``inmarking``,
  ``readyforreview``, ``inreview``, ``readyforrelease``, ``released``
  (``ASSIGN_MARKING_WORKFLOW_STATE_*``); with ``markingworkflow`` on, ``gradebook_item_update``
  sends the gradebook no grade (``-1``) and no feedback until the state is ``released``, and the
  student's status page shows no feedback before then: :meth:`MoodleDouble.seen_by_student`.
  Without the workflow the ``workflowstate`` parameter is not read.
* ``core_enrol_get_enrolled_users`` with ``options[0][name]=withcapability`` — enrol/externallib.php:
  only users holding the capability (``mod/assign:submit``: students, not teachers); a suspended or
  ended enrolment (a withdrawn student) is listed too, unless the option ``onlyactive`` is given
  (``get_enrolled_sql($context, $withcapability, $groupid, $onlyactive)``).
* The files — webservice/pluginfile.php: the ``token`` parameter (GET or POST, ``optional_param``);
  without a valid one the exception object again. A file's url has its name encoded
  (lib/filelib.php, ``file_encode_url``: ``rawurlencode``). Moodle cleans a file's name on upload
  (``PARAM_FILE``); the double keeps any name, so a test can hand the grader one no Moodle would.

Faults a test can ask for: a 503 on chosen request numbers, a 429 with ``Retry-After`` every n-th
request or beyond a rate cap, an expired token, a function left out of the service, users whose grade Moodle refuses,
a delay before every answer.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

STATES = ("notmarked", "inmarking", "readyforreview", "inreview", "readyforrelease", "released")
CONTEXT = 77  # the assignment's module context id, in file urls


def _error(exception: str, errorcode: str, message: str) -> dict[str, str]:
    return {"exception": exception, "errorcode": errorcode, "message": message}


BAD_TOKEN = _error("moodle_exception", "invalidtoken", "Invalid token - token not found")
EXPIRED = _error("moodle_exception", "invalidtimedtoken", "Invalid token - token expired")
ACCESS = _error("webservice_access_exception", "accessexception", "Access control exception")
INVALID = _error("invalid_parameter_exception", "invalidparameter", "Invalid parameter value detected")


def nested(form: dict[str, str]) -> dict[str, Any]:
    """PHP's reading of ``a[0][b]=1`` form fields into nested arrays (lists where the keys are 0, 1, …)."""
    root: dict[str, Any] = {}
    for key, value in form.items():
        parts = re.findall(r"[^\[\]]+", key.split("[", 1)[0]) + re.findall(r"\[([^\]]*)\]", key)
        node = root
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value

    def lists(node: Any) -> Any:
        if isinstance(node, dict):
            node = {k: lists(v) for k, v in node.items()}
            if node and all(k.isdigit() for k in node):
                return [node[k] for k in sorted(node, key=int)]
        return node

    return lists(root)  # type: ignore[no-any-return]


@dataclass
class User:
    id: int
    fullname: str
    participant: int  # assign_user_mapping.id
    student: bool = True
    #: the enrolment is active (False: suspended or ended: withdrawn)
    active: bool = True


@dataclass
class Submission:
    id: int
    userid: int
    timemodified: int
    files: dict[str, bytes]
    status: str = "submitted"
    attemptnumber: int = 0


@dataclass
class Request:
    function: str
    params: dict[str, Any]
    status: int = 200
    error: str = ""


@dataclass
class MoodleDouble:
    """One Moodle assignment. ``users`` by user id; ``grades``, ``comments``, ``workflow`` by user id."""

    token: str
    users: dict[int, User]
    course: int = 7
    assignment: int = 42
    name: str = "Chapter 7"
    markingworkflow: bool = True
    blindmarking: bool = False
    max_grade: int = 100
    duedate: int = 0
    submissions: dict[int, Submission] = field(default_factory=dict)
    grades: dict[int, float] = field(default_factory=dict)
    comments: dict[int, str] = field(default_factory=dict)
    comment_formats: dict[int, str] = field(default_factory=dict)
    workflow: dict[int, str] = field(default_factory=dict)
    extensions: dict[int, int] = field(default_factory=dict)
    expired: bool = False
    #: the functions the service holds (None: every one)
    functions: set[str] | None = None
    #: users whose grade save raises, as a failed database write does (lib/dml/dml_exception.php:
    #: dml_write_exception, "Error writing to database"), stopping the batch there
    refuse_users: set[int] = field(default_factory=set)
    fail_requests: set[int] = field(default_factory=set)
    rate_limit_every: int = 0
    latency: float = 0.0
    on_request: Callable[[Request], None] | None = None
    #: requests a second beyond which 429 with Retry-After: 1 is answered (0: no cap). Moodle has no
    #: throttle of its own; a proxy in front of it may have one
    rate_cap: int = 0
    _recent: list[float] = field(default_factory=list)
    #: the port to listen on (0: any free one); a later double of the same Moodle takes the earlier's
    port: int = 0
    log: list[Request] = field(default_factory=list)
    #: (user id, grade, workflow state) of every grade saved, in order
    writes: list[tuple[int, float, str]] = field(default_factory=list)
    downloads: list[str] = field(default_factory=list)
    throttled: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None
    _n: int = 0

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> MoodleDouble:
        double = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # (quiet)
                pass

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode("utf-8") if length else ""
                parts = urlsplit(self.path)
                form = {k: v[-1] for k, v in parse_qs(body, keep_blank_values=True).items()}
                form.update({k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()})
                status, data, headers = double.handle(parts.path, form)
                raw = data if isinstance(data, bytes) else json.dumps(data).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/octet-stream" if isinstance(data, bytes)
                                 else "application/json")
                self.send_header("Content-Length", str(len(raw)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(raw)

            do_GET = do_POST = _answer

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    # ------------------------------------------------------------------ the server

    def handle(self, path: str, form: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        if self.latency:
            time.sleep(self.latency)
        with self._lock:
            self._n += 1
            n = self._n
            now = time.monotonic()
            self._recent = [t for t in self._recent if now - t < 1.0]
            throttled = bool(self.rate_cap) and len(self._recent) >= self.rate_cap
            if not throttled:
                self._recent.append(now)
        if throttled:
            self.throttled += 1
            return 429, {"error": "Too Many Requests"}, {"Retry-After": "1"}
        if n in self.fail_requests:
            return 503, {"error": "Service Unavailable"}, {}
        if self.rate_limit_every and n % self.rate_limit_every == 0:
            return 429, {"error": "Too Many Requests"}, {"Retry-After": "0"}
        if path.startswith("/webservice/pluginfile.php/"):
            return self._file(path, form)
        if path != "/webservice/rest/server.php":
            return 404, {"error": "not found"}, {}
        if form.get("moodlewsrestformat") != "json":
            return 200, b"<?xml version=\"1.0\"?><EXCEPTION/>", {}  # (XML, the default: never asked for here)
        function = form.get("wsfunction", "")
        params = nested({k: v for k, v in form.items() if k not in ("wstoken", "wsfunction", "moodlewsrestformat")})
        request = Request(function, params)
        with self._lock:
            self.log.append(request)
        if self.on_request is not None:
            self.on_request(request)
        data = self._call(function, params, form.get("wstoken", ""))
        if isinstance(data, dict) and "exception" in data:
            request.error = str(data["errorcode"])
        return 200, data, {}  # (errors too: HTTP 200 with the exception object)

    def _call(self, function: str, params: dict[str, Any], token: str) -> Any:
        if token != self.token:
            return BAD_TOKEN
        if self.expired:
            return EXPIRED
        if self.functions is not None and function not in self.functions:
            return ACCESS
        handler = getattr(self, "_" + function, None)
        if handler is None:
            return _error("dml_missing_record_exception", "invalidrecord",
                          "Can't find data record in database table external_functions.")
        try:
            with self._lock:
                return handler(params)
        except (KeyError, ValueError, TypeError):
            return INVALID

    def _file(self, path: str, form: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        if form.get("token") != self.token:
            return 200, BAD_TOKEN, {}
        if self.expired:
            return 200, EXPIRED, {}
        found = re.fullmatch(rf"/webservice/pluginfile.php/{CONTEXT}/assignsubmission_file/submission_files/(\d+)/(.+)",
                             path)
        sub = next((s for s in self.submissions.values() if found and s.id == int(found[1])), None)
        name = unquote(found[2]) if found else ""
        if sub is None or name not in sub.files:
            return 404, _error("moodle_exception", "filenotfound", "File not found"), {}
        self.downloads.append(f"{sub.userid}/{name}")
        return 200, sub.files[name], {}

    # ------------------------------------------------------------------ the functions

    def _assignment(self) -> dict[str, Any]:
        return {"id": self.assignment, "cmid": 500 + self.assignment, "course": self.course, "name": self.name,
                "nosubmissions": 0, "submissiondrafts": 1, "duedate": self.duedate, "grade": self.max_grade,
                "markingworkflow": int(self.markingworkflow), "markingallocation": 0, "blindmarking": int(self.blindmarking),
                "revealidentities": 0, "teamsubmission": 0, "maxattempts": -1, "configs": []}

    def _mod_assign_get_assignments(self, params: dict[str, Any]) -> Any:
        return {"courses": [{"id": self.course, "fullname": "GPT-2 course", "shortname": "GPT2", "timemodified": 0,
                             "assignments": [self._assignment()]}], "warnings": []}

    def _core_enrol_get_enrolled_users(self, params: dict[str, Any]) -> Any:
        if int(params["courseid"]) != self.course:
            return _error("moodle_exception", "invalidrecord", "Can't find data record in database table course.")
        options = {o["name"]: o["value"] for o in params.get("options", [])}
        submit = options.get("withcapability") == "mod/assign:submit"
        # (enrol/externallib.php get_enrolled_users: onlyactive leaves out suspended and ended enrolments;
        # without it, get_enrolled_sql lists them with the rest)
        only_active = options.get("onlyactive") not in (None, "", "0")
        return [{"id": u.id, "fullname": u.fullname, "roles": [{"shortname": "student" if u.student else "editingteacher"}]}
                for u in self.users.values() if (u.student or not submit) and (u.active or not only_active)]

    def _only(self, params: dict[str, Any]) -> bool:
        return [int(a) for a in params["assignmentids"]] == [self.assignment]

    def _mod_assign_get_user_mappings(self, params: dict[str, Any]) -> Any:
        if not self._only(params):
            return {"assignments": [], "warnings": []}
        return {"assignments": [{"assignmentid": self.assignment, "mappings": [
            {"id": u.participant, "userid": u.id} for u in self.users.values() if u.participant]}], "warnings": []}

    def _mod_assign_get_grades(self, params: dict[str, Any]) -> Any:
        if not self._only(params):
            return {"assignments": [], "warnings": []}
        rows = [{"id": 900 + uid, "userid": uid, "attemptnumber": self.submissions[uid].attemptnumber,
                 "timecreated": 0, "timemodified": 0, "grader": 2, "grade": f"{grade:.5f}"}
                for uid, grade in sorted(self.grades.items()) if uid in self.submissions]
        if not rows:
            return {"assignments": [], "warnings": [{"item": "assignment", "itemid": self.assignment,
                                                     "warningcode": "3", "message": "No grades found"}]}
        return {"assignments": [{"assignmentid": self.assignment, "grades": rows}], "warnings": []}

    def _mod_assign_get_user_flags(self, params: dict[str, Any]) -> Any:
        if not self._only(params):
            return {"assignments": [], "warnings": []}
        uids = sorted(set(self.workflow) | set(self.extensions))
        return {"assignments": [{"assignmentid": self.assignment, "userflags": [
            {"id": 700 + uid, "userid": uid, "locked": 0, "mailed": 0, "extensionduedate": self.extensions.get(uid, 0),
             "workflowstate": self.workflow.get(uid, "notmarked"), "allocatedmarker": 0} for uid in uids]}],
                "warnings": []}

    def _mod_assign_get_submissions(self, params: dict[str, Any]) -> Any:
        since = int(params.get("since") or 0)
        subs = []
        for s in sorted(self.submissions.values(), key=lambda s: s.id):
            if s.timemodified < since:
                continue
            files = [{"filename": name, "filepath": "/", "filesize": len(data), "timemodified": s.timemodified,
                      "mimetype": "text/plain",
                      "fileurl": f"{self.url}/webservice/pluginfile.php/{CONTEXT}/assignsubmission_file/"
                                 f"submission_files/{s.id}/{quote(name, safe='')}"}
                     for name, data in sorted(s.files.items())]
            subs.append({"id": s.id, "userid": s.userid, "attemptnumber": s.attemptnumber, "timecreated": s.timemodified,
                         "timemodified": s.timemodified, "status": s.status, "groupid": 0,
                         "plugins": [{"type": "file", "name": "File submissions",
                                      "fileareas": [{"area": "submission_files", "files": files}]},
                                     {"type": "comments", "name": "Submission comments"}]})
        return {"assignments": [{"assignmentid": self.assignment, "submissions": subs}], "warnings": []}

    def _mod_assign_save_grades(self, params: dict[str, Any]) -> Any:
        if int(params["assignmentid"]) != self.assignment:
            return _error("dml_missing_record_exception", "invalidrecord",
                          "Can't find data record in database table course_modules.")
        grades = params["grades"]
        for g in grades:  # (every parameter is validated before any grade is saved)
            for required in ("userid", "grade", "attemptnumber", "addattempt", "workflowstate"):
                if required not in g:
                    return INVALID
            float(g["grade"])
        for g in grades:
            uid = int(g["userid"])
            # (save_grades does not ask whether the user id is a student of the course: the double
            # saves any, so a client must send only ids of the students it listed)
            if uid in self.refuse_users:
                return _error("dml_write_exception", "dmlwriteexception", "Error writing to database")
            state = g["workflowstate"]
            if self.markingworkflow and state in STATES:
                self.workflow[uid] = state
            self.grades[uid] = float(g["grade"])
            self.submissions.setdefault(uid, Submission(8000 + uid, uid, 0, {}, status="new"))
            editor = (g.get("plugindata") or {}).get("assignfeedbackcomments_editor")
            if editor:
                self.comments[uid] = editor["text"]
                self.comment_formats[uid] = editor["format"]
            self.writes.append((uid, float(g["grade"]), self.workflow.get(uid, "")))
        return None

    # ------------------------------------------------------------------ what a test reads

    def seen_by_student(self, uid: int) -> tuple[float | None, str | None]:
        """What the student sees: nothing before ``released`` under the marking workflow."""
        if self.markingworkflow and self.workflow.get(uid) != "released":
            return None, None
        return self.grades.get(uid), self.comments.get(uid)

    def saves(self) -> list[Request]:
        """The mod_assign_save_grades requests."""
        return [r for r in self.log if r.function == "mod_assign_save_grades"]
