"""LTI 1.3 Assignment and Grade Services: the scores of one line item, with the roster from Names and Role Provisioning.

The grader is an LTI tool registered in the platform (docs/lms-lti13.md). A push reads the
platform file (:func:`read_platform_file`), asks the platform's token endpoint for an access token
with a client-credentials grant whose client is authenticated by a JWT the tool signs with its own
private key (RFC 7523, RS256: the IMS Security Framework's "Using JSON Web Tokens with OAuth 2.0
Client Credentials Grants"), and speaks the services of the IMS specs:

* Assignment and Grade Services 2.0 (https://www.imsglobal.org/spec/lti-ags/v2p0/): the line item
  (``GET`` the context's line items filtered by ``resource_link_id``, ``resource_id`` and ``tag``,
  every page by ``Link: <…>; rel="next"``; created once by ``POST`` where none is found), its
  results (``{lineitem}/results``: ``userId``, ``resultScore``, ``resultMaximum``, ``comment``)
  and its scores (``POST {lineitem}/scores``: ``userId``, ``scoreGiven``, ``scoreMaximum``,
  ``comment``, ``timestamp``, ``activityProgress`` Completed, ``gradingProgress`` FullyGraded).
  ``/scores`` and ``/results`` are appended to the line item URL's path, before its query (Moodle's
  line items carry ``?type_id=N``: mod/lti/service/gradebookservices/classes/local/resources/lineitems.php).
* Names and Role Provisioning Services 2.0 (https://www.imsglobal.org/spec/lti-nrps/v2p0): the
  context's members, each with ``user_id``, ``roles`` and ``status``; only an active ``Learner`` who
  is not the platform's test user (the LTI role ``…/system/person#TestUser``) is written to.

Every score carries its comment: a score without one clears the comment the platform held (AGS
2.0, Score: ``comment``). A score is the platform's to scale to its line item's maximum; the
results are read back onto the batch's scale. No score says when the student submitted (no
``submission`` object, and Canvas's ``new_submission`` extension set to false), so the push makes
no one late in the platform.

The access token lasts ``expires_in`` seconds; it is renewed before it runs out and when the
platform answers 401. The tokens and the signed assertions are sent to the platform's own hosts
only, in the ``Authorization`` header or the token request's body, and every text this module
hands back has them replaced by ``***``. Before the results are public, nothing is written
(:meth:`Lti13Platform.check`): an LTI platform has no standard way to hold a score back from
students.
"""

from __future__ import annotations

import json
import os
import re
import stat
import time
import uuid
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

from grader.errors import UsageError
from grader.i18n.messages import said
from grader.lms.platform import Cell, Current, Outcome, PlatformRefused
from grader.lms.transport import ATTEMPTS, BACKOFF, MAX_WAIT, TIMEOUT, Answer, Failed

__all__ = ["ASSERTION_TYPE", "FIELDS", "SCOPES", "Lti13Platform", "LtiHttp", "PlatformFile", "TokenSource",
           "lti_error", "member_refusal", "open_platform", "read_platform_file", "with_path"]

AGS = "https://purl.imsglobal.org/spec/lti-ags/scope/"
NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
#: the scopes asked for (NRPS's too where the platform file names the memberships URL)
SCOPES = (AGS + "lineitem", AGS + "lineitem.readonly", AGS + "result.readonly", AGS + "score")
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
TEST_USER = "http://purl.imsglobal.org/vocab/lti/system/person#TestUser"
MEDIA = {
    "lineitem": "application/vnd.ims.lis.v2.lineitem+json",
    "lineitems": "application/vnd.ims.lis.v2.lineitemcontainer+json",
    "results": "application/vnd.ims.lis.v2.resultcontainer+json",
    "score": "application/vnd.ims.lis.v1.score+json",
    "members": "application/vnd.ims.lti-nrps.v2.membershipcontainer+json",
}
#: a token is renewed this many seconds before the platform says it expires
MARGIN = 30.0
#: pages read at most from one paginated list
PAGES = 10_000

#: the platform file's keys: required ones first
FIELDS = {
    "issuer": "the platform's issuer (iss), e.g. https://canvas.instructure.com",
    "client_id": "the tool's client id in the platform",
    "token_url": "the platform's OAuth 2 token endpoint",
    "private_key": "the tool's private key file (PEM, mode 600), relative to this file",
    "key_id": "the key id (kid) of that key in the tool's JWKS",
    "lineitem": "the line item's URL (or lineitems and one of resource_link_id, resource_id, tag)",
    "lineitems": "the context's line items URL, where the line item is found or created",
    "resource_link_id": "the resource link the line item belongs to",
    "resource_id": "the tool's own id of the line item",
    "tag": "the line item's tag",
    "label": "the line item's label where it is created",
    "memberships": "the context's memberships URL (Names and Role Provisioning), for the roster",
    "deployment_id": "the deployment id (kept for the record)",
    "audience": "the aud of the signed assertion (default: token_url)",
}
REQUIRED = ("issuer", "client_id", "token_url", "private_key", "key_id")

#: a Link header's next page: rel=next, rel="next" or Moodle's rel=“next” (typographic quotes, which
#: may arrive as their UTF-8 bytes read as Latin-1)
_LINK = re.compile(r'<([^>]+)>\s*;\s*rel\s*=\s*[^;,<]*?\bnext\b')


@dataclass(frozen=True)
class PlatformFile:
    """What ``--platform FILE`` says (see :data:`FIELDS`); ``key`` is the private key's PEM text."""

    path: Path
    issuer: str
    client_id: str
    token_url: str
    key: str
    key_id: str
    lineitem: str = ""
    lineitems: str = ""
    resource_link_id: str = ""
    resource_id: str = ""
    tag: str = ""
    label: str = ""
    memberships: str = ""
    deployment_id: str = ""
    audience: str = ""

    def hosts(self) -> set[str]:
        """The hosts the token may be sent to: those of the file's own URLs."""
        return {_origin(u) for u in (self.token_url, self.lineitem, self.lineitems, self.memberships) if u}

    def search(self) -> dict[str, str]:
        """The line item's filters (``resource_link_id``, ``resource_id``, ``tag``) that are given."""
        return {k: v for k, v in (("resource_link_id", self.resource_link_id), ("resource_id", self.resource_id),
                                  ("tag", self.tag)) if v}


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def _safe_url(url: str) -> bool:
    parts = urlsplit(url)
    loopback = parts.hostname in ("127.0.0.1", "localhost", "::1")
    return bool(parts.hostname) and (parts.scheme == "https" or (parts.scheme == "http" and loopback))


def read_platform_file(path: Path) -> PlatformFile:
    """``--platform FILE`` (YAML or JSON), with its private key read (refused unless mode 600).

    Raises:
        UsageError: unreadable, not a mapping, an unknown or missing key, a URL that is not
            https, no line item named, a key file others may read; each names the file and the fix.
    """
    from grader import safeyaml

    try:
        data = safeyaml.load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(said("lti_file_unreadable", path=path, why=type(exc).__name__)) from None
    except Exception as exc:  # (YAML's own errors: the file's text is not said back)
        raise UsageError(said("lti_file_unreadable", path=path, why=type(exc).__name__)) from None
    if not isinstance(data, dict):
        raise UsageError(said("lti_file_not_mapping", path=path))
    unknown = sorted(str(k) for k in data if k not in FIELDS)
    if unknown:
        raise UsageError(said("lti_file_unknown_keys", path=path, keys=", ".join(unknown)[:200],
                              known=", ".join(FIELDS)))
    values = {k: str(v).strip() for k, v in data.items() if v is not None}
    missing = [k for k in REQUIRED if not values.get(k)]
    if missing:
        raise UsageError(said("lti_file_missing", path=path, keys=", ".join(missing)))
    if not values.get("lineitem") and not (values.get("lineitems") and
                                           any(values.get(k) for k in ("resource_link_id", "resource_id", "tag"))):
        raise UsageError(said("lti_file_no_lineitem", path=path))
    for name in ("token_url", "lineitem", "lineitems", "memberships"):
        if values.get(name) and not _safe_url(values[name]):
            raise UsageError(said("lti_file_url_not_https", path=path, key=name, url=values[name]))
    key_path = (path.parent / values["private_key"]) if not Path(values["private_key"]).is_absolute() \
        else Path(values["private_key"])
    try:
        mode = stat.S_IMODE(os.stat(key_path).st_mode)
        if mode & 0o077:
            raise UsageError(said("lti_key_file_mode", path=key_path, mode=f"{mode:04o}"))
        key = key_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(said("lti_key_unreadable", path=key_path, why=type(exc).__name__)) from None
    if "PRIVATE KEY-----" not in key:
        raise UsageError(said("lti_key_not_pem", path=key_path))
    values.pop("private_key")
    return PlatformFile(path=path, key=key, **values)


def with_path(url: str, suffix: str, query: Mapping[str, str] | None = None) -> str:
    """``url`` with ``suffix`` appended to its path and ``query`` added to its own query."""
    parts = urlsplit(url)
    extra = urlencode(dict(query or {}))
    q = "&".join(x for x in (parts.query, extra) if x)
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/") + suffix if suffix else parts.path, q, ""))


def lti_error(answer: Answer) -> str:
    """What the platform said in an error answer (OAuth's ``error``/``error_description``,
    ``reason``, ``message``, ``errors``), with its status; at most 300 characters."""
    data = answer.data
    words: list[str] = []
    if isinstance(data, dict):
        for key in ("error", "error_description", "reason", "message"):
            if isinstance(data.get(key), str):
                words.append(data[key])
        errors = data.get("errors")
        if isinstance(errors, list):
            words += [str(e.get("message", e)) if isinstance(e, dict) else str(e) for e in errors]
    elif isinstance(data, str) and data.strip():
        words.append(data.strip())
    return f"HTTP {answer.status}" + (f": {'; '.join(words)[:300]}" if words else "")


class TokenSource:
    """The access token: asked for with a signed client assertion, renewed before it expires.

    ``post`` sends the token request (the :class:`LtiHttp`'s unauthenticated POST); every token
    and assertion made is remembered for :meth:`LtiHttp.scrub`."""

    def __init__(self, config: PlatformFile, scopes: tuple[str, ...], *,
                 clock: Callable[[], float] = time.time) -> None:
        try:
            import jwt  # noqa: F401 - (the optional extra: PyJWT, with cryptography for RS256)
            from cryptography.hazmat.primitives import serialization  # noqa: F401
        except ImportError:
            raise UsageError(said("lti_needs_lms_extra")) from None
        self.config = config
        self.scopes = scopes
        self._clock = clock
        self._token = ""
        self._until = 0.0
        #: every secret made or received (scrubbed from every text handed back)
        self.secrets: list[str] = []
        #: how many tokens were asked for
        self.asked = 0

    def assertion(self) -> str:
        """The signed JWT that authenticates the tool (RFC 7523 §3): iss = sub = the client id,
        aud = the token endpoint (or ``audience``), a 5-minute life and a fresh ``jti``."""
        import jwt

        now = int(time.time())  # (the platform checks these against its own clock)
        claims = {"iss": self.config.client_id, "sub": self.config.client_id,
                  "aud": self.config.audience or self.config.token_url,
                  "iat": now, "exp": now + 300, "jti": uuid.uuid4().hex}
        try:
            signed = jwt.encode(claims, self.config.key, algorithm="RS256", headers={"kid": self.config.key_id})
        except Exception as exc:  # a key PyJWT cannot sign with: its words name no secret
            raise UsageError(said("lti_key_unusable", path=self.config.path, why=type(exc).__name__)) from None
        self.secrets.append(signed)
        return signed

    def form(self) -> dict[str, str]:
        return {"grant_type": "client_credentials", "client_assertion_type": ASSERTION_TYPE,
                "client_assertion": self.assertion(), "scope": " ".join(self.scopes)}

    def current(self) -> str:
        """The token, or "" when there is none or it is about to expire."""
        return self._token if self._token and self._clock() < self._until else ""

    def take(self, answer: Answer) -> str:
        """Keep the token of the token endpoint's answer.

        Raises:
            PlatformRefused: the endpoint refused (its words, scrubbed) or answered no token.
        """
        data = answer.data if isinstance(answer.data, dict) else {}
        token = data.get("access_token")
        if not answer.ok or not isinstance(token, str) or not token:
            raise PlatformRefused(said("lti_token_refused", url=self.config.token_url,
                                       why=self.scrub(lti_error(answer))))
        self.asked += 1
        self.secrets.append(token)
        try:
            life = float(data.get("expires_in") or 3600)
        except (TypeError, ValueError):
            life = 3600.0
        self._token = token
        self._until = self._clock() + max(life - MARGIN, min(life, 1.0))
        return token

    def drop(self) -> None:
        """Forget the token (the platform answered 401 with it)."""
        self._token, self._until = "", 0.0

    def scrub(self, text: str) -> str:
        for secret in self.secrets:
            if secret:
                text = text.replace(secret, "***")
        return text


class LtiHttp:
    """The platform's HTTP, on httpx: absolute URLs of the platform's own hosts, a bearer token
    from the :class:`TokenSource` (renewed once on a 401), JSON bodies, and the retries of
    :mod:`grader.lms.transport` (5xx, 429 after ``Retry-After``, time-outs)."""

    def __init__(self, tokens: TokenSource, *, sleep: Callable[[float], None] = time.sleep,
                 attempts: int = ATTEMPTS, backoff: float = BACKOFF, timeout: float = TIMEOUT) -> None:
        try:
            import httpx
        except ImportError:
            raise UsageError(said("push_needs_lms_extra")) from None
        self.tokens = tokens
        self._hosts = tokens.config.hosts()
        self._sleep = sleep
        self._attempts = max(1, attempts)
        self._backoff = backoff
        self._httpx = httpx
        self._client = httpx.Client(timeout=timeout, follow_redirects=False)
        #: every request sent, attempts included: (method, url)
        self.sent: list[tuple[str, str]] = []

    def close(self) -> None:
        self._client.close()

    def scrub(self, text: str) -> str:
        return self.tokens.scrub(text)

    def ours(self, url: str) -> bool:
        """Whether ``url`` is on one of the platform file's hosts (the token goes nowhere else)."""
        return _safe_url(url) and _origin(url) in self._hosts

    def token(self) -> str:
        """The access token, asked for where there is none (or it is about to expire)."""
        token = self.tokens.current()
        if token:
            return token
        answer = self.send("POST", self.tokens.config.token_url, form=self.tokens.form(), auth=False)
        return self.tokens.take(answer)

    def send(self, method: str, url: str, *, accept: str = "application/json", body: Any = None,
             content_type: str = "", form: Mapping[str, str] | None = None, auth: bool = True,
             attempts: int | None = None) -> Answer:
        """One request, again after a transient failure, with a new token after a 401.

        Raises:
            Failed: no answer after every attempt (the reason scrubbed).
            PlatformRefused: the token endpoint refused to give a token.
        """
        if not self.ours(url):
            raise Failed(said("lti_foreign_url", url=url[:200]))
        renewed = False
        why = ""
        n = self._attempts if attempts is None else max(1, attempts)
        attempt = 0
        while attempt < n:
            headers = {"Accept": accept}
            if auth:
                headers["Authorization"] = f"Bearer {self.token()}"
            content: bytes | None = None
            if body is not None:
                headers["Content-Type"] = content_type or "application/json"
                content = json.dumps(body).encode("utf-8")
            self.sent.append((method, url))
            try:
                response = self._client.request(method, url, headers=headers, content=content,
                                                data=dict(form) if form is not None else None)
            except self._httpx.TransportError as exc:
                why = self.scrub(f"{type(exc).__name__}: {exc}")
                self._sleep(self._wait(attempt, None))
                attempt += 1
                continue
            try:
                data = response.json()
            except ValueError:
                data = response.text[:500] or None
            answer = Answer(response.status_code, data, dict(response.headers))
            if answer.status == 401 and auth and not renewed:
                self.tokens.drop()  # expired or revoked: one new token, and the same request again
                renewed = True
                continue
            transient = answer.status == 429 or answer.status >= 500
            if not transient or attempt == n - 1:
                return answer
            self._sleep(self._wait(attempt, response.headers.get("Retry-After")))
            attempt += 1
        raise Failed(said("push_no_answer", method=method, url=url[:200], n=n, why=why))

    def _wait(self, attempt: int, asked: str | None) -> float:
        try:
            if asked is not None:
                return min(max(0.0, float(asked)), MAX_WAIT * 4)
        except ValueError:
            pass
        return float(min(self._backoff * 2.0 ** attempt, MAX_WAIT))

    def pages(self, url: str, accept: str) -> list[Any]:
        """Every item of a paginated list (``Link: <…>; rel="next"``, on the platform's hosts only).

        Raises:
            PlatformRefused: unreachable, or a page refused (with the platform's words).
        """
        items: list[Any] = []
        next_url: str | None = url
        seen: set[str] = set()
        while next_url and next_url not in seen and len(seen) < PAGES:
            seen.add(next_url)
            try:
                answer = self.send("GET", next_url, accept=accept)
            except Failed as exc:
                raise PlatformRefused(said("lti_unreachable", url=next_url[:200], why=str(exc))) from None
            if not answer.ok:
                raise PlatformRefused(said("lti_read_failed", url=next_url[:200], why=self.scrub(lti_error(answer))))
            data = answer.data
            if isinstance(data, dict) and isinstance(data.get("members"), list):
                data = data["members"]
            items += data if isinstance(data, list) else []
            link = _LINK.search(answer.headers.get("link", "") or answer.headers.get("Link", ""))
            next_url = link[1] if link and self.ours(link[1]) else None
        return items


def _number(value: Any) -> float | None:
    try:
        return None if value is None or isinstance(value, bool) else float(value)
    except (TypeError, ValueError):
        return None


def _roles(member: Mapping[str, Any]) -> list[str]:
    roles = member.get("roles")
    return [str(r) for r in roles] if isinstance(roles, list) else []


def member_refusal(member: Mapping[str, Any]) -> str:
    """Why a member of the context is not written to ("" for an active learner)."""
    roles = _roles(member)
    status = str(member.get("status") or "Active")
    if any(r == TEST_USER or r.endswith("#TestUser") for r in roles):
        return said("lti_member_test_user")
    if status != "Active":
        return said("lti_member_inactive", status=status[:40])
    if not any(r in (LEARNER, "Learner") or r.endswith("membership#Learner") for r in roles):
        short = ", ".join(r.rsplit("#", 1)[-1].rsplit("/", 1)[-1] for r in roles)[:120] or "-"
        return said("lti_member_not_learner", roles=short)
    return ""


class Lti13Platform:
    """One line item of an LTI 1.3 platform, as ``grader push`` writes into it.

    ``maximum`` is the batch's maximum score (the line item's ``scoreMaximum`` where it is
    created, and every score's); ``expected`` the LMS ids the push is given, the roster where the
    platform file names no memberships URL."""

    name = "lti13"

    def __init__(self, config: PlatformFile, http: LtiHttp, *, maximum: float, expected: Collection[str] = (),
                 clock: Callable[[], datetime] = lambda: datetime.now(timezone.utc),
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.config = config
        self._sleep = sleep
        self._http = http
        self.maximum = maximum if maximum > 0 else 1.0
        self._expected = [str(k) for k in expected]
        self._clock = clock
        self._lineitem: dict[str, Any] | None = None
        #: the line item's URL once found or created
        self.lineitem_url = config.lineitem

    def target(self) -> dict[str, str]:
        c = self.config
        where = c.lineitem or ";".join(f"{k}={v}" for k, v in c.search().items())
        return {"platform": self.name, "url": c.issuer, "course": c.lineitems or c.client_id, "assignment": where}

    def check(self, *, public: bool) -> None:
        if not public:
            raise PlatformRefused(said("lti_not_public"))

    # ------------------------------------------------------------------ the line item

    def find(self) -> dict[str, Any] | None:
        """The line item: the one the platform file names, else the one of the context's line items
        matching every filter given; None when there is none yet.

        Raises:
            PlatformRefused: unreadable, or more than one line item matches (naming them).
        """
        if self._lineitem is not None:
            return self._lineitem
        c = self.config
        if c.lineitem:
            try:
                answer = self._http.send("GET", c.lineitem, accept=MEDIA["lineitem"])
            except Failed as exc:
                raise PlatformRefused(said("lti_unreachable", url=c.lineitem, why=str(exc))) from None
            if not answer.ok or not isinstance(answer.data, dict):
                raise PlatformRefused(said("lti_read_failed", url=c.lineitem, why=self._http.scrub(lti_error(answer))))
            self._lineitem = {**answer.data, "id": c.lineitem}
            return self._lineitem
        wanted = c.search()
        found = [item for item in self._http.pages(with_path(c.lineitems, "", wanted), MEDIA["lineitems"])
                 if isinstance(item, dict) and isinstance(item.get("id"), str)
                 and all(str(item.get(_camel(k), "")) == v for k, v in wanted.items())]
        if len(found) > 1:
            raise PlatformRefused(said("lti_lineitems_many", n=len(found), ids=", ".join(str(i["id"]) for i in found)[:400],
                                       path=c.path))
        if found:
            if not self._http.ours(found[0]["id"]):
                raise PlatformRefused(said("lti_foreign_url", url=str(found[0]["id"])[:200]))
            self._lineitem = found[0]
            self.lineitem_url = found[0]["id"]
        return self._lineitem

    def create(self) -> dict[str, Any]:
        """The line item, created where none matches: one ``POST``, never sent again blindly
        (after a failure the line items are read again first), so it is never made twice.

        Raises:
            PlatformRefused: the platform refused to create it, or never answered.
        """
        item = self.find()
        if item is not None:
            return item
        c = self.config
        body: dict[str, Any] = {"label": c.label or c.resource_id or c.tag or "grader", "scoreMaximum": self.maximum}
        body.update({_camel(k): v for k, v in c.search().items()})
        why = ""
        for attempt in range(3):
            try:
                answer = self._http.send("POST", c.lineitems, accept=MEDIA["lineitem"], body=body,
                                         content_type=MEDIA["lineitem"], attempts=1)
            except Failed as exc:
                why = str(exc)
            else:
                if answer.ok and isinstance(answer.data, dict) and isinstance(answer.data.get("id"), str):
                    if not self._http.ours(answer.data["id"]):
                        raise PlatformRefused(said("lti_foreign_url", url=str(answer.data["id"])[:200]))
                    self._lineitem = answer.data
                    self.lineitem_url = answer.data["id"]
                    return answer.data
                why = self._http.scrub(lti_error(answer))
                if answer.status < 500 and answer.status != 429:
                    break
            again = self.find()  # it may have been made although the answer was lost
            if again is not None:
                return again
        raise PlatformRefused(said("lti_lineitem_create_failed", url=c.lineitems, why=why))

    # ------------------------------------------------------------------ reading

    def roster(self) -> dict[str, str] | None:
        """Every member of the context by ``user_id``, with why they are not written to ("" for a
        student); None when the platform file names no memberships URL."""
        if not self.config.memberships:
            return None
        out: dict[str, str] = {}
        for member in self._http.pages(self.config.memberships, MEDIA["members"]):
            if isinstance(member, dict) and member.get("user_id") not in (None, ""):
                out[str(member["user_id"])] = member_refusal(member)
        return out

    def current(self) -> dict[str, Current]:
        item = self.find()
        held: dict[str, float | None] = {}
        if item is not None:
            url = with_path(self.lineitem_url, "/results")
            for result in self._http.pages(url, MEDIA["results"]):
                if isinstance(result, dict) and result.get("userId") not in (None, ""):
                    held[str(result["userId"])] = self._scaled(result)
        roster = self.roster()
        if roster is None:
            return {k: Current(held.get(k)) for k in {*held, *self._expected}}
        return {k: Current(held.get(k), refused=why) for k, why in roster.items()}

    def _scaled(self, result: Mapping[str, Any]) -> float | None:
        """A result's score on the batch's scale (the platform's is its line item's maximum)."""
        score = _number(result.get("resultScore"))
        top = _number(result.get("resultMaximum"))
        if score is None:
            return None
        if top is not None and top > 0 and abs(top - self.maximum) > 1e-9:
            score = score * self.maximum / top
        return round(score, 2)

    # ------------------------------------------------------------------ writing

    def write(self, cells: list[Cell]) -> dict[str, Outcome]:
        if not cells:
            return {}
        try:
            self.create()
        except PlatformRefused as exc:
            return {cell.key: Outcome(False, str(exc)) for cell in cells}
        return {cell.key: self._score(cell) for cell in cells}

    def score_body(self, cell: Cell) -> dict[str, Any]:
        """One score as AGS 2.0 takes it; the comment always (without one the platform's is cleared)."""
        stamp = self._clock().astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        return {"userId": cell.key, "scoreGiven": round(cell.score, 2), "scoreMaximum": self.maximum,
                "comment": cell.comment, "timestamp": stamp, "activityProgress": "Completed",
                "gradingProgress": "FullyGraded",
                "https://canvas.instructure.com/lti/submission": {"new_submission": False}}

    def _score(self, cell: Cell) -> Outcome:
        url = with_path(self.lineitem_url, "/scores")
        answer: Answer | None = None
        for attempt in range(2):
            try:
                answer = self._http.send("POST", url, accept="application/json", body=self.score_body(cell),
                                         content_type=MEDIA["score"])
            except (Failed, PlatformRefused) as exc:
                return Outcome(False, self._http.scrub(str(exc)))
            if answer.status != 409 or attempt:
                break
            self._sleep(1.0)  # a score no newer than the one held (Moodle: the same second): once more, later
        assert answer is not None
        if answer.ok:
            return Outcome(True, f"HTTP {answer.status}")
        return Outcome(False, self._http.scrub(lti_error(answer)))


def _camel(key: str) -> str:
    """``resource_link_id`` → ``resourceLinkId`` (a query filter's name → the line item's field)."""
    head, *rest = key.split("_")
    return head + "".join(w.capitalize() for w in rest)


def open_platform(path: Path, *, maximum: float, expected: Collection[str] = (),
                  sleep: Callable[[float], None] = time.sleep) -> tuple[Lti13Platform, LtiHttp]:
    """The platform of ``--platform FILE``, with its HTTP (to be closed by the caller)."""
    config = read_platform_file(path)
    scopes = SCOPES + ((NRPS_SCOPE,) if config.memberships else ())
    http = LtiHttp(TokenSource(config, scopes), sleep=sleep)
    return Lti13Platform(config, http, maximum=maximum, expected=expected, sleep=sleep), http
