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
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from grader.errors import UsageError
from grader.i18n.messages import said

__all__ = ["ATTEMPTS", "BACKOFF", "MAX_WAIT", "Answer", "Failed", "Transport"]

ATTEMPTS = 6
BACKOFF = 0.5
MAX_WAIT = 30.0
#: how long one request may take before it counts as timed out (seconds)
TIMEOUT = 30.0


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

    def request(self, method: str, url: str, *, params: Mapping[str, str] | None = None,
                data: Mapping[str, str] | None = None) -> Answer:
        """Send one request, again after a transient failure; the last answer, whatever its status.

        Raises:
            Failed: no answer after every attempt (time-outs, connections lost): the reason scrubbed.
        """
        why = ""
        for attempt in range(self._attempts):
            self.sent.append((method, url))
            try:
                response = self._client.request(method, url, params=params, data=data)
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

    def _wait(self, attempt: int, asked: float | None) -> float:
        if asked is not None:
            return min(asked, MAX_WAIT * 4)
        return float(min(self._backoff * 2.0 ** attempt, MAX_WAIT))
