"""Benchmark: the similarity stage on submissions built to be slow (issue 47, item 4).

Two classes of two, each pair sharing everything:

- ``helpers``: two folders whose ``scaling.py`` carries 10,000 shared helper functions
  (about 470 KB each);
- ``cells``: two notebooks of 100,000 code cells each.

For each class it reads the submissions as a batch does (``load_submission``), then times the
stage a batch runs with ``--similarity`` (:func:`grader.outputs.similarity_page.run`: the
fingerprints, every pair, ``similarity.csv`` and both pages), and prints the seconds of each
step and what the stage said it capped. No grading: each submission gets a plain report.

    python bench/similarity_bounds.py
    python bench/similarity_bounds.py --functions 10000 --cells 100000
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUBRIC = ROOT / "rubrics" / "chapter07.yaml"
CORRECT = ROOT / "examples" / "submissions" / "correct"
NOTEBOOK = ROOT / "tests" / "fixtures" / "submissions" / "correct-notebook.ipynb"


def helpers(n: int) -> str:
    """``n`` small helper functions, about 47 bytes each."""
    return "".join(f"\ndef helper_{i:05d}(x, y):\n    return x * {i} + y\n" for i in range(n))


def make_helpers(dest: Path, n: int) -> list[Path]:
    out = []
    for who in ("alice", "bob"):
        folder = dest / who
        shutil.copytree(CORRECT, folder)
        scaling = folder / "scaling.py"
        scaling.write_text(scaling.read_text(encoding="utf-8") + helpers(n), encoding="utf-8")
        out.append(folder)
    return out


def make_cells(dest: Path, n: int) -> list[Path]:
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    extra = [{"cell_type": "code", "execution_count": None, "id": f"c{i:06d}", "metadata": {}, "outputs": [],
              "source": [f"value_{i} = {i} * 2 + {i % 13}"]} for i in range(n)]
    nb["cells"] = nb["cells"] + extra
    out = []
    for who in ("carol", "dave"):
        path = dest / f"{who}.ipynb"
        path.write_text(json.dumps(nb), encoding="utf-8")
        out.append(path)
    return out


def run(kind: str, paths: list[Path], out: Path) -> dict[str, float]:
    from grader.ingest.submission.load import load_submission
    from grader.outputs import similarity_page
    from grader.report.contain import error_report
    from grader.spec.assignment import assignment_of
    from grader import load_rubric

    rubric = load_rubric(RUBRIC)
    assignment = assignment_of(rubric)
    times: dict[str, float] = {}
    start, cpu = time.perf_counter(), time.process_time()
    subs = [(p.stem, load_submission(p, assignment)) for p in paths]
    times["read"], times["read_cpu"] = time.perf_counter() - start, time.process_time() - cpu
    reports = [error_report(rubric, name, "not graded (benchmark)") for name, _ in subs]
    out.mkdir(parents=True, exist_ok=True)
    start, cpu = time.perf_counter(), time.process_time()
    result = similarity_page.run(out, rubric, reports=reports, submissions=subs)
    times["similarity"], times["similarity_cpu"] = time.perf_counter() - start, time.process_time() - cpu
    size = sum(p.stat().st_size if p.is_file() else sum(f.stat().st_size for f in p.rglob("*")) for p in paths)
    print(f"{kind}: {len(paths)} submissions, {size / 1024:.0f} KB in all; read {times['read']:.2f} s "
          f"({times['read_cpu']:.2f} s CPU), similarity stage {times['similarity']:.2f} s "
          f"({times['similarity_cpu']:.2f} s CPU); pairs flagged: {len(result.pairs)}")
    for line in getattr(result, "capped", []):
        print(f"  capped: {line}")
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--functions", type=int, default=10_000)
    parser.add_argument("--cells", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        (base / "a").mkdir()
        (base / "b").mkdir()
        run("helpers", make_helpers(base / "a", args.functions), base / "out-a")
        run("cells", make_cells(base / "b", args.cells), base / "out-b")
    return 0


if __name__ == "__main__":
    sys.exit(main())
