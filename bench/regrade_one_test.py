"""Benchmark: ``grader regrade`` of one test for the class, against the full ``grader batch``, in one run.

    python bench/regrade_one_test.py [-n 200] [--jobs 2] [--test PATTERN]

Generates N submissions as ``bench/run.py`` does, grades them with ``grader batch -j J``, then
grades one test again for all of them with ``grader regrade … --test PATTERN -j J`` into the
same folder, timing both (wall clock, each a fresh process) and printing the ratio. Run them
alternately (batch, regrade, batch, regrade) with ``-r 2`` to see the machine's drift.
Not a timed test: the figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import generate, warm_corpus_cache  # noqa: E402 - the bench folder's own generator and cache

ROOT = Path(__file__).resolve().parent.parent
RUBRIC = ROOT / "rubrics" / "chapter07.yaml"


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=200, help="submissions (default 200)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("-r", "--rounds", type=int, default=1, help="batch/regrade pairs (default 1)")
    parser.add_argument("--test", default="hidden/test_scaling.py::test_head_dim_random_pairs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "src", Path(tmp) / "out"
        src.mkdir()
        generate(src, args.n)
        warm_corpus_cache(Path(tmp), RUBRIC)
        common = ["--rubric", str(RUBRIC), "-j", str(args.jobs), "--no-progress"]
        batches, regrades = [], []
        for _ in range(args.rounds):
            shutil.rmtree(out, ignore_errors=True)
            batches.append(timed([sys.executable, "-m", "grader", "batch", str(src), "--out", str(out), "--seed", "1",
                                  "--no-table", *common]))
            regrades.append(timed([sys.executable, "-m", "grader", "regrade", str(src), "--out", str(out),
                                   "--test", args.test, *common]))
    b, r = min(batches), min(regrades)
    print(f"{args.n} submissions, -j {args.jobs}: grader batch {b:.1f} s; grader regrade --test {args.test} "
          f"{r:.1f} s; ratio {r / b:.3f} (target <= 0.1)")
    print("  each run (s): batch " + ", ".join(f"{x:.1f}" for x in batches)
          + "; regrade " + ", ".join(f"{x:.1f}" for x in regrades))


if __name__ == "__main__":
    main()
