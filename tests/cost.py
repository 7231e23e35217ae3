"""The suite's cost from a JUnit file that ``make test`` wrote: the test modules and the tests
that took the most CPU (``cpu_s``, recorded by tests/conftest.py) and wall time.

    python -m tests.cost [.ci/junit.xml] [-n 20]

On two cores the suite's wall time follows its CPU: the top of this list is where making a test
cheaper shortens a run.
"""

from __future__ import annotations

import argparse
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path


def costs(junit: Path) -> list[tuple[str, float, float]]:
    """(test id, CPU seconds, wall seconds) of every test case in ``junit``."""
    rows = []
    for case in ET.parse(junit).iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        name = f"{case.get('classname')}::{case.get('name')}"
        rows.append((name, float(props.get("cpu_s") or 0.0), float(case.get("time") or 0.0)))
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("junit", nargs="?", type=Path, default=Path(".ci/junit.xml"))
    parser.add_argument("-n", type=int, default=20, help="how many rows of each table (default 20)")
    args = parser.parse_args(argv)
    rows = costs(args.junit)
    by_module: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for name, cpu, wall in rows:
        parts = name.split("::")[0].split(".")
        module = ".".join(parts[:next((i + 1 for i, p in enumerate(parts) if p.startswith("test_")), len(parts))])
        entry = by_module[module]
        entry[0] += cpu
        entry[1] += wall
        entry[2] += 1
    print(f"{len(rows)} tests: {sum(r[1] for r in rows):.0f} s of CPU, {sum(r[2] for r in rows):.0f} s of wall time (summed over the workers)")
    print(f"\nthe {args.n} costliest modules (CPU s, wall s, tests):")
    for module, (cpu, wall, n) in sorted(by_module.items(), key=lambda kv: -kv[1][0])[:args.n]:
        print(f"{cpu:8.1f} {wall:8.1f} {int(n):5d}  {module}")
    print(f"\nthe {args.n} costliest tests (CPU s, wall s):")
    for name, cpu, wall in sorted(rows, key=lambda r: -r[1])[:args.n]:
        print(f"{cpu:8.1f} {wall:8.1f}  {name}")


if __name__ == "__main__":
    main()
