"""Wall time of pushing N students into the Canvas double with latency and a rate cap.

The double (tests/canvas_double.py) answers every request after ``--latency`` seconds and
throttles beyond ``--cap`` requests a second as Canvas does (403 Rate Limit Exceeded). The push is
planned and written as ``grader push`` does (grader.workflows.push.plan, CanvasPlatform.write),
then run again (0 writes expected). Not a timed test. The target (issue 48): 1,000 students at 100 ms
and 10 requests a second in at most 2 minutes; the figure and its ratio to the target are printed.

    python bench/push_canvas.py [-n 1000] [--latency 0.1] [--cap 10] [--bulk-refused]

``--bulk-refused``: Canvas refuses the bulk update (as for a token that may not use it), so every
student is one PUT: the slowest way the push has.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.lms.canvas import CanvasPlatform  # noqa: E402
from grader.lms.platform import Cell  # noqa: E402
from grader.lms.transport import Transport  # noqa: E402
from grader.outputs.gradebook import GradebookRow  # noqa: E402
from grader.workflows.push import plan  # noqa: E402
from tests.canvas_double import CanvasDouble  # noqa: E402


#: the issue's bound for 1,000 students at 100 ms and 10 requests a second (seconds)
TARGET_S = 120.0


def once(double: CanvasDouble, rows: list[GradebookRow]) -> tuple[float, int]:
    start = time.perf_counter()
    transport = Transport(double.url, "bench-token")
    platform = CanvasPlatform(double.url, double.course, double.assignment, transport, poll_every=0.2)
    lines = plan(rows, platform.current(), {}, lms="canvas", ids={}, overwrite=False, lang="en")
    send = [line for line in lines if line.state == "send"]
    out = platform.write([Cell(line.key, float(line.new or 0), "Score") for line in send])
    transport.close()
    assert all(o.ok for o in out.values())
    return time.perf_counter() - start, len(send)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--cap", type=int, default=10)
    parser.add_argument("--bulk-refused", action="store_true")
    args = parser.parse_args()
    ids = [str(10_000 + i) for i in range(args.n)]
    double = CanvasDouble("bench-token", {k: None for k in ids}, latency=args.latency, rate_cap=args.cap,
                          bulk_refused=args.bulk_refused).start()
    rows = [GradebookRow(k, k, lms="canvas", cells={"score": float(i % 101)}) for i, k in enumerate(ids)]
    try:
        first, sent = once(double, rows)
        requests = len(double.log)
        second, again = once(double, rows)
    finally:
        double.stop()
    print(f"{args.n} students, latency {args.latency} s, cap {args.cap}/s"
          f"{', bulk refused' if args.bulk_refused else ''}: first push {first:.1f} s "
          f"({sent} sent, {requests} requests, {sum(1 for r in double.log if r.status == 403)} throttled); "
          f"second push {second:.1f} s ({again} sent)")
    print(f"target: at most {TARGET_S:.0f} s for the first push; {first:.1f} s is {first / TARGET_S:.2f} of it "
          f"({'met' if first <= TARGET_S else 'NOT met'})")


if __name__ == "__main__":
    main()
