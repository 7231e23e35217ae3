"""Stage 2 of ``grader batch`` on a Dask cluster: shards of submissions to warm workers elsewhere.

The client (this process) keeps everything the local driver's caller keeps: discovery, hashing,
``--resume``, report writing, the gradebooks and the summary. The cluster only grades shards.
On every Dask worker, :class:`GraderPlugin` starts one :mod:`grader.engines.batch_worker` per worker
thread from ``setup`` (the worker's main thread, which outlives them: their parent-death signal
follows it), keyed by (rubric fingerprint, seed, sandbox level); :func:`grade_shard` borrows one
and writes it one ``grade`` message, exactly what :class:`grader.engines.local_pool.LocalPool` writes.

Faults, and who handles them:

* a Dask worker dies (killed, out of memory, its node lost): Dask runs its shard again on
  another worker; after ``allowed-failures`` deaths the client gets ``KilledWorker``, splits the
  shard into single submissions graded alone, one at a time (Dask charges a death to every
  task the worker held), and one that still kills its worker gets an error report;
* a grading process dies or goes silent longer than the rubric lets a submission take: the task
  returns what it got plus the lost submissions, which the client grades again (twice at most);
* a node hangs (no heartbeat for :func:`hung_after` seconds): the client asks the scheduler to
  drop it, so its shards run elsewhere;
* Ctrl-C: the client cancels its futures and unregisters the plugin; ``--resume`` continues.

SPEC (``--cluster``): ``tcp://`` or ``tls://`` address of a running scheduler, a scheduler file
(``*.json``, as ``dask scheduler --scheduler-file`` writes it), or a cluster file (``*.yaml``)
whose ``kind`` picks the helper that starts one (see :func:`read_cluster_file`).

Sections: the SPEC and the cluster file (:class:`ClusterSpec`); starting and reaching the
cluster (:func:`build_cluster`, :func:`connect`); shards (:func:`shards`, :func:`task_slots`);
the client (:class:`ClusterPool`).
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

import yaml

from grader.errors import GraderError, UsageError
from grader.i18n.messages import said
from grader.engines.local_pool import Tally, Write
import grader.safeyaml as safeyaml

if TYPE_CHECKING:
    from dask.typing import Key
    from distributed import Client, Future, Security, as_completed
    from distributed.scheduler import Scheduler

    from grader.engines.dask_worker import ShardResult, WorkerView
    from grader.ingest.submission.model import SubmissionDict
    from grader.sandbox.limits import Limits
    from grader.spec.rubric.model import Rubric

#: ``kind:`` of a cluster file -> (module, class, the extra that installs it)
KINDS: dict[str, tuple[str, str, str]] = {
    "local": ("distributed", "LocalCluster", "cluster"),
    "ssh": ("distributed", "SSHCluster", "cluster-ssh"),
    "slurm": ("dask_jobqueue", "SLURMCluster", "cluster-jobqueue"),
    "pbs": ("dask_jobqueue", "PBSCluster", "cluster-jobqueue"),
    "sge": ("dask_jobqueue", "SGECluster", "cluster-jobqueue"),
    "lsf": ("dask_jobqueue", "LSFCluster", "cluster-jobqueue"),
    "kubernetes": ("dask_kubernetes.operator", "KubeCluster", "cluster-kubernetes"),
}
#: the grader's own keys in a cluster file; every other key goes to the helper
OWN_KEYS = ("kind", "workers", "security", "scheduler", "task_resources")
#: keys of ``security:``
SECURITY_KEYS = ("ca_file", "cert_file", "key_file", "require_encryption")
#: a submission whose grading process was lost this many times is given up on (as in the
#: local pool); a Dask worker's death is counted by the scheduler (``allowed-failures``)
MAX_RETRIES = 2


@dataclass(frozen=True)
class ClusterSpec:
    """What ``--cluster`` named, parsed once: an address, a scheduler file, or a helper to start."""

    source: str
    address: str = ""
    scheduler_file: str = ""
    kind: str = ""
    #: the helper's own keyword arguments, from the cluster file (YAML, passed on to the helper:
    #: their types are the helper's, and it checks them)
    options: dict[str, Any] = field(default_factory=dict)
    workers: int = 1
    #: ``ca_file``, ``cert_file``, ``key_file`` (paths) and ``require_encryption``; empty: no TLS
    security: dict[str, str | bool] = field(default_factory=dict)
    #: what each task asks of its worker (``task_resources:``), e.g. ``{"train": 1}``: only workers
    #: started with ``dask worker --resources train=1`` take it, one at a time each
    resources: dict[str, float] = field(default_factory=dict)


class Started(Protocol):
    """A cluster a deployment helper started here (Dask's ``Cluster``): what the pool asks of it."""

    def scale(self, n: int = 0, *, jobs: int = 0) -> object: ...

    def close(self) -> object: ...


def _need(module: str, extra: str, what: str) -> ModuleType:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise UsageError(said("needs_package_which_installed", what=what, module=module, why=exc, extra=extra)) from None


def parse_spec(spec: str) -> ClusterSpec:
    """``--cluster SPEC`` -> :class:`ClusterSpec`; a bad file or a missing extra is a UsageError."""
    _need("distributed", "cluster", "--cluster")
    text = spec.strip()
    if text.startswith(("tcp://", "tls://")):
        return ClusterSpec(source=spec, address=text)
    path = Path(text)
    if path.suffix == ".json":
        if not path.is_file():
            raise UsageError(said("no_such_scheduler_file", spec=spec))
        return ClusterSpec(source=spec, scheduler_file=str(path))
    if path.suffix in (".yaml", ".yml"):
        return read_cluster_file(path)
    raise UsageError(said("cluster_expected_tcp_tls", spec=spec))


def _is_loopback(host: str) -> bool:
    """Whether every address ``host`` names (an IP, or a name resolved here) is a loopback one."""
    import ipaddress
    import socket

    host = host.strip("[]")
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        found = {info[4][0] for info in socket.getaddrinfo(host, None)}
    except (OSError, UnicodeError):
        return False  # (a name that does not resolve here is not known to be this machine)
    try:
        return bool(found) and all(ipaddress.ip_address(str(a).split("%")[0]).is_loopback for a in found)
    except ValueError:
        return False


def _host_of(address: str) -> str:
    """The host of ``tcp://HOST:PORT`` (``[v6]`` kept whole; no port: all of it)."""
    rest = address.split("://", 1)[-1].split("/", 1)[0]
    if rest.startswith("["):
        return rest[: rest.find("]") + 1] if "]" in rest else rest
    return rest.rsplit(":", 1)[0] if rest.count(":") == 1 else rest


def plain_remote(spec: ClusterSpec) -> str:
    """The address ``spec`` reaches without TLS on a host that is not this one ('' when none): a
    ``tcp://`` address, given or in the scheduler file, whose host is not loopback (a name counts
    as loopback when everything it resolves to is). Whoever reaches such a port can run code on
    every node (Dask's protocol is pickle), so :func:`refuse_plain` stops the batch unless told."""
    address = spec.address
    if spec.scheduler_file:
        import json

        try:
            data = json.loads(Path(spec.scheduler_file).read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            data = None
        if not isinstance(data, dict) or not isinstance(data.get("address"), str):
            raise UsageError(said("scheduler_file_no_address", path=spec.scheduler_file))
        address = data["address"]
    if not address or not address.startswith("tcp://"):
        return ""  # (tls://, or a cluster the grader starts here)
    return "" if _is_loopback(_host_of(address)) else address


def refuse_plain(spec: ClusterSpec, *, allow: bool) -> str:
    """'' when ``spec`` is safe to reach; the warning to give on this run when it is not and
    ``allow`` (``--allow-plain-cluster``) says go on.

    Raises:
        UsageError: a plain ``tcp://`` address that is not loopback, and not ``allow``.
    """
    address = plain_remote(spec)
    if not address:
        return ""
    if not allow:
        raise UsageError(said("cluster_plain_refused", spec=spec.source, address=address))
    return said("cluster_plain_allowed", address=address)


def read_cluster_file(path: Path) -> ClusterSpec:
    """A ``cluster.yaml``: ``kind`` (or ``scheduler``), ``workers``, ``security``, the helper's options.

    Example::

        kind: slurm
        workers: 4            # jobs (Slurm, PBS, ...), processes (local) or pods (kubernetes)
        cores: 32
        memory: 64GB
        walltime: "02:00:00"
        security: {ca_file: ca.pem, cert_file: grader.pem, key_file: grader.key}
        task_resources: {train: 1}  # each task takes one "train" of a worker (dask worker --resources train=1)
    """
    try:
        data = safeyaml.load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(said("cannot_read_cluster_file", path=path, why=exc.strerror or exc)) from None
    except yaml.YAMLError as exc:
        raise UsageError(said("cluster_file_valid_yaml", path=path, problem=exc)) from None
    if not isinstance(data, dict):
        raise UsageError(said("cluster_file_must_mapping", path=path, kinds=', '.join(KINDS)))
    kind, scheduler = data.get("kind"), data.get("scheduler")
    if scheduler is not None and kind is not None:
        raise UsageError(said("kind_scheduler_give_one", path=path))
    security = _security_block(path, data.get("security"))
    resources = _resources_block(path, data.get("task_resources"))
    workers = data.get("workers", 1)
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise UsageError(said("workers_whole_number_least", path=path, value=f"{workers!r}"))
    if scheduler is not None:
        extra = sorted(set(data) - {"scheduler", "security", "task_resources"})
        if extra:
            raise UsageError(said("unknown_key_beside_scheduler", path=path, key=extra[0]))
        if not isinstance(scheduler, str) or not scheduler.startswith(("tcp://", "tls://")):
            raise UsageError(said("scheduler_tcp_tls_address", path=path, value=f"{scheduler!r}"))
        return ClusterSpec(source=str(path), address=scheduler, security=security, resources=resources)
    if kind not in KINDS:
        raise UsageError(said("kind_one", path=path, value=f"{kind!r}", kinds=', '.join(KINDS)))
    options = {k: v for k, v in data.items() if k not in OWN_KEYS}
    module, cls, pip_extra = KINDS[kind]
    helper = getattr(_need(module, pip_extra, f"kind: {kind}"), cls)
    if kind == "kubernetes":  # the options build the DaskCluster resource (kubernetes_spec)
        helper = _need("dask_kubernetes.operator", pip_extra, f"kind: {kind}").make_cluster_spec
        cls = "make_cluster_spec"
    allowed = _helper_keys(helper)
    for key in options:
        if allowed is not None and key not in allowed:
            raise UsageError(said("option_kind_options", path=path, key=key, cls=cls, kind=kind, options=', '.join(sorted(allowed))))
    return ClusterSpec(source=str(path), kind=kind, options=options, workers=workers, security=security,
                       resources=resources)


def _helper_keys(helper: Callable[..., object]) -> set[str] | None:
    """The keyword arguments a deployment helper takes (None: it takes any)."""
    import inspect

    keys: set[str] = set()
    open_ended = False
    classes: list[Callable[..., object]] = [helper]
    job_cls = getattr(helper, "job_cls", None)
    if job_cls is not None:  # dask-jobqueue: the cluster passes the rest to its Job class
        classes += [c for c in job_cls.__mro__ if "__init__" in vars(c) and c is not object]
    for cls in classes:
        for name, p in inspect.signature(_init_of(cls) if isinstance(cls, type) else cls).parameters.items():
            if p.kind is p.VAR_KEYWORD:
                open_ended = True
            elif name != "self":
                keys.add(name)
    if open_ended and job_cls is None:
        return None
    return keys - {"security", "job_cls", "loop", "asynchronous", "scheduler", "scheduler_cls", "n_workers"}


def _init_of(cls: type) -> Callable[..., object]:
    """``cls.__init__``, looked up along its MRO as attribute access would find it."""
    init: Callable[..., object] = next(vars(c)["__init__"] for c in cls.__mro__ if "__init__" in vars(c))
    return init


def _resources_block(path: Path, block: object) -> dict[str, float]:
    if block is None:
        return {}
    if not isinstance(block, dict) or not block:
        raise UsageError(said("task_resources_must_map", path=path))
    out: dict[str, float] = {}
    for name, amount in block.items():
        if (not isinstance(name, str) or not name.isidentifier() or isinstance(amount, bool)
                or not isinstance(amount, (int, float)) or not amount > 0):
            raise UsageError(said("task_resources_positive_number", path=path, name=name, amount=f"{amount!r}"))
        out[name] = float(amount)
    return out


def _security_block(path: Path, block: object) -> dict[str, str | bool]:
    if block is None:
        return {}
    if not isinstance(block, dict):
        raise UsageError(said("security_must_mapping", path=path, keys=', '.join(SECURITY_KEYS)))
    for key in block:
        if key not in SECURITY_KEYS:
            raise UsageError(said("security_unknown_key_use", path=path, key=key, keys=', '.join(SECURITY_KEYS)))
    out: dict[str, str | bool] = {"require_encryption": bool(block.get("require_encryption", True))}
    for key in ("ca_file", "cert_file", "key_file"):
        value = block.get(key)
        if value is None:
            raise UsageError(said("security_missing_mutual_tls", path=path, key=key))
        file = (path.parent / str(value)).resolve()
        if not file.is_file():
            raise UsageError(said("security_no_such_file", path=path, key=key, value=value))
        out[key] = str(file)
    return out


def security_of(spec: ClusterSpec) -> Security | None:
    """Mutual TLS from the cluster file's ``security:`` (one certificate for every role)."""
    from distributed import Security

    s = spec.security
    if not s:
        return None
    return Security(tls_ca_file=s["ca_file"], tls_client_cert=s["cert_file"], tls_client_key=s["key_file"],
                    tls_scheduler_cert=s["cert_file"], tls_scheduler_key=s["key_file"],
                    tls_worker_cert=s["cert_file"], tls_worker_key=s["key_file"],
                    require_encryption=s["require_encryption"])


def build_cluster(spec: ClusterSpec, hung_s: float) -> Started:
    """Start the helper a cluster file names; its scheduler runs in this process, dashboard off.

    ``hung_s`` becomes the scheduler's ``worker-ttl``: a node silent that long is dropped and
    its shards run elsewhere (Dask's default waits five minutes).
    """
    import dask

    module, cls, extra = KINDS[spec.kind]
    helper = getattr(_need(module, extra, f"kind: {spec.kind}"), cls)
    sec = security_of(spec)
    opts = dict(spec.options)
    protocol = {"protocol": "tls://"} if sec is not None else {}
    # The scheduler's HTTP server (dashboard off, health and metrics) listens on loopback only.
    http = {"dashboard": False, "dashboard_address": "127.0.0.1:0"}
    cluster: Started  # (the helper is Dask's, looked up by name: untyped)
    with dask.config.set({"distributed.scheduler.worker-ttl": f"{int(hung_s)}s"}):
        if spec.kind == "local":
            opts.setdefault("threads_per_worker", 1)
            cluster = helper(n_workers=spec.workers, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0",
                             scheduler_kwargs={"dashboard": False}, security=sec, **protocol, **opts)
        elif spec.kind == "ssh":
            opts["scheduler_options"] = {**opts.get("scheduler_options", {}), **http}
            opts.setdefault("worker_options", {}).setdefault("n_workers", 1)
            cluster = helper(security=sec, **opts)
        elif spec.kind == "kubernetes":
            from dask_kubernetes.operator import make_cluster_spec

            cluster = helper(custom_cluster_spec=kubernetes_spec(spec, make_cluster_spec))
        else:
            opts.setdefault("processes", 1)
            opts["scheduler_options"] = {**opts.get("scheduler_options", {}), **http}
            cluster = helper(security=sec, **protocol, **opts)  # scaled by connect(): jobs are asked for there
    return cluster


def kubernetes_spec(spec: ClusterSpec, make_cluster_spec: Callable[..., dict[str, object]]) -> dict[str, object]:
    """The DaskCluster resource for ``kind: kubernetes`` (no cluster needed to build it)."""
    opts = dict(spec.options)
    return make_cluster_spec(name=opts.pop("name", "grader"), n_workers=spec.workers, **opts)


def connect(spec: ClusterSpec, hung_s: float) -> tuple[Client, Started | None]:
    """A client to the cluster SPEC names (and the cluster object when it was started here)."""
    from distributed import Client

    cluster: Started | None = None
    sec = security_of(spec)
    try:
        if spec.kind:
            cluster = build_cluster(spec, hung_s)
            client = Client(cluster, security=sec)
            if KINDS[spec.kind][0] == "dask_jobqueue":
                cluster.scale(jobs=spec.workers)
        elif spec.scheduler_file:
            client = Client(scheduler_file=spec.scheduler_file, security=sec, timeout="30s")
        else:
            client = Client(spec.address, security=sec, timeout="30s")
    except (OSError, TimeoutError, ValueError, TypeError) as exc:  # TypeError: tls:// without security:
        if cluster is not None:
            cluster.close()
        raise UsageError(said("cluster_cannot_reach_scheduler", spec=spec.source,
                              why=f"{type(exc).__name__}: {exc}")) from None
    return client, cluster


def shard_size(remaining: int, threads: int) -> int:
    """Submissions in the next task while ``remaining`` are left: a quarter of each worker
    thread's share, 2 to 128. Shards shrink as the batch ends, so the last ones are short and
    no thread waits long for another's last shard; early on they are large, so a batch of
    100k submissions is a few thousand tasks (a task costs the scheduler a few ms)."""
    threads = max(1, threads)
    return max(1, min(remaining, 128, max(2, math.ceil(remaining / (threads * 4)))))


def shards(todo: list[int], threads: int, fixed: int | None = None) -> list[list[int]]:
    """``todo`` cut into tasks: ``fixed`` submissions each (``--shard-size``), else as
    :func:`shard_size` says for what is left after each cut."""
    out, at = [], 0
    while at < len(todo):
        size = fixed or shard_size(len(todo) - at, threads)
        out.append(todo[at:at + size])
        at += size
    return out


# (a worker's record is the scheduler's, as Dask's scheduler_info() gives it: untyped)
def task_slots(workers: list[dict[str, Any]], resources: dict[str, float]) -> int:
    """Tasks the ``workers`` (the scheduler's records) run at once: their threads, or with
    ``resources`` the whole tasks each one's resources hold (never more than its threads)."""
    total = 0
    for w in workers:
        threads = int(w.get("nthreads", 1))
        if resources:
            have = w.get("resources") or {}
            threads = min([threads, *(int(float(have.get(k, 0)) // v) for k, v in resources.items())])
        total += threads
    return total


def hung_after(limits: Limits) -> float:
    """Seconds of silence after which a node counts as hung: within the rubric's own limits."""
    return float(min(limits.per_submission_s, max(10.0, 3.0 * limits.per_call_s)))


# --------------------------------------------------------------------------- the client


class ClusterPool:
    """Hand shards of submissions to a Dask cluster; write each report as its shard comes back.

    Same shape as :class:`grader.engines.local_pool.LocalPool`: ``run(todo, write, tally)``.
    """

    def __init__(self, spec: ClusterSpec, *, rubric: Rubric, fingerprint: str, seed: int,
                 wire: Callable[[int], SubmissionDict], allow_weak: bool, shard: int | None,
                 say: Callable[[str], None], log: Path | None = None) -> None:
        self.spec, self.rubric, self.fingerprint, self.seed = spec, rubric, fingerprint, seed
        self.wire, self.allow_weak, self.shard, self.say = wire, allow_weak, shard, say
        self.hung_s = hung_after(rubric.limits)
        self.log = log
        self.retries: dict[int, int] = {}
        self.kills: dict[int, int] = {}  # how often a submission's task ended in KilledWorker
        self.suspects: deque[int] = deque()  # to be graded alone, one at a time
        self.done: set[int] = set()
        self.tasks = 0
        self._shard_of: dict[Key, list[int]] = {}
        self.write_s = 0.0  # this process's time spent writing reports
        self._began = time.monotonic()
        self.named: dict[str, WorkerView] = {}  # the workers said on the terminal, by address
        self._opened: tuple[Client, Started | None] | None = None
        self._opening: threading.Thread | None = None
        self._failed: BaseException | None = None

    def _note(self, text: str) -> None:
        if self.log is not None:
            self.log.parent.mkdir(parents=True, exist_ok=True)
            with self.log.open("a", encoding="utf-8") as fh:
                fh.write(f"{time.strftime('%H:%M:%S')} {text}\n")

    def open_soon(self) -> None:
        """Connect and start the grading processes on every worker in the background, so that
        they warm up while this process finds and reads the submissions; :meth:`run` waits.
        This process imports no torch: it hands out shards and writes the reports it gets back."""
        self._opening = threading.Thread(target=self._open_here, name="cluster-open", daemon=True)
        self._opening.start()

    def _open_here(self) -> None:
        try:
            self._open()
        except BaseException as exc:  # noqa: BLE001 - raised again by run(), in the caller's thread
            self._failed = exc

    def _open(self) -> tuple[Client, Started | None]:
        if self._opened is None:
            from grader.engines.dask_worker import PLUGIN, GraderPlugin

            client, cluster = connect(self.spec, self.hung_s)
            try:
                client.register_plugin(GraderPlugin(str(Path(self.rubric.file).resolve()), self.fingerprint,
                                                    self.seed, self.allow_weak), name=PLUGIN)
            except BaseException:
                self._shut(client, cluster)
                raise
            self._opened = (client, cluster)
        return self._opened

    def close(self) -> None:
        """Unregister the plugin (its grading processes stop) and disconnect, if connected."""
        if self._opening is not None:
            self._opening.join()
            self._opening = None
        if self._opened is not None:
            client, cluster = self._opened
            self._opened = None
            self._shut(client, cluster)

    @staticmethod
    def _shut(client: Client, cluster: Started | None) -> None:
        from grader.engines.dask_worker import PLUGIN

        try:
            client.unregister_worker_plugin(PLUGIN)
        except Exception:  # noqa: BLE001 - the cluster may be gone; nothing to tear down then
            pass
        client.close()
        if cluster is not None:
            cluster.close()

    def run(self, todo: list[int], write: Write, tally: Tally) -> None:
        from distributed import as_completed

        began = self._began
        if self._opening is not None:
            self._opening.join()
            self._opening = None
        if self._failed is not None:
            failed, self._failed = self._failed, None
            raise failed
        client, _ = self._open()
        inflight: dict[Future[ShardResult], list[int]] = {}
        try:
            threads = self._threads(client)
            self._note(f"connected in {time.monotonic() - began:.3f} s; {threads} worker threads")
            self._name_workers(client)
            pending: deque[list[int]] = deque(shards(todo, threads, self.shard))
            size = max((len(s) for s in pending), default=0)
            watch = as_completed()
            with tally.bar:
                last_check = time.monotonic()
                while pending or inflight or self.suspects:
                    if self.suspects and not inflight:  # alone on the cluster: a death is its own
                        future = self._submit(client, [self.suspects.popleft()])
                        inflight[future] = self._shard_of[future.key]
                        watch.add(future)
                    while pending and not self.suspects and len(inflight) < 2 * threads + 1:
                        future = self._submit(client, pending.popleft())
                        inflight[future] = self._shard_of[future.key]
                        watch.add(future)
                    for future in watch.next_batch(block=False) or self._wait(watch):
                        shard = inflight.pop(future)
                        self._shard_of.pop(future.key, None)
                        self._finished(future, shard, pending, write, tally)
                        future.release()
                    if time.monotonic() - last_check > 2.0:
                        last_check = time.monotonic()
                        threads = self._threads(client, wait=False) or threads
                        self._drop_hung(client)
            self._note(f"done: {len(self.done)} submissions in {self.tasks} tasks of up to {size}, "
                       f"{threads} worker threads, {time.monotonic() - began:.3f} s, "
                       f"writing reports {self.write_s:.3f} s")
        except BaseException:
            if inflight:
                client.cancel(list(inflight), force=True)
            raise
        finally:
            inflight.clear()
            self.close()

    def _submit(self, client: Client, shard: list[int]) -> Future[ShardResult]:
        self.tasks += 1
        key = f"grade-{self.fingerprint[:12]}-{self.seed}-{self.tasks}"
        from grader.engines.dask_worker import ShardItem, grade_shard

        items = [ShardItem(index=i, submission=self.wire(i)) for i in shard]
        future = client.submit(grade_shard, (self.fingerprint, self.seed), items, key=key, pure=False,
                               resources=self.spec.resources or None)
        self._shard_of[key] = shard
        return future

    @staticmethod
    def _wait(watch: as_completed) -> list[Future[ShardResult]]:
        """The next finished futures, or none after a second (so the watch on nodes goes on)."""
        from distributed import wait

        futures = list(watch.futures)
        if not futures:
            return []
        try:
            wait(futures, timeout=1.0, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return []
        return watch.next_batch(block=False) or []

    def _threads(self, client: Client, wait: bool = True) -> int:
        """How many tasks the cluster runs at once: its worker threads, or with ``task_resources:``
        what the workers that offer them can take. With ``wait``, until there is at least one."""
        asked = "".join(f" --resources {k}={v:g}" for k, v in self.spec.resources.items())
        while True:
            workers = list(client.scheduler_info(n_workers=-1)["workers"].values())
            slots = task_slots(workers, self.spec.resources)
            if slots or not wait:
                return slots
            self.say(said("waiting_dask_worker_join") if not asked
                     else said("waiting_dask_worker_started", asked=asked))
            try:
                client.wait_for_workers(len(workers) + 1, timeout=10 if asked else 600)
            except TimeoutError:
                continue

    def _name_workers(self, client: Client) -> None:
        """Say which workers grade and at which sandbox level each does (as its plugin chose)."""
        from grader.engines.dask_worker import describe

        try:
            views = client.run(describe)
        except (OSError, TimeoutError) as exc:  # a worker went away meanwhile: the batch goes on
            self._note(f"naming the workers failed: {type(exc).__name__}: {exc}")
            return
        self.named.update(views)
        self.say(said("grading_on_dask_workers", n=len(views), workers=workers_by_level(list(views.values()))))

    def _drop_hung(self, client: Client) -> None:
        """Have the scheduler drop workers whose heartbeats stopped (their shards run elsewhere).

        Judged on the scheduler's own clock: the client's may differ from the cluster's.
        """
        try:
            dropped = client.run_on_scheduler(_drop_silent, silent_s=self.hung_s)
        except (OSError, TimeoutError) as exc:  # the scheduler is busy or away: asked again in 2 s
            self._note(f"heartbeat check failed: {type(exc).__name__}: {exc}")
            return
        for address in dropped:
            self.say(said("worker_sent_no_heartbeat", address=address, s=f"{self.hung_s:.0f}"))
            self._note(f"hung {address}")

    def _finished(self, future: Future[ShardResult], shard: list[int], pending: deque[list[int]], write: Write,
                  tally: Tally) -> None:
        from distributed import KilledWorker

        if future.status == "finished":
            result = future.result()
            if result.get("refused"):
                raise UsageError(said("dask_worker_cannot_grade", host=result.get('host'), why=result['refused']))
            address = str(result.get("worker", ""))
            if address and address not in self.named:  # a worker that joined after the batch began
                view: WorkerView = {"name": str(result.get("name", address)), "host": str(result.get("host", "")),
                                    "level": str(result.get("level", "")), "refused": ""}
                self.named[address] = view
                self.say(said("dask_worker_joined", workers=workers_by_level([view])))
            self._note(f"{future.key} on {result.get('host')} {result.get('worker', '')} "
                       f"from {result.get('began', 0):.3f} to {result.get('ended', 0):.3f}: {len(result['reports'])} reports, "
                       f"lost {result['lost']}, waited {result.get('wait_s', 0):.3f} s, "
                       f"graded in {result.get('grade_s', 0):.3f} s")
            for index, (data, error) in result["reports"].items():
                self._write(int(index), data, error, write, tally)
            self._lost(result["lost"], pending, write, tally,
                       said("grading_process_stopped_three"))
            return
        exc = future.exception() if future.status == "error" else None
        self._note(f"{future.key}: {future.status} {type(exc).__name__ if exc else ''}")
        if isinstance(exc, KilledWorker) or future.status == "cancelled":
            # Dask charges a worker's death to every task it held, queued ones too (dask/distributed
            # #5234): each submission of the shard is graded again alone on the cluster, so that
            # a death then is its own, and only the submission that kills its worker fails.
            if len(shard) > 1 or self.kills.get(shard[0], 0) == 0:
                for i in shard:
                    self.kills[i] = self.kills.get(i, 0) + 1
                self.suspects.extend(shard)
            else:
                for i in shard:
                    self._write(i, None, said("grading_stopped_dask_worker"), write, tally)
            return
        raise GraderError(said("shard_failed_cluster", what=f"{type(exc).__name__}: {exc}"))

    def _lost(self, lost: list[int], pending: deque[list[int]], write: Write, tally: Tally, reason: str) -> None:
        """A shard's process stopped before it reported ``lost`` (in the shard's order). It grades
        in that order, so the first was being graded: only it is charged a retry, and it goes
        again alone; the rest, which were waiting behind it, go again without a charge."""
        lost = [i for i in lost if i not in self.done]
        if not lost:
            return
        culprit, rest = lost[0], lost[1:]
        if rest:
            pending.appendleft(rest)
        self.retries[culprit] = self.retries.get(culprit, 0) + 1
        if self.retries[culprit] > MAX_RETRIES:
            self._write(culprit, None, reason, write, tally)
        else:
            pending.appendleft([culprit])

    def _write(self, index: int, data: dict[str, object] | None, reason: str, write: Write, tally: Tally) -> None:
        """The first report of a submission counts; a second one (a re-run shard) is dropped."""
        if index in self.done:
            self._note(f"duplicate report for {index} dropped")
            return
        self.done.add(index)
        began = time.perf_counter()
        report = write(index, data, reason)
        self.write_s += time.perf_counter() - began
        tally.done(report)


def workers_by_level(views: list[WorkerView], most: int = 12) -> str:
    """``namespaces: wA (node1), wB (node1)``: the workers' names and hosts after the sandbox
    level they grade at, a level a group (``; `` between); past ``most`` workers of a level,
    how many more."""
    levels: dict[str, list[str]] = {}
    for view in sorted(views, key=lambda v: (v["level"], v["name"])):
        levels.setdefault(view["level"] or "?", []).append(f"{view['name']} ({view['host']})")
    return "; ".join(f"{level}: {', '.join(names[:most])}" + (f", … +{len(names) - most}" if len(names) > most else "")
                     for level, names in levels.items())


async def _drop_silent(dask_scheduler: Scheduler, silent_s: float) -> list[str]:
    """On the scheduler: remove the workers silent for ``silent_s`` seconds; their addresses."""
    now = time.time()
    silent = [a for a, ws in dask_scheduler.workers.items() if now - ws.last_seen > silent_s]
    for address in silent:
        await dask_scheduler.remove_worker(address, stimulus_id=f"grader-hung-{now}", close=True)
    return silent
