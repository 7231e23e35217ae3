"""Stage 2 of ``grader batch`` on this machine: a pool of warm trusted worker processes.

Each worker (:mod:`grader.engines.batch_worker`) owns one sandboxed zygote and keeps one pytest
session; :class:`LocalPool` hands it chunks of submissions over a JSON-lines pipe, keeps two
chunks ahead of each worker, regrades what a dead worker lost (at most twice), and hands each
report to the caller's ``write`` as it arrives.
"""

from __future__ import annotations

import json
import math
import os
import select
import selectors
import signal
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from grader.errors import GraderError
from grader.i18n.messages import said
from grader.report.model import GradeReport, Status
from grader.sinks import REPORT_MAX

if TYPE_CHECKING:
    from grader.ingest.submission.model import SubmissionDict

class WorkerProcess:
    """One trusted worker process and its JSON-lines pipe."""

    def __init__(self, config: Mapping[str, object] | None, log: Path, pass_fds: tuple[int, ...] = (),
                 adopt: tuple[int, int] | None = None) -> None:
        """Start ``python -m grader.engines.batch_worker`` and send it ``config``; or, with ``adopt``
        (our ends of its pipes), stand for a worker that another worker forks."""
        self.proc: subprocess.Popen[bytes] | None = None
        self.pid: int | None = None  # an adopted worker's, from its "ready" message
        if adopt is None:
            log.parent.mkdir(parents=True, exist_ok=True)
            with log.open("ab") as err:  # the worker's own diagnostics; student output never goes here
                self.proc = subprocess.Popen(
                    [sys.executable, "-m", "grader.engines.batch_worker"],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, pass_fds=pass_fds,
                    start_new_session=True,  # Ctrl-C reaches the parent only; it decides
                )
            assert self.proc.stdin is not None and self.proc.stdout is not None
            self.stdin, self.stdout = self.proc.stdin, self.proc.stdout
            self.pid = self.proc.pid
        else:
            self.stdin, self.stdout = os.fdopen(adopt[0], "wb"), os.fdopen(adopt[1], "rb")
        self.log = log
        self.pending: list[bytes] = []  # the start of a message not yet ended by a newline
        self.pending_size = 0
        self.overflow = False  # dropping a message longer than sinks.REPORT_MAX
        self.ready = False
        self.busy: list[int] = []  # indices handed out and not reported yet
        self.chunks: list[list[int]] = []  # chunks handed out and not finished, oldest first
        self.stopping = False
        if config is not None:
            self.send(config)

    @classmethod
    def start_group(cls, config: Mapping[str, object], cpus: list[int], n: int, logs: Path) -> list["WorkerProcess"]:
        """``n`` workers for the price of one import: the first forks the others.

        Where ``fork`` exists, the first worker gets the pipes of the others and forks one
        copy per pipe pair once it has imported torch, pytest and the suites' helpers.
        """
        def cpu(k: int) -> int | None:
            return cpus[k] if cpus else None

        if n < 2 or not hasattr(os, "fork") or config.get("level") not in ("namespaces", "rlimits"):
            return [cls({**config, "cpu": cpu(k)}, logs / f"worker-{k}.log") for k in range(n)]
        ours: list[tuple[int, int]] = []
        theirs: list[int] = []
        siblings: list[dict[str, int | None]] = []
        for k in range(1, n):
            to_r, to_w = os.pipe()
            from_r, from_w = os.pipe()
            ours.append((to_w, from_r))
            theirs += [to_r, from_w]
            siblings.append({"in": to_r, "out": from_w, "cpu": cpu(k)})
        try:
            first = cls({**config, "cpu": cpu(0), "siblings": siblings}, logs / "worker-0.log",
                        pass_fds=tuple(theirs))
        except BaseException:
            for fd in [*theirs, *(fd for pair in ours for fd in pair)]:
                os.close(fd)
            raise
        for fd in theirs:
            os.close(fd)
        # The forked workers write their diagnostics into the first one's log.
        return [first] + [cls(None, logs / "worker-0.log", adopt=pair) for pair in ours]

    def send(self, message: Mapping[str, object]) -> bool:
        try:
            self.stdin.write((json.dumps(message) + "\n").encode())
            self.stdin.flush()
            return True
        except (BrokenPipeError, OSError):
            return False

    def read_lines(self) -> list[dict[str, Any]] | None:
        """Complete messages available now (JSON, each key read where it is used); None at end of file."""
        # 64 KiB holds a whole report (~40 KiB); a larger size costs every read a map and an
        # unmap of that many bytes (see grader.sandbox.wire.FrameReader.wanted).
        data = os.read(self.stdout.fileno(), 1 << 16)
        if not data:
            return None
        if b"\n" not in data:  # part of a long message: kept, joined once when it ends
            self.pending_size += len(data)
            if self.overflow or self.pending_size > REPORT_MAX:
                # Too long for any report: dropped (its submission is graded again, then
                # given an error report), so memory stays bounded.
                self.pending, self.overflow = [], True
            else:
                self.pending.append(data)
            return []
        head, _, rest = data.rpartition(b"\n")
        if self.overflow:
            head = head.partition(b"\n")[2]  # the end of the message being dropped
            self.overflow = False
        elif self.pending:
            head = b"".join([*self.pending, head])
        self.pending = [rest] if rest else []
        self.pending_size = len(rest)
        messages = []
        for line in head.split(b"\n"):
            if line.strip():
                try:
                    messages.append(json.loads(line))
                except ValueError:  # (the submission it was for is graded again, then failed)
                    pass
        return messages

    def stop(self, grace: float = 5.0) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                try:
                    self.proc.send_signal(signal.SIGTERM)
                    self.proc.wait(timeout=grace)
                except (subprocess.TimeoutExpired, ProcessLookupError):
                    self.proc.kill()
                    self.proc.wait()
        else:
            self._stop_adopted(grace)
        for stream in (self.stdin, self.stdout):
            try:
                stream.close()
            except OSError:
                pass

    def _stop_adopted(self, grace: float) -> None:
        """Not our child: signal it by pid (or, before it said ready, close its input) and
        wait for the end of its output, which comes when it and its sandbox are gone."""
        try:
            self.stdin.close()  # a worker that has not started grading sees the end of its input
        except OSError:
            pass
        if self.pid is not None:
            _signal(self.pid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        fd = self.stdout.fileno()
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            data = os.read(fd, 1 << 16)
            if not data:
                return
            if self.pid is None and b'"hello"' in data:  # it says its pid as soon as it exists
                try:
                    self.pid = int(json.loads(data.split(b"\n", 1)[0])["pid"])
                except (ValueError, KeyError, TypeError):
                    continue
                _signal(self.pid, signal.SIGTERM)
        if self.pid is not None:
            _signal(self.pid, signal.SIGKILL)


def _signal(pid: int, sig: int) -> None:
    """Send ``sig`` to a worker that may already be gone."""
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass



def chunk_size(remaining: int, jobs: int) -> int:
    """Submissions per hand-out: a worker keeps one pytest session, so small chunks cost little and balance well."""
    return max(1, min(8, math.ceil(remaining / (jobs * 4))))



#: Submissions that each grading process beyond the first must have to pay for itself when the
#: number of processes is left to the grader: one costs about 1.4 s of CPU to start (it and its
#: sandbox each import torch), a submission about 0.12 s to grade. On two cores 12 submissions
#: took as long on one process as on two, and 24 were 15 % faster on two.
PER_EXTRA_WORKER = 8


def workers_for(n: int | None, jobs: int | None) -> int:
    """How many grading processes to start for at most ``n`` submissions (None: unknown).

    ``jobs`` given (``-j N``): that many, but never more than there are submissions. Left to
    the grader: one per CPU, and one more than one only for every :data:`PER_EXTRA_WORKER`
    submissions, so that a small batch does not pay for processes that would find no work.
    """
    if jobs is not None:
        wanted = max(1, jobs)
        return wanted if n is None else max(1, min(wanted, n))
    cpus = max(1, os.cpu_count() or 1)
    return cpus if n is None else max(1, min(cpus, n // PER_EXTRA_WORKER))


def start_early(config: Mapping[str, object], jobs: int | None, logs: Path,
                at_most: int | None = None) -> list[WorkerProcess]:
    """Workers (each importing torch and starting its sandbox, ~1 s) started before the
    submissions are found, as many as :func:`workers_for` says; they learn the seed with their
    first chunk. The caller hands them to :class:`LocalPool` and stops what it did not take.

    ``at_most``: how many submissions there can be at most, when the caller can tell cheaply
    (a folder's entries): no worker is started that could only be retired unused. A bound
    that proves too low costs only time: :class:`LocalPool` starts the rest itself.
    """
    if at_most == 0:  # an empty folder: nothing to grade, no process to pay for
        return []
    wanted = workers_for(at_most, jobs)
    return WorkerProcess.start_group(config, _cpus_for(wanted), wanted, logs)


def retire_spares(early: list[WorkerProcess], jobs: int, retired: list[WorkerProcess]) -> None:
    """Fewer submissions than workers started: the spare ones are told to stop now and moved to
    ``retired``, to be stopped at the very end (no waiting for them here)."""
    while len(early) > jobs:
        spare = early.pop()
        spare.send({"op": "stop"})
        retired.append(spare)


def _cpus_for(jobs: int) -> list[int]:
    """One CPU per worker when there are enough, else none (the scheduler places them).

    A worker and its sandboxed child take turns (the worker waits while the student's
    function runs, and the other way round), so a pair never needs two CPUs at once;
    keeping each pair on its own CPU spares every call a wake-up on another CPU.
    """
    try:
        allowed = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return []
    return allowed[:jobs] if 1 < jobs <= len(allowed) else []


def _counts(report: GradeReport) -> tuple[bool, bool, bool]:
    statuses = {t.status for t in report.tests}
    return (not report.passed, Status.ERROR in statuses or bool(report.errors), Status.TIMEOUT in statuses)


#: Writes the report a worker sent for submission ``index`` (or, with None, an error report
#: saying ``reason``) and returns what was written: ``write(index, data, reason)``.
Write = Callable[[int, "dict[str, object] | None", str], GradeReport]


class Tally:
    """The progress bar and its running counts, as every driver of the batch shows them."""

    def __init__(self, total: int, console: Console, progress: bool | None, aside: set[int] | None = None,
                 lang: str = "en") -> None:
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)

        from grader.i18n.messages import say

        self.lang = lang
        self.counts = {"below pass": 0, "errors": 0, "timeouts": 0}
        #: ids of reports graded beside the class (the validate corpus): neither counted nor shown
        self.aside = aside if aside is not None else set()
        self.bar = Progress(TextColumn(say("grading", lang)), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[stats]}"), TimeElapsedColumn(), TextColumn(say("eta", lang)),
                            TimeRemainingColumn(), console=console, disable=progress is False, transient=False)
        self.task = self.bar.add_task("grading", total=total, stats=self.stats())

    def stats(self) -> str:
        from grader.i18n.messages import say

        c = self.counts
        return say("below_pass_errors_timeouts", self.lang, below=c["below pass"],
                   errors=c["errors"], timeouts=c["timeouts"])

    def done(self, report: GradeReport | None = None) -> None:
        """One more submission finished (its report counted when given)."""
        if report is not None and id(report) in self.aside:
            return
        if report is not None:
            below, err, tout = _counts(report)
            self.counts["below pass"] += below
            self.counts["errors"] += err
            self.counts["timeouts"] += tout
        self.bar.update(self.task, advance=1, stats=self.stats())


class LocalPool:
    """Hand chunks of submissions to ``jobs`` worker processes; write each report as it comes back.

    Args:
        config: the workers' ``config`` message (rubric file, seed, sandbox level).
        early: workers started before the submissions were found; used first, then owned here.
        wire: submission index -> its plain data for the pipe.
    """

    def __init__(self, jobs: int, config: Mapping[str, object], logs: Path, wire: Callable[[int], SubmissionDict],
                 early: list[WorkerProcess] | None = None) -> None:
        self.jobs, self.config, self.logs, self.wire = jobs, config, logs, wire
        self.early = early if early is not None else []
        self.seed = config["seed"]
        self.queue: deque[int] = deque()
        self.retries: dict[int, int] = {}
        self.procs: list[WorkerProcess] = []
        self.spawned = 0
        self.cpus = _cpus_for(jobs)
        self.sel = selectors.DefaultSelector()

    def run(self, todo: list[int], write: Write, tally: Tally) -> None:
        self.queue.extend(todo)
        try:
            with tally.bar:
                for _ in range(self.jobs):
                    self._spawn()
                while self.sel.get_map():
                    for key, _ in self.sel.select(timeout=1.0):
                        self._serve(key.data, write, tally)
        finally:
            for proc in self.procs:
                proc.stop()
            self.sel.close()

    def _spawn(self) -> None:
        slot = self.spawned % self.jobs
        if self.early:
            proc = self.early.pop(0)  # started before the submissions were found; now ours to stop
        else:
            proc = WorkerProcess({**self.config, "cpu": self.cpus[slot] if self.cpus else None},
                         self.logs / f"worker-{self.spawned}.log")
        self.spawned += 1
        self.procs.append(proc)
        self.sel.register(proc.stdout, selectors.EVENT_READ, proc)

    def _hand_out(self, proc: WorkerProcess) -> None:
        """Keep two chunks ahead of each worker: it never waits for us between chunks."""
        while len(proc.chunks) < 2 and not proc.stopping:
            if not self.queue:
                proc.stopping = True  # read after the chunks already in its pipe
                proc.send({"op": "stop"})
                return
            n = chunk_size(len(self.queue), self.jobs)
            items = [self.queue.popleft() for _ in range(min(n, len(self.queue)))]
            proc.chunks.append(items)
            proc.busy += items
            proc.send({"op": "grade", "seed": self.seed,
                       "items": [{"index": i, "submission": self.wire(i)} for i in items]})

    def _serve(self, proc: WorkerProcess, write: Write, tally: Tally) -> None:
        """Act on what one worker said; replace it if it ended."""
        messages = proc.read_lines()
        for msg in messages or []:
            op = msg.get("op")
            if op == "hello":  # a forked worker's first word: its pid
                proc.pid = proc.pid or msg.get("pid")
            elif op == "ready":
                proc.ready = True
                proc.pid = proc.pid or msg.get("pid")
                self._hand_out(proc)
            elif op == "report":
                tally.done(write(msg["index"], msg.get("report"), str(msg.get("error") or "")))
                if msg["index"] in proc.busy:
                    proc.busy.remove(msg["index"])
            elif op == "chunk_done":
                done = proc.chunks.pop(0) if proc.chunks else []
                missed = [i for i in done if i in proc.busy]  # should be none
                proc.busy = [i for i in proc.busy if i not in missed]
                self._retry(missed, write, tally, "its report did not arrive from the grading worker"
                                                  " three times; it was not graded")
                self._hand_out(proc)
            elif op == "fatal":
                raise GraderError(said("grading_worker_stopped_log", why=msg.get('message'), log=proc.log))
        if messages is None:  # the worker process ended
            self.sel.unregister(proc.stdout)
            proc.stop()
            self.procs.remove(proc)
            self._retry(proc.busy, write, tally, "its grading worker stopped three times while grading"
                                                 " it; it was not graded (the batch log has details)")
            if self.queue and len(self.procs) < self.jobs:
                if self.spawned >= 2 * self.jobs + 5:
                    raise GraderError(said("grading_workers_keep_stopping", log=proc.log))
                self._spawn()

    def _retry(self, lost: list[int], write: Write, tally: Tally, reason: str) -> None:
        """Queue lost submissions again, first; one lost a third time gets an error report."""
        for i in lost:
            self.retries[i] = self.retries.get(i, 0) + 1
            if self.retries[i] > 2:  # this submission alone is given up on
                tally.done(write(i, None, reason))
        self.queue.extendleft(reversed([i for i in lost if self.retries[i] <= 2]))
