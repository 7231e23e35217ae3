"""The ``subprocess`` level: one fresh interpreter per submission, and the worker for a level.

``worker_for("subprocess", ...)`` is a :class:`SpawnWorker`: no zygote, one fresh interpreter
per submission, talking over its stdin/stdout, read by a thread; it needs no fork, no inherited
pipes and no select on pipes, so it also runs on Windows. Every other level is a
:class:`grader.sandbox.worker.Worker`.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Mapping

from grader.sandbox import wire
from grader.i18n.messages import said
from grader.errors import WorkerCrashed
from grader.sandbox import backends
from grader.sandbox.child import SubmissionSession
from grader.sandbox.limits import Limits
from grader.sandbox.session import Loadable, SubmissionSpec
from grader.sandbox.worker import CLOSE_TIMEOUT_S, READY_TIMEOUT_S, CappedOutput, Worker, refusal


class Spawned:
    """One interpreter of the subprocess level: started fresh, it serves at most one submission.

    It runs ``zygote.py`` with ``"spawned": true``: frames travel on its stdin and stdout, what
    it prints comes on stderr (capped by :class:`CappedOutput`), and a thread turns its stdout into
    frames on a queue, so the trusted side needs no ``select`` on pipes. Its scratch folder
    (cwd, HOME, TMPDIR) is removed by :meth:`finish`.
    """

    def __init__(self, worker: "SpawnWorker") -> None:
        self.launch = backends.launch("subprocess", worker.limits.scratch_mb)
        cfg: wire.ZygoteConfig = {"spawned": True, "scratch": self.launch.scratch, "threads": worker.threads,
                                  "seccomp": False, "pid1": False, "student_uid": worker.student_uid()}
        posix = os.name == "posix"
        try:
            self.proc = subprocess.Popen(
                [*self.launch.argv, json.dumps(cfg)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                env=self.launch.env, cwd=self.launch.scratch, close_fds=True,
                start_new_session=posix,  # so that a kill of the group reaches what it starts
                creationflags=0 if posix else getattr(subprocess, "CREATE_NO_WINDOW", 0),
            )
        except OSError:
            shutil.rmtree(self.launch.scratch, ignore_errors=True)
            raise
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        self.stdin_fd, self.stdout_fd = self.proc.stdin.fileno(), self.proc.stdout.fileno()
        self.started = time.monotonic()
        self.ready: wire.Frame | None = None
        self.killed: str | None = None
        self.closed: wire.Frame | None = None
        #: its frames as they arrive; then None at the end of its stdout, or the WireError
        self.frames: queue.Queue[wire.Frame | wire.WireError | None] = queue.Queue()
        self.output = CappedOutput(self.proc.stderr.fileno(), worker.limits.output_kb * 1024,
                                   lambda: self.kill("output"), owns_fd=False)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        """Frames from stdout onto the queue; then None (end of file) or the WireError."""
        reader = wire.FrameReader()
        fd = self.stdout_fd
        while True:
            try:
                data = os.read(fd, reader.wanted())
            except OSError:
                data = b""
            if not data:
                self.frames.put(None)
                return
            try:
                frames = reader.feed(data)
            except wire.WireError as exc:
                self.frames.put(exc)
                return
            for frame in frames:
                self.frames.put(frame)

    def wait_ready(self, timeout: float) -> bool:
        if self.ready is None:
            try:
                frame = self.frames.get(timeout=timeout)
            except queue.Empty:
                return False
            if not isinstance(frame, dict) or frame.get("op") != "ready":
                return False
            self.ready = frame
        return True

    def send(self, message: Mapping[str, object]) -> None:
        """Write one frame to its stdin (OSError once it has gone)."""
        wire.write_frame(self.stdin_fd, message)

    def kill(self, reason: str | None) -> None:
        """SIGKILL it (and, on POSIX, its process group); safe from any thread.

        ``reason`` is recorded if it was still running (None: just sweep what is left).
        """
        if reason is not None and self.killed is None and self.proc.poll() is None:
            self.killed = reason
        if os.name == "posix":
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            self.proc.kill()
        except OSError:
            pass

    def finish(self, reason: str | None = None) -> wire.Frame:
        """Make sure it is dead, collect its output, remove its scratch folder.

        Returns a ``closed`` message like the zygote's (exit status or signal, and why it was
        killed, if it was).
        """
        if self.closed is not None:
            return self.closed
        if reason is None:  # it ended by itself, or is about to: let its exit status arrive
            try:
                self.proc.wait(timeout=CLOSE_TIMEOUT_S / 5)
            except subprocess.TimeoutExpired:
                reason = "channel"  # it closed its stdout but runs on
        self.kill(reason)  # and whatever it left in its process group goes too
        status = None
        try:
            status = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        self.reader.join(timeout=2)
        self.output.thread.join(timeout=2)
        for pipe, thread in ((self.proc.stdin, None), (self.proc.stdout, self.reader),
                             (self.proc.stderr, self.output.thread)):
            if pipe is not None and (thread is None or not thread.is_alive()):
                try:
                    pipe.close()
                except OSError:
                    pass
        for path in self.launch.cleanup:
            shutil.rmtree(path, ignore_errors=True)
        closed: wire.Frame = {"op": "closed", "killed": self.killed is not None}
        if self.killed is not None:
            closed["reason"] = self.killed
        if status is not None and status < 0:
            closed["signal"] = -status
        else:
            closed["exit"] = status
        self.closed = closed
        return closed


class SpawnWorker(Worker):
    """The ``subprocess`` level: a fresh interpreter per submission instead of a forking zygote.

    Made by :func:`worker_for` for the "subprocess" level. Each submission (and each fresh start after a
    timeout or crash inside one) gets a new Python process that imports torch itself, so that
    cost is paid per submission. Once a worker has served one process, it starts the next
    while the current one is graded (``prespawn``); a single ``grader check`` never pays for a
    process it does not use. Time limits are kept by killing the process, output is capped as
    at the other levels; fork, inherited pipes, select on pipes, /proc, rlimits and seccomp are
    all unneeded, which is what makes it the level for Windows.
    """

    #: from the second process on, start the next one while the current one is graded
    #: (hides part of torch's import where a core is free)
    prespawn = True

    def __post_init__(self) -> None:
        super().__post_init__()
        self._child: Spawned | None = None
        self._spare: Spawned | None = None
        self._running = False
        self._taken = 0  # processes handed to children so far

    # -- life cycle ----------------------------------------------------------------------
    def start(self, wait: bool = True) -> "SpawnWorker":
        if self._running:
            self.stop()
            self.restarts += 1
        self._running = True
        self.info = {}
        self._spare = self._new_process()
        if wait:
            self.wait_ready()
        return self

    def wait_ready(self) -> "SpawnWorker":
        if not self.info:
            spare = self._ready_spare()
            self.info = dict(spare.ready or {})
            self.started_s = time.monotonic() - spare.started
        return self

    def _ready_spare(self) -> Spawned:
        """The process the next submission will get, once it has imported torch."""
        if not self._running:
            self.start(wait=False)
        if self._spare is None:
            self._spare = self._new_process()
        spare = self._spare
        if not spare.wait_ready(READY_TIMEOUT_S):
            self._spare = None
            spare.finish("start")
            text = spare.output.rest()
            raise WorkerCrashed(said("subprocess_worker_did_start", why=text.strip()[-2000:]))
        if (spare.ready or {}).get("refused"):
            why = str((spare.ready or {})["refused"])
            self.stop()
            raise refusal(self.level, why)
        return spare

    def _new_process(self) -> Spawned:
        try:
            return Spawned(self)
        except OSError as exc:
            raise WorkerCrashed(said("subprocess_worker_could_started", why=exc)) from None

    def alive(self) -> bool:
        return self._running

    def healthy(self) -> bool:
        return self._running  # nothing is ever reused, so nothing can be left over

    def stop(self) -> None:
        self._running = False
        for each in (self._child, self._spare):
            if each is not None:
                each.finish("stop")
        self._child = self._spare = None
        self.proc = None

    def open(self, submission: Loadable | SubmissionSpec, limits: Limits | None = None) -> SubmissionSession:
        try:
            self._ready_spare()  # importing torch is not the submission's time
        except WorkerCrashed:
            pass  # the session tries once more and reports why it could not load
        return super().open(submission, limits)

    # -- one process per child ---------------------------------------------------------------
    def _prepare_child(self) -> None:
        pass

    def _send_open(self, message: Mapping[str, object]) -> bool:
        self._finish_child()
        child = self._ready_spare()
        self._taken += 1
        self._spare = None
        if self.prespawn and self._taken > 1:
            try:
                self._spare = self._new_process()
            except WorkerCrashed:
                pass  # the next submission starts its own, or says why it cannot
        self._child, self.proc, self._output = child, child.proc, child.output
        child.output.take()  # what it printed while starting is no submission's
        try:
            child.send(message)
        except OSError:
            self._finish_child()
            return False
        return True

    def _retry_open(self) -> None:
        pass  # the next _send_open takes a fresh process anyway

    def _host_alive(self) -> bool:
        return False  # the process that died was the submission's own

    def _finish_child(self, reason: str | None = None) -> wire.Frame:
        child, self._child = self._child, None
        if child is None:
            return {}
        self.proc = None
        return child.finish(reason)

    def _wait_frames(self, left: float) -> list[wire.Frame]:
        child = self._child
        if child is None:
            raise WorkerCrashed(said("worker_process_gone"))
        try:
            item = child.frames.get(timeout=max(left, 0.0))
        except queue.Empty:
            return []
        if isinstance(item, dict):
            return [item]
        if item is None:  # end of its stdout: the process ended (or closed it)
            raise WorkerCrashed(self._closed_message(self._finish_child()))
        self._finish_child("protocol")
        raise WorkerCrashed(said("worker_sent_invalid_frame", what=item))

    def _send_request(self, message: Mapping[str, object]) -> None:
        if self._child is None:
            raise OSError("no process is open")
        self._child.send(message)

    def _kill_child(self, reason: str = "kill") -> None:
        self._finish_child(reason)

    def end_child(self) -> wire.Frame | None:
        child = self._child
        if child is None:
            return None
        try:
            child.send({"op": "end"})
            child.proc.wait(timeout=CLOSE_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired):
            return self._finish_child("end")
        return self._finish_child()


def worker_for(level: str, *, limits: Limits | None = None, threads: int = 1, seccomp: bool | None = None,
               hide: tuple[str, ...] = (), warm_more: bool = False) -> Worker:
    """The worker for ``level``: a :class:`SpawnWorker` for "subprocess", else a zygote
    :class:`grader.sandbox.worker.Worker` (see its arguments); not started yet."""
    kind = SpawnWorker if level == "subprocess" else Worker
    return kind(level=level, limits=Limits() if limits is None else limits, threads=threads, seccomp=seccomp, hide=hide, warm_more=warm_more)
