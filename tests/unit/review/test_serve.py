"""grader.review.serve: the app served for real by uvicorn on 127.0.0.1 only, refusing a request
without the session or with another Host, and a port already taken said in both languages."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import httpx
import pytest

from grader.errors import UsageError
from grader.i18n.messages import translate
from grader.review.serve import HOST, bind, server
from grader.spec.rubric.load import load_rubric
from tests.helpers import RUBRIC
from tests.review_class import make_class


def test_it_listens_on_loopback_only() -> None:
    sock = bind(0)
    try:
        assert sock.getsockname()[0] == HOST == "127.0.0.1"
    finally:
        sock.close()


def test_a_port_taken_is_said_with_the_fix() -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    port = taken.getsockname()[1]
    try:
        with pytest.raises(UsageError) as caught:
            bind(port)
        assert f"127.0.0.1:{port}" in str(caught.value) and "--port" in str(caught.value)
        assert "別の --port" in translate(str(caught.value), "ja")
    finally:
        taken.close()


def test_the_served_app_answers_its_launch_url_and_refuses_the_rest(tmp_path: Path) -> None:
    out = make_class(tmp_path, 6)
    running, sock, url = server(out, load_rubric(RUBRIC), port=0, blind=False, by="tanaka", lang="en")
    port = sock.getsockname()[1]
    thread = threading.Thread(target=running.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        while not running.started:
            time.sleep(0.02)
        base = f"http://127.0.0.1:{port}"
        assert url.startswith(f"{base}/login?token=")
        assert httpx.get(f"{base}/").status_code == 403
        assert httpx.get(f"{base}/", headers={"host": f"rebound.example:{port}"}).status_code == 403
        with httpx.Client(follow_redirects=True) as browser:
            login = browser.get(url)
            assert login.status_code == 200 and "Review queue" in login.text  # (after the redirect)
            assert browser.get(f"{base}/static/review.js").headers["content-type"].startswith("text/javascript")
            assert browser.get(url).status_code == 403  # the token was good once
    finally:
        running.should_exit = True
        thread.join(timeout=10)
    assert not thread.is_alive()
