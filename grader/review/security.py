"""What keeps the review app to its one reviewer: the launch token, the session cookie, the Host and
Origin checks, the CSRF token and the headers every answer carries.

A local server is reachable from every page the reviewer's browser opens: another site can make
the browser send it requests (CSRF), or point a name of its own at 127.0.0.1 (DNS rebinding). So,
failing closed at each step:

* the launch URL carries a random token (128 bits); it is exchanged **once** for a session cookie
  (``HttpOnly; SameSite=Strict``), and every other request without that cookie is refused (403);
* a request whose ``Host`` is not a loopback name with the app's port is refused (403), before
  anything else: a rebound name never reaches a page;
* a request that changes anything (any method but GET and HEAD) needs an ``Origin`` that is the
  app's own (missing is refused) and the session's CSRF token (the form's ``csrf`` field or the
  ``X-CSRF-Token`` header), compared in constant time;
* every answer carries a Content-Security-Policy that runs no inline script and loads nothing from
  elsewhere (:data:`CSP`), and forbids framing the app.

:class:`Guard` is plain ASGI middleware around the app; :class:`Keys` holds the secrets.

Example::

    keys = Keys(port=8765)
    app = Guard(inner_app, keys)
    keys.launch_url()            # http://127.0.0.1:8765/login?token=…  (good once)
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

__all__ = ["COOKIE", "CSP", "Guard", "Keys", "LOOPBACK", "MAX_BODY", "csrf_of"]

#: the session cookie's name
COOKIE = "grader_review"
#: the names a loopback Host may carry (the app listens on 127.0.0.1 only)
LOOPBACK = ("127.0.0.1", "localhost")
#: no inline script, nothing from elsewhere, no frames, forms only to the app itself
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
#: the largest request body read (a comment, a reason: small)
MAX_BODY = 256 * 1024
#: the headers of every answer
HEADERS = ((b"content-security-policy", CSP.encode()), (b"x-content-type-options", b"nosniff"),
           (b"x-frame-options", b"DENY"), (b"referrer-policy", b"same-origin"), (b"cache-control", b"no-store"),
           (b"cross-origin-opener-policy", b"same-origin"), (b"cross-origin-resource-policy", b"same-origin"))
SAFE_METHODS = ("GET", "HEAD")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def csrf_of(secret: bytes, session: str) -> str:
    """The CSRF token of one session: an HMAC of its id, never the cookie itself."""
    return hmac.new(secret, b"csrf:" + session.encode(), hashlib.sha256).hexdigest()


@dataclass
class Keys:
    """The app's secrets: launch tokens not yet used, the sessions they became, and the port."""

    port: int
    secret: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    unused: dict[str, str] = field(default_factory=dict)  #: launch token -> the reviewer it is for ("": the default)
    sessions: dict[str, str] = field(default_factory=dict)  #: session -> its reviewer
    lock: threading.Lock = field(default_factory=threading.Lock)

    def launch_url(self, host: str = "127.0.0.1", reviewer: str = "") -> str:
        """A new launch URL, its token good for one exchange (a second reviewer gets one of their own);
        ``reviewer``: who the session it becomes writes ledger lines as (default: the app's)."""
        token = secrets.token_urlsafe(16)  # 128 bits
        with self.lock:
            self.unused[token] = reviewer
        return f"http://{host}:{self.port}/login?token={token}"

    def exchange(self, token: str) -> str | None:
        """A new session for a launch token not used yet (it is used up), else None."""
        with self.lock:
            hit = next((t for t in self.unused if hmac.compare_digest(t.encode(), token.encode())), None)
            if hit is None:
                return None
            reviewer = self.unused.pop(hit)
            session = secrets.token_urlsafe(32)
            self.sessions[session] = reviewer
            return session

    def reviewer_of(self, session: str) -> str:
        """Who a session writes ledger lines as ("": the app's default)."""
        with self.lock:
            return self.sessions.get(session, "")

    def session_of(self, cookie_header: str) -> str | None:
        """The session the request's cookies name, when it is one of ours."""
        for piece in cookie_header.split(";"):
            name, _, value = piece.strip().partition("=")
            if name == COOKIE:
                with self.lock:
                    if any(hmac.compare_digest(s.encode(), value.encode()) for s in self.sessions):
                        return value
        return None

    def hosts(self) -> set[str]:
        return {f"{name}:{self.port}" for name in LOOPBACK}

    def origins(self) -> set[str]:
        return {f"http://{host}" for host in self.hosts()}


def _header(scope: Scope, name: bytes) -> str | None:
    values = [v for k, v in scope.get("headers", []) if k.lower() == name]
    if len(values) != 1:  # none, or two (a smuggled second Host): refused as missing
        return None
    return bytes(values[0]).decode("latin-1")


class Guard:
    """ASGI middleware: the checks of the module docstring, in order, before the app sees a request.

    The request's ``scope["state"]`` gains ``session`` and ``csrf`` for the pages to put in their forms."""

    def __init__(self, app: App, keys: Keys, refuse: Callable[[str], str] | None = None) -> None:
        self.app, self.keys = app, keys
        self.refuse = refuse or (lambda why: why)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # (no websockets here)
            return
        host = _header(scope, b"host")
        if host is None or host.lower() not in self.keys.hosts():
            await _answer(send, 403, self.refuse("host"))
            return
        path, method = scope.get("path", ""), scope.get("method", "GET")
        if path == "/login" and method in SAFE_METHODS:
            await self._login(scope, send)
            return
        session = self.keys.session_of(_header(scope, b"cookie") or "")
        if session is None:
            await _answer(send, 403, self.refuse("session"))
            return
        csrf = csrf_of(self.keys.secret, session)
        if method not in SAFE_METHODS:
            origin = _header(scope, b"origin")
            if origin is None or origin.lower() not in self.keys.origins() or origin.lower() != f"http://{host.lower()}":
                await _answer(send, 403, self.refuse("origin"))
                return
            body = await _body(receive)
            if body is None:
                await _answer(send, 413, self.refuse("body"))
                return
            given = _header(scope, b"x-csrf-token") or _form_field(scope, body, "csrf") or ""
            if not hmac.compare_digest(given.encode(), csrf.encode()):
                await _answer(send, 403, self.refuse("csrf"))
                return
            receive = _replay(body)
        scope.setdefault("state", {})
        scope["state"]["session"], scope["state"]["csrf"] = session, csrf
        await self.app(scope, receive, _with_headers(send))

    async def _login(self, scope: Scope, send: Send) -> None:
        token = (parse_qs(bytes(scope.get("query_string", b"")).decode("latin-1")).get("token") or [""])[0]
        session = self.keys.exchange(token) if token else None
        if session is None:
            await _answer(send, 403, self.refuse("token"))
            return
        cookie = f"{COOKIE}={session}; Path=/; HttpOnly; SameSite=Strict"
        await send({"type": "http.response.start", "status": 303,
                    "headers": [(b"location", b"/"), (b"set-cookie", cookie.encode()), *HEADERS]})
        await send({"type": "http.response.body", "body": b""})


async def _body(receive: Receive) -> bytes | None:
    """The request's body, or None past :data:`MAX_BODY`."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _form_field(scope: Scope, body: bytes, name: str) -> str | None:
    kind = (_header(scope, b"content-type") or "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        return None
    values = parse_qs(body.decode("utf-8", "replace")).get(name) or []
    return values[0] if len(values) == 1 else None


def _replay(body: bytes) -> Receive:
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


def _with_headers(send: Send) -> Send:
    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            names = {bytes(k).lower() for k, _ in message.get("headers", [])}
            message["headers"] = [*message.get("headers", []), *(h for h in HEADERS if h[0] not in names)]
        await send(message)

    return wrapped


async def _answer(send: Send, status: int, text: str) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"), *HEADERS]})
    await send({"type": "http.response.body", "body": text.encode("utf-8")})
