"""The trusted side of the channel: start a zygote, open submissions, call functions.

Usage::

    with Worker(level="namespaces", limits=limits) as worker:
        session = worker.open(submission)           # forks a fresh child for it
        value = session.call("part1", "double", [2.5], {})     # 5.0
        output = session.close()                    # everything it started is killed

Every value that comes back is plain data decoded by :mod:`grader.sandbox.wire`; a student object
never reaches this process. A call over its time limit, or a child that dies, raises
:class:`StudentTimeout` / :class:`WorkerCrashed`; the session (:mod:`grader.sandbox.child`) then
reopens a fresh child on the next call.

The ``subprocess`` level is :class:`grader.sandbox.spawn.SpawnWorker`, a subclass that replaces
the zygote with one fresh interpreter per submission; :func:`grader.sandbox.spawn.worker_for`
gives the worker for any level.

Sections: the capped output reader (:class:`CappedOutput`); :class:`Worker`: its life cycle,
the control pipe, opening children and the frames that come back from them; how a child's end
is told (:func:`refusal`, the exit and the limits in force, in words a report can hold).
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from grader import sinks
from grader.sandbox import wire
from grader.i18n.messages import said
from grader.sandbox.limits import Limits
from grader.errors import SandboxError, SandboxRefused, WorkerCrashed
from grader.sandbox import backends, uids
from grader.sandbox.child import SubmissionSession
from grader.sandbox.session import Enforced, Loadable, StudentTimeout, SubmissionSpec
from grader.sandbox.wire import ModuleSpec, OpenRequest, ZygoteConfig

READY_TIMEOUT_S = 120.0
CLOSE_TIMEOUT_S = 5.0
#: output beyond this many times ``output_kb`` gets the child killed
FLOOD_FACTOR = 64
#: extra seconds, on top of ``per_call_s``, that loading one module may take
LOAD_GRACE_S = 5.0


class CappedOutput:
    """Drains the worker's stdout/stderr pipe, keeping at most ``cap`` bytes per submission.

    Beyond ``FLOOD_FACTOR`` times the cap the bytes are not only dropped: ``on_flood`` is
    called once, and the worker kills the child (a flood still costs CPU to read).
    """

    def __init__(self, fd: int, cap: int, on_flood: Callable[[], object] | None = None, owns_fd: bool = True) -> None:
        self.fd = fd
        self.owns_fd = owns_fd  # close ``fd`` at end of file (False: its file object does)
        self.cap = cap
        self.buf = bytearray()
        self.dropped = 0
        self.flooded = False
        self.spent = False  # its process was stopped and its output taken: what still comes is counted only
        self.in_hand = False
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
            self.in_hand = True  # read, not yet kept or counted (see settle)
            fire = False
            with self.lock:
                self.in_hand = False
                room = 0 if self.spent else self.cap - len(self.buf)
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
        # a reader still behind (a busy machine) keeps draining, but the process is over and its
        # output was kept up to the cap: the rest is counted as dropped, not kept a second time
        return self.take(final=True)

    def settle(self, timeout: float = 2.0) -> None:
        """Wait (at most ``timeout`` seconds) until the reader has every byte written so far: the
        pipe empty and nothing read but not yet kept, twice 10 ms apart. A child that was killed
        while it printed leaves bytes behind it; on a busy machine the reader may still be reading
        them when the next child starts, and they are that child's no more than the next call's."""
        import fcntl
        import termios

        deadline, quiet = time.monotonic() + timeout, 0
        while quiet < 2 and time.monotonic() < deadline:
            try:
                pending = int.from_bytes(fcntl.ioctl(self.fd, termios.FIONREAD, b"\0\0\0\0"), sys.byteorder)
            except OSError:
                return  # closed: nothing more will come
            quiet = quiet + 1 if pending == 0 and not self.in_hand else 0
            time.sleep(0.01)

    def take(self, *, final: bool = False) -> str:
        """What was kept since the last take, and how many bytes were dropped; ``final``: the
        process is over, and whatever still comes through the pipe is only counted."""
        with self.lock:
            self.spent = self.spent or final
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
        level: "namespaces" (bubblewrap) or "rlimits"; "subprocess" is
            :class:`grader.sandbox.spawn.SpawnWorker`'s (:func:`grader.sandbox.spawn.worker_for`
            picks the class for a level).
        limits: the rubric's limits (anything :meth:`Limits.of` accepts).
        threads: torch threads in each child (set in the zygote before any op).
        seccomp: install the no-process filter in each child; None = wherever it works
            (Linux x86_64/aarch64). False leaves only the zygote's watch (for tests).
        hide: host paths that must stay invisible even if they lie inside a folder the
            sandbox binds (e.g. hidden suites inside the virtualenv); namespaces only.
    """

    level: str = "namespaces"
    limits: Limits = field(default_factory=Limits)
    threads: int = 1
    seccomp: bool | None = None
    hide: tuple[str, ...] = ()
    #: the zygote's "ready" frame (empty until it has sent it)
    info: wire.Frame = field(default_factory=dict)
    #: also warm what only some students use and costs the zygote's start-up (e.g. the sympy
    #: import behind ``torch.broadcast_shapes``): worth it for a batch, not for one check
    warm_more: bool = False

    def __post_init__(self) -> None:
        if self.level == "subprocess" and type(self) is Worker:
            raise TypeError("the subprocess level is SpawnWorker's: use grader.sandbox.spawn.worker_for")
        self.limits = Limits.of(self.limits)
        self.proc: subprocess.Popen[bytes] | None = None
        self._fds: dict[str, int] = {}
        self._reader = wire.FrameReader()
        self._ctl_reader = wire.FrameReader()
        self._ctl_lock = threading.Lock()
        self._output: CappedOutput | None = None
        self._launch: backends.Launch | None = None
        self._next_id = 0
        self._dead = False
        self._generation = 0
        self._flood_generation = -1
        self._needs_restart = False
        self.loading: str | None = None  # the module the current child is importing
        self.in_force: Enforced = {}  # what the last child reported as applied
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
        cfg: ZygoteConfig = {
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
        self._output = CappedOutput(out_r, self.limits.output_kb * 1024, self._on_flood)
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

    def take_output(self) -> str:
        """What the current child has printed since the last call (capped)."""
        return self._output.take() if self._output is not None else ""

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

    def __enter__(self) -> "Worker":
        if not self.alive():
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- control pipe ----------------------------------------------------------------------
    def _ctl_wait(self, timeout: float) -> wire.Frame | None:
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

    def _ctl_send(self, message: Mapping[str, object]) -> bool:
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
    def open(self, submission: Loadable | SubmissionSpec, limits: Limits | None = None) -> SubmissionSession:
        """Fork a fresh child holding ``submission``'s code (a ``Submission`` or its plain form)."""
        return SubmissionSession(self, submission, Limits.of(limits) if limits else self.limits)

    def spawn_child(
        self, kind: str, modules: list[ModuleSpec], limits: Limits,
        skip: list[str] | None = None, deadline: float | None = None,
    ) -> wire.Frame:
        """Open a child holding ``modules`` (all but ``skip``); its "loaded" frame.

        Raises:
            WorkerCrashed: the child (or, twice, the process that starts it) died first.
            StudentTimeout: a module took longer than ``per_call_s`` and the grace to load.
        """
        self._prepare_child()
        message: OpenRequest = {"op": "open", "kind": kind, "modules": modules, "limits": limits.to_dict(),
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
            self._output.settle()
            self._output.take()  # whatever an earlier child printed is not this one's

    def _send_open(self, message: Mapping[str, object]) -> bool:
        return self._ctl_send(message)

    def _retry_open(self) -> None:
        self.restart()

    def _host_alive(self) -> bool:
        """Whether the process that starts children survived a child's death (the zygote)."""
        return self.alive()

    def _receive(
        self, want_id: int | None, timeout: float, step: float | None = None,
        deadline: float | None = None,
    ) -> wire.Frame:
        """Wait for the child's next frame (or its death, or the deadline).

        ``{"op": "loading"}`` frames (a module is about to be imported) are recorded in
        :attr:`loading` and, with ``step``, give each module its own ``step`` seconds.
        """
        limit = time.monotonic() + timeout
        if deadline is not None:
            limit = min(limit, deadline)
        pending: list[wire.Frame] = []
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
                    in_force = frame.get("in_force")
                    if not getattr(self, "_limits_seen", True) and type(in_force) is dict:
                        self.in_force = _plain_limits(in_force)
                        self._limits_seen = True
                    continue
                if want_id is None or frame.get("id") == want_id:
                    in_force = frame.get("in_force")
                    if (frame.get("op") == "loaded" and type(in_force) is dict
                            and not getattr(self, "_limits_seen", False)):
                        self.in_force = _plain_limits(in_force)
                    return frame
            left = limit - time.monotonic()
            if left <= 0:
                self._kill_child("timeout")
                raise StudentTimeout(said("no_answer_within_s", seconds=f"{timeout:.3g}"))
            pending += self._wait_frames(left)

    def _wait_frames(self, left: float) -> list[wire.Frame]:
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

    def _closed_message(self, closed: wire.Frame) -> str:
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

    def _after_close(self, closed: wire.Frame | None = None) -> None:
        """All writers of the response pipe are dead now: drop whatever they left in it."""
        wire.drain(self._fds["resp"])
        self._reader.reset()
        if closed is not None and not closed.get("clean", True):
            self._needs_restart = True  # e.g. scratch could not be emptied: start afresh

    def end_child(self) -> wire.Frame | None:
        """End the current child; its "closed" frame, or None when it had to be killed."""
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

    def request(self, message: dict[str, object], timeout: float) -> wire.Frame:
        """Send ``message`` to the child (numbered here); its answer within ``timeout`` seconds."""
        self._next_id += 1
        message["id"] = self._next_id
        try:
            self._send_request(message)
        except OSError:
            raise WorkerCrashed(said("worker_s_channel_closed")) from None
        return self._receive(self._next_id, timeout)

    def _send_request(self, message: Mapping[str, object]) -> None:
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


def _describe_exit(closed: wire.Frame) -> str:
    if "signal" in closed:
        sig = closed["signal"]
        try:
            name = signal.Signals(sig).name if isinstance(sig, int) else f"signal {sig}"
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



def _plain_limits(in_force: wire.Frame) -> Enforced:
    """What a child reported as applied, as short plain values (it crosses into the report)."""
    out: Enforced = {}
    for key, value in list(in_force.items())[:20]:
        plain = value if type(value) is int or type(value) is float or type(value) is bool else None
        out[sinks.cap(sinks.visible(str(key)), 60)] = (sinks.cap(sinks.visible(str(value)), 300) if plain is None
                                                        else plain)
    return out

