"""The trusted side of the channel: start a zygote, open submissions, call functions.

Usage::

    with Worker(level="namespaces", limits=limits) as worker:
        session = worker.open(submission)           # forks a fresh child for it
        value = session.call("scaling", "head_dim", [768, 12], {})
        output = session.close()                    # everything it started is killed

Every value that comes back is plain data decoded by :mod:`grader.wire`; a student object
never reaches this process. A call over its time limit, or a child that dies, raises
:class:`StudentTimeout` / :class:`WorkerCrashed`; the session then reopens a fresh child on
the next call, so one hang costs only the tests it hit.
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
from dataclasses import asdict, dataclass, field, is_dataclass
from typing import Any

from grader import wire
from grader.errors import SandboxError, WorkerCrashed, WorkerTimeout
from grader.sandbox import backends

READY_TIMEOUT_S = 120.0
CLOSE_TIMEOUT_S = 5.0
#: output beyond this many times ``output_kb`` gets the child killed
FLOOD_FACTOR = 64
#: extra seconds, on top of ``per_call_s``, that loading one module may take
LOAD_GRACE_S = 5.0


class StudentTimeout(WorkerTimeout):
    """The student's code ran past a time limit (per call or per submission)."""


class StudentUnavailable(SandboxError):
    """The function asked for does not exist, or its file failed to load."""

    def __init__(self, message: str, file: str = "", line: int = 0) -> None:
        super().__init__(message)
        self.file = file
        self.line = line


@dataclass(frozen=True)
class LimitsView:
    """The limits the worker applies (copied from the rubric's ``limits``)."""

    per_call_s: float = 10.0
    per_submission_s: float = 120.0
    memory_mb: int = 1024
    cpu_s: float = 60.0
    file_size_mb: int = 16
    scratch_mb: int = 64
    output_kb: int = 256
    processes: int = 1

    @classmethod
    def of(cls, limits: Any) -> "LimitsView":
        if limits is None:
            return cls()
        if isinstance(limits, cls):
            return limits
        data = asdict(limits) if is_dataclass(limits) else dict(limits)
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class _Output:
    """Drains the worker's stdout/stderr pipe, keeping at most ``cap`` bytes per submission.

    Beyond ``FLOOD_FACTOR`` times the cap the bytes are not only dropped: ``on_flood`` is
    called once, and the worker kills the child (a flood still costs CPU to read).
    """

    def __init__(self, fd: int, cap: int, on_flood: Any = None) -> None:
        self.fd = fd
        self.cap = cap
        self.buf = bytearray()
        self.dropped = 0
        self.flooded = False
        self.on_flood = on_flood
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
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
        level: "namespaces" (bubblewrap) or "rlimits".
        limits: the rubric's limits (anything :meth:`LimitsView.of` accepts).
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

    def __post_init__(self) -> None:
        self.limits = LimitsView.of(self.limits)
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
                "the grading worker needs POSIX pipes and fork, which Windows does not have; "
                "run the grader inside WSL (Windows Subsystem for Linux)"
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
            "seccomp": bool(seccomp),
        }
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
            text = self._output.take() if self._output else ""
            self.stop()
            raise WorkerCrashed(f"the {self.level} worker did not start: {text.strip()[-2000:]}")
        self.info = ready
        self.started_s = time.monotonic() - t0
        return self

    def alive(self) -> bool:
        return not self._dead and self.proc is not None and self.proc.poll() is None

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
        return SubmissionSession(self, submission, LimitsView.of(limits) if limits else self.limits)

    def _spawn_child(
        self, kind: str, modules: list[dict[str, Any]], limits: LimitsView,
        skip: list[str] | None = None, deadline: float | None = None,
    ) -> dict[str, Any]:
        if not self.alive() or self._needs_restart:
            self.restart()
        self.wait_ready()
        self._reader.reset()
        if self._output is not None:
            self._output.take()  # whatever an earlier child printed is not this one's
        message = {"op": "open", "kind": kind, "modules": modules, "limits": limits.to_dict(),
                   "skip": list(skip or [])}
        step = limits.per_call_s + LOAD_GRACE_S
        for attempt in (1, 2):
            self._generation += 1
            self.loading = None
            if not self._ctl_send(message):
                self.restart()
                continue
            try:
                return self._receive(None, step, step=step, deadline=deadline)
            except WorkerCrashed:
                # Before the first "loading" frame no student code has run: a zygote that
                # died then was not killed by this submission. Start afresh, once.
                if attempt == 2 or self.loading is not None or self.alive():
                    raise
                self.restart()
        raise WorkerCrashed("the worker could not be started again")

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
        resp, ctl = self._fds["resp"], self._fds["ctl_out"]
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
                if want_id is None or frame.get("id") == want_id:
                    if frame.get("op") == "loaded" and type(frame.get("in_force")) is dict:
                        self.in_force = frame["in_force"]
                    return frame
            left = limit - time.monotonic()
            if left <= 0:
                self._kill_child("timeout")
                raise StudentTimeout(f"no answer within {timeout:.3g} s")
            ready, _, _ = select.select([resp, ctl], [], [], left)
            if resp in ready:
                data = os.read(resp, 1 << 20)
                if data:
                    try:
                        pending += self._reader.feed(data)
                    except wire.WireError as exc:
                        self._kill_child("protocol")
                        raise WorkerCrashed(f"the worker sent an invalid frame: {exc}") from None
                    continue
            if ctl in ready:
                closed = self._ctl_wait(0.0)
                if closed is None and self._dead:
                    self.stop()
                    raise WorkerCrashed("the worker process died")
                if closed is not None and closed.get("op") == "closed":
                    self._after_close(closed)
                    raise WorkerCrashed(self._closed_message(closed))

    def _closed_message(self, closed: dict[str, Any]) -> str:
        reason = closed.get("reason")
        if reason == "output" or self._flood_generation == closed.get("child", self._generation):
            cap = self.limits.output_kb
            return (f"the student's code printed more than {FLOOD_FACTOR * cap} KiB of output "
                    f"({FLOOD_FACTOR} times the {cap} KiB kept); it was stopped")
        if reason == "processes":
            return ("the student's code started another process, which the limits forbid "
                    f"(processes: {self.limits.processes}); it was stopped")
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
            wire.write_frame(self._fds["req"], message)
        except OSError:
            raise WorkerCrashed("the worker's channel is closed") from None
        return self._receive(self._next_id, timeout)


def _describe_exit(closed: dict[str, Any]) -> str:
    if "signal" in closed:
        sig = closed["signal"]
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        hint = {
            "SIGXCPU": " (CPU time limit)",
            "SIGKILL": " (killed: time or memory limit)",
            "SIGSYS": " (a forbidden system call, e.g. starting a process)",
            "SIGSEGV": " (crashed)",
        }.get(name, "")
        return f"the student's code ended the worker process with {name}{hint}"
    return f"the student's code ended the worker process (exit status {closed.get('exit')})"


class SubmissionSession:
    """One submission loaded in a child of the zygote."""

    def __init__(self, worker: Worker, submission: Any, limits: LimitsView) -> None:
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
        self.enforced: dict[str, Any] = {}  # limits the child reported as applied
        self._spawn()

    def _spawn(self) -> None:
        """Fork a child and load the files; a file that kills or hangs the child is set aside.

        If the child dies or hangs while importing one file, that file alone is marked as
        failed and the child is forked again without it, so the other parts still run.
        """
        while True:
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
                    if timed_out:
                        text = f"importing {filename} did not finish within {self.limits.per_call_s + 5:g} s; it was stopped"
                    else:
                        text = f"importing {filename} ended the worker process: {exc}"
                    self.events.append(text)
                    self.skipped[culprit] = {"ok": False, "error": {
                        "type": "timeout" if timed_out else "crash", "message": text,
                        "file": filename, "line": 0}}
                    continue
                kind = "timeout" if timed_out else "crash"
                text = ("loading the submission took longer than the time limit" if timed_out
                        else f"loading the submission: {exc}")
                self.events.append(text)
                self.load_report = {m["name"]: self.skipped.get(m["name"]) or {"ok": False, "error": {
                    "type": kind, "message": text, "file": m["filename"], "line": 0}} for m in self.modules}
                self.open_child = False
                return
            report = frame.get("modules", {}) if type(frame.get("modules")) is dict else {}
            report.update(self.skipped)
            self.load_report = report
            self.enforced = dict(self.worker.in_force)
            self.open_child = True
            return

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

    def call(self, part: str, func: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """Call ``part.func(*args, **kwargs)`` in the child and return plain data.

        Raises:
            StudentUnavailable: no such function, or its file failed to load.
            StudentTimeout: the call (or the whole submission) ran out of time.
            WorkerCrashed: the child died during the call.
            grader.testing.StudentRaised: the function raised; the exception is described.
        """
        from grader.testing import StudentRaised  # the suites' own exception type

        mod = self.module_for(part)
        if mod is None:
            raise StudentUnavailable(f"no {part}.py in the submission", f"{part}.py", 0)
        err = self.load_error(part)
        if err is not None:
            raise StudentUnavailable(
                f"{err.get('file') or mod['filename']}, line {err.get('line', 0)}: "
                f"{err.get('type')}: {err.get('message')}",
                str(err.get("file") or mod["filename"]), int(err.get("line") or 0),
            )
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise StudentTimeout(f"the submission used up its {self.limits.per_submission_s:g} s")
        if not self.open_child:
            self._spawn()
            if not self.open_child:
                raise WorkerCrashed(self.events[-1] if self.events else "the worker could not start")
        timeout = min(self.limits.per_call_s, left)
        self.calls += 1
        try:
            reply = self.worker._request(
                {"op": "call", "part": part, "func": func,
                 "args": wire.encode(list(args)), "kwargs": wire.encode(dict(kwargs))},
                timeout,
            )
        except StudentTimeout:
            self.open_child = False
            self._collect_output()
            what = "per-call" if timeout >= self.limits.per_call_s else "per-submission"
            msg = f"{func}() did not return within the {what} limit of {timeout:.3g} s; it was stopped"
            self.events.append(msg)
            raise StudentTimeout(msg) from None
        except WorkerCrashed as exc:
            self.open_child = False
            self._collect_output()
            msg = f"during {func}(): {exc}"
            self.events.append(msg)
            raise WorkerCrashed(msg) from None
        if reply.get("ok") is True:
            try:
                return wire.decode(reply.get("value"))
            except wire.WireError as exc:
                raise WorkerCrashed(f"{func}() returned something that could not be read: {exc}") from None
        if reply.get("kind") == "missing":
            raise StudentUnavailable(f"{mod['filename']} defines no function {func}()", mod["filename"], 0)
        error = reply.get("error") if isinstance(reply.get("error"), dict) else {}
        raise StudentRaised(
            str(error.get("type", "Exception")),
            str(error.get("message", "")),
            _where(error),
            [str(b) for b in error.get("bases", []) if isinstance(b, str)],
        )

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
