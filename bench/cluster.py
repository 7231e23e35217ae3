"""Benchmark: ``grader batch --cluster`` against the local ``-j 2``, in one run.

    python bench/cluster.py [-n 200] [--repeat 1]

1. Generates N mixed submissions (as ``bench/run.py`` does).
2. For each repeat, in turn (A B C, A B C, ...): ``grader batch GEN -j 2``; the same through a
   cluster of one ``dask worker --nthreads 1``; and through two of them; each cluster a fresh
   ``dask scheduler`` on 127.0.0.1 (its start-up timed apart from the batch).
3. Prints, from medians: seconds a submission for each, the cluster's overhead against
   ``-j 2`` (two one-thread workers against two local processes: the same cores), the
   scaling ratio (one worker's time over two workers'), the start-up costs, and the per-shard
   costs the cluster log records (grading time per submission on one worker thread, the
   client's time writing reports), which the README's model for 100k submissions uses.

Not a timed test: the figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from run import generate, warm_corpus_cache  # noqa: E402


def _dask(args: list[str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as fh:
        return subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_" + args[0], *args[1:]], cwd=ROOT,
                                stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)


def _end(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in reversed(procs):
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def start_cluster(folder: Path, workers: int) -> tuple[list[subprocess.Popen[bytes]], Path, float]:
    """A scheduler and ``workers`` one-thread workers; (processes, scheduler file, seconds to all registered)."""
    from distributed import Client

    folder.mkdir(parents=True)
    began = time.monotonic()
    file = folder / "scheduler.json"
    procs = [_dask(["scheduler", "--host", "127.0.0.1", "--port", "0", "--scheduler-file", str(file),
                    "--no-dashboard", "--dashboard-address", "127.0.0.1:0"], folder / "scheduler.log")]
    while not file.is_file():
        time.sleep(0.05)
    address = json.loads(file.read_text())["address"]
    for k in range(workers):
        procs.append(_dask(["worker", address, "--host", "127.0.0.1", "--nthreads", "1", "--name", f"w{k}", "--no-dashboard",
                            "--dashboard-address", "127.0.0.1:0",
                            "--memory-limit", "0"], folder / f"w{k}.log"))
    with Client(address, timeout="60s") as client:
        client.wait_for_workers(workers, timeout=300)
    return procs, file, time.monotonic() - began


def batch(gen: Path, out: Path, *extra: str) -> float:
    began = time.monotonic()
    subprocess.run([sys.executable, "-m", "grader", "batch", str(gen), "--out", str(out), "--seed", "1",
                    "--no-progress", "--no-table", *extra], cwd=ROOT, check=True, capture_output=True)
    return time.monotonic() - began


def shard_costs(log: Path) -> tuple[list[float], list[float], float, float]:
    """From cluster.log: per-shard grading seconds a submission, waits, client write seconds, connect seconds."""
    per_sub, waits, write_s, connect_s = [], [], 0.0, 0.0
    for line in log.read_text(encoding="utf-8").splitlines():
        m = re.search(r": (\d+) reports, lost \[[^]]*\], waited ([\d.]+) s, graded in ([\d.]+) s", line)
        if m and int(m.group(1)):
            per_sub.append(float(m.group(3)) / int(m.group(1)))
            waits.append(float(m.group(2)))
        m = re.search(r"writing reports ([\d.]+) s", line)
        if m:
            write_s = float(m.group(1))
        m = re.search(r"connected in ([\d.]+) s", line)
        if m:
            connect_s = float(m.group(1))
    return per_sub, waits, write_s, connect_s


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="grader-cluster-bench-") as tmp:
        base = Path(tmp)
        gen = base / "gen"
        gen.mkdir()
        generate(gen, args.n)
        warm_corpus_cache(base)
        times: dict[str, list[float]] = {"local -j 2": [], "cluster, 1 worker": [], "cluster, 2 workers": []}
        starts: dict[int, list[float]] = {1: [], 2: []}
        costs: dict[int, tuple[list[float], list[float], float, float]] = {}
        for r in range(args.repeat):
            times["local -j 2"].append(batch(gen, base / f"local{r}", "-j", "2"))
            for workers in (1, 2):
                procs, file, up = start_cluster(base / f"dask{workers}-{r}", workers)
                try:
                    starts[workers].append(up)
                    out = base / f"cluster{workers}-{r}"
                    times[f"cluster, {workers} worker{'s' if workers > 1 else ''}"].append(
                        batch(gen, out, "--cluster", str(file)))
                    costs[workers] = shard_costs(out / ".logs" / "cluster.log")
                finally:
                    _end(procs)
        med = {k: statistics.median(v) for k, v in times.items()}
        print(f"{args.n} submissions, {args.repeat} run(s) of each, medians; load average now "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        for name, t in med.items():
            each = ", ".join(f"{x:.1f}" for x in times[name])
            print(f"  {name:20s} {t:7.1f} s   {1000 * t / args.n:7.1f} ms a submission   (each run: {each} s)")
        print(f"  cluster overhead (2 one-thread workers vs -j 2): {med['cluster, 2 workers'] / med['local -j 2']:.3f}x"
              "  (target <= 1.15x)")
        print(f"  scaling, 1 worker / 2 workers: {med['cluster, 1 worker'] / med['cluster, 2 workers']:.2f}x")
        for workers in (1, 2):
            per_sub, waits, write_s, connect_s = costs[workers]
            print(f"  {workers} worker(s): cluster up (scheduler + workers registered) "
                  f"{statistics.median(starts[workers]):.1f} s; client connect {connect_s:.2f} s; "
                  f"first shard waited {max(waits, default=0):.1f} s for its grading process; "
                  f"{len(per_sub)} shards, grading {1000 * statistics.median(per_sub):.0f} ms a submission "
                  f"on one thread (median shard); client writing reports {1000 * write_s / args.n:.1f} ms each")
    return 0


if __name__ == "__main__":
    sys.exit(main())
