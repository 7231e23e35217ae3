"""Wall time of pushing N students into the Moodle double with latency and a rate cap.

The double (tests/moodle_double.py) answers every request after ``--latency`` seconds and, beyond
``--cap`` requests a second, 429 with ``Retry-After: 1`` (as a proxy in front of Moodle may). The
push is planned and written as ``grader push --to moodle`` does (grader.workflows.push.plan,
MoodlePlatform.write: mod_assign_save_grades in batches), then run again (0 saves expected). Not a
timed test.

    python bench/push_moodle.py [-n 1000] [--latency 0.1] [--cap 10]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.lms.moodle import Moodle, MoodlePlatform  # noqa: E402
from grader.lms.platform import Cell  # noqa: E402
from grader.lms.transport import Transport  # noqa: E402
from grader.outputs.gradebook import GradebookRow  # noqa: E402
from grader.workflows.push import plan  # noqa: E402
from tests.moodle_double import MoodleDouble, User  # noqa: E402

TOKEN = "0123456789abcdef0123456789abcdef"


def once(double: MoodleDouble, rows: list[GradebookRow]) -> tuple[float, int]:
    start = time.perf_counter()
    transport = Transport(double.url, TOKEN, bearer=False)
    platform = MoodlePlatform(Moodle(double.url, TOKEN, transport), str(double.assignment))
    platform.check(public=False)
    lines = plan(rows, platform.current(), {}, lms="moodle", ids={}, overwrite=False, lang="en")
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
    args = parser.parse_args()
    users = {100 + i: User(100 + i, f"Student {i}", 200_000 + i) for i in range(args.n)}
    double = MoodleDouble(TOKEN, users, latency=args.latency, rate_cap=args.cap).start()
    rows = [GradebookRow(str(u.participant), str(u.participant), lms="moodle", cells={"score": float(i % 101)})
            for i, u in enumerate(users.values())]
    try:
        first, sent = once(double, rows)
        requests = len(double.log)
        saves = len(double.saves())
        second, again = once(double, rows)
    finally:
        double.stop()
    print(f"{args.n} students, latency {args.latency} s, cap {args.cap}/s: first push {first:.1f} s "
          f"({sent} sent, {requests} web-service calls, {saves} of them saves, {double.throttled} throttled); "
          f"second push {second:.1f} s ({again} sent, {len(double.saves()) - saves} saves)")


if __name__ == "__main__":
    main()
