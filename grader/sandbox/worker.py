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
import threading
import time
from dataclasses import asdict, dataclass, field, is_dataclass
from typing import Any

from grader import wire
from grader.errors import SandboxError, WorkerCrashed, WorkerTimeout
from grader.sandbox import backends

READY_TIMEOUT_S = 120.0
CLOSE_TIMEOUT_S = 5.0


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
    """Drains the worker's stdout/stderr pipe, keeping at most ``cap`` bytes per submission."""

    def __init__(self, fd: int, cap: int) -> None:
        self.fd = fd
        self.cap = cap
        self.buf = bytearray()
        self.dropped = 0
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
            with self.lock:
                room = self.cap - len(self.buf)
                if room > 0:
                    self.buf += data[:room]
                self.dropped += max(0, len(data) - max(room, 0))

    def take(self) -> str:
        with self.lock:
            text = self.buf.decode("utf-8", "replace")
            if self.dropped:
                text += f"\n[... {self.dropped} more bytes of output dropped]\n"
            self.buf.clear()
            self.dropped = 0
        return text


@dataclass
class Worker:
    """One warm zygote process (sandboxed according to ``level``)."""

    level: str = "namespaces"
    limits: Any = None
    threads: int = 1
    info: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.limits = LimitsView.of(self.limits)
        self.proc: subprocess.Popen[bytes] | None = None
        self._fds: dict[str, int] = {}
        self._reader = wire.FrameReader()
        self._ctl_reader = wire.FrameReader()
        self._output: _Output | None = None
        self._launch: backends.Launch | None = None
        self._next_id = 0
        self._dead = False
        self.restarts = 0

    # -- life cycle ----------------------------------------------------------------------
    def start(self) -> "Worker":
        """Start the zygote; returns when it has imported torch and said it is ready."""
        launch = backends.launch(self.level, self.limits.scratch_mb)
        self._launch = launch
        req_r, req_w = os.pipe()
        resp_r, resp_w = os.pipe()
        ci_r, ci_w = os.pipe()
        co_r, co_w = os.pipe()
        out_r, out_w = os.pipe()
        cfg = {
            "req": req_r, "resp": resp_w, "ctl_in": ci_r, "ctl_out": co_w,
            "scratch": launch.scratch, "pid1": launch.pid1, "threads": self.threads,
            "seccomp": launch.level == "namespaces" and backends.SECCOMP.exists(),
        }
        inside = (req_r, resp_w, ci_r, co_w)
        try:
            self.proc = subprocess.Popen(
                [*launch.argv, json.dumps(cfg)],
                stdin=subprocess.DEVNULL, stdout=out_w, stderr=out_w,
                pass_fds=inside, env=launch.env, start_new_session=True,
                cwd=launch.scratch if launch.level != "namespaces" else None,
            )
        finally:
            for fd in (*inside, out_w):
                os.close(fd)
        self._fds = {"req": req_w, "resp": resp_r, "ctl_in": ci_w, "ctl_out": co_r}
        self._dead = False
        self._ctl_reader.reset()
        self._output = _Output(out_r, self.limits.output_kb * 1024)
        ready = self._ctl_wait(READY_TIMEOUT_S)
        if ready is None or ready.get("op") != "ready":
            text = self._output.take() if self._output else ""
            self.stop()
            raise WorkerCrashed(f"the {self.level} worker did not start: {text.strip()[-2000:]}")
        self.info = ready
        return self

    def alive(self) -> bool:
        return not self._dead and self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        """Kill the zygote and everything in its sandbox."""
        proc = self.proc
        if proc is not None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
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

    def __enter__(self) -> "Worker":
        if not self.alive():
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- control pipe ----------------------------------------------------------------------
    def _ctl_wait(self, timeout: float) -> dict[str, Any] | None:
        deadline = time.monotonic() + timeout
        fd = self._fds["ctl_out"]
        while True:
            pending = self._ctl_reader.feed(b"")
            if pending:
                return pending[0]
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
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
        try:
            wire.write_frame(self._fds["ctl_in"], message)
            return True
        except (OSError, KeyError):
            return False

    # -- submissions -------------------------------------------------------------------------
    def open(self, submission: Any, limits: Any = None) -> "SubmissionSession":
        """Fork a fresh child holding ``submission``'s code (a ``Submission`` or its dict)."""
        return SubmissionSession(self, submission, LimitsView.of(limits) if limits else self.limits)

    def _spawn_child(self, kind: str, modules: list[dict[str, Any]], limits: LimitsView) -> dict[str, Any]:
        if not self.alive():
            self.restart()
        self._reader.reset()
        if not self._ctl_send({"op": "open", "kind": kind, "modules": modules, "limits": limits.to_dict()}):
            self.restart()
            self._ctl_send({"op": "open", "kind": kind, "modules": modules, "limits": limits.to_dict()})
        if self._output is not None:
            self._output.take()
        return self._receive(None, limits.per_call_s + 30.0)

    def _receive(self, want_id: int | None, timeout: float) -> dict[str, Any]:
        """Wait for the child's next frame (or its death, or the deadline)."""
        deadline = time.monotonic() + timeout
        resp, ctl = self._fds["resp"], self._fds["ctl_out"]
        while True:
            for frame in self._reader.feed(b""):
                if want_id is None or frame.get("id") == want_id:
                    return frame
            left = deadline - time.monotonic()
            if left <= 0:
                self._kill_child()
                raise StudentTimeout(f"no answer within {timeout:.1f} s")
            ready, _, _ = select.select([resp, ctl], [], [], left)
            if resp in ready:
                data = os.read(resp, 1 << 20)
                if data:
                    try:
                        frames = self._reader.feed(data)
                    except wire.WireError as exc:
                        self._kill_child()
                        raise WorkerCrashed(f"the worker sent an invalid frame: {exc}") from None
                    for frame in frames:
                        if want_id is None or frame.get("id") == want_id:
                            return frame
                    continue
            if ctl in ready:
                closed = self._ctl_wait(0.0)
                if closed is None and self._dead:
                    self.stop()
                    raise WorkerCrashed("the worker process died")
                if closed is not None and closed.get("op") == "closed":
                    self._after_close()
                    raise WorkerCrashed(_describe_exit(closed))

    def _kill_child(self) -> None:
        """SIGKILL the current child (and everything it started) through the zygote."""
        if self._ctl_send({"op": "kill"}):
            msg = self._ctl_wait(CLOSE_TIMEOUT_S)
            if msg is not None and msg.get("op") == "closed":
                self._after_close()
                return
        self.restart()  # the zygote did not answer: throw the whole sandbox away

    def _after_close(self) -> None:
        """All writers of the response pipe are dead now: drop whatever they left in it."""
        fd = self._fds["resp"]
        os.set_blocking(fd, False)
        try:
            while os.read(fd, 1 << 16):
                pass
        except BlockingIOError:
            pass
        finally:
            os.set_blocking(fd, True)
        self._reader.reset()

    def _end_child(self) -> dict[str, Any] | None:
        try:
            wire.write_frame(self._fds["req"], {"op": "end"})
        except OSError:
            pass
        msg = self._ctl_wait(CLOSE_TIMEOUT_S)
        if msg is None or msg.get("op") != "closed":
            self._kill_child()
            return None
        self._after_close()
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
        self._spawn()

    def _spawn(self) -> None:
        try:
            frame = self.worker._spawn_child(self.kind, self.modules, self.limits)
        except WorkerCrashed as exc:
            self.events.append(f"loading the submission: {exc}")
            self.load_report = {m["name"]: {"ok": False, "error": {"type": "crash", "message": str(exc), "file": m["filename"], "line": 0}} for m in self.modules}
            self.open_child = False
            return
        except StudentTimeout:
            self.events.append("loading the submission took longer than the time limit")
            self.load_report = {m["name"]: {"ok": False, "error": {"type": "timeout", "message": "import did not finish in time", "file": m["filename"], "line": 0}} for m in self.modules}
            self.open_child = False
            return
        self.load_report = frame.get("modules", {}) if type(frame.get("modules")) is dict else {}
        self.open_child = True

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
