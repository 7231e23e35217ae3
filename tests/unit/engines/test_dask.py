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
