"""A warm checker: one trusted grading process kept for many checks of one student's work.

The notebook's check cell (:mod:`grader.notebook`) and ``grader check --watch`` both hold a
:class:`WarmChecker`. Its process is a ``grader.engines.batch_worker`` started with ``"views": true``:
it loads the rubric, imports torch and pytest, starts its sandboxed zygote, and then keeps one
pytest session (the public suite collected once) and the zygote for its whole life. Each check
sends the submission as plain data and gets back the report and its rendered views; the
student's code runs only in a child forked from the zygote, the tests and the score only in
that process, never in the caller (a notebook kernel's namespace cannot reach either).

The process ends when the caller says stop, when its input closes (the caller is gone), and
on Linux also when the caller's process ends (a parent-death signal).

Example::

    with WarmChecker(rubric.file) as checker:
        result = checker.check(load_submission("exercises/chapter07"), lang="ja")
        result.report.score, result.views["text"]
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TYPE_CHECKING

from grader.errors import GraderError
from grader.i18n.messages import said

if TYPE_CHECKING:
    from grader.ingest.submission.model import Submission
    from grader.report.model import GradeReport
    from grader.spec.rubric.model import Rubric

#: seconds to wait for the checker's start (imports, zygote): generous, a cold disk is slow
READY_TIMEOUT_S = 300.0


@dataclass
class CheckResult:
    """One check's answer."""

    report: GradeReport  #: public suite only
    views: dict[str, str]  #: ``{"html", "text"}`` rendered in the checker
    checker_pid: int
    zygote_pid: int | None
    elapsed_s: float
    hidden: Mapping[str, int] | None = None
    info: dict[str, Any] = field(default_factory=dict)  #: the checker's ready message (JSON)


class WarmChecker:
    """A trusted grading process that stays warm between checks.

    Args:
        rubric: the rubric file.
        level: sandbox level ("namespaces", "rlimits", "subprocess"); the strongest when None.
        seed: the grading seed of every check (fixed, so a change between two checks comes
            from the code, not from new random inputs); fresh when None.
    """

    def __init__(self, rubric: str | os.PathLike[str], *, level: str | None = None,
                 seed: int | None = None) -> None:
        import secrets

        self.rubric = Path(os.path.abspath(rubric))  # noqa: PTH100
        self.prefer = level
        self.seed = secrets.randbelow(2**31) if seed is None else int(seed)
        self.proc: subprocess.Popen[bytes] | None = None
        self.info: dict[str, Any] = {}  # its ready message (JSON: each key read where it is used)
        self.checks = 0
        self.starts = 0
        self._buffer = b""
        self._log: IO[bytes] | None = None
        self._index = 0

    # -- life cycle ----------------------------------------------------------------------
    def start(self) -> "WarmChecker":
        """Start the process (returns at once; :meth:`wait_ready` or the first check waits)."""
        from grader.sandbox.level import choose_level

        if self.alive():
            return self
        self.stop()
        level, warning = choose_level(allow_weak=True, prefer=self.prefer)
        self._log = tempfile.TemporaryFile()  # the checker's own diagnostics, for error messages
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "grader.engines.batch_worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log,
            # Not the student's folder: nothing there may shadow a module of the trusted side.
            cwd=str(self.rubric.parent),
        )
        self.starts += 1
        self._buffer = b""
        self.info = {}
        self._send({"op": "config", "rubric": str(self.rubric), "level": level, "warning": warning,
                    "seed": self.seed, "views": True, "suites": ["public"], "parent": os.getpid()})
        return self

    def wait_ready(self, timeout: float = READY_TIMEOUT_S) -> dict[str, Any]:
        """Wait for the process to say it is ready; its ``ready`` message."""
        if self.info:
            return self.info
        if self.proc is None:
            self.start()
        msg = self._receive(lambda m: m.get("op") == "ready", timeout)
        self.info = msg
        return msg

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        """End the process and its sandbox (they are gone when this returns)."""
        proc, self.proc = self.proc, None
        if proc is not None:
            try:
                self._write(proc, {"op": "stop"})
                assert proc.stdin is not None
                proc.stdin.close()
            except (OSError, ValueError):
                pass
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            for stream in (proc.stdout,):
                if stream is not None:
                    stream.close()
        if self._log is not None:
            self._log.close()
            self._log = None
        self.info = {}

    def __enter__(self) -> "WarmChecker":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- checks --------------------------------------------------------------------------
    def check(self, submission: Submission, *, lang: str | None = None, part: str | None = None,
              cells: int | None = None, plots: bool = False,
              views: Sequence[str] = ("html", "text"),
              timeout: float | None = None) -> CheckResult:
        """Run the public tests on ``submission``; the report and its views.

        Args:
            submission: a :class:`grader.ingest.submission.model.Submission`.
            lang: language of the views (the rubric's first when None or not offered).
            part: show only this part (its tests, mistakes and score).
            cells: how many kernel cells were graded, for the view's last line.
            plots: also run the student's functions for the plots and draw them (about a
                second more: the variance experiment samples millions of values).
            views: which renderings of the result to make ("html", "text"; none for
                watch mode, which prints its own).
            timeout: seconds to wait for the answer (default: generous, from the limits).

        Raises:
            GraderError: the checker stopped or reported a fault (the message says why).
        """
        from grader.report.model import GradeReport

        t0 = time.perf_counter()
        if not self.alive():
            self.start()
        self.wait_ready()
        self._index += 1
        index = self._index
        view = {"lang": lang, "part": part, "cells": cells, "plots": plots, "formats": list(views)}
        self._send({"op": "grade", "seed": self.seed,
                    "items": [{"index": index, "submission": submission.to_dict(), "view": view}]})
        msg = self._receive(lambda m: m.get("op") == "report" and m.get("index") == index,
                            timeout if timeout is not None else READY_TIMEOUT_S)
        self.checks += 1
        if msg.get("report") is None:
            raise GraderError(said("check_gave_no_report", why=msg.get('error') or 'no reason given'))
        return CheckResult(
            report=GradeReport.from_dict(msg["report"]),
            views=dict(msg.get("views") or {}),
            checker_pid=int(self.info.get("pid") or 0),
            zygote_pid=msg.get("zygote_pid"),
            elapsed_s=time.perf_counter() - t0,
            hidden=self.info.get("hidden"),
            info=dict(self.info),
        )

    # -- pipe ----------------------------------------------------------------------------
    @staticmethod
    def _write(proc: subprocess.Popen[bytes], message: Mapping[str, object]) -> None:
        assert proc.stdin is not None
        proc.stdin.write((json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8"))
        proc.stdin.flush()

    def _send(self, message: Mapping[str, object]) -> None:
        if self.proc is None:
            raise GraderError(said("checker_running"))
        try:
            self._write(self.proc, message)
        except (BrokenPipeError, OSError, ValueError):
            raise GraderError(self._ended("stopped before the check was sent")) from None

    def _receive(self, wanted: Callable[[dict[str, Any]], bool], timeout: float) -> dict[str, Any]:
        """The first message (a JSON line) ``wanted`` accepts; GraderError if the checker ends first."""
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while True:
            while b"\n" in self._buffer:
                line, self._buffer = self._buffer.split(b"\n", 1)
                if not line.strip():
                    continue
                msg: dict[str, Any] = json.loads(line)
                if msg.get("op") == "fatal":
                    self.stop()
                    raise GraderError(said("checker_stopped", why=msg.get('message')))
                if wanted(msg):
                    return msg
                # anything else: a chunk's end, or the report of a check given up on
            left = deadline - time.monotonic()
            if left <= 0:
                self.stop()
                raise GraderError(said("checker_gave_no_answer", seconds=f"{timeout:.0f}"))
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                data = os.read(fd, 1 << 20)
                if not data:
                    message = self._ended("stopped")
                    self.stop()
                    raise GraderError(message)
                self._buffer += data

    def _ended(self, what: str) -> str:
        tail = ""
        if self._log is not None:
            try:
                self._log.seek(0)
                tail = self._log.read()[-2000:].decode("utf-8", "replace").strip()
            except (OSError, ValueError):
                tail = ""
        return f"the checker {what}" + (f": {tail}" if tail else "")


# --------------------------------------------------------------------------- in the checker


def hidden_counts(rubric: Rubric, suites: Sequence[str]) -> dict[str, int] | None:
    """How many tests of the suites not run by a check wait at grading, per part.

    Collected (never run) in the checker, the trusted process; only the counts leave it. None
    when the rubric lists no other suite or its folder is absent (the student release).
    """
    others = [s for s in rubric.suites if s.name not in suites and Path(s.path).is_dir()]
    if not others:
        return None
    import pytest

    from grader.grading import collector as plugin
    from grader.grading.runner import SESSION_ARGS, SUITE_INI

    counts: dict[str, int] = {}

    class _Count:
        @staticmethod
        def pytest_configure(config: pytest.Config) -> None:
            config.addinivalue_line("markers", "part(id): the rubric part a test module belongs to")

        @staticmethod
        def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
            for item in items:
                part = plugin._part_of(item)
                counts[part] = counts.get(part, 0) + 1

    args = [str(s.path) for s in others] + [
        "-c", str(SUITE_INI), "--rootdir", str(Path(rubric.file).resolve().parent.parent),
        "--import-mode=importlib", "--noconftest", "--collect-only", "-s", "--assert=plain",
        *SESSION_ARGS,
    ]
    code = pytest.main(args, plugins=[_Count()])
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        return None
    return counts


def prepare() -> None:
    """Do the first check's one-time work ahead of it, while the zygote imports torch: the
    mistake catalogue, the view's template and the terminal view's library."""
    from grader.spec import catalogue
    from grader.report import cell, html, terminal  # noqa: F401 - imported for later

    catalogue.catalogue()
    html._ENV.get_template("cell.html.j2")


def render_views(report: GradeReport, rubric: Rubric, view: Mapping[str, object], *,
                 hidden: Mapping[str, int] | None = None) -> dict[str, str]:
    """The student's views of one check, as ``view`` (from :meth:`WarmChecker.check`) asks.

    In the checker; see :mod:`grader.report.cell`. Unknown keys and values of the wrong type
    are ignored.
    """
    asked = view.get("formats", ())
    formats = [f for f in asked if f in ("html", "text")] if isinstance(asked, list) else ["html", "text"]
    if not formats:
        return {}
    from grader.report.cell import render_views as render

    lang, part, cells = view.get("lang"), view.get("part"), view.get("cells")
    return render(report, rubric, lang=lang if isinstance(lang, str) else None,
                  part=part if isinstance(part, str) else None, hidden=hidden,
                  cells=cells if isinstance(cells, int) else None, formats=tuple(formats))
