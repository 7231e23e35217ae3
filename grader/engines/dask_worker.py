"""The worker side of ``grader batch --cluster``: a Dask worker plugin and the shard task.

Imported on every Dask worker (it needs ``distributed``); the client side is :mod:`grader.engines.dask`.
:class:`GraderPlugin` starts one :mod:`grader.engines.batch_worker` per worker thread from ``setup``,
which Dask runs on the worker's main thread: the processes' parent-death signal follows the
thread that started them, and a task thread ends when Dask likes. No ``multiprocessing`` here:
under a nanny the worker is a daemonic process, which may not have ``multiprocessing`` children.
"""

from __future__ import annotations

import os
import queue
import select
import socket
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from distributed.diagnostics.plugin import WorkerPlugin

from grader.errors import GraderError, UsageError
from grader.i18n.messages import said
from grader.engines.local_pool import WorkerProcess

if TYPE_CHECKING:
    from distributed import Worker

    from grader.ingest.submission.model import SubmissionDict
    from tornado.ioloop import PeriodicCallback

PLUGIN = "grader"


class ShardItem(TypedDict):
    """One submission of a shard: its index in the batch and its plain form."""

    index: int
    submission: SubmissionDict


#: one submission's outcome: its report as plain data (None when there is none) and why not
Graded = tuple["dict[str, object] | None", str]


class ShardResult(TypedDict, total=False):
    """What :func:`grade_shard` sends back: ``refused`` (and ``host``), or the shard's reports."""

    host: str
    refused: str
    worker: str
    name: str
    level: str
    #: index -> (report, error) of each submission graded
    reports: dict[int, Graded]
    #: the indices it could not grade, in the shard's order
    lost: list[int]
    wait_s: float
    grade_s: float
    began: float
    ended: float



def claim_cpus(n: int, folder: Path | None = None) -> tuple[list[int], list[int]]:
    """``n`` CPUs of this host for this Dask worker's grading processes, one each, that no other
    grading worker on the host holds; and the held locks' descriptors (close them to let go).

    Several Dask workers often share a host (``dask worker --nworkers``, a few one-thread workers
    on a lab machine). Each pins its processes, as ``grader batch -j`` does, only to CPUs it
    holds an exclusive ``flock`` on in a folder of this user's; where fewer than ``n`` are free,
    or the folder is not this user's own, nothing is pinned (the kernel places them).
    """
    import tempfile

    from grader.sandbox.uids import hold

    try:
        allowed = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return [], []
    if not 1 < len(allowed) or n > len(allowed):
        return [], []
    folder = folder or Path(tempfile.gettempdir()) / f"grader-cpus-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        if folder.is_symlink() or folder.stat().st_uid != os.getuid():
            return [], []
    except OSError:
        return [], []
    got: list[int] = []
    fds: list[int] = []
    for cpu in allowed:
        if len(got) == n:
            break
        fd = hold(folder / f"cpu{cpu}.lock")
        if fd is None:
            continue
        got.append(cpu)
        fds.append(fd)
    if len(got) < n:
        for fd in fds:
            os.close(fd)
        return [], []
    return got, fds


#: The worker's own sampling of its task threads' stacks (every 10 ms, for the dashboard's
#: profile; ``distributed.worker.profile``). A grading task's thread only waits on a pipe to its
#: grading process, so the samples tell nothing, and on a node whose every core grades they take
#: CPU from the grading processes: the cluster batch ran 1.17x the local one with them, 1.08x
#: without (``bench/cluster.py``).
SAMPLERS = ("profile", "profile-cycle")


def pause_sampling(worker: Worker) -> list[PeriodicCallback]:
    """Stop the worker's stack sampling while the plugin is installed; returns what to start again."""
    paused = []
    for name in SAMPLERS:
        callback = getattr(worker, "periodic_callbacks", {}).get(name)
        if callback is not None and callback.is_running():
            callback.stop()
            paused.append(callback)
    return paused


class GraderPlugin(WorkerPlugin):
    """Owns one warm grading process per Dask worker thread, for one (rubric, seed, level).

    Registered under one name, so a second batch on a long-lived cluster replaces the first
    one's processes (Dask tears the old plugin down) instead of reusing its seed or rubric.
    """

    name = PLUGIN

    def __init__(self, rubric_file: str, fingerprint: str, seed: int, allow_weak: bool) -> None:
        self.rubric_file, self.fingerprint, self.seed, self.allow_weak = rubric_file, fingerprint, seed, allow_weak
        self.key: tuple[str | int, ...] = (fingerprint, seed)

    def setup(self, worker: Worker) -> None:
        """On the worker's main thread: choose the sandbox, check the rubric, start the processes."""
        from grader.spec.rubric.load import load_rubric
        from grader.spec.fingerprint import rubric_fingerprint
        from grader.sandbox.level import choose_level

        self.worker = worker
        self.host = socket.gethostname()
        self.free: queue.Queue[WorkerProcess] = queue.Queue()
        self.procs: list[WorkerProcess] = []
        self.refused = ""
        self.level, self.warning = "", ""
        self.started = 0
        self.lock = threading.Lock()
        self.logs = Path(worker.local_directory) / "grader-logs"
        try:
            self.level, self.warning = choose_level(allow_weak=self.allow_weak)
            rubric = load_rubric(self.rubric_file)
            if rubric_fingerprint(rubric, ("public", "hidden")) != self.fingerprint:
                raise UsageError(said("rubric_suites_differ_client", path=self.rubric_file))
        except (GraderError, OSError) as exc:
            self.refused = str(exc)
            return
        # Silent this long (no report, no heartbeat) the process is hung. A heartbeat comes while
        # the sandbox keeps making calls, so a submission that hangs in every function (each
        # call's time excused) is not taken for it.
        self.silence_s = float(rubric.limits.per_submission_s) + 30.0
        self.key = (self.fingerprint, self.seed, self.level)
        self.config = {"op": "config", "rubric": self.rubric_file, "seed": self.seed, "level": self.level,
                       "warning": self.warning, "parent": os.getpid(),
                       "heartbeat_s": max(1.0, min(10.0, self.silence_s / 4))}
        self.lost_in_a_row = 0
        n = max(1, int(worker.state.nthreads))
        cpus, self.cpu_locks = claim_cpus(n)
        for proc in WorkerProcess.start_group(self.config, cpus, n, self.logs):
            self._add(proc)
        self.paused = pause_sampling(worker)

    def _add(self, proc: WorkerProcess) -> None:
        self.started += 1
        self.procs.append(proc)
        self.free.put(proc)

    def respawn(self) -> None:
        """Replace a lost process; run on the worker's event loop (its main thread), never a task's."""
        n = max(1, int(self.worker.state.nthreads))
        self.lost_in_a_row += 1
        if self.lost_in_a_row >= 2 * n + 5:  # none graded a shard in between: the node, not a submission
            self.refused = said("grading_processes_keep_stopping")
            return
        self._add(WorkerProcess({**self.config, "cpu": None}, self.logs / f"worker-{self.started}.log"))

    def teardown(self, worker: Worker) -> None:
        for proc in getattr(self, "procs", []):
            proc.stop(grace=2.0)
        for callback in getattr(self, "paused", []):
            callback.start()  # the worker samples its threads again, as it did before the batch
        self.paused = []
        for fd in getattr(self, "cpu_locks", []):
            os.close(fd)  # (the kernel lets go of them too when this process ends)
        self.cpu_locks = []

    def grade(self, proc: WorkerProcess, items: list[ShardItem]) -> tuple[dict[int, Graded], bool]:
        """One ``grade`` message to ``proc``; (index -> (report, error), whether ``proc`` is still usable)."""
        got: dict[int, Graded] = {}
        if not proc.send({"op": "grade", "seed": self.seed, "items": items}):
            return got, False
        fd = proc.stdout.fileno()
        while True:
            ready, _, _ = select.select([fd], [], [], self.silence_s)
            if not ready:  # silent longer than a submission may take: hung
                return got, False
            messages = proc.read_lines()
            if messages is None:
                return got, False
            for msg in messages:
                op = msg.get("op")
                if op in ("hello", "ready"):
                    proc.pid = proc.pid or msg.get("pid")
                elif op == "report":
                    got[int(msg["index"])] = (msg.get("report"), str(msg.get("error") or ""))
                elif op == "chunk_done":
                    return got, True
                elif op == "fatal":
                    raise GraderError(said("grading_worker_stopped", host=self.host, message=msg.get('message')))


class WorkerView(TypedDict):
    """What :func:`describe` tells of one Dask worker: its name, host and the sandbox level it grades at."""

    name: str
    host: str
    level: str
    refused: str


def describe(dask_worker: Worker) -> WorkerView:
    """Run on every worker (``client.run``): its name, its host, and the sandbox level its
    grader plugin chose (empty when the plugin is not installed there)."""
    plugin = dask_worker.plugins.get(PLUGIN)
    level = getattr(plugin, "level", "") if isinstance(plugin, GraderPlugin) else ""
    refused = getattr(plugin, "refused", "") if isinstance(plugin, GraderPlugin) else ""
    return {"name": str(dask_worker.name), "host": socket.gethostname(), "level": str(level),
            "refused": str(refused)}


def grade_shard(key: tuple[str, int], items: list[ShardItem]) -> ShardResult:
    """The cluster's task: grade ``items`` on this worker's warm process; plain data back."""
    from distributed import get_worker

    worker = get_worker()
    plugin = worker.plugins.get(PLUGIN)
    host = socket.gethostname()
    if not isinstance(plugin, GraderPlugin) or (plugin.fingerprint, plugin.seed) != tuple(key):
        return {"host": host, "refused": said("holds_another_batch_s")}
    if plugin.refused:
        return {"host": host, "refused": plugin.refused}
    began = time.time()
    waited = time.monotonic()
    proc = plugin.free.get()
    started = time.monotonic()
    usable = False
    try:
        got, usable = plugin.grade(proc, items)
    finally:
        if usable:
            plugin.lost_in_a_row = 0
            plugin.free.put(proc)
        else:
            proc.stop(grace=2.0)
            with plugin.lock:
                if proc in plugin.procs:
                    plugin.procs.remove(proc)
            worker.loop.add_callback(plugin.respawn)
    lost = [int(it["index"]) for it in items if int(it["index"]) not in got]
    return {"host": host, "worker": worker.address, "name": str(worker.name), "level": plugin.level, "reports": got, "lost": lost,
            "wait_s": started - waited, "grade_s": time.monotonic() - started, "began": began, "ended": time.time()}
