"""HTTP with retries, for the platforms of :mod:`grader.lms`, on httpx (the ``grader[lms]`` extra).

The base URL must be ``https://`` (plain ``http://`` only to this machine, for tests): the token
is never sent in clear.

A request answered 5xx or 429 (or 403 "Rate Limit Exceeded", as Canvas throttles: canvas-lms's
doc/api/throttling.md), or that timed out or lost its connection, is sent again, up to
:data:`ATTEMPTS` times: after ``Retry-After`` seconds where a 429 or 503 says so, else after a
backoff that doubles (:data:`BACKOFF` seconds first, at most :data:`MAX_WAIT`). The token goes in
the ``Authorization`` header only (Moodle: in the form body, as its ``wstoken`` field, never in a
URL), and every text this module hands back (an answer's error, a failure's reason) has it replaced
by ``***``: it reaches no file, log, ledger line or message.

A file is fetched (:meth:`Transport.download`) with the token only from the platform's own host;
a redirect to another host (Canvas's file store) is followed without it, at most
:data:`REDIRECTS` times, and a file larger than ``limit`` bytes is refused as it streams.

:func:`token_expired` tells an answer that refuses the token itself (401 with a
``WWW-Authenticate`` challenge, as an expired or deleted token is answered) from one that refuses an
action: after the first, no further write is worth sending.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from grader.errors import UsageError
from grader.i18n.messages import said

__all__ = ["ATTEMPTS", "BACKOFF", "MAX_WAIT", "REDIRECTS", "Answer", "Failed", "TokenRefused", "TooLarge",
           "Transport", "token_expired"]

ATTEMPTS = 6
BACKOFF = 0.5
MAX_WAIT = 30.0
#: how long one request may take before it counts as timed out (seconds)
TIMEOUT = 30.0
#: redirects followed by a download
REDIRECTS = 3


@dataclass(frozen=True)
class Answer:
    """A platform's answer: its status, its JSON (None when the body is not JSON) and headers."""

    status: int
    data: Any
    headers: Mapping[str, str]
    #: the body's bytes (a file downloaded)
    content: bytes = b""

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


class Failed(Exception):
    """A request that got no answer at all after every attempt (the reason is scrubbed)."""


class TooLarge(Failed):
    """A download larger than the limit it was given: refused as it streamed."""


class TokenRefused(Failed):
    """The platform refused the token (401) for a download: no further one is worth trying."""


def token_expired(answer: Answer) -> bool:
    """A 401 refusing the token itself (expired, deleted, revoked): it carries a
    ``WWW-Authenticate`` challenge, or says the access token is invalid."""
    if answer.status != 401:
        return False
    challenge = {k.lower(): v for k, v in answer.headers.items()}.get("www-authenticate", "")
    if challenge:
        return True
    errors = answer.data.get("errors") if isinstance(answer.data, dict) else None
    return isinstance(errors, list) and any(isinstance(e, dict) and "access token" in str(e.get("message", "")).lower()
                                            for e in errors)


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


class Transport:
    """One platform's HTTP: its base URL, its token, retries; ``sleep`` is replaceable (tests)."""

    def __init__(self, base_url: str, token: str, *, sleep: Callable[[float], None] = time.sleep,
                 attempts: int = ATTEMPTS, backoff: float = BACKOFF, timeout: float = TIMEOUT,
                 bearer: bool = True) -> None:
        from urllib.parse import urlsplit

        parts = urlsplit(base_url)
        loopback = parts.hostname in ("127.0.0.1", "localhost", "::1")
        if not parts.hostname or not (parts.scheme == "https" or (parts.scheme == "http" and loopback)):
            # the token would travel in clear, or to no host at all
            raise UsageError(said("push_url_not_https", url=base_url))
        try:
            import httpx
        except ImportError:  # (the optional extra)
            raise UsageError(said("push_needs_lms_extra")) from None
        self._token = token
        self._sleep = sleep
        self._attempts = max(1, attempts)
        self._backoff = backoff
        self._httpx = httpx
        # (Moodle takes its token as a form field, wstoken, and no header: ``bearer=False``)
        headers = {"Authorization": f"Bearer {token}"} if bearer else {}
        self._client = httpx.Client(base_url=base_url.rstrip("/"), timeout=timeout, follow_redirects=False,
                                    headers={**headers, "Accept": "application/json"})
        #: every request sent, attempts included: (method, path)
        self.sent: list[tuple[str, str]] = []

    def scrub(self, text: str) -> str:
        """``text`` with the token replaced by ``***``."""
        return text.replace(self._token, "***") if self._token else text

    def close(self) -> None:
        self._client.close()

    def request(self, method: str, url: str, *, params: Mapping[str, str] | list[tuple[str, str]] | None = None,
                data: Mapping[str, str] | None = None) -> Answer:
        """Send one request, again after a transient failure; the last answer, whatever its status.

        Raises:
            Failed: no answer after every attempt (time-outs, connections lost): the reason scrubbed.
        """
        why = ""
        query: Any = params  # (a mapping, or pairs where a key repeats: state[]=…&state[]=…)
        for attempt in range(self._attempts):
            self.sent.append((method, url))
            try:
                response = self._client.request(method, url, params=query, data=data)
            except self._httpx.TransportError as exc:  # time-outs and lost connections
                why = self.scrub(f"{type(exc).__name__}: {exc}")
                self._sleep(self._wait(attempt, None))
                continue
            try:
                body = response.json()
            except ValueError:
                body = None
            answer = Answer(response.status_code, body, dict(response.headers), response.content)
            throttled = answer.status == 403 and "Rate Limit Exceeded" in response.text
            transient = answer.status == 429 or answer.status >= 500 or throttled
            if not transient or attempt == self._attempts - 1:
                return answer
            self._sleep(self._wait(attempt, _retry_after(response.headers.get("Retry-After"))))
        raise Failed(said("push_no_answer", method=method, url=url, n=self._attempts, why=why))

    def download(self, url: str, limit: int) -> bytes:
        """The bytes at ``url`` (an absolute URL the platform gave): retried as :meth:`request` is;
        the token sent only to the platform's own scheme, host and port, redirects followed
        without it elsewhere.

        Raises:
            Failed: no answer, an error status (its reason scrubbed), or too many redirects.
            TooLarge: more than ``limit`` bytes.
            TokenRefused: the platform answered 401 (the token expired or was deleted).
        """
        from urllib.parse import urljoin, urlsplit

        own = urlsplit(str(self._client.base_url))
        for _hop in range(REDIRECTS + 1):
            parts = urlsplit(url)
            if parts.scheme not in ("http", "https"):
                raise Failed(said("download_bad_url", url=self.scrub(url)))
            mine = (parts.scheme, parts.hostname, parts.port) == (own.scheme, own.hostname, own.port)
            status, location, data = self._fetch(url, mine, limit)
            if status in (301, 302, 303, 307, 308) and location:
                url = urljoin(url, location)
                continue
            if status == 401 and mine:
                raise TokenRefused(said("download_token_refused", url=self.scrub(url.split("?")[0])))
            if not 200 <= status < 300:
                raise Failed(said("download_refused", url=self.scrub(url.split("?")[0]), status=status))
            return data
        raise Failed(said("download_redirects", url=self.scrub(url.split("?")[0]), n=REDIRECTS))

    def _fetch(self, url: str, mine: bool, limit: int) -> tuple[int, str, bytes]:
        why = ""
        for attempt in range(self._attempts):
            self.sent.append(("GET", url.split("?")[0]))
            try:
                if mine:
                    stream = self._client.stream("GET", url)
                else:  # another host: a client of its own, which holds no token
                    stream = self._httpx.stream("GET", url, timeout=self._client.timeout, follow_redirects=False)
                with stream as response:
                    status = response.status_code
                    if status == 429 or status >= 500:
                        if attempt < self._attempts - 1:
                            self._sleep(self._wait(attempt, _retry_after(response.headers.get("Retry-After"))))
                            continue
                        return status, "", b""
                    chunks, size = [], 0
                    for chunk in response.iter_bytes():
                        size += len(chunk)
                        if size > limit:
                            raise TooLarge(said("download_too_large", url=self.scrub(url.split("?")[0]), limit=limit))
                        chunks.append(chunk)
                    return status, response.headers.get("Location", ""), b"".join(chunks)
            except self._httpx.TransportError as exc:
                why = self.scrub(f"{type(exc).__name__}: {exc}")
                self._sleep(self._wait(attempt, None))
        raise Failed(said("push_no_answer", method="GET", url=self.scrub(url.split("?")[0]), n=self._attempts, why=why))

    def _wait(self, attempt: int, asked: float | None) -> float:
        if asked is not None:
            return min(asked, MAX_WAIT * 4)
        return float(min(self._backoff * 2.0 ** attempt, MAX_WAIT))
