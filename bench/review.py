"""Benchmark: how fast ``grader review`` serves its pages over a large class, and its screenshots.

    python bench/review.py [-n 500] [--requests 200] [--shots build/screenshots]

1. Synthesises a batch of N submissions without grading (tests/review_class.py: reports, sources,
   clusters, similar pairs), with a few ledger lines (comments, a group confirmed).
2. Serves it with uvicorn on 127.0.0.1 as ``grader review`` does (in this process, one thread),
   logs in with the launch URL, and times, over HTTP from a client process of its own kind
   (httpx, one connection), the queue page and submission pages (a different student each time,
   in turn), after one warm-up request each.
3. Prints the median, p95 and max of each, in milliseconds.
4. Unless ``--no-shots``, takes screenshots of the queue and a submission page in Japanese and
   English with Debian's chromium (playwright) into ``--shots``.

Not a timed test: the figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # (tests.review_class)

from grader.review import actions  # noqa: E402
from grader.review.security import Keys  # noqa: E402
from grader.review.serve import server  # noqa: E402
from grader.spec.rubric.load import load_rubric  # noqa: E402
from tests.helpers import RUBRIC, chromium  # noqa: E402
from tests.review_class import make_class  # noqa: E402


def p95(xs: list[float]) -> float:
    return sorted(xs)[max(0, round(0.95 * len(xs)) - 1)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=500)
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--shots", type=Path, default=ROOT / "build" / "screenshots")
    ap.add_argument("--no-shots", action="store_true")
    args = ap.parse_args()
    import httpx

    rubric = load_rubric(RUBRIC)
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        out = make_class(Path(tmp), args.n)
        lines = (Path(tmp) / "source" / "s001-divide-by-dk-1" / "scaling.py").read_text(encoding="utf-8").split("\n")
        for i, name in enumerate(("s001-divide-by-dk-1", "s002-sqrt-d-model-2", "s007-divide-by-dk-1")):
            actions.comment(out, rubric, name, head=0, file="scaling.py", start=3 + i, end=4 + i,
                            text="なぜ d_k で割るのですか? / why d_k?", by="tanaka", lines=lines, lang="ja")
        print(f"class of {args.n} synthesised in {time.perf_counter() - started:.1f} s")
        running, sock, url = server(out, rubric, port=0, blind=False, by="tanaka", lang="ja")
        thread = threading.Thread(target=running.run, kwargs={"sockets": [sock]}, daemon=True)
        started = time.perf_counter()
        thread.start()
        while not running.started:
            time.sleep(0.01)
        base = f"http://127.0.0.1:{sock.getsockname()[1]}"
        try:
            with httpx.Client(follow_redirects=True, timeout=60) as client:
                first = client.get(url)
                print(f"served, first queue page in {time.perf_counter() - started:.2f} s (reads the class and its sources)")
                links = [x.replace("&amp;", "&") for x in re.findall(r'href="(/s/[^"]+)"', first.text)]
                client.get(base + links[0])  # (warm-up)
                queue, pages = [], []
                for i in range(args.requests):
                    t0 = time.perf_counter()
                    assert client.get(f"{base}/?lang=ja").status_code == 200
                    queue.append((time.perf_counter() - t0) * 1000)
                    t0 = time.perf_counter()
                    answer = client.get(base + links[i % len(links)])
                    pages.append((time.perf_counter() - t0) * 1000)
                    assert answer.status_code == 200
            print(f"{len(links)} submission links on the queue page; {args.requests} requests each")
            for what, xs in (("queue page", queue), ("submission page", pages)):
                print(f"{what:16} median {statistics.median(xs):6.1f} ms   p95 {p95(xs):6.1f} ms   max {max(xs):6.1f} ms")
            if not args.no_shots:
                shots(base, running.config.app.keys, args.shots)
        finally:
            running.should_exit = True
            thread.join(timeout=10)


def shots(base: str, keys: Keys, dest: Path) -> None:
    """Screenshots of the queue and a submission page, in Japanese and in English."""
    browser = chromium()
    if browser is None:
        print("no chromium: no screenshots")
        return
    from playwright.sync_api import sync_playwright

    dest.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=browser, args=["--no-sandbox"])
        page = b.new_page(viewport={"width": 1280, "height": 900})
        page.goto(keys.launch_url())
        for lang in ("ja", "en"):
            page.goto(f"{base}/?lang={lang}")
            page.screenshot(path=str(dest / f"review-queue.{lang}.png"))
            page.goto(f"{base}/g/m-divide-by-d-k?lang={lang}")
            page.click("a.member >> nth=0")
            page.click("tr[data-line='4']")
            page.screenshot(path=str(dest / f"review-submission.{lang}.png"), full_page=False)
        b.close()
    print(f"screenshots in {dest}")


if __name__ == "__main__":
    main()
