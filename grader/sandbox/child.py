"""One submission in a child of the worker: load its files, call its functions, end it.

:class:`SubmissionSession` is what :meth:`grader.sandbox.worker.Worker.open` returns, the
implementation of :class:`grader.sandbox.session.Session`. It talks to its worker only through
:class:`Host` (open a child, send a request, end the child, take what it printed), which the
zygote level (:class:`grader.sandbox.worker.Worker`) and the subprocess level
(:class:`grader.sandbox.spawn.SpawnWorker`) both are.

A function that hung once (or crashed twice) fails its later calls at once with the same
message, and the time it spent is not charged to the submission's budget, so one function's
hangs cost only that function's tests. A file that kills or hangs the child while it loads is
set aside, and the child is started again without it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Literal, Protocol, overload

from grader.sandbox import wire
from grader.i18n.messages import said
from grader.sandbox.limits import Limits
from grader.errors import SandboxError, WorkerCrashed
from grader.sandbox.session import (
    Echoed,
    Enforced,
    Loadable,
    StudentRaised,
    StudentTimeout,
    StudentUnavailable,
    SubmissionSpec,
)
from grader.sandbox.wire import Encoded, Frame, ModuleSpec, WireValue

#: crashes of one function after which its later calls in the same submission fail at once
CRASHES_PER_FUNCTION = 2


#: Calls begun and children started by every session of this process: a batch worker on a
#: cluster says it is alive only while this moves (grader.engines.batch_worker), so a submission that
#: takes long but keeps making calls is never mistaken for a hung grading process.
activity = 0


def _busy() -> None:
    global activity
    activity += 1


class Host(Protocol):
    """What a session needs of its worker: the zygote level and the subprocess level alike."""

    #: the module the current child is importing (None before its first "loading" frame)
    loading: str | None
    #: what the last child reported as applied
    in_force: Enforced

    def spawn_child(self, kind: str, modules: list[ModuleSpec], limits: Limits,
                    skip: list[str] | None = None, deadline: float | None = None) -> Frame:
        """Start a child holding ``modules``; its "loaded" frame (WorkerCrashed, StudentTimeout)."""
        ...

    def request(self, message: dict[str, object], timeout: float) -> Frame:
        """Send ``message`` to the child; its answer within ``timeout`` seconds."""
        ...

    def end_child(self) -> Frame | None:
        """End the current child; its "closed" frame, or None when it had to be killed."""
        ...

    def take_output(self) -> str:
        """What the current child has printed since the last call (capped)."""
        ...


class SubmissionSession:
    """One submission loaded in a child of the zygote."""

    def __init__(self, worker: Host, submission: Loadable | SubmissionSpec, limits: Limits) -> None:
        self.worker = worker
        self.limits = limits
        self.kind: str
        self.modules: list[ModuleSpec]
        if isinstance(submission, dict):
            self.kind = submission["kind"]
            self.modules = submission["modules"]
        else:
            self.kind = submission.kind
            self.modules = [m.to_dict() for m in submission.modules]
        self.started = time.monotonic()
        self.deadline = self.started + limits.per_submission_s
        self.events: list[str] = []  # timeouts, crashes: for report.errors
        self.load_report: dict[str, Encoded] = {}
        self.output_parts: list[str] = []
        self.open_child = False
        self.calls = 0
        self.skipped: dict[str, dict[str, Encoded]] = {}  # files that killed or hung the child
        # (part, function) -> the error its later calls raise at once: it hung once, or
        # crashed CRASHES_PER_FUNCTION times. One function's hangs cost only its own calls.
        self.stuck: dict[tuple[str, str], SandboxError] = {}
        self.crashes: dict[tuple[str, str], int] = {}
        #: seconds spent in calls that hung or crashed and in the restarts after them; the
        #: per-submission deadline moves on by as much, so they never use up the others' time
        self.excused_s = 0.0
        self.enforced: Enforced = {}  # limits the child reported as applied
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
                frame = self.worker.spawn_child(
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
            report = frame.get("modules")
            self.load_report = self._with_set_aside(report if type(report) is dict else {})
            self.enforced = dict(self.worker.in_force)
            self.open_child = True
            return

    def _with_set_aside(self, report: dict[str, Encoded]) -> dict[str, Encoded]:
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

    def module_for(self, part: str) -> ModuleSpec | None:
        for m in self.modules:
            if (self.kind == "folder" and m["name"] == part) or self.kind == "notebook":
                return m
        return None

    def load_error(self, part: str) -> Frame | None:
        mod = self.module_for(part)
        if mod is None:
            return None
        status = self.load_report.get(mod["name"])
        if isinstance(status, dict) and not status.get("ok") and self.kind == "folder":
            err = status.get("error")
            return err if isinstance(err, dict) else {"type": "Error", "message": "failed to load"}
        return None

    @overload
    def call(self, part: str, func: str, args: Sequence[object], kwargs: Mapping[str, object], *,
             echo_args: Literal[False] = False) -> WireValue: ...

    @overload
    def call(self, part: str, func: str, args: Sequence[object], kwargs: Mapping[str, object], *,
             echo_args: Literal[True]) -> Echoed: ...

    def call(self, part: str, func: str, args: Sequence[object], kwargs: Mapping[str, object], *,
             echo_args: bool = False) -> WireValue | Echoed:
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
            reply = self.worker.request(
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

    def _callable(self, part: str, func: str) -> ModuleSpec:
        """The module to call ``func`` in; raises at once what a call could only repeat."""
        mod = self.module_for(part)
        if mod is None:
            raise StudentUnavailable(said("no_py_submission", part=part), f"{part}.py", 0)
        err = self.load_error(part)
        if err is not None:
            raise StudentUnavailable(
                said("line", file=err.get("file") or mod["filename"], line=err.get("line", 0),
                     what=f"{err.get('type')}: {err.get('message')}"),
                str(err.get("file") or mod["filename"]), _line(err.get("line")),
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

    def _answer(self, reply: Frame, func: str, mod: ModuleSpec, echo_args: bool) -> WireValue | Echoed:
        """The call's value (and arguments), or the student's exception raised on this side."""

        if reply.get("ok") is True:
            try:
                value = wire.decode(reply.get("value"))
            except wire.WireError as exc:
                raise WorkerCrashed(said("returned_something_could_read", func=func, why=exc)) from None
            if not echo_args:
                return value
            args = value.get("args") if isinstance(value, dict) else None
            if not isinstance(value, dict) or not isinstance(args, list):
                return value, None  # an unsendable value: no arguments came back with it
            return value.get("value"), args
        if reply.get("kind") == "missing":
            raise StudentUnavailable(said("defines_no_function", file=mod['filename'], func=func), mod["filename"], 0)
        error = reply.get("error")
        if not isinstance(error, dict):
            error = {}
        bases = error.get("bases")
        raise StudentRaised(
            str(error.get("type", "Exception")),
            str(error.get("message", "")),
            _where(error),
            [b for b in bases if isinstance(b, str)] if isinstance(bases, list) else [],
        )

    def _excuse(self, seconds: float) -> None:
        self.excused_s += seconds
        self.deadline += seconds

    def _collect_output(self) -> None:
        text = self.worker.take_output()
        if text:
            self.output_parts.append(text)

    def close(self) -> str:
        """End the child; returns what the student's code printed (capped)."""
        if self.open_child:
            self.worker.end_child()
            self.open_child = False
        self._collect_output()
        return "".join(self.output_parts)


def _line(value: Encoded) -> int:
    """A line number as the child gave it (0 for none, or for one that is not a number)."""
    return int(value) if isinstance(value, (int, float, str)) and value else 0


def _where(error: Frame) -> str:
    file, line = error.get("file"), error.get("line")
    if file and line:
        return f"{file}, line {line}"
    return str(file or "")
