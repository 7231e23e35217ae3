"""Benchmark: what a teacher waits for when nothing needs grading, beside a bare ``import torch``.

    python bench/resume.py [-n 12] [--repeat 5]

1. Generates N submissions (as ``bench/run.py`` does) and grades them once with ``-j 2`` and a
   copy of the chapter's rubric (its paths made absolute).
2. Times, in turn (A B C D, A B C D, ...) so machine drift hits them alike:
   A. ``python -c "import torch"``;
   B. ``grader batch SOURCE --out OUT --resume`` with nothing to grade;
   C. the same after a change of the rubric's view-only options (``report.formats`` and
      ``report.hidden_details`` switched between two settings each time: every report's
      student views are written again, none is graded again);
   D. ``grader similarity OUT`` (the class's reports and submissions compared again).
3. Prints the medians and each ratio to A, of wall time and of CPU time (on a shared machine
   the wall time moves with everyone else's work; the CPU time much less), and checks (untimed, with ``-X importtime``) which of
   torch, matplotlib and pytest each command imported, and that B and C graded nothing.

Not a timed test: the figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import re
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

from run import generate  # noqa: E402

RUBRIC = ROOT / "rubrics" / "chapter07.yaml"
HEAVY = ("torch", "matplotlib", "pytest")
#: the two settings of the view-only options the report-only runs switch between
VIEWS = ({"formats": ["yaml", "markdown", "json"], "hidden_details": "never"},
         {"formats": ["yaml", "json"], "hidden_details": "after_publish"})


def rubric_copy(dest: Path, views: dict[str, object]) -> Path:
    """The chapter's rubric at ``dest`` (``course.yaml`` in its folder) with absolute paths
    (``tests.helpers.rubric_copy``) and the view-only options ``views``."""
    from tests.helpers import rubric_copy as course_rubric

    assert dest.name == "course.yaml", dest
    return course_rubric(dest.parent, edit=lambda data: data.setdefault("report", {}).update(views))


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the process and its children, its stderr)."""
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    took = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return took, after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime, proc.stderr


def imported(argv: list[str], env: dict[str, str]) -> list[str]:
    """Which of :data:`HEAVY` the command imports (``-X importtime``, untimed)."""
    proc = subprocess.run([argv[0], "-X", "importtime", *argv[1:]], cwd=ROOT, env=env, capture_output=True,
                          text=True, check=False)
    names = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    return [m for m in HEAVY if m in names]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=12, help="submissions (default 12)")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs of each (default 5)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="grader-resume-bench-"))
    # Bytecode caches written and read, as an installed grader has them (and as the Makefile runs).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["XDG_CACHE_HOME"] = str(work / "cache")
    try:
        src, out = work / "src", work / "out"
        src.mkdir()
        generate(src, args.n)
        rubric = rubric_copy(work / "course.yaml", VIEWS[0])
        grader = [sys.executable, "-m", "grader"]
        batch = [*grader, "batch", str(src), "--out", str(out), "--rubric", str(rubric), "--no-progress",
                 "--no-table", "--lang", "en"]
        first, _, _ = timed([*batch, "-j", "2", "--similarity"], env)
        print(f"{args.n} submissions graded once with -j 2 --similarity in {first:.1f} s")
        commands = {
            "import torch": [sys.executable, "-c", "import torch"],
            "batch --resume, nothing to grade": [*batch, "--resume"],
            "batch --resume, view-only options changed": [*batch, "--resume"],
            "similarity OUT": [*grader, "similarity", str(out), "--rubric", str(rubric)],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        flip = 0
        for _ in range(args.repeat):
            for name, argv in commands.items():
                if name.endswith("changed"):
                    flip = 1 - flip
                    rubric_copy(rubric, VIEWS[flip])
                took, cpu, err = timed(argv, env)
                times[name].append(took)
                cpus[name].append(cpu)
                if name.startswith("batch"):
                    m = re.search(r"(\d+) graded, (\d+) kept", err)
                    if not m or m.group(1) != "0":
                        raise SystemExit(f"{name}: graded again:\n{err[-2000:]}")
        print(f"medians of {args.repeat} runs each, taken in turn; load average now {os.getloadavg()[0]:.1f} "
              f"on {os.cpu_count()} CPUs")
        for what, runs in (("wall", times), ("CPU (user + system, the command's processes)", cpus)):
            med = {name: statistics.median(v) for name, v in runs.items()}
            base = med["import torch"]
            print(f" {what}:")
            for name, t in med.items():
                each = ", ".join(f"{x:.2f}" for x in runs[name])
                print(f"  {name:45s} {t:6.2f} s  = {t / base:5.2f} x import torch   (each run: {each})")
        for name, argv in commands.items():
            if name.endswith("changed"):
                flip = 1 - flip
                rubric_copy(rubric, VIEWS[flip])
            if name != "import torch":
                print(f"  {name} imports: {', '.join(imported(argv, env)) or 'none of ' + ', '.join(HEAVY)}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
