"""The cluster engine offline (grader/engines/dask.py): cluster files read with errors that name the
key and the fix, shards that shrink towards the end, the job scripts and the Kubernetes resource
the helpers would get, and -j refused beside --cluster. No scheduler runs."""

from __future__ import annotations

import math
import sys
import textwrap

import pytest

from grader.engines.dask import ClusterSpec, parse_spec
from grader.errors import UsageError

from tests.helpers import EXAMPLES, RUBRIC


def test_bad_cluster_files_name_the_key_and_the_fix(tmp_path):
    """A bad cluster file is a usage error naming the file and the key, in English and Japanese."""
    from grader.i18n.messages import translate

    cases = {
        "kind: lsff\n": "kind: 'lsff' is not one of",
        "kind: slurm\ncoresz: 4\n": "coresz: not an option of SLURMCluster",
        "kind: local\nworkers: 0\n": "workers: 0 is not a whole number",
        "kind: local\nsecurity: {ca_file: ca.pem}\n": "security.cert_file: missing",
        "kind: local\nsecurity: {cafile: ca.pem}\n": "security.cafile: unknown key",
        "scheduler: tcp://127.0.0.1:1\ncores: 2\n": "cores: unknown key beside scheduler",
        "- a list\n": "must be a mapping",
        "kind: local\nsecurity: {ca_file: none.pem, cert_file: ca.pem, key_file: ca.pem}\n":
            "security.ca_file: no such file none.pem",
        "kind: local\ntask_resources: {train: 0}\n": "task_resources.train: 0 is not a positive number",
        "scheduler: tcp://127.0.0.1:1\ntask_resources: [train]\n": "task_resources: must map a resource's name",
    }
    (tmp_path / "ca.pem").write_text("-----BEGIN CERTIFICATE-----\n", encoding="utf-8")
    for text, expected in cases.items():
        path = tmp_path / "cluster.yaml"
        path.write_text(text, encoding="utf-8")
        with pytest.raises(UsageError) as info:
            parse_spec(str(path))
        message = str(info.value)
        assert str(path) in message and expected in message, message
        ja = translate(message, "ja")
        assert ja != message and str(path) in ja, message
    with pytest.raises(UsageError, match="expected a tcp:// or tls:// address"):
        parse_spec("cluster.toml")
    with pytest.raises(UsageError, match="no such scheduler file"):
        parse_spec(str(tmp_path / "missing.json"))


@pytest.mark.parametrize("n, threads", [(1, 1), (7, 2), (200, 2), (200, 1), (1000, 8), (100_000, 64)])
def test_shards_shrink_towards_the_end_and_cover_every_submission_once(n, threads):
    """Every submission is in exactly one shard, in order; shards never grow, hold at most 128,
    and the last ones are short (no thread waits a long shard's time for another's last one),
    while a large class is a bounded number of tasks."""
    from grader.engines.dask import shards

    todo = list(range(n))
    cut = shards(todo, threads)
    assert [i for s in cut for i in s] == todo
    sizes = [len(s) for s in cut]
    assert sizes == sorted(sizes, reverse=True) and max(sizes) <= 128 and min(sizes) >= 1
    assert max(sizes[-threads:]) <= 2
    assert len(cut) <= max(threads, 1) * 4 * (1 + math.log(max(n, 2))) + n // 128
    assert shards(todo, threads, fixed=3) == [todo[i:i + 3] for i in range(0, n, 3)]


def test_jobs_with_a_cluster_is_refused_not_ignored(tmp_path):
    """-j counts this machine's processes; beside --cluster it would be silently ignored, so it
    is a usage error saying what to do instead (in Japanese too)."""
    from grader.workflows.batch import run_batch
    from grader.i18n.messages import translate
    from grader.spec.rubric.load import load_rubric

    with pytest.raises(UsageError) as info:
        run_batch(str(EXAMPLES), str(tmp_path / "out"), load_rubric(RUBRIC), cluster="tcp://127.0.0.1:1", jobs=2)
    assert "drop --jobs" in str(info.value)
    assert "--jobs を外す" in translate(str(info.value), "ja")
    assert not (tmp_path / "out").exists()


def test_a_missing_extra_says_which_to_install(tmp_path, monkeypatch):
    """Without the helper's package, the error names the extra to install (en and ja)."""
    from grader.i18n.messages import translate

    monkeypatch.setitem(sys.modules, "dask_jobqueue", None)  # what an absent package looks like to import
    path = tmp_path / "cluster.yaml"
    path.write_text("kind: pbs\ncores: 4\n", encoding="utf-8")
    with pytest.raises(UsageError) as info:
        parse_spec(str(path))
    assert 'pip install "grader[cluster-jobqueue]"' in str(info.value)
    assert "インストール" in translate(str(info.value), "ja")


@pytest.mark.parametrize(("kind", "directive"), [("slurm", "#SBATCH"), ("pbs", "#PBS")])
def test_jobqueue_kinds_write_the_job_script(kind, directive, tmp_path):
    """kind: slurm / pbs: the job script the helper generates asks for what the cluster file
    says and starts a worker of the grader's scheduler (no Slurm or PBS needed)."""
    from grader.engines.dask import build_cluster

    import dask_jobqueue  # noqa: F401 - the cluster-jobqueue extra (in the test extra)
    path = tmp_path / "cluster.yaml"
    path.write_text(textwrap.dedent(f"""\
        kind: {kind}
        workers: 1
        cores: 8
        memory: 16GB
        walltime: "02:00:00"
        queue: grading
        job_script_prologue: ["module load python/3.11"]
        worker_extra_args: ["--lifetime", "110m", "--lifetime-stagger", "5m"]
        """), encoding="utf-8")
    spec = parse_spec(str(path))
    assert isinstance(spec, ClusterSpec) and spec.kind == kind
    cluster = build_cluster(spec, hung_s=30)
    try:
        script = cluster.job_script()
    finally:
        cluster.close()
    assert directive in script
    assert "grading" in script and "module load python/3.11" in script
    assert "--nthreads 8" in script and "--lifetime 110m" in script
    assert "distributed.cli.dask_worker" in script or "dask worker" in script or "dask-worker" in script
    assert cluster.scheduler_address.split("://")[1].split(":")[0] in script


def test_kind_kubernetes_builds_its_cluster_resource(tmp_path):
    """kind: kubernetes: the DaskCluster resource the Dask operator would get, built offline."""
    import dask_kubernetes  # noqa: F401 - the cluster-kubernetes extra (in the test extra)
    from dask_kubernetes.operator import make_cluster_spec

    from grader.engines.dask import kubernetes_spec

    path = tmp_path / "cluster.yaml"
    path.write_text("kind: kubernetes\nworkers: 3\nimage: registry.example/grader:1\n"
                    "resources: {requests: {cpu: '8'}, limits: {cpu: '8', memory: 16Gi}}\n", encoding="utf-8")
    body = kubernetes_spec(parse_spec(str(path)), make_cluster_spec)
    assert "DaskCluster" == body["kind"] and "grader" == body["metadata"]["name"]
    worker = body["spec"]["worker"]
    assert 3 == worker["replicas"]
    [container] = worker["spec"]["containers"]
    assert "registry.example/grader:1" == container["image"]
    assert {"cpu": "8", "memory": "16Gi"} == container["resources"]["limits"]
    path.write_text("kind: kubernetes\nimagez: x\n", encoding="utf-8")
    with pytest.raises(UsageError, match="imagez: not an option of make_cluster_spec"):
        parse_spec(str(path))


def test_the_workers_are_named_after_the_sandbox_level_they_grade_at():
    """The batch's line naming the cluster's workers: grouped by level, each with its host, a
    long list cut with how many more; in Japanese too."""
    from grader.engines.dask import workers_by_level
    from grader.i18n.messages import said, translate

    views = [{"name": "wB", "host": "node2", "level": "namespaces", "refused": ""},
             {"name": "wA", "host": "node1", "level": "namespaces", "refused": ""},
             {"name": "old", "host": "lab3", "level": "rlimits", "refused": ""}]
    text = workers_by_level(views)
    assert "namespaces: wA (node1), wB (node2); rlimits: old (lab3)" == text
    many = [{"name": f"w{k:02d}", "host": "n", "level": "namespaces", "refused": ""} for k in range(15)]
    assert workers_by_level(many, most=3) == "namespaces: w00 (n), w01 (n), w02 (n), … +12"
    line = said("grading_on_dask_workers", n=3, workers=text)
    assert str(line) == "grading on 3 Dask worker(s), by sandbox level: " + text
    ja = translate(line, "ja")
    assert ja.startswith("Dask ワーカー 3 台で採点します（サンドボックスのレベルごと）: namespaces: wA (node1), wB (node2)")
    assert ja.endswith("rlimits: old (lab3)")


# --------------------------------------------------------------------------- plain tcp:// to another host


@pytest.mark.parametrize(("address", "plain"), [
    ("tcp://127.0.0.1:8786", False),
    ("tcp://127.8.9.10:8786", False),
    ("tcp://[::1]:8786", False),
    ("tcp://localhost:8786", False),        # a name resolving to loopback only
    ("tcp://10.0.0.5:8786", True),
    ("tcp://192.168.1.20:8786", True),
    ("tcp://[2001:db8::1]:8786", True),
    ("tcp://0.0.0.0:8786", True),           # every interface: reachable from elsewhere
    ("tcp://scheduler.invalid:8786", True),  # a name that does not resolve here is not this machine
    ("tls://10.0.0.5:8786", False),          # TLS: refused at the handshake without the certificate
])
def test_a_plain_tcp_address_to_another_host_is_found(address, plain):
    from grader.engines.dask import plain_remote

    assert plain_remote(ClusterSpec(source=address, address=address)) == (address if plain else "")


def test_a_hostname_is_loopback_only_when_all_it_resolves_to_is(monkeypatch):
    import socket

    from grader.engines.dask import plain_remote

    def resolve(host, port, *args, **kwargs):
        addresses = {"mine": ["127.0.0.1", "::1"], "mixed": ["127.0.0.1", "10.1.2.3"]}[host]
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, 0)) for a in addresses]

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    assert plain_remote(ClusterSpec(source="x", address="tcp://mine:8786")) == ""
    assert plain_remote(ClusterSpec(source="x", address="tcp://mixed:8786")) == "tcp://mixed:8786"


def test_a_scheduler_file_naming_a_plain_remote_address_counts_too(tmp_path):
    import json

    from grader.engines.dask import plain_remote, refuse_plain

    remote, local = tmp_path / "remote.json", tmp_path / "local.json"
    remote.write_text(json.dumps({"address": "tcp://10.0.0.5:8786", "type": "Scheduler"}), encoding="utf-8")
    local.write_text(json.dumps({"address": "tcp://127.0.0.1:8786"}), encoding="utf-8")
    assert plain_remote(ClusterSpec(source=str(remote), scheduler_file=str(remote))) == "tcp://10.0.0.5:8786"
    assert refuse_plain(ClusterSpec(source=str(local), scheduler_file=str(local)), allow=False) == ""
    broken = tmp_path / "broken.json"
    broken.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(UsageError, match="broken.json: the scheduler file names no address"):
        plain_remote(ClusterSpec(source=str(broken), scheduler_file=str(broken)))


def test_plain_tcp_to_another_host_is_refused_with_the_reason_and_the_fix_unless_allowed():
    from grader.engines.dask import refuse_plain
    from grader.i18n.messages import translate

    spec = ClusterSpec(source="tcp://10.0.0.5:8786", address="tcp://10.0.0.5:8786")
    with pytest.raises(UsageError) as refused:
        refuse_plain(spec, allow=False)
    text = str(refused.value)
    assert "can run any code on every node" in text and "docs/security.md" in text
    assert "--allow-plain-cluster" in text and "tls://" in text
    assert "pickle" in translate(text, "ja") and "TLS" in translate(text, "ja")
    warning = refuse_plain(spec, allow=True)
    assert "tcp://10.0.0.5:8786" in warning and "without TLS" in warning
    assert refuse_plain(ClusterSpec(source="tls://10.0.0.5:8786", address="tls://10.0.0.5:8786"), allow=False) == ""


def test_batch_refuses_a_plain_remote_cluster_before_any_work_and_warns_when_allowed(tmp_path, monkeypatch):
    """The batch stops at the address (nothing written to OUT); with --allow-plain-cluster it goes
    on to the cluster, saying the warning first."""
    import grader.engines.dask as dask
    from rich.console import Console

    from grader.spec.rubric.load import load_rubric
    from grader.workflows.batch import run_batch

    monkeypatch.setattr(dask, "parse_spec", lambda spec: ClusterSpec(source=spec, address=spec))
    rubric = load_rubric(RUBRIC)
    out = tmp_path / "out"
    with pytest.raises(UsageError, match="refused: tcp://10.0.0.5:8786 is plain tcp://"):
        run_batch(str(EXAMPLES), str(out), rubric, cluster="tcp://10.0.0.5:8786")
    assert not out.exists()

    class Stop(Exception):
        pass

    def stop(*args, **kwargs):
        raise Stop

    import grader.ingest.anonymous as anonymous

    monkeypatch.setattr(anonymous, "check_folder", stop)  # (the step after the warning)
    console = Console(record=True, width=400)
    with pytest.raises(Stop):
        run_batch(str(EXAMPLES), str(out), rubric, cluster="tcp://10.0.0.5:8786", allow_plain_cluster=True,
                  console=console)
    assert "reached over plain tcp:// without TLS (--allow-plain-cluster)" in console.export_text()


def test_the_batch_command_takes_allow_plain_cluster_to_run_batch(tmp_path, monkeypatch):
    """``grader batch --allow-plain-cluster`` reaches the batch as ``allow_plain_cluster``."""
    from click.testing import CliRunner

    import grader.workflows.batch as batch
    from grader.cli import main

    seen = {}

    def fake(source, out, rubric, **kwargs):
        seen.update(kwargs)
        raise UsageError("stop here")

    monkeypatch.setattr(batch, "run_batch", fake)
    for flag, allowed in ((["--allow-plain-cluster"], True), ([], False)):
        seen.clear()
        result = CliRunner().invoke(main, ["batch", str(EXAMPLES), "--out", str(tmp_path / "out"), "--rubric",
                                           str(RUBRIC), "--cluster", "tcp://10.0.0.5:8786", *flag])
        assert result.exit_code == 2, result.output
        assert seen["allow_plain_cluster"] is allowed
