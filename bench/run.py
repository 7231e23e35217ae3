"""Benchmark: ``grader batch`` against one pytest process per submission, in one run.

    python bench/run.py [-n 200] [--jobs 1,2] [--naive-sample 20]

1. Generates N submissions (a cycle over examples/submissions/* and
   tests/fixtures/submissions/*: correct, mistaken and broken; folders, notebooks, zips);
   each folder copy gets a distinct comment so content hashes differ.
2. Times a bare ``python -c "import torch"`` five times right before and five times right
   after each measured run, and takes the median of the ten, so every ratio is to a
   reference taken next to it (on a shared 2-core machine the reference moved by ±15 % within minutes).
3. Runs ``grader batch GEN --out OUT -j J`` for each J and times it; then runs it once more
   while sampling the process tree's memory (PSS, shared pages counted once) from /proc every
   0.1 s. The sampler costs CPU the batch would otherwise have, so it never runs during the
   timed run.
4. Runs the naive design (bench/naive_plugin.py: student files imported into a fresh
   ``pytest`` process per submission, ``xargs -P J`` style) on a sample of the submissions,
   and scales its per-submission time.

Not a timed test: the figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUITES = ["suites/chapter07/public", "suites/chapter07/hidden"]


def generate(dest: Path, n: int) -> list[Path]:
    sources = sorted((ROOT / "examples/submissions").iterdir()) + sorted((ROOT / "tests/fixtures/submissions").iterdir())
    sources = [s for s in sources if not s.name.startswith(".")]
    made = []
    for i in range(n):
        src = sources[i % len(sources)]
        name = f"s{i:04d}-{src.stem}"
        if src.is_dir():
            target = dest / name
            shutil.copytree(src, target, ignore=shutil.ignore_patterns("__pycache__"))
            py = sorted(target.rglob("*.py"))
            if py:
                with py[0].open("a", encoding="utf-8") as fh:
                    fh.write(f"\n# submission {i}\n")
        else:
            target = dest / f"{name}{src.suffix}"
            shutil.copyfile(src, target)
        made.append(target)
    return made


def warm_corpus_cache(work: Path, rubric: Path | None = None) -> None:
    """Give this process and its children a cache folder of their own, holding the validate
    corpus's finding for the rubric: a batch's first run grades the corpus beside the class
    (the item analysis), its re-runs read it back. Every timed run then does the same work."""
    import os

    os.environ["XDG_CACHE_HOME"] = str(work / "cache")
    one = work / "warm-src"
    one.mkdir(parents=True, exist_ok=True)
    generate(one, 1)
    extra = ["--rubric", str(rubric)] if rubric else []
    subprocess.run([sys.executable, "-m", "grader", "batch", str(one), "--out", str(work / "warm-out"), "-j", "1",
                    "--no-progress", "--no-table", *extra], cwd=ROOT, check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _tree(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2:].split()
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += children.get(pid, [])
    return out


def _pss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


class TreeMemory:
    """Peak total PSS of a process tree, sampled; also the peak in each half of the run."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.samples: list[tuple[float, int]] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            total = sum(_pss_kib(p) for p in _tree(self.pid))
            self.samples.append((time.monotonic(), total))
            self.stop.wait(0.1)

    def finish(self) -> dict[str, float]:
        self.stop.set()
        self.thread.join()
        if not self.samples:
            return {"peak": 0, "first_half": 0, "second_half": 0}
        t0, t1 = self.samples[0][0], self.samples[-1][0]
        mid = (t0 + t1) / 2
        peak = lambda xs: max((m for _, m in xs), default=0) / 1024  # noqa: E731
        return {"peak": peak(self.samples),
                "first_half": peak([s for s in self.samples if s[0] <= mid]),
                "second_half": peak([s for s in self.samples if s[0] > mid])}


def time_import_torch(repeat: int = 5) -> list[float]:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import torch"], check=True)
        times.append(time.perf_counter() - t)
    return times


def run_batch(gen: Path, out: Path, jobs: int, memory: bool = False) -> tuple[float, dict[str, float]]:
    """Run ``grader batch`` once; with ``memory``, sample the tree's PSS meanwhile.

    Timing runs go unsampled: reading every process's smaps_rollup ten times a second takes
    about a second of CPU over a 12 s batch on 2 cores, which the batch would be charged for.
    """
    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "grader", "batch", str(gen), "--out", str(out),
                             "-j", str(jobs), "--seed", "1", "--no-progress"], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    mem = TreeMemory(proc.pid) if memory else None
    _, err = proc.communicate()
    wall = time.perf_counter() - t
    peaks = mem.finish() if mem else {}
    if proc.returncode not in (0, 1):
        raise SystemExit(f"grader batch failed ({proc.returncode}):\n{err.decode()[-3000:]}")
    return wall, peaks


def run_naive(subs: list[Path], jobs: int) -> float:
    env = {"PYTHONPATH": str(ROOT / "bench"), "PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1"}

    def one(sub: Path) -> None:
        subprocess.run([sys.executable, "-m", "pytest", *SUITES, "-q", "-p", "no:cacheprovider",
                        "-c", "grader/suite.ini", "--rootdir", ".", "--import-mode=importlib",
                        "--noconftest", "-p", "naive_plugin"],
                       cwd=ROOT, env={**env, "NAIVE_SUBMISSION": str(sub)},
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)

    t = time.perf_counter()
    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(one, subs))
    return time.perf_counter() - t


#: gradebook columns that differ between two gradings of the same submissions (when each was graded)
VARYING = ("graded_at",)


def gradebook(out: Path) -> list[dict[str, str]]:
    """``OUT/gradebook.csv`` as rows by column name."""
    import csv

    with (out / "gradebook.csv").open(encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))


def gradebooks_differ(a: list[dict[str, str]], b: list[dict[str, str]]) -> list[str]:
    """How two gradebooks differ, compared column by column by name (``VARYING`` left out):
    one line per difference, empty when they agree."""
    if len(a) != len(b):
        return [f"{len(a)} rows against {len(b)}"]
    out = []
    for k, (x, y) in enumerate(zip(a, b)):
        if set(x) != set(y):
            out.append(f"row {k + 1}: columns {sorted(set(x) ^ set(y))} in one only")
            continue
        out += [f"row {k + 1} ({x.get('submission', '')}) {col}: {x[col]!r} against {y[col]!r}"
                for col in x if col not in VARYING and x[col] != y[col]]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=200, help="submissions to generate")
    ap.add_argument("--jobs", default="1,2", help="comma-separated -j values for grader batch")
    ap.add_argument("--naive-sample", type=int, default=20, help="submissions the naive design grades")
    ap.add_argument("--keep", action="store_true", help="keep the generated folder and outputs")
    ap.add_argument("--no-memory", dest="memory", action="store_false",
                    help="skip the second, memory-sampled run of each -j")
    ap.add_argument("--memory-only", action="store_true",
                    help="only the memory-sampled run of each -j (no timed run, no naive design)")
    args = ap.parse_args()
    jobs = [int(j) for j in args.jobs.split(",")]
    work = Path(tempfile.mkdtemp(prefix="grader-bench-"))
    try:
        gen = work / "submissions"
        gen.mkdir()
        subs = generate(gen, args.n)
        warm_corpus_cache(work)
        print(f"submissions: {len(subs)} generated from examples/ and tests/fixtures/ (cycle of "
              f"{len({s.name.split('-', 1)[1] for s in subs})} kinds)")
        results = {}
        for j in jobs:
            if args.memory_only:
                mem_wall, mem = run_batch(gen, work / f"out-j{j}", j, memory=True)
                print(f"grader batch -j {j}, peak memory (tree PSS, sampled every 0.1 s over {mem_wall:.1f} s): "
                      f"{mem['peak']:.0f} MiB (first half {mem['first_half']:.0f}, second half "
                      f"{mem['second_half']:.0f}: {100 * (mem['second_half'] / max(1, mem['first_half']) - 1):+.1f} %)")
                continue
            before = time_import_torch()
            wall, _ = run_batch(gen, work / f"out-j{j}", j)
            after = time_import_torch()
            torch_s = statistics.median(before + after)
            print(f"bare `python -c 'import torch'`: {torch_s:.3f} s (median of 5 runs just before and 5 just "
                  f"after; medians {statistics.median(before):.3f} and {statistics.median(after):.3f})")
            per = wall / len(subs)
            results[j] = per
            print(f"grader batch -j {j}: {wall:.1f} s total, {len(subs) / wall:.1f} subs/s, "
                  f"{1000 * per:.0f} ms per submission = {100 * per / torch_s:.1f}% of import torch")
            stamps = sorted(f.stat().st_mtime for f in (work / f"out-j{j}" / "reports").glob("*.yaml"))
            if len(stamps) > 1:
                steady = (stamps[-1] - stamps[0]) / (len(stamps) - 1)
                print(f"    steady state (first to last report): {1000 * steady:.0f} ms per submission = "
                      f"{100 * steady / torch_s:.1f}% of import torch; start-up and summary "
                      f"{wall - (stamps[-1] - stamps[0]):.1f} s in all")
            if args.memory:
                mem_wall, mem = run_batch(gen, work / f"mem-j{j}", j, memory=True)
                print(f"    peak memory (tree PSS, separate run of {mem_wall:.1f} s sampled every 0.1 s): "
                      f"{mem['peak']:.0f} MiB (first half {mem['first_half']:.0f}, "
                      f"second half {mem['second_half']:.0f}: "
                      f"{100 * (mem['second_half'] / max(1, mem['first_half']) - 1):+.1f} %)")
        rows = gradebook(work / f"out-j{jobs[-1]}")
        print(f"gradebook rows: {len(rows)}")
        if len(jobs) > 1:
            a = gradebook(work / f"out-j{jobs[0]}")
            differ = gradebooks_differ(a, rows)
            print(f"-j {jobs[0]} and -j {jobs[-1]} gradebooks agree (every column but {', '.join(VARYING)}): "
                  f"{not differ}" + (f"; first difference: {differ[0]}" if differ else ""))
        if args.naive_sample <= 0 or args.memory_only:
            return
        sample = subs[:: max(1, len(subs) // args.naive_sample)][: args.naive_sample]
        jn = jobs[-1]
        torch_s = statistics.median(time_import_torch())
        print(f"bare `python -c 'import torch'`: {torch_s:.3f} s (median of 5, just before)")
        naive_wall = run_naive(sample, jn)
        naive_per = naive_wall / len(sample)
        print(f"naive pytest per submission (-P {jn}, {len(sample)} of them): {naive_wall:.1f} s, "
              f"{1000 * naive_per:.0f} ms per submission = {100 * naive_per / torch_s:.0f}% of import torch")
        print(f"ratio naive / grader batch -j {jn}: {naive_per / results[jn]:.1f}x")
        maxrss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"largest single child process (RUSAGE_CHILDREN maxrss): {maxrss:.0f} MiB")
        if args.keep:
            print(f"kept: {work}")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
