"""What the namespace sandbox costs: the same submissions graded in namespaces and with rlimits.

Not a timed test: run it by hand and read the numbers.

    python bench/sandbox_overhead.py [-n 20] [--rounds 2] [--opens 50] [--subprocess]

For each level, in alternating rounds (namespaces, rlimits, namespaces, ...), on one machine:

* worker start-up: launching the zygote until it has imported torch and said "ready";
* per-submission time: ``report.duration_s`` of N identical correct submissions graded in ONE
  ``grade()`` call (hidden suite, one warm worker), and the call's wall time divided by N;
* bare fork cost: opening a one-line submission, one call, closing it (``--opens`` times).

The rlimits worker runs the same zygote without namespaces (and so stands for the
unsandboxed worker); the ratio namespaces / rlimits is the sandbox's overhead. With
``--subprocess`` the subprocess level (no zygote: a fresh interpreter, and so an import of
torch, per submission and per open) is measured too, against namespaces.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.spec.rubric.load import load_rubric  # noqa: E402
from grader.grading.runner import grade  # noqa: E402
from grader.sandbox import backends  # noqa: E402
from grader.sandbox.spawn import worker_for  # noqa: E402
from grader.ingest.submission.load import load_submission  # noqa: E402

SUBMISSION = ROOT / "examples" / "submissions" / "correct"
TRIVIAL = {"kind": "folder", "modules": [{"name": "scaling", "filename": "scaling.py", "chunks": [
    {"code": "def head_dim(d_model, n_heads):\n    return d_model // n_heads\n",
     "label": "scaling.py", "first_line": 1}]}]}


def one_round(level: str, rubric, subs, opens: int) -> dict[str, list[float]]:
    worker = worker_for(level, limits=rubric.limits)
    t0 = time.perf_counter()
    worker.start()
    start = time.perf_counter() - t0
    try:
        forks = []
        for _ in range(opens):
            t0 = time.perf_counter()
            session = worker.open(TRIVIAL)
            session.call("scaling", "head_dim", [768, 12], {})
            session.close()
            forks.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        reports = grade(rubric, subs, suites=("hidden",), seed=7, worker=worker)
        wall = time.perf_counter() - t0
    finally:
        worker.stop()
    assert all(r.score == r.max_score for r in reports), "the benchmark submission must be correct"
    return {"start": [start], "per_sub": [r.duration_s for r in reports],
            "wall_per_sub": [wall / len(subs)], "fork": forks}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=20, help="submissions per grade() call")
    parser.add_argument("--rounds", type=int, default=2, help="rounds per level, alternating")
    parser.add_argument("--opens", type=int, default=50, help="bare open/call/close cycles per round")
    parser.add_argument("--subprocess", action="store_true",
                        help="also measure the subprocess level (the Windows fallback)")
    args = parser.parse_args()

    ok, why = backends.namespaces_available()
    if not ok:
        sys.exit(f"namespaces are not available here: {why}")
    rubric = load_rubric(ROOT / "rubrics" / "chapter07.yaml")
    subs = [load_submission(SUBMISSION)] * args.n
    grade(rubric, subs[:1], suites=("hidden",), seed=7, level="rlimits")  # warm imports and caches

    levels = ("namespaces", "rlimits", "subprocess") if args.subprocess else ("namespaces", "rlimits")
    data = {lv: {"start": [], "per_sub": [], "wall_per_sub": [], "fork": []} for lv in levels}
    for r in range(args.rounds):
        for level in levels if r % 2 == 0 else levels[::-1]:
            for key, values in one_round(level, rubric, subs, args.opens).items():
                data[level][key] += values

    def ms(values: list[float]) -> str:
        return f"{1000 * statistics.median(values):8.1f}"

    load = " ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    print(f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs, "
          f"load average {load}, n={args.n}, rounds={args.rounds}, opens={args.opens}")
    print(f"{'level':<12}{'start ms':>10}{'sub ms':>10}{'wall/sub ms':>13}{'fork+call ms':>14}")
    for level in levels:
        d = data[level]
        print(f"{level:<12}{ms(d['start']):>10}{ms(d['per_sub']):>10}{ms(d['wall_per_sub']):>13}{ms(d['fork']):>14}")
    ns, rl = data["namespaces"], data["rlimits"]
    for key, label in (("start", "worker start"), ("per_sub", "per submission"),
                       ("wall_per_sub", "wall per submission"), ("fork", "open+call+close")):
        a, b = statistics.median(ns[key]), statistics.median(rl[key])
        print(f"ratio namespaces/rlimits, {label:<20} {a / b:5.2f}  ({1000 * (a - b):+.1f} ms)")
    if args.subprocess:
        sp = data["subprocess"]
        for key, label in (("per_sub", "per submission"), ("wall_per_sub", "wall per submission"),
                           ("fork", "open+call+close")):
            a, b = statistics.median(sp[key]), statistics.median(ns[key])
            print(f"ratio subprocess/namespaces, {label:<17} {a / b:5.2f}  ({1000 * (a - b):+.1f} ms)")


if __name__ == "__main__":
    main()
