"""Benchmark: a batch with per-student variants against the same batch without.

    python bench/variants.py [-n 12] [--repeat 2] [-j 2]

1. Generates N submissions (as ``bench/run.py`` does) into a plain folder (one entry a student).
2. Copies chapter 7's course with its issued table (``rubrics/chapter07.variants.json``) and gives
   this run a course secret of its own (``GRADER_SECRET_FILE`` in a temporary folder).
3. Times, in turn (A B, A B, ...) so machine drift hits both alike, each into a fresh folder:
   A. ``grader batch SOURCE --out OUT -j J``;
   B. the same with ``--variants`` (each student graded with their own variant).
4. Prints the medians of wall time, of CPU time and of the grading time the reports record
   (summed over a run's reports), and each ratio B / A measured in this run (the target is at
   most 1.05). On a shared machine the wall time moves with everyone else's work.

Not a timed test: the figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(1, str(ROOT))  # (tests.helpers)

import yaml  # noqa: E402

from run import generate  # noqa: E402


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("-n", type=int, default=12, help="submissions (default 12)")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each (default 2)")
    parser.add_argument("-j", type=int, default=2, help="batch workers (default 2)")
    args = parser.parse_args()
    from tests.helpers import course_copy

    with tempfile.TemporaryDirectory(prefix="grader-bench-variants-") as tmp:
        work = Path(tmp)
        source = work / "source"
        source.mkdir()
        generate(source, args.n)
        course = course_copy(work / "course", chapters=("chapter07",))
        shutil.copyfile(ROOT / "rubrics" / "chapter07.variants.json", course / "rubrics" / "chapter07.variants.json")
        rubric = course / "rubrics" / "chapter07.yaml"
        env = {**os.environ, "GRADER_SECRET_FILE": str(work / "secret" / "course"),
               "XDG_CACHE_HOME": str(work / "cache")}
        base = [sys.executable, "-m", "grader", "batch", str(source), "--rubric", str(rubric), "-j", str(args.j),
                "--seed", "7", "--no-progress"]
        runs: dict[str, list[tuple[float, float]]] = {"plain": [], "variants": []}
        graded: dict[str, list[float]] = {"plain": [], "variants": []}
        timed([*base, "--out", str(work / "warm")], env)  # the corpus cache and the disk, warmed once
        for i in range(args.repeat):
            for kind, extra in (("plain", []), ("variants", ["--variants"])):
                out = work / f"out-{kind}-{i}"
                runs[kind].append(timed([*base, "--out", str(out), *extra], env))
                header = (out / "gradebook.csv").read_text(encoding="utf-8-sig").splitlines()[0].split(",")
                if ("variant" in header) != (kind == "variants"):  # (each run graded as it says)
                    sys.exit(f"{out}: the gradebook's columns do not match a {kind} batch: {header}")
                graded[kind].append(sum(float(yaml.safe_load(p.read_text(encoding="utf-8")).get("duration_s", 0))
                                        for p in (out / "reports").glob("*.yaml")))
        wall = {k: statistics.median(w for w, _ in v) for k, v in runs.items()}
        cpu = {k: statistics.median(c for _, c in v) for k, v in runs.items()}
        print(f"{args.n} submissions, -j {args.j}, {args.repeat} runs each (medians)")
        for kind in ("plain", "variants"):
            print(f"  {kind:9s} wall {wall[kind]:7.2f} s   cpu {cpu[kind]:7.2f} s")
        inside = {k: statistics.median(v) for k, v in graded.items()}
        for kind in ("plain", "variants"):
            print(f"  {kind:9s} grading time summed over the reports {inside[kind]:7.2f} s")
        print(f"  ratio variants / plain: wall {wall['variants'] / wall['plain']:.3f}, "
              f"cpu {cpu['variants'] / cpu['plain']:.3f}, grading {inside['variants'] / inside['plain']:.3f} "
              "(target <= 1.05)")


if __name__ == "__main__":
    main()
