"""An LTI 1.3 platform for the tests: lti1p3platform (a packaged LTI 1.3 platform implementation)
served over HTTP on 127.0.0.1, with the storage its services leave to the platform written as
Moodle's gradebook services keep it.

What the package does (lti1p3platform 0.1.8): the token endpoint
(``LTI1P3PlatformConfAbstract.get_access_token``: the client-credentials grant, the client
assertion's RS256 signature checked against the tool's JWKS by its ``kid``, the scopes granted, an
access token signed by the platform), the check of every service request's bearer token and scopes
(``service_connector.authenticate`` and ``validate_token``: signature, issuer, expiry), and the
services' request handling (``AssignmentsGradesService.handle_get_lineitems``,
``handle_create_lineitem``, ``handle_get_lineitem``, ``handle_update_score``, ``handle_get_results``;
``NamesRoleProvisioningService.handle_get_members``, whose members default to ``status`` Active).

What the platform does around it, read from Moodle (moodle/moodle):

* The URLs: mod/lti/service/gradebookservices/classes/local/resources/lineitems.php makes a line
  item's id ``…/services.php/{context}/lineitems/{item}/lineitem?type_id={type}``: ``/scores`` and
  ``/results`` go after the path, before the query (scores.php: ``…/lineitem/scores``).
* ``POST`` line items (lineitems.php ``get_json_for_post_request``): 400 "No label or Score
  Maximum" without both; 201 with the new item's id. ``GET`` filters by ``resource_link_id``,
  ``resource_id`` and ``tag``; its ``Link`` header writes ``rel=“next”`` with typographic quotes.
* ``POST …/scores`` (scores.php ``get_json_for_post_request``): 400 "Incorrect score received"
  without ``userId``, ``timestamp``, ``gradingProgress`` or ``activityProgress``, with a score that
  is not a number, or for a user who is not gradable in the course; 409 "Refusing score with an
  earlier timestamp" when the grade held was modified at or after the score's timestamp (whole
  seconds); ``scoreGiven`` kept only when ``gradingProgress`` is FullyGraded, scaled to the item's
  maximum.
* ``GET …/results`` (results.php): the grades that were modified, ``user_id`` to filter, ``limit``.
* The token endpoint (mod/lti/token.php): the assertion's ``sub`` must be the tool's client id;
  a refusal is 400 ``{"error": "invalid_client"}`` (OAuth 2's error answer, RFC 6749 §5.2).

And from the IMS spec (AGS 2.0, Score): a score without a ``comment`` clears the comment held.

Faults a test can ask for: a 503 on chosen request numbers, a 429 with ``Retry-After`` every n-th
request or above a rate, a token that expires after so many uses or once at a chosen request, a
delay before every answer, a hook called with each request (a test may kill a process there).
"""

from __future__ import annotations

import json
import threading
import time
import typing as t
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwcrypto.jwk import JWK
from lti1p3platform.exceptions import LineItemNotFoundException, LtiException
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.membership import Context
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request as LtiRequest
from lti1p3platform.score import UpdateScoreStatus
from lti1p3platform.service_connector import AssignmentsGradesService, NamesRoleProvisioningService, TPage

LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
TEST_USER = "http://purl.imsglobal.org/vocab/lti/system/person#TestUser"
CONTEXT = "2"
TYPE_ID = "1"


def rsa_pem() -> tuple[str, str]:
    """A fresh RSA key pair: (private PEM, public PEM)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    return private, public


def jwks(public_pem: str, kid: str) -> dict[str, Any]:
    """The tool's JWKS as an administrator pastes it into the platform."""
    key = json.loads(JWK.from_pem(public_pem.encode()).export_public())
    return {"keys": [{**key, "kid": kid, "alg": "RS256", "use": "sig"}]}


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    body: Any
    status: int = 0


class _Conf(LTI1P3PlatformConfAbstract):
    """The platform's registration of the tool: issuer, client id, its own keys, the tool's JWKS."""

    double: LtiPlatform

    def init_platform_config(self, **kwargs: Any) -> None:
        self.double = kwargs["double"]
        d = self.double
        self._registration = (Registration().set_iss(d.issuer).set_client_id(d.client_id)
                              .set_deployment_id("1").set_platform_public_key(d.platform_public)
                              .set_platform_private_key(d.platform_private).set_tool_key_set(d.tool_jwks))

    def get_registration_by_params(self, **kwargs: Any) -> Registration:
        assert self._registration is not None
        return self._registration

    def validate_token(self, token: str, allowed_scopes: t.Optional[t.List[str]] = None,
                       audience: t.Optional[str] = None) -> bool:
        ok = super().validate_token(token, allowed_scopes, audience)
        d = self.double
        d.token_uses[token] = d.token_uses.get(token, 0) + 1
        if d.token_life_uses and d.token_uses[token] > d.token_life_uses:
            raise LtiException("Token expired")
        if d.expire_at and len(d.log) >= d.expire_at and not d.expired_token:
            d.expired_token = token  # the token in use at request expire_at, and no other, expires
            d.expirations += 1
        if token == d.expired_token:
            raise LtiException("Token expired")
        return ok


class _HttpRequest(LtiRequest):
    def build_metadata(self, request: Any) -> Any:
        return request


class _Ags(AssignmentsGradesService):
    """The storage of lti1p3platform's AGS service, as Moodle's gradebook services keep it."""

    double: LtiPlatform

    def find_lineitems(self, page: int = 1, limit: t.Optional[int] = None, line_item_id: t.Optional[str] = None,
                       resource_link_id: t.Optional[str] = None, resource_id: t.Optional[str] = None,
                       tag: t.Optional[str] = None, **_: Any) -> TPage:
        items = [i for i in self.double.lineitems.values()
                 if (resource_link_id is None or i.get("resourceLinkId") == resource_link_id)
                 and (resource_id is None or i.get("resourceId") == resource_id)
                 and (tag is None or i.get("tag") == tag)]
        return _page(items, page, limit)

    def find_lineitem(self, line_item_id: str) -> Any:
        item = self.double.lineitems.get(line_item_id)
        if item is None:
            raise LineItemNotFoundException()
        return item

    def create_lineitem(self, creation_data: Any) -> Any:
        d = self.double
        n = str(len(d.lineitems) + 1)
        item = {**creation_data, "id": d.lineitem_url(n)}
        d.lineitems[n] = item
        d.results[n] = {}
        return item

    def update_lineitem(self, update_data: Any) -> Any:
        raise NotImplementedError

    def delete_lineitem(self, line_item_id: str) -> None:
        raise NotImplementedError

    def update_score(self, line_item_id: str, score: Any) -> UpdateScoreStatus:
        d = self.double
        item = self.find_lineitem(line_item_id)
        if not isinstance(score, dict) or any(k not in score for k in ("userId", "timestamp", "gradingProgress",
                                                                      "activityProgress")):
            raise _Refused(400, "Incorrect score received")
        given, top = score.get("scoreGiven"), score.get("scoreMaximum", 1)
        if (given is not None and not isinstance(given, (int, float))) or not isinstance(top, (int, float)):
            raise _Refused(400, "Incorrect score received")
        uid = str(score["userId"])
        if not d.gradable(uid):
            raise _Refused(400, "Incorrect score received")
        try:
            stamp = int(datetime.fromisoformat(str(score["timestamp"]).replace("Z", "+00:00")).timestamp())
        except ValueError:
            raise _Refused(400, "Incorrect score received") from None
        held = d.results[line_item_id].get(uid)
        if held is not None and held["modified"] >= stamp:
            raise _Refused(409, f"Refusing score with an earlier timestamp for item {line_item_id} and user {uid}")
        if score["gradingProgress"] != "FullyGraded":
            given = None
        value = None if given is None else given * float(item["scoreMaximum"]) / float(top)
        d.results[line_item_id][uid] = {"score": value, "comment": score.get("comment") or None, "modified": stamp}
        d.writes.append((uid, value))
        d.scores_posted.append(score)
        return UpdateScoreStatus.SUCCESS

    def get_results(self, line_item_id: str, page: int = 1, limit: t.Optional[int] = None,
                    user_id: t.Optional[str] = None, **_: Any) -> TPage:
        item = self.find_lineitem(line_item_id)
        held = self.double.results[line_item_id]
        rows = [{"id": f"{item['id']}#{u}", "scoreOf": item["id"], "userId": u, "resultScore": r["score"],
                 "resultMaximum": item["scoreMaximum"], "comment": r["comment"]}
                for u, r in sorted(held.items()) if user_id is None or u == user_id]
        return _page(rows, page, limit)


class _Nrps(NamesRoleProvisioningService):
    double: LtiPlatform

    def get_member_data_page(self, page: int = 1, limit: t.Optional[int] = None, role: t.Optional[str] = None,
                             since: t.Optional[str] = None, **_: Any) -> TPage:
        members = [dict(m) for m in self.double.members]
        return _page(members, page, limit)

    def get_context_by_id(self) -> Context:
        return Context(id=CONTEXT, label="GPT-2", title="GPT-2 chapter 7")


class _Refused(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason


def _page(items: list[Any], page: int, limit: t.Optional[int]) -> TPage:
    if not limit:
        return {"content": items, "has_next": False, "next": None}
    start = (page - 1) * limit
    return {"content": items[start:start + limit], "has_next": start + limit < len(items), "next": None}


@dataclass
class LtiPlatform:
    """One course (context) of an LTI 1.3 platform with the grader registered as a tool.

    ``members`` is the roster as NRPS lists it (``user_id``, ``roles``, ``status``)."""

    tool_public: str
    kid: str
    members: list[dict[str, Any]]
    client_id: str = "grader-tool-1"
    issuer: str = "https://lms.example.edu"
    #: request numbers (1, 2, …) answered 503 instead
    fail_requests: set[int] = field(default_factory=set)
    #: every n-th request is answered 429 with Retry-After: 0 (0: never)
    rate_limit_every: int = 0
    #: requests a second above which the platform answers 429 (0: no cap)
    rate_cap: int = 0
    latency: float = 0.0
    #: a token is refused (expired) after this many service requests (0: it lasts its hour)
    token_life_uses: int = 0
    #: the token in use at this request number (1, 2, …) expires then, once (0: never)
    expire_at: int = 0
    expired_token: str = ""
    #: how many times a token was expired so
    expirations: int = 0
    #: results and members pages: at most this many a page (0: one page)
    page_size: int = 0
    on_request: Callable[[Request], None] | None = None
    lineitems: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: line item number -> user id -> {"score", "comment", "modified"}
    results: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    log: list[Request] = field(default_factory=list)
    writes: list[tuple[str, float | None]] = field(default_factory=list)
    scores_posted: list[dict[str, Any]] = field(default_factory=list)
    tokens_issued: list[str] = field(default_factory=list)
    token_uses: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None
    _recent: list[float] = field(default_factory=list)
    platform_private: str = ""
    platform_public: str = ""
    tool_jwks: dict[str, Any] = field(default_factory=dict)

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def token_url(self) -> str:
        return f"{self.url}/mod/lti/token.php"

    @property
    def lineitems_url(self) -> str:
        return f"{self.url}/mod/lti/services.php/{CONTEXT}/lineitems?type_id={TYPE_ID}"

    @property
    def memberships_url(self) -> str:
        return f"{self.url}/mod/lti/services.php/CourseSection/{CONTEXT}/bindings/{TYPE_ID}/memberships"

    def lineitem_url(self, n: str) -> str:
        return f"{self.url}/mod/lti/services.php/{CONTEXT}/lineitems/{n}/lineitem?type_id={TYPE_ID}"

    def start(self) -> LtiPlatform:
        self.platform_private, self.platform_public = rsa_pem()
        self.tool_jwks = jwks(self.tool_public, self.kid)
        self._conf = _Conf(double=self)
        double = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length).decode("utf-8") if length else ""
                status, data, headers = double.handle(self.command, self.path, raw, dict(self.headers))
                body = b"" if data is None else json.dumps(data).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", headers.pop("Content-Type", "application/json"))
                self.send_header("Content-Length", str(len(body)))
                for k, v in headers.items():  # (as PHP sends them: UTF-8 bytes)
                    self.send_header(k, v.encode("utf-8").decode("latin-1"))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PUT = do_DELETE = _answer

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    # ------------------------------------------------------------------ what the tests set and read

    def gradable(self, uid: str) -> bool:
        """A user Moodle lets a score be given to: an active learner of the course."""
        for m in self.members:
            if str(m["user_id"]) == uid:
                return m.get("status", "Active") == "Active" and LEARNER in m.get("roles", [])
        return False

    def held(self, n: str = "1") -> dict[str, float | None]:
        """Every user's score on line item ``n``, rounded to 2 decimals."""
        return {u: None if r["score"] is None else round(r["score"], 2) for u, r in self.results.get(n, {}).items()}

    def comments(self, n: str = "1") -> dict[str, str | None]:
        return {u: r["comment"] for u, r in self.results.get(n, {}).items()}

    def edit(self, uid: str, score: float, n: str = "1") -> None:
        """An instructor changes a grade in the platform's gradebook (modified now)."""
        self.results[n][uid] = {**self.results[n].get(uid, {"comment": None}), "score": score,
                                "modified": int(time.time())}

    def write_requests(self) -> list[Request]:
        return [r for r in self.log if r.method != "GET" and not r.path.endswith("/token.php")]

    # ------------------------------------------------------------------ the platform's HTTP

    def handle(self, method: str, target: str, raw: str, headers: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        if self.latency:
            time.sleep(self.latency)
        parts = urlsplit(target)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        form = {k: v[-1] for k, v in parse_qs(raw).items()} if "form-urlencoded" in headers.get("Content-Type", "") \
            else {}
        try:
            body = json.loads(raw) if raw and not form else (form or None)
        except ValueError:
            body = raw
        request = Request(method, parts.path, query, body)
        with self._lock:
            self.log.append(request)
            n = len(self.log)
            now = time.monotonic()
            self._recent = [x for x in self._recent if now - x < 1.0]
            throttled = bool(self.rate_cap) and len(self._recent) >= self.rate_cap
            if not throttled:
                self._recent.append(now)
        if self.on_request is not None:
            self.on_request(request)
        if throttled or (self.rate_limit_every and n % self.rate_limit_every == 0):
            request.status = 429
            return 429, {"error": "Too Many Requests"}, {"Retry-After": "0"}
        if n in self.fail_requests:
            request.status = 503
            return 503, {"error": "Service Unavailable"}, {}
        with self._lock:
            status, data, extra = self._route(method, parts.path, query, body, headers)
        request.status = status
        return status, data, extra

    def _route(self, method: str, path: str, query: dict[str, str], body: Any,
               headers: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        if path == "/mod/lti/token.php" and method == "POST":
            return self._token(body if isinstance(body, dict) else {})
        base = f"/mod/lti/services.php/{CONTEXT}/lineitems"
        request = _HttpRequest({"method": method, "form_data": {}, "get_data": _ints(query), "headers": headers,
                                "content_type": headers.get("Content-Type"), "path": path, "json": body})
        if path == f"/mod/lti/services.php/CourseSection/{CONTEXT}/bindings/{TYPE_ID}/memberships":
            nrps = _Nrps(request, self._conf, self.memberships_url)
            nrps.double = self
            if self.page_size and "limit" not in query:
                request.request["get_data"]["limit"] = self.page_size
            return self._serve(lambda: nrps.handle_get_members(), members=True)
        ags = _Ags(request, self._conf, f"{self.url}{base}", None)
        ags.double = self
        if path == base:
            if method == "POST":
                if not isinstance(body, dict) or "label" not in body or "scoreMaximum" not in body:
                    return 400, {"reason": "No label or Score Maximum"}, {}
                return self._serve(lambda: ags.handle_create_lineitem())
            return self._serve(lambda: ags.handle_get_lineitems(), next_base=self.lineitems_url, request=request)
        parts = path[len(base) + 1:].split("/") if path.startswith(base + "/") else []
        if len(parts) >= 2 and parts[1] == "lineitem":
            n = parts[0]
            ags.ags.lineitem_url = self.lineitem_url(n)
            if len(parts) == 2 and method == "GET":
                return self._serve(lambda: ags.handle_get_lineitem(n))
            if parts[2:] == ["scores"] and method == "POST":
                return self._serve(lambda: ags.handle_update_score(n))
            if parts[2:] == ["results"] and method == "GET":
                if self.page_size and "limit" not in query:
                    request.request["get_data"]["limit"] = self.page_size
                return self._serve(lambda: ags.handle_get_results(n),
                                   next_base=f"{self.url}{base}/{n}/lineitem/results?type_id={TYPE_ID}",
                                   request=request)
        return 404, {"reason": "Not Found"}, {}

    def _serve(self, call: Callable[[], Any], *, members: bool = False, next_base: str = "",
               request: _HttpRequest | None = None) -> tuple[int, Any, dict[str, str]]:
        """lti1p3platform's Response as HTTP: a page's items as the JSON array (the members in their
        container) and its next page in a Link header, with Moodle's typographic quotes."""
        try:
            response = call()
        except _Refused as exc:
            return exc.status, {"reason": exc.reason}, {}
        except (LtiException, jwt.PyJWTError) as exc:  # an expired or forged token: the service's 401
            return 401, {"reason": f"Invalid LTI 1.3 authentication token ({type(exc).__name__})"}, {}
        if response.code >= 400:
            return response.code, {"reason": response.message}, {}
        result = response.result
        headers = {"Content-Type": response.media_type}
        if isinstance(result, dict) and "content" in result:
            if result.get("has_next") and next_base and request is not None:
                # (the package has already put the next page's number into the request's query)
                headers["Link"] = f"<{next_base}&{urlencode(request.get_data)}>; rel=“next”"
            result = result["content"]
        if members and isinstance(result, dict) and result.get("next"):
            headers["Link"] = f'<{result.pop("next")}>; rel="next"'
        return response.code, result, headers

    def _token(self, form: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        try:
            claims = jwt.decode(form.get("client_assertion", ""), options={"verify_signature": False})
        except jwt.PyJWTError:
            return 400, {"error": "invalid_request"}, {}
        if claims.get("sub") != self.client_id or claims.get("iss") != self.client_id:
            return 400, {"error": "invalid_client"}, {}
        try:
            answer = self._conf.get_access_token(form)
        except Exception as exc:  # the package's refusals: a missing claim, a grant, a signature, a key
            return 400, {"error": "invalid_client", "error_description": type(exc).__name__}, {}
        self.tokens_issued.append(answer["access_token"])
        # (the package's tokens hold no jti: one asked for within the same second is the same string, and
        # its uses count from this issue on)
        self.token_uses[answer["access_token"]] = 0
        if answer["access_token"] == self.expired_token:  # (issued anew: a new token to the platform)
            self.expired_token = ""
            self.expire_at = 0
        return 200, dict(answer), {}


def _ints(query: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in query.items():
        if k == "type_id":
            continue
        out[k] = int(v) if k in ("page", "limit") and v.isdigit() else v
    return out


def platform_file(folder: Path, lti: LtiPlatform, private_pem: str, **fields: str) -> Path:
    """A platform file for ``lti`` (the key beside it, mode 600), as docs/lms-lti13.md shows."""
    key = folder / "tool-key.pem"
    key.write_text(private_pem, encoding="utf-8")
    key.chmod(0o600)
    data = {"issuer": lti.issuer, "client_id": lti.client_id, "token_url": lti.token_url,
            "private_key": key.name, "key_id": lti.kid, "lineitems": lti.lineitems_url,
            "resource_link_id": "rl-ch7", "label": "Chapter 7: attention scaling",
            "memberships": lti.memberships_url, **fields}
    path = folder / "platform.yaml"
    path.write_text("".join(f"{k}: {json.dumps(v)}\n" for k, v in data.items() if v != ""), encoding="utf-8")
    return path
