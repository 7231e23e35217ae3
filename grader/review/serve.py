"""Serving the review app: a socket on 127.0.0.1 only, the launch URL, the browser, uvicorn.

The app's pieces (Starlette, uvicorn, python-multipart for forms) are the ``review`` extra; without
them :func:`serve` says how to install it.

Example::

    serve(Path("out"), rubric, port=0, blind=False, browser=True, by="tanaka", lang="ja")
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.errors import UsageError
from grader.i18n.messages import said

if TYPE_CHECKING:
    from grader.spec.rubric.model import Rubric

__all__ = ["HOST", "bind", "needs_extra", "serve", "server"]

#: the one address the app listens on
HOST = "127.0.0.1"


def needs_extra() -> None:
    """Raises UsageError naming the extra when the app's pieces are not installed."""
    try:
        import importlib

        for module in ("multipart", "starlette", "uvicorn"):  # (python-multipart: Starlette reads forms with it)
            importlib.import_module(module)
    except ImportError:
        raise UsageError(said("review_needs_extra")) from None


def bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1 (port 0: one the system picks)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port))
    except OSError as exc:
        sock.close()
        raise UsageError(said("review_port_taken", port=port, why=exc.strerror or exc)) from None
    sock.listen(64)
    return sock


def server(outdir: Path, rubric: Rubric, *, port: int, blind: bool, by: str, lang: str) -> tuple[Any, socket.socket, str]:
    """The uvicorn server of the app over ``outdir`` (not started), its socket, and the launch URL."""
    needs_extra()
    import uvicorn

    from grader.report import ledger
    from grader.review.app import make_app

    ledger.read(outdir)  # a broken ledger is refused before anything is served
    sock = bind(port)
    app, keys = make_app(outdir, rubric, port=sock.getsockname()[1], by=by or ledger.who(), lang=lang, blind=blind)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    return uvicorn.Server(config), sock, keys.launch_url()


def serve(outdir: Path, rubric: Rubric, *, port: int, blind: bool, browser: bool, by: str, lang: str,
          say: Callable[[str], None], links: int = 1, reviewers: Sequence[str] = ()) -> None:
    """Serve until Ctrl-C; ``say`` prints the launch URL (and how to stop), ``links`` - 1 more,
    and one for each of ``reviewers`` (their ledger lines name them); each good once, in one browser."""
    running, sock, url = server(outdir, rubric, port=port, blind=blind, by=by, lang=lang)
    say(said("review_serving", url=url))
    for _ in range(links - 1):
        say(said("review_serving_more", url=running.config.app.keys.launch_url()))
    for name in reviewers:
        say(said("review_serving_for", who=name, url=running.config.app.keys.launch_url(reviewer=name)))
    if browser:
        import webbrowser

        webbrowser.open(url)
    running.run(sockets=[sock])
