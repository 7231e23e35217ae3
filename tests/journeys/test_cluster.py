"""``grader batch --cluster`` on a real Dask cluster: a ``dask scheduler`` and two ``dask worker``
processes over 127.0.0.1, started as an instructor's ``sbatch`` script starts them.

Forty mixed submissions (correct, named mistakes, a notebook, a zip, a hang, a crash) are graded
once locally with ``-j 2`` (the reference, shared by the module) and compared report by report
(scores, tests, mistakes, evidence) with the cluster's: as they are, and with ``kill -9`` of one
worker while it grades. The lighter tests use two or three submissions.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import yaml

import distributed  # the cluster extra (in the test extra too): pip install 'grader[cluster]'  # noqa: E402

from tests.helpers import EXAMPLES, FIXTURES, ROOT, RUBRIC, alive, descendants, read_gradebook, run_grader


MUTANTS = ROOT / "suites" / "chapter07" / "mutants"
SEED = 11
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# --------------------------------------------------------------------------- the submissions


def _mixed_source(dest: Path, n: int = 40) -> Path:
    """``n`` submissions: the bundled examples (one a notebook), a zip, a hang, a crash, and
    mutants of the reference (each mutant's code appended to the file its header names)."""
    dest.mkdir(parents=True)
    for entry in sorted(EXAMPLES.iterdir()):
        (shutil.copytree if entry.is_dir() else shutil.copyfile)(entry, dest / entry.name)
    shutil.copyfile(FIXTURES / "correct-zip.zip", dest / "zipped.zip")
    shutil.copytree(FIXTURES / "import-error", dest / "import-error")
    hang = dest / "hang"
    shutil.copytree(EXAMPLES / "correct", hang)
    with (hang / "scaling.py").open("a", encoding="utf-8") as fh:
        fh.write("\nwhile True:\n    pass\n")  # importing it never ends
    crash = dest / "crash"
    shutil.copytree(EXAMPLES / "correct", crash)
    with (crash / "softmax.py").open("a", encoding="utf-8") as fh:
        fh.write(textwrap.dedent("""
            import os as _os
            def softmax(x, dim=-1):
                _os._exit(3)
            """))
    mutants = sorted(MUTANTS.rglob("*.py"))
    k = 0
    while len(list(dest.iterdir())) < n:
        mutant = mutants[k % len(mutants)]
        text = mutant.read_text(encoding="utf-8")
        target = next(line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("# file:"))
        folder = dest / f"m{k:02d}-{mutant.parent.name}"
        shutil.copytree(EXAMPLES / "correct", folder)
        with (folder / target).open("a", encoding="utf-8") as fh:
            fh.write("\n" + text)
        k += 1
    return dest


def _batch(*args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """The batch in English (its lines are asserted on; the course's first language is ja)."""
    proc = run_grader("batch", *args, "--no-progress", "--no-table", "--lang", "en", timeout=timeout)
    assert proc.returncode in (0, 1), proc.stderr
    return proc


def _graded(report: dict) -> dict:
    """What a report says about the student's work: everything but when, how long, and the
    address-space limit in bytes (the grading process's own size plus the rubric's memory_mb,
    which differs by a few KiB from one process to another)."""
    drop = {"graded_at", "duration_s"}
    out = {k: v for k, v in report.items() if k not in drop}
    out["tests"] = [{k: v for k, v in t.items() if k != "duration_s"} for t in report["tests"]]
    enforced = {k: v for k, v in report["sandbox"]["enforced"].items() if k != "address_space_bytes"}
    out["sandbox"] = {**report["sandbox"], "enforced": enforced}
    return out


def _reports(out: Path) -> dict[str, dict]:
    return {p.stem: _graded(yaml.load(p.read_text(encoding="utf-8"), Loader=_Loader))
            for p in sorted((out / "reports").glob("*.yaml"))}


def _assert_same_as(reference: Path, out: Path) -> None:
    want, got = _reports(reference), _reports(out)
    assert sorted(want) == sorted(got)
    for name in want:
        assert want[name] == got[name], name
    strip = lambda rows: sorted(({k: v for k, v in r.items() if k != "graded_at"} for r in rows),  # noqa: E731
                                key=lambda r: r["submission"])
    assert strip(read_gradebook(reference)) == strip(read_gradebook(out))


#: the chapter's per-call limit, shortened: the hanging submission waits it out in every batch of
#: the forty, and a hung node is dropped after three of it; a clean call takes milliseconds
PER_CALL_S = 4


def _short_rubric(folder: Path) -> Path:
    """The chapter's rubric with the per-call limit ``PER_CALL_S``: ``--rubric`` and its path."""
    from tests.helpers import rubric_copy

    folder.mkdir(parents=True, exist_ok=True)
    return rubric_copy(folder, edit=lambda data: data["limits"].update(per_call_s=PER_CALL_S))


@pytest.fixture(scope="module")
def short(tmp_path_factory) -> list[str]:
    """``--rubric`` and the rubric of :func:`_short_rubric`, for every batch of the forty."""
    return ["--rubric", str(_short_rubric(tmp_path_factory.mktemp("rubric")))]


@pytest.fixture(scope="module")
def source40(tmp_path_factory) -> Path:
    return _mixed_source(tmp_path_factory.mktemp("mixed") / "src")


@pytest.fixture(scope="module")
def reference(source40, short, tmp_path_factory) -> Path:
    """The local batch every cluster batch is compared with: -j 2, the same seed."""
    out = tmp_path_factory.mktemp("local") / "out"
    proc = _batch(str(source40), "--out", str(out), "-j", "2", "--seed", str(SEED), *short)
    assert "40 graded" in proc.stderr
    reports = _reports(out)
    # the mix is what it says: a notebook, a zip, a hang, a crash, named mistakes
    assert reports["notebook-student"]["origin"] == "notebook" and reports["zipped"]["origin"] == "zip"
    assert any("did not finish within" in e for e in reports["hang"]["errors"]), reports["hang"]["errors"]
    assert reports["crash"]["score"] < reports["correct"]["score"]
    assert sum(1 for r in reports.values() if r["mistakes"]) >= 20
    return out


# --------------------------------------------------------------------------- the cluster


def _start(args: list[str], log: Path, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    with log.open("ab") as fh:
        return subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_" + args[0], *args[1:]],
                                cwd=ROOT, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True,
                                env={**os.environ, **(env or {})})


def _end(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        except ProcessLookupError:
            pass


class Cluster:
    """A scheduler and its workers, as processes of their own; ended by pid."""

    def __init__(self, folder: Path, *, tls: dict[str, str] | None = None) -> None:
        self.folder, self.tls = folder, tls
        folder.mkdir(parents=True, exist_ok=True)
        self.file = folder / "scheduler.json"
        self.procs: list[subprocess.Popen[bytes]] = []
        args = ["scheduler", "--host", "127.0.0.1", "--port", "0", "--scheduler-file", str(self.file),
                "--no-dashboard", "--dashboard-address", "127.0.0.1:0"]
        if tls:
            args += ["--protocol", "tls", *self._tls_args()]
        self.procs.append(_start(args, folder / "scheduler.log"))
        self.address = self._address(time.monotonic() + 60)

    def _address(self, deadline: float) -> str:
        """The scheduler's address from its file, once the file is whole (the scheduler writes it
        in place: a reader can meet it empty or half-written)."""
        while True:
            try:
                return str(json.loads(self.file.read_text())["address"])
            except (OSError, ValueError, KeyError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def _tls_args(self) -> list[str]:
        assert self.tls is not None
        return ["--tls-ca-file", self.tls["ca"], "--tls-cert", self.tls["cert"], "--tls-key", self.tls["key"]]

    def worker(self, name: str, *, certs: bool = True, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        args = ["worker", self.address, "--host", "127.0.0.1", "--nthreads", "1", "--name", name, "--no-dashboard",
                "--dashboard-address", "127.0.0.1:0", "--memory-limit", "0",
                "--death-timeout", "60"]
        if self.tls and certs:
            args += self._tls_args()
        proc = _start(args, self.folder / f"{name}.log", env)
        self.procs.append(proc)
        return proc

    def client(self):
        sec = None
        if self.tls:
            sec = distributed.Security(tls_ca_file=self.tls["ca"], tls_client_cert=self.tls["cert"],
                                       tls_client_key=self.tls["key"], require_encryption=True)
        return distributed.Client(self.address, security=sec, timeout="60s")

    def wait_for(self, n: int) -> None:
        with self.client() as c:
            c.wait_for_workers(n, timeout=120)

    def close(self) -> None:
        for proc in reversed(self.procs):
            _end(proc)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = Cluster(tmp_path_factory.mktemp("dask"))
    try:
        c.worker("wA")
        c.worker("wB")
        c.wait_for(2)
        yield c
    finally:
        c.close()


# --------------------------------------------------------------------------- the journeys


def test_cluster_batch_grades_as_the_local_batch(cluster, source40, reference, short, tmp_path):
    """--cluster tcp://127.0.0.1:PORT: every report identical to -j 2 with the same seed; the
    scheduler holds no task of the batch afterwards (its futures were released); while the
    grader's plugin is installed, the workers do not sample their threads' stacks, and they do
    again once it is gone."""
    out = tmp_path / "out"

    def sampling(dask_worker):
        return "grader" in dask_worker.plugins, dask_worker.periodic_callbacks["profile"].is_running()

    with cluster.client() as c:
        assert {(False, True)} == set(c.run(sampling).values())  # Dask's default, before the batch
        errfile = (tmp_path / "stderr.txt").open("w", encoding="utf-8")  # (a pipe could fill while we poll)
        batch = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "grader", "batch", str(source40), "--out",
                                  str(out), "--cluster", cluster.address, "--seed", str(SEED), "--no-progress",
                                  "--no-table", "--lang", "en", *short], cwd=ROOT, stdout=subprocess.DEVNULL,
                                 stderr=errfile, text=True)
        seen: set[tuple[bool, bool]] = set()
        while batch.poll() is None:
            seen |= set(c.run(sampling).values())
            time.sleep(0.2)
        errfile.close()
        err = (tmp_path / "stderr.txt").read_text(encoding="utf-8")
        assert batch.returncode in (0, 1), err
        assert (True, False) in seen and (True, True) not in seen, seen
        assert {(False, True)} == set(c.run(sampling).values())
    imported = {line.rsplit("|", 1)[-1].strip() for line in err.splitlines() if line.startswith("import time:")}
    assert "torch" not in imported  # the client only hands out shards and writes reports
    err = "\n".join(line for line in err.splitlines() if not line.startswith("import time:")) + "\n"
    assert "40 graded" in err, err
    # the terminal names the workers and the sandbox level they grade at
    assert re.search(r"grading on 2 Dask worker\(s\), by sandbox level: namespaces: wA \([^)]+\), wB \([^)]+\)\n",
                     err), err
    _assert_same_as(reference, out)
    assert all(r["sandbox"]["level"] == "namespaces" for r in _reports(out).values())
    with cluster.client() as c:
        assert 0 == c.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks))
        # the batch's grading processes were torn down with its plugin
        assert all("grader" not in names for names in c.run(lambda dask_worker: list(dask_worker.plugins)).values())


def _listening(pids: set[int]) -> list[tuple[int, str, int]]:
    """(pid, address, port) of every TCP socket in LISTEN state that a process of ``pids`` holds."""
    import ipaddress

    table: dict[str, tuple[str, int]] = {}
    for name in ("tcp", "tcp6"):
        try:
            lines = Path(f"/proc/net/{name}").read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] != "0A":  # LISTEN
                continue
            hex_ip, hex_port = fields[1].split(":")
            raw = bytes.fromhex(hex_ip)
            # the kernel prints each 32-bit word of the address in host (little-endian) order
            raw = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
            table[fields[9]] = (str(ipaddress.ip_address(raw)), int(hex_port, 16))
    found = []
    for pid in pids:
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            inode = target[len("socket:["):-1] if target.startswith("socket:[") else ""
            if inode in table:
                found.append((pid, *table[inode]))
    return found


def test_the_advised_scheduler_and_workers_listen_on_loopback_only(cluster):
    """docs/security.md's advice for a cluster on one machine (``--host 127.0.0.1 --no-dashboard
    --dashboard-address 127.0.0.1:0`` for the scheduler and each worker, as the cluster here is
    started): no process of the scheduler or its workers listens on any address but loopback, and
    each of them does listen (the check looks at the right processes). Without ``--host`` a
    worker's own protocol listens on every interface; without ``--dashboard-address`` so does
    the HTTP endpoint, ``--no-dashboard`` or not."""
    import ipaddress

    assert all("--dashboard-address" in p.args and "127.0.0.1:0" in p.args for p in cluster.procs)
    assert all("--host" in p.args and "127.0.0.1" in p.args for p in cluster.procs)
    pids = {p.pid for p in cluster.procs}
    for p in cluster.procs:
        pids |= descendants(p.pid)
    sockets = _listening(pids)
    assert {p.pid for p in cluster.procs} <= {pid for pid, _, _ in sockets}, sockets
    assert [s for s in sockets if not ipaddress.ip_address(s[1]).is_loopback] == [], sockets


def test_killed_worker_loses_and_duplicates_nothing(cluster, source40, reference, short, tmp_path):
    """kill -9 of a worker while it grades (through the scheduler file): its shard runs again,
    all 40 reports arrive once and equal the local ones, and its grading processes are gone."""
    out = tmp_path / "out"
    batch = subprocess.Popen([sys.executable, "-m", "grader", "batch", str(source40), "--out", str(out),
                              "--cluster", str(cluster.file), "--seed", str(SEED), "--no-progress", "--no-table",
                              "--lang", "en", *short],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    with cluster.client() as c:
        deadline = time.monotonic() + 300
        busy: dict[str, tuple[int, int]] = {}
        while time.monotonic() < deadline and batch.poll() is None:
            state = c.run(lambda dask_worker: (os.getpid(), len(dask_worker.state.executing)))
            busy = {a: s for a, s in state.items() if s[1]}
            if busy and (out / "reports").is_dir() and list((out / "reports").glob("*.yaml")):
                break
            time.sleep(0.2)
        assert busy, "no worker was grading"
        victim = next(iter(busy.values()))[0]
        tree = descendants(victim)
        assert tree, "the worker's grading processes were not its children"
        os.kill(victim, signal.SIGKILL)
        _, err = batch.communicate(timeout=900)
        assert batch.returncode in (0, 1), err
        assert "40 graded" in err, err
        _assert_same_as(reference, out)
        assert 40 == len(read_gradebook(out)) == len({r["submission"] for r in read_gradebook(out)})
        log = (out / ".logs" / "cluster.log").read_text(encoding="utf-8")
        assert "duplicate" not in log
        deadline = time.monotonic() + 20
        while any(alive(p) for p in tree) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert set() == {p for p in tree if alive(p)}, "orphans of the killed worker"
        c.wait_for_workers(2, timeout=120)  # the nanny started a new one


def test_a_hung_node_is_dropped_within_the_rubrics_limits(tmp_path):
    """SIGSTOP of a worker while it grades: no heartbeat for 3 x per_call_s, so the client has
    the scheduler drop it (Dask alone would wait five minutes); every submission is graded."""
    rubric = _short_rubric(tmp_path / "rubric")
    c = Cluster(tmp_path / "dask")
    stopped = None
    try:
        c.worker("wA")
        c.worker("wB")
        c.wait_for(2)
        src = tmp_path / "src"
        src.mkdir()
        for k in range(4):
            shutil.copytree(EXAMPLES / "correct", src / f"s{k}")
        out = tmp_path / "out"
        batch = subprocess.Popen([sys.executable, "-m", "grader", "batch", str(src), "--out", str(out),
                                  "--cluster", c.address, "--shard-size", "1", "--no-progress", "--no-table",
                                  "--lang", "en", "--rubric", str(rubric)],
                                 cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        with c.client() as client:
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline and batch.poll() is None and stopped is None:
                state = client.run(lambda dask_worker: (os.getpid(), len(dask_worker.state.executing)))
                stopped = next((pid for pid, n in state.values() if n), None)
                time.sleep(0.2)
        assert stopped is not None, "no worker was grading"
        os.kill(stopped, signal.SIGSTOP)
        _, err = batch.communicate(timeout=600)
        assert batch.returncode == 0, err
        assert f"sent no heartbeat for {3 * PER_CALL_S} s" in err, err
        assert "4 graded" in err
        assert 4 == len(read_gradebook(out))
    finally:
        if stopped is not None:
            os.kill(stopped, signal.SIGKILL)
        c.close()


def test_kind_local_resume_and_a_second_seed(tmp_path):
    """kind: local in a cluster file; --resume grades only what is missing; a second batch with
    another seed on the same kind of cluster reports that seed."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("correct", "divide-by-dk", "sqrt-d-model"):
        shutil.copytree(EXAMPLES / name, src / name)
    spec = tmp_path / "cluster.yaml"
    spec.write_text("kind: local\nworkers: 1\nthreads_per_worker: 2\n", encoding="utf-8")
    out = tmp_path / "out"
    first = _batch(str(src), "--out", str(out), "--cluster", str(spec), "--seed", "4")
    assert "3 graded" in first.stderr, first.stderr
    assert {4} == {r["seed"] for r in _reports(out).values()}
    (out / "reports" / "correct.yaml").unlink()
    again = _batch(str(src), "--out", str(out), "--cluster", str(spec), "--resume")
    assert "1 graded, 2 kept from before" in again.stderr, again.stderr
    assert {4} == {r["seed"] for r in _reports(out).values()}  # a resumed batch keeps its seed
    other = _batch(str(src), "--out", str(tmp_path / "other"), "--cluster", str(spec), "--seed", "5")
    assert "3 graded" in other.stderr
    assert {5} == {r["seed"] for r in _reports(tmp_path / "other").values()}


def test_a_worker_with_a_weak_sandbox_is_refused(tmp_path):
    """A worker that can only give rlimits (no namespaces) is refused, named, unless
    --allow-weak-sandbox; with the flag its reports carry the warning."""
    c = Cluster(tmp_path / "dask")
    try:
        c.worker("weak", env={"GRADER_SANDBOX": "rlimits"})
        c.wait_for(1)
        src = tmp_path / "src"
        src.mkdir()
        shutil.copytree(EXAMPLES / "correct", src / "alice")
        proc = subprocess.run([sys.executable, "-m", "grader", "batch", str(src), "--out", str(tmp_path / "out"),
                               "--cluster", c.address, "--no-progress", "--lang", "en"],
                              cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert 2 == proc.returncode, proc.stderr
        assert "cannot grade" in proc.stderr and "allow-weak-sandbox" in proc.stderr, proc.stderr
        assert not (tmp_path / "out" / "reports" / "alice.yaml").exists()
        ja = subprocess.run([sys.executable, "-m", "grader", "batch", str(src), "--out", str(tmp_path / "out"),
                             "--cluster", c.address, "--no-progress", "--lang", "ja"],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert 2 == ja.returncode and "採点できません" in ja.stderr, ja.stderr
        _batch(str(src), "--out", str(tmp_path / "weak"), "--cluster", c.address, "--allow-weak-sandbox")
        [report] = _reports(tmp_path / "weak").values()
        assert report["sandbox"]["level"] == "rlimits" and report["sandbox"]["warning"]
    finally:
        c.close()


def _certs(folder: Path) -> dict[str, str]:
    """A throw-away CA and one certificate it signed (for 127.0.0.1), with the openssl command."""
    folder.mkdir(parents=True, exist_ok=True)
    run = lambda *a: subprocess.run(["openssl", *a], cwd=folder, check=True, capture_output=True)  # noqa: E731
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
        "-subj", "/CN=grader test CA")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "node.key", "-out", "node.csr", "-subj", "/CN=127.0.0.1")
    (folder / "ext.cnf").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                                    "extendedKeyUsage=serverAuth,clientAuth\n")
    run("x509", "-req", "-in", "node.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "node.pem", "-days", "2", "-extfile", "ext.cnf")
    return {"ca": str(folder / "ca.pem"), "cert": str(folder / "node.pem"), "key": str(folder / "node.key")}


def test_tls_with_mutual_authentication(tmp_path):
    """A tls:// scheduler: the cluster file's security: block grades over mutual TLS; a worker
    without the certificate never joins; a client without it is refused with a clear error."""
    certs = _certs(tmp_path / "certs")
    c = Cluster(tmp_path / "dask", tls=certs)
    try:
        assert c.address.startswith("tls://127.0.0.1:")
        c.worker("good")
        intruder = c.worker("intruder", certs=False)
        c.wait_for(1)
        src = tmp_path / "src"
        src.mkdir()
        shutil.copytree(EXAMPLES / "correct", src / "alice")
        spec = tmp_path / "cluster.yaml"
        spec.write_text(f"scheduler: {c.address}\nsecurity:\n  ca_file: certs/ca.pem\n"
                        "  cert_file: certs/node.pem\n  key_file: certs/node.key\n", encoding="utf-8")
        proc = _batch(str(src), "--out", str(tmp_path / "out"), "--cluster", str(spec))
        assert "1 graded" in proc.stderr, proc.stderr
        with c.client() as client:
            names = [w["name"] for w in client.scheduler_info(n_workers=-1)["workers"].values()]
            assert ["good"] == names
            assert all(a.startswith("tls://") for a in client.scheduler_info(n_workers=-1)["workers"])
        intruder.wait(timeout=120)  # it gives up: it cannot speak to a TLS scheduler without a certificate
        assert intruder.returncode != 0
        plain = subprocess.run([sys.executable, "-m", "grader", "batch", str(src), "--out", str(tmp_path / "no"),
                                "--cluster", c.address, "--no-progress", "--lang", "en"],
                               cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert 2 == plain.returncode and "cannot reach the scheduler" in plain.stderr, plain.stderr
    finally:
        c.close()


# --------------------------------------------------------------------------- poison


def test_a_shard_that_kills_its_worker_is_split_so_only_the_poison_fails(tmp_path):
    """A shard whose grading kills its Dask worker every time ends in KilledWorker; the client
    splits it, and only the one submission that kills its worker gets an error report."""
    import dask

    from grader.engines import dask_worker as _clusterworker
    from grader.workflows.batch import run_batch
    from grader.spec.rubric.load import load_rubric

    src = tmp_path / "src"
    src.mkdir()
    for name in ("correct", "divide-by-dk", "sqrt-d-model", "untouched-stub"):
        shutil.copytree(EXAMPLES / name, src / name)
    real = _clusterworker.grade_shard

    def poisoned(key, items):  # the stand-in for a node that dies on one submission (e.g. out of memory)
        if any(it["submission"]["name"] == "sqrt-d-model" for it in items):
            os._exit(9)
        return real(key, items)

    spec = tmp_path / "cluster.yaml"
    spec.write_text("kind: local\nworkers: 2\n", encoding="utf-8")
    original = _clusterworker.grade_shard
    _clusterworker.grade_shard = poisoned
    try:
        with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
            result = run_batch(str(src), str(tmp_path / "out"), load_rubric(RUBRIC), cluster=str(spec),
                               shard_size=4, seed=2, progress=False, summary=False)
    finally:
        _clusterworker.grade_shard = original
    by_name = {r.submission: r for r in result.reports}
    assert sorted(by_name) == ["correct", "divide-by-dk", "sqrt-d-model", "untouched-stub"]
    assert any("stopped its Dask worker" in e for e in by_name["sqrt-d-model"].errors)
    for name in ("correct", "divide-by-dk", "untouched-stub"):
        assert not by_name[name].errors, by_name[name].errors
    assert by_name["correct"].score == by_name["correct"].max_score
    rows = {r["submission"]: r for r in read_gradebook(tmp_path / "out")}
    assert "stopped its Dask worker" in rows["sqrt-d-model"]["errors"]


def test_ctrl_c_cancels_the_clusters_work_and_resume_finishes(cluster, source40, reference, short, tmp_path):
    """SIGINT to the client mid-batch: exit 130 naming --resume, whole reports only, nothing left
    running on the cluster; --resume on the cluster grades the rest, equal to the local batch."""
    out = tmp_path / "out"
    args = [str(source40), "--out", str(out), "--cluster", cluster.address, "--seed", str(SEED),
            "--shard-size", "2", *short]
    batch = subprocess.Popen([sys.executable, "-m", "grader", "batch", *args, "--no-progress", "--no-table", "--lang", "en"],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and batch.poll() is None:
        if (out / "reports").is_dir() and len(list((out / "reports").glob("*.yaml"))) >= 4:
            break
        time.sleep(0.1)
    batch.send_signal(signal.SIGINT)
    _, err = batch.communicate(timeout=120)
    assert batch.returncode == 130, err
    assert "--resume" in err
    done = sorted((out / "reports").glob("*.yaml"))
    assert 4 <= len(done) < 40
    assert [] == list(out.rglob("*.part"))
    with cluster.client() as c:
        deadline = time.monotonic() + 30
        while c.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert 0 == c.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks))
        assert all("grader" not in names for names in c.run(lambda dask_worker: list(dask_worker.plugins)).values())
    again = _batch(*args, "--resume")
    assert f"{40 - len(done)} graded, {len(done)} kept from before" in again.stderr, again.stderr
    _assert_same_as(reference, out)


def test_resources_put_each_task_on_a_worker_that_offers_them_one_at_a_time(tmp_path):
    """task_resources: {train: 1} with --shard-size 1 (a chapter whose grading trains a model): only
    the worker started with --resources train=1 grades, one submission at a time although it has
    two threads; the worker without it takes none."""
    c = Cluster(tmp_path / "dask")
    try:
        c.procs.append(_start(["worker", c.address, "--host", "127.0.0.1", "--nthreads", "2", "--name", "trainer",
                               "--no-dashboard",
                               "--dashboard-address", "127.0.0.1:0",
                               "--memory-limit", "0", "--resources", "train=1"], c.folder / "trainer.log"))
        c.worker("plain")
        c.wait_for(2)
        with c.client() as client:
            by_name = {w["name"]: a for a, w in client.scheduler_info(n_workers=-1)["workers"].items()}
        src = tmp_path / "src"
        src.mkdir()
        for k in range(4):
            shutil.copytree(EXAMPLES / "correct", src / f"s{k}")
        spec = tmp_path / "cluster.yaml"
        spec.write_text(f"scheduler: {c.address}\ntask_resources: {{train: 1}}\n", encoding="utf-8")
        out = tmp_path / "out"
        proc = _batch(str(src), "--out", str(out), "--cluster", str(spec), "--shard-size", "1")
        assert "4 graded" in proc.stderr, proc.stderr
        log = (out / ".logs" / "cluster.log").read_text(encoding="utf-8")
        runs = re.findall(r" on \S+ (\S+) from ([\d.]+) to ([\d.]+): \d+ reports", log)
        assert len(runs) == 4, log
        assert {worker for worker, _, _ in runs} == {by_name["trainer"]}, (by_name, log)
        spans = [(float(began), float(ended)) for _, began, ended in runs]
        spans.sort()
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:])), spans  # never two at once
    finally:
        c.close()


def test_a_lost_shard_charges_only_the_submission_it_was_grading(tmp_path):
    """A shard's process stops before reporting [7, 8, 9] (graded in that order): 7 was being
    graded, so 7 alone is charged and goes again alone, and 8 and 9 go again uncharged. Only a
    submission lost more than MAX_RETRIES times gets an error report; its neighbours never do."""
    from collections import deque

    from grader.engines.dask import MAX_RETRIES, ClusterPool

    pool = object.__new__(ClusterPool)
    pool.retries, pool.done, pool.write_s = {}, set(), 0.0
    pool._note = lambda text: None
    written: dict[int, str] = {}

    class _Tally:
        def done(self, report):
            pass

    pending: deque[list[int]] = deque()
    for _ in range(MAX_RETRIES + 1):
        pool._lost([7, 8, 9], pending, lambda i, data, why: written.setdefault(i, why), _Tally(), "lost")
    assert written == {7: "lost"}
    assert pool.retries == {7: MAX_RETRIES + 1}
    assert list(pending)[:2] == [[8, 9], [7]]  # the last round: the neighbours go first, uncharged


def _slow(dest: Path) -> Path:
    """A correct submission whose every function then hangs: each call waits out the per-call
    limit and is excused, so grading it takes longer than the cluster's silence limit."""
    import ast

    shutil.copytree(EXAMPLES / "correct", dest)
    for path in sorted(dest.glob("*.py")):
        names = [n.name for n in ast.parse(path.read_text(encoding="utf-8")).body if isinstance(n, ast.FunctionDef)]
        with path.open("a", encoding="utf-8") as fh:
            # (asleep, not spinning: each call waits out the limit without taking a core from the suite)
            fh.write("\n\nimport time as _time\n" + "".join(
                f"\n\ndef {name}(*args, **kwargs):\n    _time.sleep(3600)\n" for name in names))
    return dest


def test_a_submission_slower_than_the_silence_limit_fails_only_itself(cluster, tmp_path):
    """One submission that hangs in every function, graded in the same shard as a correct one:
    its grading process keeps making calls (its heartbeat says so), so it is not taken for hung
    and killed; it scores what its timeouts leave it, and its neighbour gets full marks."""
    from tests.helpers import rubric_copy

    (tmp_path / "rubric").mkdir()
    rubric = rubric_copy(tmp_path / "rubric", edit=lambda data: data["limits"].update(per_call_s=4,
                                                                                      per_submission_s=5))
    src = tmp_path / "src"
    src.mkdir()
    _slow(src / "a-slow")
    shutil.copytree(EXAMPLES / "correct", src / "b-correct")
    out = tmp_path / "out"
    began = time.monotonic()
    proc = _batch(str(src), "--out", str(out), "--cluster", str(cluster.file), "--shard-size", "2",
                  "--seed", str(SEED), "--rubric", str(rubric))
    took = time.monotonic() - began
    reports = _reports(out)
    assert reports["b-correct"]["score"] == reports["b-correct"]["max_score"], reports["b-correct"]["errors"]
    slow = reports["a-slow"]
    assert not any("stopped three times" in e for e in slow["errors"]), slow["errors"]
    assert any("did not return within the per-call limit of 4 s" in e for e in slow["errors"]), slow["errors"]
    assert took > 35 + 5, "the slow submission took less than the silence limit: it proves nothing"
    assert "lost [0, 1]" not in (out / ".logs" / "cluster.log").read_text(encoding="utf-8")
    assert proc.returncode in (0, 1)
