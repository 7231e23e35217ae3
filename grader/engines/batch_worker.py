"""One trusted grading process of ``grader batch`` (started as ``python -m grader.engines.batch_worker``).

The parent (:mod:`grader.workflows.batch`) writes one JSON object per line to our stdin and reads
JSON lines from our stdout (a private copy of it: whatever else this process prints goes to
stderr, the worker's log):

==============================================  ==============================================
parent → worker                                 worker → parent
==============================================  ==============================================
``{"op": "config", "rubric", "level", ...}``    ``{"op": "hello", "pid"}`` (a forked worker,
                                                at once); ``{"op": "ready", "pid", "level"}``
``{"op": "grade", "items", "seed"}``            ``{"op": "report", "index", "report"}`` per
                                                item, then ``{"op": "chunk_done"}`` (when the
                                                worker asks for its next chunk)
``{"op": "stop"}`` (or EOF, or SIGTERM)         ``{"op": "fatal", "message"}`` on a grader fault
(``"heartbeat_s"`` in the config)                  ``{"op": "alive"}`` every so many seconds in
                                                which the sandbox made a call or started a child
==============================================  ==============================================

A worker started with ``"siblings"`` in its config forks one more worker per entry once its
imports are done; each copy talks over its own pipe pair, exactly as above.

The same process serves a student's checks (:mod:`grader.engines.warm_checker`: the notebook's check cell and
``grader check --watch``) when its config says ``"views": true``: it then runs only the suites
in ``"suites"`` (``["public"]``), gathers the plots, tells in ``ready`` how many tests of the
other suites wait at grading (``"hidden"``) and its zygote's pid, and each report message also
carries ``"views"``, the report rendered here for the student (``{"html", "text"}``, in the
language and for the part each item's ``"view"`` asks). ``"parent"``: a pid to outlive by
nothing (Linux: the process ends when the one that started it does).

Items carry a submission as plain data (modules as ``Module.to_dict()``); reports come
back as ``GradeReport.to_dict()``. No student object is ever in this process: the student's
code runs in the sandboxed zygote this process owns, which imports torch once and forks a
child per submission.
"""

from __future__ import annotations

import gc
import json
import os
import queue
import signal
import sys
import threading
from collections.abc import Callable, Mapping
from types import FrameType
from typing import Any, TYPE_CHECKING, TextIO, TypedDict

from grader.i18n.messages import said

if TYPE_CHECKING:
    from grader.ingest.submission.model import Submission
    from grader.report.model import GradeReport
    from grader.sandbox.worker import Worker
    from grader.spec.rubric.model import Rubric


def _send(out: TextIO, message: Mapping[str, object]) -> None:
    line = json.dumps(message, ensure_ascii=False) + "\n"
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate the report's own cleaning missed
        from grader.sinks import clean

        line = json.dumps(clean(message), ensure_ascii=False) + "\n"
    with _SENDING:  # (a heartbeat thread may send too: one line at a time)
        out.write(line)
        out.flush()


_SENDING = threading.Lock()


def _on_term(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _die_with(parent: int) -> None:
    """Get SIGTERM when ``parent`` ends (Linux), and end now if it already has."""
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:
        raise SystemExit(0)


def main() -> int:
    # Results go to a private copy of stdout; anything printed by a library from here on
    # lands on stderr and can never corrupt a frame.
    # Imports (torch, pytest, the suites' helpers) make many objects and little garbage: no
    # collector passes over them; it comes back on, with rare passes, once they are frozen.
    gc.disable()
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    signal.signal(signal.SIGTERM, _on_term)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    config: dict[str, Any] = json.loads(sys.stdin.readline())
    if config.get("parent"):
        _die_with(int(config["parent"]))
    return _serve(config, out, sys.stdin, config.pop("siblings", None) or [])


def _serve(config: dict[str, Any], out: TextIO, inp: TextIO, siblings: list[dict[str, int]]) -> int:
    """Be one worker: start a zygote, then grade what arrives on ``inp`` until told to stop.

    ``config`` is the parent's first line (JSON: each key is read where it is used).

    ``siblings`` are the channels of further workers for this process to fork once its
    imports are done, so that ``-j N`` pays for importing torch and pytest here once, not N
    times (each sibling still starts its own sandboxed zygote).
    """
    from grader.spec.rubric.load import load_rubric
    from grader.sandbox.spawn import worker_for

    rubric = load_rubric(config["rubric"])
    # Started from this (the main) thread: bubblewrap's --die-with-parent ends the sandbox
    # when the thread that launched it exits. The zygote imports torch while we do.
    views = bool(config.get("views"))
    # A batch zygote also warms what only some students use; a check would only wait for it.
    zygote = worker_for(config["level"], limits=rubric.limits, warm_more=not views)
    try:
        zygote.start(wait=False)
    except BaseException as exc:  # noqa: BLE001 - reported to the parent
        _send(out, {"op": "fatal", "message": said("sandbox_did_start", why=exc)})
        return 1
    try:
        return _Serving(config, rubric, zygote, out, inp).run(siblings)
    except KeyboardInterrupt:
        return 130
    finally:
        zygote.stop()


class _Serving:
    """One worker's life once its zygote is starting: ready, then chunks until the end."""

    def __init__(self, config: dict[str, Any], rubric: Rubric, zygote: Worker, out: TextIO, inp: TextIO) -> None:
        self.config, self.rubric, self.zygote, self.out, self.inp = config, rubric, zygote, out, inp
        self.views = bool(config.get("views"))
        self.suites = tuple(config.get("suites") or ("public", "hidden"))
        self.hidden: dict[str, int] | None = None
        self.index_of: dict[str, int] = {}
        self.view_of: dict[int, Mapping[str, object]] = {}  # what each check's item asks to see
        self.first = True
        self.frozen = False
        # The parent queues chunks ahead of need; a thread takes them off our stdin as they
        # come, so its writes never wait on us while we wait on it to read our reports.
        self.inbox: queue.Queue[str] = queue.Queue()

    def run(self, siblings: list[dict[str, int]]) -> int:
        import torch

        torch.set_num_threads(1)  # one core per worker: -j N uses N cores, not 2N threads
        from grader.grading import diagnosis  # noqa: F401 - warm imports before freezing
        from grader.kit import asserts as testing  # noqa: F401 - warm imports before freezing
        from grader.errors import GraderError
        from grader.grading.runner import grade

        if self.views:
            from grader.engines import warm_checker as warm

            self.hidden = warm.hidden_counts(self.rubric, self.suites)  # while the zygote imports torch
            warm.prepare()
        for sibling in siblings:
            _fork_sibling(sibling, self.config, (self.zygote, self.out, self.inp, siblings))
        # A check session starts at once, so pytest's set-up and the suite's collection happen
        # while the zygote is still importing torch; it says ready from its first ``more``.
        if not self.views and not self.become_ready():
            return 1
        threading.Thread(target=self._pump, daemon=True).start()
        if self.config.get("heartbeat_s"):
            threading.Thread(target=self._beat, args=(float(self.config["heartbeat_s"]),), daemon=True).start()
        # One pytest session for the worker's whole life: the suites are collected once, and
        # each further chunk arrives through ``more`` when the previous one is done.
        chunk = [] if self.views else self.next_chunk()
        if chunk or self.views:
            try:
                grade(self.rubric, chunk or [], seed=self.config["seed"], worker=self.zygote,
                      on_report=self.on_report, more=self.next_chunk, suites=self.suites,
                      want_plots=self.wants_plots, **_regrade(self.config))
            except GraderError as exc:
                _send(self.out, {"op": "fatal", "message": str(exc)})
                return 1
        return 0

    def become_ready(self) -> bool:
        from grader.errors import GraderError

        zygote = self.zygote
        try:
            zygote.wait_ready()
        except GraderError as exc:
            _send(self.out, {"op": "fatal", "message": said("sandbox_did_start", why=exc)})
            return False
        if self.config.get("cpu") is not None:
            # Only now: while importing, this process and its zygote use whatever CPU is free.
            zygote.pin({int(self.config["cpu"])}, also=os.getpid())
        # Everything imported so far lives as long as the process: keep it out of the
        # collector's sight, and collect rarely (pytest's own gc.collect calls still run).
        gc.freeze()  # (no full pass first: imports leave next to no garbage)
        gc.set_threshold(50_000, 50, 100)
        gc.enable()
        ready = {"op": "ready", "pid": os.getpid(), "level": zygote.level}
        if self.views:
            ready.update(hidden=self.hidden, zygote_pid=zygote.proc.pid if zygote.proc else None)
        _send(self.out, ready)
        return True

    def _beat(self, every: float) -> None:
        """``{"op": "alive"}`` every ``every`` seconds in which the sandbox session made a call
        or started a child: the cluster's task then tells a long submission from a hung process."""
        import time

        from grader.sandbox import child

        seen = child.activity
        while True:
            time.sleep(every)
            if child.activity != seen:
                seen = child.activity
                _send(self.out, {"op": "alive"})

    def _pump(self) -> None:
        for text in self.inp:
            self.inbox.put(text)
        self.inbox.put("")

    def next_chunk(self) -> list[Submission] | None:
        from grader.ingest.submission.model import Submission

        if self.views and self.first and not self.become_ready():
            return None
        if not self.first:
            gc.collect()  # a chunk's garbage goes with it: memory stays flat over a batch
            if not self.frozen:
                # The session itself (collected tests, fixtures, the reference) lives as
                # long as we do: frozen now, each later collection skips its ~10^5 objects.
                gc.freeze()
                self.frozen = True
            _send(self.out, {"op": "chunk_done"})
        self.first = False
        line = self.inbox.get()
        msg: dict[str, Any] = json.loads(line) if line.strip() else {}
        if msg.get("op") != "grade":
            return None
        if msg.get("seed") is not None:
            self.config.setdefault("seed", msg["seed"])  # workers started early learn it here
        subs = [Submission.from_dict(item["submission"]) for item in msg["items"]]
        self.index_of.update((s.name, item["index"]) for s, item in zip(subs, msg["items"]))
        self.view_of.update((item["index"], item.get("view") or {}) for item in msg["items"])
        return subs

    def on_report(self, report: GradeReport) -> None:
        index = self.index_of.pop(report.submission)
        warning = self.config.get("warning")
        try:
            data = report.to_dict()
            if warning:
                data["sandbox"]["warning"] = warning
            message: dict[str, object] = {"op": "report", "index": index, "report": data}
            if self.views:
                from grader.engines import warm_checker as warm

                if warning:
                    report.sandbox["warning"] = warning
                message["views"] = warm.render_views(report, self.rubric, self.view_of.pop(index, {}),
                                                     hidden=self.hidden)
                message["zygote_pid"] = self.zygote.proc.pid if self.zygote.proc else None
            _send(self.out, message)
        except (BrokenPipeError, KeyboardInterrupt):
            raise
        except Exception as exc:  # noqa: BLE001 - this submission gets an error report
            _send(self.out, {"op": "report", "index": index, "report": None,
                             "error": f"its report could not be sent ({type(exc).__name__}: {exc})"[:500]})

    def wants_plots(self, sub: Submission) -> bool:
        return self.views and bool(self.view_of.get(self.index_of.get(sub.name, -1), {}).get("plots"))


class Regrading(TypedDict, total=False):
    """What ``grader regrade`` changes in :func:`grader.grading.runner.grade`: the tests run, and no diagnosis."""

    select: Callable[[str], bool]
    diagnose: bool


def _regrade(config: dict[str, Any]) -> Regrading:
    """``grader regrade``'s config keys: ``"tests"`` (patterns of the test ids to run) and no diagnosis."""
    if not config.get("tests"):
        return {}
    from grader.grading.select import matcher

    return {"select": matcher(list(config["tests"])), "diagnose": False}


def _fork_sibling(sibling: dict[str, int], config: dict[str, Any],
                  mine: tuple[Worker, TextIO, TextIO, list[dict[str, int]]]) -> None:
    """Start another worker as a copy of this process (imports done, no zygote of its own yet).

    Forked twice, so the sibling is nobody's child here and never waits as a zombie. The copy
    drops every channel of this worker (its zygote, its pipes to the parent, the other
    siblings') before it serves its own ``sibling["in"]`` / ``sibling["out"]``.
    """
    pid = os.fork()
    if pid:
        os.waitpid(pid, 0)
        for key in ("in", "out"):
            os.close(sibling[key])  # the sibling has its own copy
        sibling["in"] = sibling["out"] = -1
        return
    code = 70
    try:
        if os.fork():
            os._exit(0)
        zygote, out, inp, siblings = mine
        for fd in [*zygote.owned_fds(), *(s[k] for s in siblings if s is not sibling for k in ("in", "out"))]:
            try:
                if fd >= 0:
                    os.close(fd)
            except OSError:
                pass
        for stream in (out, inp):  # the file objects, so nothing flushes into them later
            try:
                stream.close()
            except OSError:
                pass
        own_out = os.fdopen(sibling["out"], "w", encoding="utf-8")
        own_in = os.fdopen(sibling["in"], "r", encoding="utf-8")
        _send(own_out, {"op": "hello", "pid": os.getpid()})  # so the parent can stop us early
        code = _serve({**config, "cpu": sibling.get("cpu")}, own_out, own_in, [])
        own_out.flush()
    finally:
        os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
