"""grader.review.security: the launch token, the session cookie, Host, Origin and CSRF, each failing
closed, and the headers every answer carries (the strict CSP among them)."""

from __future__ import annotations

import re
import warnings
from typing import Any

import pytest

from grader.review.app import refusal
from grader.review.security import COOKIE, CSP, Guard, Keys, csrf_of

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

PORT = 8765
BASE = f"http://127.0.0.1:{PORT}"


async def inner(scope: Any, receive: Any, send: Any) -> None:
    """The guarded app: answers 200 with the method and, for a change, what it was sent."""
    body = b""
    if scope["method"] not in ("GET", "HEAD"):
        message = await receive()
        body = message.get("body", b"")
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": scope["method"].encode() + b" " + body})


def client(keys: Keys, base: str = BASE) -> TestClient:
    return TestClient(Guard(inner, keys, refusal), base_url=base)  # type: ignore[arg-type]


def logged_in(keys: Keys) -> TestClient:
    c = client(keys)
    token = keys.launch_url().split("token=")[1]
    assert c.get(f"/login?token={token}", follow_redirects=False).status_code == 303
    return c


def csrf(keys: Keys, c: TestClient) -> str:
    return csrf_of(keys.secret, c.cookies[COOKIE])


def test_the_launch_token_is_exchanged_once_for_an_httponly_strict_cookie() -> None:
    keys = Keys(port=PORT)
    url = keys.launch_url()
    assert re.fullmatch(rf"http://127\.0\.0\.1:{PORT}/login\?token=[\w-]{{22}}", url)
    c = client(keys)
    first = c.get(url[len(BASE):], follow_redirects=False)
    assert first.status_code == 303 and first.headers["location"] == "/"
    cookie = first.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    assert c.get("/").status_code == 200
    # the same token again, in another browser: refused, and no cookie given
    other = client(keys)
    again = other.get(url[len(BASE):], follow_redirects=False)
    assert again.status_code == 403 and "set-cookie" not in again.headers
    assert other.get("/").status_code == 403


@pytest.mark.parametrize("token", ["", "x", "A" * 22, "../../etc", "%00"])
def test_a_wrong_or_missing_token_gives_nothing(token: str) -> None:
    keys = Keys(port=PORT)
    keys.launch_url()
    c = client(keys)
    answer = c.get(f"/login?token={token}", follow_redirects=False)
    assert answer.status_code == 403 and "set-cookie" not in answer.headers
    assert "grader review" in answer.text and "起動 URL" in answer.text  # (both languages)


@pytest.mark.parametrize("cookie", ["", f"{COOKIE}=forged", f"{COOKIE}=", "other=1"])
def test_without_the_session_cookie_every_page_is_refused(cookie: str) -> None:
    keys = Keys(port=PORT)
    logged_in(keys)  # (a real session exists; a forged one is still refused)
    c = client(keys)
    headers = {"cookie": cookie} if cookie else {}
    for path in ("/", "/s/abc", "/static/review.js", "/anything"):
        assert c.get(path, headers=headers).status_code == 403


@pytest.mark.parametrize("host", ["attacker.example", f"attacker.example:{PORT}", "127.0.0.1", "127.0.0.1:9999",
                                  f"127.0.0.2:{PORT}", f"localhost.attacker.example:{PORT}", f"0.0.0.0:{PORT}", ""])
def test_a_host_that_is_not_this_apps_loopback_name_is_refused_before_anything(host: str) -> None:
    keys = Keys(port=PORT)
    c = logged_in(keys)
    assert c.get("/", headers={"host": host}).status_code == 403
    # not even the login page answers a rebound name
    token = keys.launch_url().split("token=")[1]
    assert c.get(f"/login?token={token}", headers={"host": host}, follow_redirects=False).status_code == 403
    assert c.get(f"/login?token={token}", follow_redirects=False).status_code == 303  # (the token was not used up)


def test_localhost_with_the_port_is_a_loopback_name() -> None:
    keys = Keys(port=PORT)
    c = logged_in(keys)
    assert c.get("/", headers={"host": f"localhost:{PORT}"}).status_code == 200


@pytest.mark.parametrize("origin", [None, "null", "https://attacker.example", f"http://127.0.0.1:{PORT + 1}",
                                    f"https://127.0.0.1:{PORT}", f"http://localhost:{PORT}"])
def test_a_change_without_this_pages_origin_is_refused(origin: str | None) -> None:
    """Missing, null, another site, another port or scheme, or a loopback name other than the request's Host."""
    keys = Keys(port=PORT)
    c = logged_in(keys)
    headers = {"origin": origin} if origin is not None else {}
    answer = c.post("/s/x/adjust", data={"csrf": csrf(keys, c), "points": "1"}, headers=headers)
    assert answer.status_code == 403 and "Origin" in answer.text


@pytest.mark.parametrize("given", [None, "", "0" * 64, "wrong"])
def test_a_change_without_the_sessions_csrf_token_is_refused(given: str | None) -> None:
    keys = Keys(port=PORT)
    c = logged_in(keys)
    data = {"points": "1"} if given is None else {"csrf": given, "points": "1"}
    answer = c.post("/s/x/adjust", data=data, headers={"origin": BASE})
    assert answer.status_code == 403


def test_another_sessions_csrf_token_is_refused() -> None:
    keys = Keys(port=PORT)
    mine, theirs = logged_in(keys), logged_in(keys)
    answer = mine.post("/s/x/adjust", data={"csrf": csrf(keys, theirs)}, headers={"origin": BASE})
    assert answer.status_code == 403


def test_a_change_with_origin_and_csrf_goes_through_with_its_body_intact() -> None:
    keys = Keys(port=PORT)
    c = logged_in(keys)
    token = csrf(keys, c)
    answer = c.post("/s/x/adjust", data={"csrf": token, "points": "1"}, headers={"origin": BASE})
    assert answer.status_code == 200 and answer.text.startswith("POST ") and "points=1" in answer.text
    header = c.post("/s/x/adjust", content=b"{}", headers={"origin": BASE, "x-csrf-token": token,
                                                              "content-type": "application/json"})
    assert header.status_code == 200
    # every method but GET and HEAD is a change
    assert c.request("PUT", "/s/x", headers={"origin": BASE}).status_code == 403
    assert c.request("DELETE", "/s/x", headers={"origin": BASE, "x-csrf-token": token}).status_code == 200


def test_a_body_too_large_is_refused() -> None:
    keys = Keys(port=PORT)
    c = logged_in(keys)
    answer = c.post("/s/x/adjust", content=b"x" * (300 * 1024), headers={"origin": BASE, "x-csrf-token": csrf(keys, c)})
    assert answer.status_code == 413


def test_every_answer_carries_the_strict_policy() -> None:
    keys = Keys(port=PORT)
    c = logged_in(keys)
    for answer in (c.get("/"), client(keys).get("/"), c.get("/", headers={"host": "evil"})):
        assert answer.headers["content-security-policy"] == CSP
        assert answer.headers["x-frame-options"] == "DENY" and answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["referrer-policy"] == "same-origin"  # (no-referrer would make the Origin of a form "null")
    assert "script-src 'self'" in CSP and "unsafe-inline" not in CSP and "default-src 'none'" in CSP
    assert "frame-ancestors 'none'" in CSP


def test_each_launch_url_is_a_new_token_for_a_second_reviewer() -> None:
    keys = Keys(port=PORT)
    a, b = keys.launch_url(), keys.launch_url(reviewer="suzuki")
    assert a != b
    session = keys.exchange(b.split("token=")[1])
    assert session is not None and keys.reviewer_of(session) == "suzuki"
    assert keys.reviewer_of(keys.exchange(a.split("token=")[1]) or "") == ""  # (the app's own --by)
    assert logged_in(keys).cookies[COOKIE] != logged_in(keys).cookies[COOKIE]
