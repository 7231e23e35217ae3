"""The trusted side of the channel: start a zygote, open submissions, call functions.

Usage::

    with Worker(level="namespaces", limits=limits) as worker:
        session = worker.open(submission)           # forks a fresh child for it
        value = session.call("part1", "double", [2.5], {})     # 5.0
        output = session.close()                    # everything it started is killed

Every value that comes back is plain data decoded by :mod:`grader.sandbox.wire`; a student object
never reaches this process. A call over its time limit, or a child that dies, raises
:class:`StudentTimeout` / :class:`WorkerCrashed`; the session then reopens a fresh child on
the next call. A function that hung once (or crashed twice) fails its later calls at once with
the same message, and the time it spent is not charged to the submission's budget, so one
function's hangs cost only that function's tests.

``Worker(level="subprocess")`` is a :class:`SpawnWorker`: no zygote, one fresh interpreter per
submission, talking over its stdin/stdout, read by a thread; it needs no fork, no inherited
pipes and no select on pipes, so it also runs on Windows.
"""

from __future__ import annotations

import json
import os
import queue
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
import weakref
from dataclasses import dataclass, field
from typing import Any

from grader.sandbox import wire
from grader.i18n.messages import said
from grader.sandbox.limits import Limits
from grader.errors import SandboxError, SandboxRefused, WorkerCrashed
from grader.sandbox import backends, uids
from grader.sandbox.session import StudentRaised, StudentTimeout, StudentUnavailable

READY_TIMEOUT_S = 120.0
CLOSE_TIMEOUT_S = 5.0
#: output beyond this many times ``output_kb`` gets the child killed
FLOOD_FACTOR = 64
#: extra seconds, on top of ``per_call_s``, that loading one module may take
LOAD_GRACE_S = 5.0
#: crashes of one function after which its later calls in the same submission fail at once
CRASHES_PER_FUNCTION = 2


class _Output:
    """Drains the worker's stdout/stderr pipe, keeping at most ``cap`` bytes per submission.

    Beyond ``FLOOD_FACTOR`` times the cap the bytes are not only dropped: ``on_flood`` is
    called once, and the worker kills the child (a flood still costs CPU to read).
    """

    def __init__(self, fd: int, cap: int, on_flood: Any = None, owns_fd: bool = True) -> None:
        self.fd = fd
        self.owns_fd = owns_fd  # close ``fd`` at end of file (False: its file object does)
        self.cap = cap
        self.buf = bytearray()
        self.dropped = 0
        self.flooded = False
        self.on_flood = on_flood
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self._drain()
        finally:
            if self.owns_fd:  # every writer is gone (the sandbox ended): the pipe is ours to close
                try:
                    os.close(self.fd)
                except OSError:
                    pass

    def _drain(self) -> None:
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except OSError:
                return
            if not data:
                return
            fire = False
            with self.lock:
                room = self.cap - len(self.buf)
                if room > 0:
                    self.buf += data[:room]
                self.dropped += max(0, len(data) - max(room, 0))
                if not self.flooded and len(self.buf) + self.dropped > FLOOD_FACTOR * self.cap:
                    self.flooded = fire = True
            if fire and self.on_flood is not None:
                try:
                    self.on_flood()
                except Exception:  # noqa: BLE001 - never let the reader die
                    pass

    def rest(self, timeout: float = 2.0) -> str:
        """All it wrote, for a process that has just been stopped: the pipe read to its end
        first (a busy machine may lag behind the exit), for at most ``timeout`` seconds."""
        self.thread.join(timeout=timeout)
        return self.take()

    def take(self) -> str:
        with self.lock:
            text = self.buf.decode("utf-8", "replace")
            if self.dropped:
                text += f"\n[... {self.dropped} more bytes of output dropped]\n"
            self.buf.clear()
            self.dropped = 0
            self.flooded = False
        return text


@dataclass
class Worker:
    """One warm zygote process (sandboxed according to ``level``).

    Args:
        level: "namespaces" (bubblewrap), "rlimits", or "subprocess" (which makes the
            instance a :class:`SpawnWorker`).
        limits: the rubric's limits (anything :meth:`Limits.of` accepts).
        threads: torch threads in each child (set in the zygote before any op).
        seccomp: install the no-process filter in each child; None = wherever it works
            (Linux x86_64/aarch64). False leaves only the zygote's watch (for tests).
        hide: host paths that must stay invisible even if they lie inside a folder the
            sandbox binds (e.g. hidden suites inside the virtualenv); namespaces only.
    """

    level: str = "namespaces"
    limits: Any = None
    threads: int = 1
    seccomp: bool | None = None
    hide: tuple[str, ...] = ()
    info: dict[str, Any] = field(default_factory=dict)
    #: also warm what only some students use and costs the zygote's start-up (e.g. the sympy
    #: import behind ``torch.broadcast_shapes``): worth it for a batch, not for one check
    warm_more: bool = False

    def __new__(cls, *args: Any, **kwargs: Any) -> "Worker":
        level = kwargs.get("level", args[0] if args else "namespaces")
        if cls is Worker and level == "subprocess":
            cls = SpawnWorker
        return super().__new__(cls)

    def __post_init__(self) -> None:
        self.limits = Limits.of(self.limits)
        self.proc: subprocess.Popen[bytes] | None = None
        self._fds: dict[str, int] = {}
        self._reader = wire.FrameReader()
        self._ctl_reader = wire.FrameReader()
        self._ctl_lock = threading.Lock()
        self._output: _Output | None = None
        self._launch: backends.Launch | None = None
        self._next_id = 0
        self._dead = False
        self._generation = 0
        self._flood_generation = -1
        self._needs_restart = False
        self.loading: str | None = None  # the module the current child is importing
        self.in_force: dict[str, Any] = {}  # what the last child reported as applied
        self.restarts = 0
        self.started_s = 0.0  # seconds the last start took
        self._uid: uids.Claim | None = None  # root, outside namespaces: the students' user id of this worker

    def student_uid(self) -> int | str | None:
        """The user id this worker's student code runs as (claimed once, kept across restarts),
        or why none could be had; None when not root (the code runs as the grader's user)."""
        if not hasattr(os, "geteuid") or os.geteuid() != 0:
            return None
        if self._uid is None:
            self._uid = uids.claim_uid()
            weakref.finalize(self, self._uid.release)
        return self._uid.uid

    # -- life cycle ----------------------------------------------------------------------
    def start(self, wait: bool = True) -> "Worker":
        """Start the zygote; returns when it has imported torch and said it is ready.

        Args:
            wait: False returns as soon as the process exists; :meth:`wait_ready` (called by
                :meth:`open` if need be) finishes the start. Call this from the thread that
                will outlive the worker: bubblewrap's ``--die-with-parent`` ends the sandbox
                when the thread that started it exits.
        """
        if os.name != "posix":
            raise SandboxError(
                said("worker_needs_posix_pipes", level=self.level)
            )
        if self.proc is not None:  # an earlier zygote (dead or alive): clear it away first
            self.stop()
            self.restarts += 1
        t0 = time.monotonic()
        launch = backends.launch(self.level, self.limits.scratch_mb, hide=self.hide)
        self._launch = launch
        req_r, req_w = os.pipe()
        resp_r, resp_w = os.pipe()
        ci_r, ci_w = os.pipe()
        co_r, co_w = os.pipe()
        out_r, out_w = os.pipe()
        seccomp = self.seccomp
        if seccomp is None:
            seccomp = sys.platform.startswith("linux") and backends.SECCOMP.exists()
        cfg = {
            "req": req_r, "resp": resp_w, "ctl_in": ci_r, "ctl_out": co_w,
            "scratch": launch.scratch, "pid1": launch.pid1, "threads": self.threads,
            "seccomp": bool(seccomp), "warm_more": self.warm_more,
        }
        if not launch.pid1:
            cfg["student_uid"] = self.student_uid()
        inside = (req_r, resp_w, ci_r, co_w)
        try:
            self.proc = subprocess.Popen(
                [*launch.argv, json.dumps(cfg)],
                stdin=subprocess.DEVNULL, stdout=out_w, stderr=out_w,
                pass_fds=inside, env=launch.env, start_new_session=os.name == "posix",
                cwd=launch.scratch if launch.level != "namespaces" else None,
            )
        finally:
            for fd in (*inside, out_w):
                os.close(fd)
        self._fds = {"req": req_w, "resp": resp_r, "ctl_in": ci_w, "ctl_out": co_r}
        self._dead = False
        self._needs_restart = False
        self._generation = 0
        self._ctl_reader.reset()
        self._reader.reset()
        self._output = _Output(out_r, self.limits.output_kb * 1024, self._on_flood)
        self._t0 = t0
        self.info = {}
        if wait:
            self.wait_ready()
        return self

    def wait_ready(self) -> "Worker":
        """Wait until a zygote started with ``start(wait=False)`` has said it is ready."""
        if self.info:
            return self
        t0 = getattr(self, "_t0", time.monotonic())
        ready = self._ctl_wait(READY_TIMEOUT_S)
        if ready is None or ready.get("op") != "ready":
            self.stop()
            text = self._output.rest() if self._output else ""
            raise WorkerCrashed(said("worker_did_start", level=self.level, why=text.strip()[-2000:]))
        if ready.get("refused"):
            self.stop()
            raise refusal(self.level, str(ready["refused"]))
        self.info = ready
        self.started_s = time.monotonic() - t0
        return self

    def alive(self) -> bool:
        return not self._dead and self.proc is not None and self.proc.poll() is None

    def pin(self, cpus: set[int], also: int | None = None) -> None:
        """Keep the sandbox (and ``also``, e.g. the caller) on ``cpus`` from now on.

        Applied to every process of the sandbox as it stands; the zygote's later children
        inherit it. Best effort: where affinity cannot be set, nothing changes.
        """
        pids = [also] if also else []
        if self.proc is not None:
            pids.append(self.proc.pid)
            todo = [self.proc.pid]
            while todo:
                kids = _children(todo.pop())
                pids += kids
                todo += kids
        for pid in pids:
            try:
                os.sched_setaffinity(pid, cpus)
            except (AttributeError, OSError, ValueError):
                pass

    def owned_fds(self) -> list[int]:
        """The descriptors of this worker's channel (for a forked copy of its owner to drop)."""
        fds = list(self._fds.values())
        if self._output is not None:
            fds.append(self._output.fd)
        return fds

    def stop(self) -> None:
        """Kill the zygote and everything in its sandbox."""
        proc = self.proc
        if proc is not None:
            try:
                if os.name == "posix":
                    os.killpg(proc.pid, signal.SIGKILL)
                else:
                    proc.kill()
            except (ProcessLookupError, PermissionError, OSError):
                pass
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        for fd in self._fds.values():
            try:
                os.close(fd)
            except OSError:
                pass
        self._fds = {}
        self.proc = None
        if self._launch is not None:
            for path in self._launch.cleanup:
                shutil.rmtree(path, ignore_errors=True)
            self._launch = None

    def restart(self) -> None:
        self.stop()
        self.restarts += 1
        self.start()

    def healthy(self) -> bool:
        """Ask the zygote whether it is fit for another submission (no child may be open)."""
        if not self.alive() or self._needs_restart:
            return False
        if not self._ctl_send({"op": "ping"}):
            return False
        msg = self._ctl_wait(CLOSE_TIMEOUT_S)
        return msg is not None and msg.get("op") == "pong" and bool(msg.get("clean"))

    def describe(self) -> dict[str, Any]:
        """What isolation is in force, for reports (``sandbox`` section)."""
        out: dict[str, Any] = {"level": self.level, "limits": self.limits.to_dict()}
        out["isolation"] = backends.describe(self.level)
        if self.in_force:
            out["enforced"] = dict(self.in_force)
        return out

    def __enter__(self) -> "Worker":
        if not self.alive():
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- control pipe ----------------------------------------------------------------------
    def _ctl_wait(self, timeout: float) -> dict[str, Any] | None:
        deadline = time.monotonic() + timeout
        fd = self._fds.get("ctl_out")
        if fd is None:
            return None
        while True:
            pending = self._ctl_reader.feed(b"")
            if pending:
                return pending[0]
            left = deadline - time.monotonic()
            if left < 0 and timeout > 0:
                return None
            ready, _, _ = select.select([fd], [], [], max(left, 0.0))
            if not ready:
                return None
            data = os.read(fd, 1 << 16)
            if not data:
                self._dead = True
                return None
            frames = self._ctl_reader.feed(data)
            if frames:
                return frames[0]

    def _ctl_send(self, message: dict[str, Any]) -> bool:
        with self._ctl_lock:
            try:
                wire.write_frame(self._fds["ctl_in"], message)
                return True
            except (OSError, KeyError):
                return False

    def _on_flood(self) -> None:
        """Called from the output thread: the child printed far too much; stop it."""
        generation = self._generation
        self._flood_generation = generation
        self._ctl_send({"op": "kill", "child": generation, "reason": "output"})

    # -- submissions -------------------------------------------------------------------------
    def open(self, submission: Any, limits: Any = None) -> "SubmissionSession":
        """Fork a fresh child holding ``submission``'s code (a ``Submission`` or its dict)."""
        return SubmissionSession(self, submission, Limits.of(limits) if limits else self.limits)

    def _spawn_child(
        self, kind: str, modules: list[dict[str, Any]], limits: Limits,
        skip: list[str] | None = None, deadline: float | None = None,
    ) -> dict[str, Any]:
        self._prepare_child()
        message = {"op": "open", "kind": kind, "modules": modules, "limits": limits.to_dict(),
                   "skip": list(skip or [])}
        step = limits.per_call_s + LOAD_GRACE_S
        for attempt in (1, 2):
            self._generation += 1
            self.loading = None
            self._limits_seen = False
            if not self._send_open(message):
                self._retry_open()
                continue
            try:
                return self._receive(None, step, step=step, deadline=deadline)
            except WorkerCrashed:
                # Before the first "loading" frame no student code has run: a zygote that
                # died then was not killed by this submission. Start afresh, once.
                if attempt == 2 or self.loading is not None or self._host_alive():
                    raise
                self._retry_open()
        raise WorkerCrashed(said("worker_could_started_again"))

    # The steps of opening a child that the subprocess level does its own way.
    def _prepare_child(self) -> None:
        if not self.alive() or self._needs_restart:
            self.restart()
        self.wait_ready()
        self._reader.reset()
        if self._output is not None:
            self._output.take()  # whatever an earlier child printed is not this one's

    def _send_open(self, message: dict[str, Any]) -> bool:
        return self._ctl_send(message)

    def _retry_open(self) -> None:
        self.restart()

    def _host_alive(self) -> bool:
        """Whether the process that starts children survived a child's death (the zygote)."""
        return self.alive()

    def _receive(
        self, want_id: int | None, timeout: float, step: float | None = None,
        deadline: float | None = None,
    ) -> dict[str, Any]:
        """Wait for the child's next frame (or its death, or the deadline).

        ``{"op": "loading"}`` frames (a module is about to be imported) are recorded in
        :attr:`loading` and, with ``step``, give each module its own ``step`` seconds.
        """
        limit = time.monotonic() + timeout
        if deadline is not None:
            limit = min(limit, deadline)
        pending: list[dict[str, Any]] = []
        while True:
            pending += self._reader.feed(b"")
            while pending:
                frame = pending.pop(0)
                if frame.get("op") == "loading":
                    self.loading = str(frame.get("module"))[:200]
                    if step is not None:
                        limit = time.monotonic() + step
                        if deadline is not None:
                            limit = min(limit, deadline)
                    continue
                if frame.get("op") == "limits":
                    # Sent before any student code runs; a later copy can only be forged.
                    if not getattr(self, "_limits_seen", True) and type(frame.get("in_force")) is dict:
                        self.in_force = _plain_limits(frame["in_force"])
                        self._limits_seen = True
                    continue
                if want_id is None or frame.get("id") == want_id:
                    if (frame.get("op") == "loaded" and type(frame.get("in_force")) is dict
                            and not getattr(self, "_limits_seen", False)):
                        self.in_force = _plain_limits(frame["in_force"])
                    return frame
            left = limit - time.monotonic()
            if left <= 0:
                self._kill_child("timeout")
                raise StudentTimeout(said("no_answer_within_s", seconds=f"{timeout:.3g}"))
            pending += self._wait_frames(left)

    def _wait_frames(self, left: float) -> list[dict[str, Any]]:
        """Frames that arrive within ``left`` seconds (maybe none); WorkerCrashed if the child ends."""
        resp, ctl = self._fds["resp"], self._fds["ctl_out"]
        ready, _, _ = select.select([resp, ctl], [], [], left)
        if resp in ready:
            data = os.read(resp, self._reader.wanted())
            if data:
                try:
                    return self._reader.feed(data)
                except wire.WireError as exc:
                    self._kill_child("protocol")
                    raise WorkerCrashed(said("worker_sent_invalid_frame", what=exc)) from None
        if ctl in ready:
            closed = self._ctl_wait(0.0)
            if closed is None and self._dead:
                self.stop()
                raise WorkerCrashed(said("worker_process_died"))
            if closed is not None and closed.get("op") == "closed":
                self._after_close(closed)
                raise WorkerCrashed(self._closed_message(closed))
        return []

    def _closed_message(self, closed: dict[str, Any]) -> str:
        reason = closed.get("reason")
        if reason == "output" or self._flood_generation == closed.get("child", self._generation):
            cap = self.limits.output_kb
            return said("printed_too_much", total=FLOOD_FACTOR * cap, factor=FLOOD_FACTOR, cap=cap)
        if reason == "processes":
            return said("started_a_process", processes=self.limits.processes)
        return _describe_exit(closed)

    def _kill_child(self, reason: str = "kill") -> None:
        """SIGKILL the current child (and everything it started) through the zygote."""
        if self._ctl_send({"op": "kill", "child": self._generation, "reason": reason}):
            msg = self._ctl_wait(CLOSE_TIMEOUT_S)
            if msg is not None and msg.get("op") == "closed":
                self._after_close(msg)
                return
        self.restart()  # the zygote did not answer: throw the whole sandbox away

    def _after_close(self, closed: dict[str, Any] | None = None) -> None:
        """All writers of the response pipe are dead now: drop whatever they left in it."""
        wire.drain(self._fds["resp"])
        self._reader.reset()
        if closed is not None and not closed.get("clean", True):
            self._needs_restart = True  # e.g. scratch could not be emptied: start afresh

    def _end_child(self) -> dict[str, Any] | None:
        try:
            wire.write_frame(self._fds["req"], {"op": "end"})
        except OSError:
            pass
        msg = self._ctl_wait(CLOSE_TIMEOUT_S)
        if msg is None or msg.get("op") != "closed":
            self._kill_child("end")
            return None
        self._after_close(msg)
        return msg

    def _request(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        self._next_id += 1
        message["id"] = self._next_id
        try:
            self._send_request(message)
        except OSError:
            raise WorkerCrashed(said("worker_s_channel_closed")) from None
        return self._receive(self._next_id, timeout)

    def _send_request(self, message: dict[str, Any]) -> None:
        wire.write_frame(self._fds["req"], message)


def refusal(level: str, why: str) -> SandboxRefused:
    """Why grading stops before any student code runs: the worker is root outside namespaces
    and cannot become an unprivileged user (``why``, as the zygote said it)."""
    return SandboxRefused(
        said("refusing_grade_level_student", level=level, why=why)
    )


def _children(pid: int) -> list[int]:
    """The children of ``pid`` (Linux /proc; empty elsewhere)."""
    out: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                out += [int(p) for p in fh.read().split()]
    except OSError:
        pass
    return out


def _describe_exit(closed: dict[str, Any]) -> str:
    if "signal" in closed:
        sig = closed["signal"]
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        hint = {
            "SIGXCPU": said("hint_cpu_limit"),
            "SIGKILL": said("hint_time_or_memory"),
            "SIGSYS": said("hint_forbidden_call"),
            "SIGSEGV": said("hint_crashed"),
        }.get(name)
        return said("ended_worker_signal_why", name=name, why=hint) if hint else said("ended_worker_signal", name=name)
    return said("ended_worker_exit", status=str(closed.get("exit")))


#: Calls begun and children started by every session of this process: a batch worker on a
#: cluster says it is alive only while this moves (grader.engines.batch_worker), so a submission that
#: takes long but keeps making calls is never mistaken for a hung grading process.
activity = 0


def _busy() -> None:
    global activity
    activity += 1


class SubmissionSession:
    """One submission loaded in a child of the zygote."""

    def __init__(self, worker: Worker, submission: Any, limits: Limits) -> None:
        self.worker = worker
        self.limits = limits
        if isinstance(submission, dict):
            self.kind = submission["kind"]
            self.modules = submission["modules"]
        else:
            self.kind = submission.kind
            self.modules = [m.to_dict() for m in submission.modules]
        self.started = time.monotonic()
        self.deadline = self.started + limits.per_submission_s
        self.events: list[str] = []  # timeouts, crashes: for report.errors
        self.load_report: dict[str, Any] = {}
        self.output_parts: list[str] = []
        self.open_child = False
        self.calls = 0
        self.skipped: dict[str, dict[str, Any]] = {}  # files that killed or hung the child
        # (part, function) -> the error its later calls raise at once: it hung once, or
        # crashed CRASHES_PER_FUNCTION times. One function's hangs cost only its own calls.
        self.stuck: dict[tuple[str, str], SandboxError] = {}
        self.crashes: dict[tuple[str, str], int] = {}
        #: seconds spent in calls that hung or crashed and in the restarts after them; the
        #: per-submission deadline moves on by as much, so they never use up the others' time
        self.excused_s = 0.0
        self.enforced: dict[str, Any] = {}  # limits the child reported as applied
        self._spawn()

    def _spawn(self) -> None:
        """Fork a child and load the files; a file that kills or hangs the child is set aside.

        If the child dies or hangs while importing one file (or running one notebook cell),
        that file (cell) alone is marked as failed and the child is forked again without it,
        so the other parts (cells) still run.
        """
        while True:
            _busy()
            try:
                frame = self.worker._spawn_child(
                    self.kind, self.modules, self.limits, skip=list(self.skipped), deadline=self.deadline,
                )
            except (WorkerCrashed, StudentTimeout) as exc:
                timed_out = isinstance(exc, StudentTimeout)
                culprit = self.worker.loading
                self._collect_output()
                if culprit and culprit not in self.skipped and time.monotonic() < self.deadline:
                    mod = next((m for m in self.modules if m["name"] == culprit), None)
                    filename = mod["filename"] if mod else culprit
                    seconds = f"{self.limits.per_call_s + 5:g}"
                    if mod is None and self.kind == "notebook":  # one cell (its label)
                        text = (said("running_cell_did_not_finish", cell=culprit, seconds=seconds) if timed_out
                                else said("running_cell_ended_worker", cell=culprit, what=exc))
                    elif timed_out:
                        text = said("importing_did_finish_within", filename=filename, seconds=seconds)
                    else:
                        text = said("importing_ended_worker_process", filename=filename, what=exc)
                    self.events.append(text)
                    self.skipped[culprit] = {"ok": False, "error": {
                        "type": "timeout" if timed_out else "crash", "message": text,
                        "file": filename, "line": 0}}
                    continue
                kind = "timeout" if timed_out else "crash"
                text = (said("loading_submission_took_longer") if timed_out
                        else said("loading_submission_failed", what=exc))
                self.events.append(text)
                self.load_report = {m["name"]: self.skipped.get(m["name"]) or {"ok": False, "error": {
                    "type": kind, "message": text, "file": m["filename"], "line": 0}} for m in self.modules}
                self.open_child = False
                return
            report = frame.get("modules", {}) if type(frame.get("modules")) is dict else {}
            self.load_report = self._with_set_aside(report)
            self.enforced = dict(self.worker.in_force)
            self.open_child = True
            return

    def _with_set_aside(self, report: dict[str, Any]) -> dict[str, Any]:
        """The child's load report with what was set aside: a file as its own entry; a notebook
        cell as one of the notebook's cell errors (its other cells ran, its functions stand)."""
        modules = {m["name"] for m in self.modules}
        for key, status in self.skipped.items():
            if key in modules or self.kind != "notebook" or not self.modules:
                report[key] = status
                continue
            name = self.modules[0]["name"]
            notebook = report.get(name)
            if type(notebook) is not dict:
                notebook = report[name] = {"ok": True}
            errors = notebook.get("cell_errors")
            notebook["cell_errors"] = [*(errors if type(errors) is list else []), status["error"]]
            notebook["ok"] = False
            notebook.setdefault("error", status["error"])
        return report

    def module_for(self, part: str) -> dict[str, Any] | None:
        for m in self.modules:
            if (self.kind == "folder" and m["name"] == part) or self.kind == "notebook":
                return m
        return None

    def load_error(self, part: str) -> dict[str, Any] | None:
        mod = self.module_for(part)
        if mod is None:
            return None
        status = self.load_report.get(mod["name"])
        if isinstance(status, dict) and not status.get("ok") and self.kind == "folder":
            err = status.get("error")
            return err if isinstance(err, dict) else {"type": "Error", "message": "failed to load"}
        return None

    def call(self, part: str, func: str, args: list[Any], kwargs: dict[str, Any], *,
             echo_args: bool = False) -> Any:
        """Call ``part.func(*args, **kwargs)`` in the child and return plain data.

        With ``echo_args`` the result is ``(value, args_after)``: the positional arguments as
        the call left them, so a test can tell whether the function changed its input.

        Raises:
            StudentUnavailable: no such function, or its file failed to load.
            StudentTimeout: the call (or the whole submission) ran out of time.
            WorkerCrashed: the child died during the call.
            grader.sandbox.session.StudentRaised: the function raised; the exception is described.
        """
        mod = self._callable(part, func)
        timeout = self._time_for_call()
        self.calls += 1
        _busy()
        began = time.monotonic()
        try:
            reply = self.worker._request(
                {"op": "call", "part": part, "func": func,
                 "args": wire.encode(list(args)), "kwargs": wire.encode(dict(kwargs)),
                 **({"echo": True} if echo_args else {})},
                timeout,
            )
        except StudentTimeout:
            raise self._timed_out(part, func, timeout, began) from None
        except WorkerCrashed as exc:
            raise self._crashed(part, func, exc, began) from None
        return self._answer(reply, func, mod, echo_args)

    def _callable(self, part: str, func: str) -> dict[str, Any]:
        """The module to call ``func`` in; raises at once what a call could only repeat."""
        mod = self.module_for(part)
        if mod is None:
            raise StudentUnavailable(said("no_py_submission", part=part), f"{part}.py", 0)
        err = self.load_error(part)
        if err is not None:
            raise StudentUnavailable(
                said("line", file=err.get("file") or mod["filename"], line=err.get("line", 0),
                     what=f"{err.get('type')}: {err.get('message')}"),
                str(err.get("file") or mod["filename"]), int(err.get("line") or 0),
            )
        stuck = self.stuck.get((part, func))
        if stuck is not None:
            raise type(stuck)(str(stuck))  # the same message, without a second wait
        return mod

    def _time_for_call(self) -> float:
        """Seconds the next call may take; a child is started again first if the last one died."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise StudentTimeout(said("submission_used_up_s", seconds=f"{self.limits.per_submission_s:g}"))
        if not self.open_child:
            restarted = time.monotonic()
            self._spawn()  # only after a hang or a crash: not charged to the submission
            self._excuse(time.monotonic() - restarted)
            if not self.open_child:
                raise WorkerCrashed(self.events[-1] if self.events else "the worker could not start")
            left = self.deadline - time.monotonic()
        return min(self.limits.per_call_s, left)

    def _timed_out(self, part: str, func: str, timeout: float, began: float) -> StudentTimeout:
        self.open_child = False
        self._collect_output()
        per_call = timeout >= self.limits.per_call_s
        msg = said("call_over_per_call" if per_call else "call_over_per_submission", func=func,
                   seconds=f"{timeout:.3g}")
        self.events.append(msg)
        if per_call:  # it hung by itself, not because the submission's time ran out
            self.stuck[(part, func)] = StudentTimeout(msg)
            self._excuse(time.monotonic() - began)
        return StudentTimeout(msg)

    def _crashed(self, part: str, func: str, exc: WorkerCrashed, began: float) -> WorkerCrashed:
        self.open_child = False
        self._collect_output()
        msg = said("during_call", func=func, what=exc)
        self.events.append(msg)
        self._excuse(time.monotonic() - began)
        key = (part, func)
        self.crashes[key] = self.crashes.get(key, 0) + 1
        if self.crashes[key] >= CRASHES_PER_FUNCTION:
            self.stuck[key] = WorkerCrashed(msg)
        return WorkerCrashed(msg)

    def _answer(self, reply: dict[str, Any], func: str, mod: dict[str, Any], echo_args: bool) -> Any:
        """The call's value (and arguments), or the student's exception raised on this side."""

        if reply.get("ok") is True:
            try:
                value = wire.decode(reply.get("value"))
            except wire.WireError as exc:
                raise WorkerCrashed(said("returned_something_could_read", func=func, why=exc)) from None
            if not echo_args:
                return value
            if not (isinstance(value, dict) and isinstance(value.get("args"), list)):
                return value, None  # an unsendable value: no arguments came back with it
            return value.get("value"), value["args"]
        if reply.get("kind") == "missing":
            raise StudentUnavailable(said("defines_no_function", file=mod['filename'], func=func), mod["filename"], 0)
        error = reply.get("error") if isinstance(reply.get("error"), dict) else {}
        raise StudentRaised(
            str(error.get("type", "Exception")),
            str(error.get("message", "")),
            _where(error),
            [str(b) for b in error.get("bases", []) if isinstance(b, str)],
        )

    def _excuse(self, seconds: float) -> None:
        self.excused_s += seconds
        self.deadline += seconds

    def _collect_output(self) -> None:
        if self.worker._output is not None:
            text = self.worker._output.take()
            if text:
                self.output_parts.append(text)

    def close(self) -> str:
        """End the child; returns what the student's code printed (capped)."""
        if self.open_child:
            self.worker._end_child()
            self.open_child = False
        self._collect_output()
        return "".join(self.output_parts)


def _where(error: dict[str, Any]) -> str:
    file, line = error.get("file"), error.get("line")
    if file and line:
        return f"{file}, line {line}"
    return str(file or "")


# --------------------------------------------------------------------------- subprocess level


class _Spawned:
    """One interpreter of the subprocess level: started fresh, it serves at most one submission.

    It runs ``zygote.py`` with ``"spawned": true``: frames travel on its stdin and stdout, what
    it prints comes on stderr (capped by :class:`_Output`), and a thread turns its stdout into
    frames on a queue, so the trusted side needs no ``select`` on pipes. Its scratch folder
    (cwd, HOME, TMPDIR) is removed by :meth:`finish`.
    """

    def __init__(self, worker: "SpawnWorker") -> None:
        self.launch = backends.launch("subprocess", worker.limits.scratch_mb)
        cfg = {"spawned": True, "scratch": self.launch.scratch, "threads": worker.threads,
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
        self.started = time.monotonic()
        self.ready: dict[str, Any] | None = None
        self.killed: str | None = None
        self.closed: dict[str, Any] | None = None
        self.frames: queue.Queue[Any] = queue.Queue()
        self.output = _Output(self.proc.stderr.fileno(), worker.limits.output_kb * 1024,
                              lambda: self.kill("output"), owns_fd=False)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        """Frames from stdout onto the queue; then None (end of file) or the WireError."""
        reader = wire.FrameReader()
        fd = self.proc.stdout.fileno()  # type: ignore[union-attr]
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

    def send(self, message: dict[str, Any]) -> None:
        """Write one frame to its stdin (OSError once it has gone)."""
        wire.write_frame(self.proc.stdin.fileno(), message)  # type: ignore[union-attr]

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

    def finish(self, reason: str | None = None) -> dict[str, Any]:
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
        closed: dict[str, Any] = {"op": "closed", "killed": self.killed is not None}
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

    Made by ``Worker(level="subprocess")``. Each submission (and each fresh start after a
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
        self._child: _Spawned | None = None
        self._spare: _Spawned | None = None
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

    def _ready_spare(self) -> _Spawned:
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

    def _new_process(self) -> _Spawned:
        try:
            return _Spawned(self)
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

    def open(self, submission: Any, limits: Any = None) -> "SubmissionSession":
        try:
            self._ready_spare()  # importing torch is not the submission's time
        except WorkerCrashed:
            pass  # the session tries once more and reports why it could not load
        return super().open(submission, limits)

    # -- one process per child ---------------------------------------------------------------
    def _prepare_child(self) -> None:
        pass

    def _send_open(self, message: dict[str, Any]) -> bool:
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

    def _finish_child(self, reason: str | None = None) -> dict[str, Any]:
        child, self._child = self._child, None
        if child is None:
            return {}
        self.proc = None
        return child.finish(reason)

    def _wait_frames(self, left: float) -> list[dict[str, Any]]:
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

    def _send_request(self, message: dict[str, Any]) -> None:
        if self._child is None:
            raise OSError("no process is open")
        self._child.send(message)

    def _kill_child(self, reason: str = "kill") -> None:
        self._finish_child(reason)

    def _end_child(self) -> dict[str, Any] | None:
        child = self._child
        if child is None:
            return None
        try:
            child.send({"op": "end"})
            child.proc.wait(timeout=CLOSE_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired):
            return self._finish_child("end")
        return self._finish_child()


def _plain_limits(in_force: dict[str, Any]) -> dict[str, Any]:
    """What a child reported as applied, as short plain values (it crosses into the report)."""
    from grader import sinks

    out: dict[str, Any] = {}
    for key, value in list(in_force.items())[:20]:
        if type(value) not in (int, float, bool):
            value = sinks.cap(sinks.visible(str(value)), 300)
        out[sinks.cap(sinks.visible(str(key)), 60)] = value
    return out
