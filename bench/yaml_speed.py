"""Time to write one report as YAML: PyYAML's dumpers as the reports used them, against fastyaml.

Grades one bundled submission once, then writes its report in turn (A B C A B C …) in one
process so machine drift hits every writer alike, and prints milliseconds per report. Not a
timed test.

    python bench/yaml_speed.py [-n 200] [SUBMISSION]

* ``libyaml``: ``yaml.dump`` with a ``CSafeDumper`` subclass (the batch's ``report_yaml`` before
  fastyaml: the representer runs in Python, only the emitter in C);
* ``pyyaml``: ``yaml.dump`` with a ``SafeDumper`` subclass (``render_yaml`` before fastyaml);
* ``fastyaml``: ``grader.report.fastyaml.dump``, what both write with now; its first call (no
  remembered scalars yet) is timed on its own.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any, Callable

import yaml

from grader.report import fastyaml

ROOT = Path(__file__).resolve().parent.parent


def _dumper(base: type) -> type:
    class Dumper(base):  # type: ignore[misc, valid-type]
        def ignore_aliases(self, data: Any) -> bool:
            return True

    Dumper.add_representer(
        str, lambda d, v: d.represent_scalar("tag:yaml.org,2002:str", v, style="|" if "\n" in v else None))
    return Dumper


def _nodes(x: Any) -> int:
    if isinstance(x, dict):
        return 1 + sum(1 + _nodes(v) for v in x.values())
    if isinstance(x, list):
        return 1 + sum(_nodes(v) for v in x)
    return 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=200, help="writes of each (default 200)")
    parser.add_argument("submission", nargs="?", default="examples/submissions/sqrt-d-model")
    args = parser.parse_args()

    from grader.spec.rubric.load import load_rubric
    from grader.grading.runner import grade
    from grader.ingest.submission.load import load_submission

    rubric = load_rubric(ROOT / "rubrics" / "chapter07.yaml")
    (report,) = grade(rubric, [load_submission(ROOT / args.submission)], seed=1234)
    data = report.to_dict()

    start = time.perf_counter()
    text = fastyaml.dump(data)
    first = time.perf_counter() - start
    assert yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) == data  # noqa: S506

    c_dumper = _dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper))
    py_dumper = _dumper(yaml.SafeDumper)
    writers: dict[str, Callable[[dict[str, Any]], str]] = {
        f"libyaml ({c_dumper.__mro__[1].__name__})":
            lambda d: yaml.dump(d, Dumper=c_dumper, allow_unicode=True, sort_keys=False, width=100),
        "pyyaml (SafeDumper)": lambda d: yaml.dump(d, Dumper=py_dumper, allow_unicode=True, sort_keys=False, width=100),
        "fastyaml": fastyaml.dump,
    }
    times: dict[str, list[float]] = {name: [] for name in writers}
    for _ in range(args.n):
        for name, write in writers.items():
            start = time.perf_counter()
            write(data)
            times[name].append(time.perf_counter() - start)

    print(f"report of {args.submission}: {text.count(chr(10))} lines, {_nodes(data)} nodes, {len(text.encode())} bytes")
    base = statistics.median(times["fastyaml"])
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"  {name:<24} median {med * 1e3:6.2f} ms  (min {min(ts) * 1e3:6.2f})  {med / base:5.1f}x fastyaml")
    print(f"  fastyaml, first call     {first * 1e3:6.2f} ms  (n={args.n} each, interleaved)")


if __name__ == "__main__":
    main()
