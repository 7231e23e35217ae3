"""Wall time of pushing N students into the LTI 1.3 platform of the tests, with latency and a rate cap.

The platform (tests/lti_platform.py: lti1p3platform's token endpoint and services) answers every
request after ``--latency`` seconds and answers 429 (``Retry-After: 0``) beyond ``--cap`` requests a
second. AGS takes one score a request, so the cap bounds the push: N scores take at least N / cap
seconds. The push is planned and written as ``grader push`` does (grader.workflows.push.plan,
Lti13Platform.write: the token, the line item created, the roster, one score each), then run again
(0 writes expected). Not a timed test.

    python bench/push_lti13.py [-n 1000] [--latency 0.1] [--cap 10]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.lms.lti13 import open_platform  # noqa: E402
from grader.lms.platform import Cell  # noqa: E402
from grader.outputs.gradebook import GradebookRow  # noqa: E402
from grader.workflows.push import plan  # noqa: E402
from tests.lti_platform import LEARNER, LtiPlatform, platform_file, rsa_pem  # noqa: E402


def once(lti: LtiPlatform, rows: list[GradebookRow], config: Path, ids: dict[str, str]) -> tuple[float, int]:
    start = time.perf_counter()
    platform, http = open_platform(config, maximum=100.0)
    lines = plan(rows, platform.current(), {}, lms="lti13", ids=ids, overwrite=False, lang="en")
    send = [line for line in lines if line.state == "send"]
    out = platform.write([Cell(line.key, float(line.new or 0), "Score") for line in send])
    http.close()
    assert all(o.ok for o in out.values()), [o.answer for o in out.values() if not o.ok][:3]
    return time.perf_counter() - start, len(send)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--cap", type=int, default=10)
    args = parser.parse_args()
    private, public = rsa_pem()
    keys = [f"u-{10_000 + i}" for i in range(args.n)]
    lti = LtiPlatform(public, "bench", [{"user_id": k, "roles": [LEARNER]} for k in keys], latency=args.latency,
                      rate_cap=args.cap, page_size=100).start()
    rows = [GradebookRow(k, k, cells={"score": float(i % 101)}) for i, k in enumerate(keys)]
    ids = {k: k for k in keys}
    try:
        with tempfile.TemporaryDirectory() as folder:
            config = platform_file(Path(folder), lti, private)
            first, sent = once(lti, rows, config, ids)
            requests = len(lti.log)
            second, again = once(lti, rows, config, ids)
    finally:
        lti.stop()
    print(f"{args.n} students, latency {args.latency} s, cap {args.cap}/s: first push {first:.1f} s "
          f"({sent} sent, {requests} requests, {sum(1 for r in lti.log if r.status == 429)} throttled); "
          f"second push {second:.1f} s ({again} sent, {len(lti.log) - requests} requests)")


if __name__ == "__main__":
    main()
