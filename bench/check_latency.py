"""Wall time of one `grader check` on a finished submission, beside a bare `import torch`.

Both are run in turn (A B A B …) in one process so machine drift hits them alike; the script
prints medians and the ratio. Not a timed test.

    python bench/check_latency.py [-n 7] [SUBMISSION]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


#: bytecode caches written and read, as an installed grader has them (and as the Makefile runs)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=7, help="runs of each (default 7)")
    parser.add_argument("submission", nargs="?", default="examples/submissions/correct")
    args = parser.parse_args()
    check = [sys.executable, "-m", "grader", "check", args.submission]
    torch = [sys.executable, "-c", "import torch"]
    timed(check)  # warm the page cache
    a, b = [], []
    for _ in range(args.n):
        a.append(timed(check))
        b.append(timed(torch))
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"grader check {args.submission}: median {ma:.2f} s (min {min(a):.2f}, max {max(a):.2f}), n={args.n}")
    print(f"python -c 'import torch':        median {mb:.2f} s (min {min(b):.2f}, max {max(b):.2f})")
    print(f"ratio check / import torch: {ma / mb:.2f}")


if __name__ == "__main__":
    main()
