"""Check latency in a real Jupyter kernel and in watch mode, beside a bare `import torch`.

Each round, in turn (so machine drift hits all alike):

1. ``python -c "import torch"`` in a fresh process (the reference);
2. a fresh ipykernel (driven by nbclient) runs the student release's notebook with the
   sqrt(768) mistake in it, every cell but the check cell untimed; then the check cell is
   timed (the **first** check: it starts the warm checker and its sandbox), then a second and
   a third ``notebook.check()`` (**warm**: they fork from the same zygote);
3. ``grader check --watch`` on the same work as a folder: after its first check, a save of
   scaling.py is timed from the write to the line saying it was checked again (**watch**).

Prints medians and each as a ratio to the reference. Targets (issue 16): warm <= 0.1 x,
first <= 1.3 x. Not a timed test.

    python bench/notebook_latency.py [-n 3]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.prepare import build_notebook  # noqa: E402

EXAMPLES = ROOT / "examples" / "submissions"


def bare_torch() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import torch"], check=True)
    return time.perf_counter() - start


def kernel_round(exercises: Path, checks: int) -> list[float]:
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(exercises / "chapter07.ipynb", as_version=4)
    client = NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(exercises)}})
    times = []
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells[:-1]):
            if cell.cell_type == "code":
                client.execute_cell(cell, index)
        for k in range(checks):
            cell = nb.cells[-1] if k == 0 else nbformat.v4.new_code_cell("notebook.check()")
            if k:
                nb.cells.append(cell)
            start = time.perf_counter()
            client.execute_cell(cell, len(nb.cells) - 1)
            times.append(time.perf_counter() - start)
            if any(o.get("output_type") == "error" for o in cell.outputs):
                raise SystemExit(f"the check cell failed: {cell.outputs}")
    return times


def watch_round(work: Path, saves: int) -> tuple[float, list[float], list[float]]:
    """(first check as the watcher reports it, save-to-output times, checks as it reports)."""
    for name in ("scaling.py", "softmax.py", "variance.py", "answers.yaml"):
        shutil.copy(EXAMPLES / "sqrt-d-model" / name, work / name)
    proc = subprocess.Popen(
        [sys.executable, "-m", "grader", "check", "--watch", str(work), "--lang", "en",
         "--rubric", str(work.parent / "rubrics" / "chapter07.yaml")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    assert proc.stdout is not None
    os.set_blocking(proc.stdout.fileno(), False)
    text = ""

    def wait_for(pattern: str, start: int) -> re.Match[str]:
        nonlocal text
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            chunk = proc.stdout.read()  # type: ignore[union-attr]
            if chunk:
                text += chunk.decode("utf-8", "replace")
            found = re.compile(pattern).search(text, start)
            if found:
                return found
            time.sleep(0.005)
        raise SystemExit(f"watch mode never printed {pattern!r}:\n{text[-2000:]}")

    try:
        first = wait_for(r"checked in ([0-9.]+) s", 0)
        at = first.end()
        seen, reported = [], []
        versions = [EXAMPLES / "correct" / "scaling.py", EXAMPLES / "sqrt-d-model" / "scaling.py"]
        for k in range(saves):
            source = versions[k % 2].read_text(encoding="utf-8")
            time.sleep(0.3)  # a new modification time, whatever the file system's resolution
            start = time.perf_counter()
            (work / "scaling.py").write_text(source, encoding="utf-8")
            found = wait_for(r"scaling\.py saved: checked again in ([0-9.]+) s", at)
            wait_for(r"score: [0-9.]+ → [0-9.]+ / [0-9.]+", found.end())
            seen.append(time.perf_counter() - start)
            reported.append(float(found.group(1)))
            at = found.end()
        return float(first.group(1)), seen, reported
    finally:
        proc.send_signal(2)
        proc.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=3, help="rounds (default 3)")
    parser.add_argument("--checks", type=int, default=3, help="checks per kernel (default 3)")
    parser.add_argument("--saves", type=int, default=4, help="saves per watch round (default 4)")
    args = parser.parse_args()
    os.environ.pop("GRADER_LANG", None)
    with tempfile.TemporaryDirectory(prefix="grader-bench-") as tmp:
        release = Path(tmp) / "release"
        subprocess.run([sys.executable, "-m", "grader", "release", str(release), "--rubric", "rubrics/chapter07.yaml"],
                       cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        exercises = release / "exercises" / "chapter07"
        nb = build_notebook.build(EXAMPLES / "sqrt-d-model", EXAMPLES / "sqrt-d-model" / "answers.yaml")
        (exercises / "chapter07.ipynb").write_text(build_notebook.render(nb), encoding="utf-8")
        work = release / "my_work"
        work.mkdir()
        bare_torch()  # warm the page cache
        torch_s, first_s, warm_s, watch_first, watch_seen, watch_reported = [], [], [], [], [], []
        for _ in range(args.n):
            torch_s.append(bare_torch())
            times = kernel_round(exercises, args.checks)
            first_s.append(times[0])
            warm_s += times[1:]
            torch_s.append(bare_torch())
            f, seen, reported = watch_round(work, args.saves)
            watch_first.append(f)
            watch_seen += seen
            watch_reported += reported
    ref = statistics.median(torch_s)

    def line(name: str, values: list[float]) -> None:
        m = statistics.median(values)
        print(f"{name:<44} median {m:6.3f} s (min {min(values):.3f}, max {max(values):.3f}, "
              f"n={len(values)})  ratio {m / ref:.3f}")

    label = 'python -c "import torch"'
    print(f"{label:<44} median {ref:6.3f} s (min {min(torch_s):.3f}, "
          f"max {max(torch_s):.3f}, n={len(torch_s)})")
    line("notebook: first check (starts the checker)", first_s)
    line("notebook: later checks (warm)", warm_s)
    line("watch: first check", watch_first)
    line("watch: save -> changes printed", watch_seen)
    line("watch: re-check as the watcher reports it", watch_reported)
    print("targets: later checks <= 0.1 x import torch; first check <= 1.3 x")


if __name__ == "__main__":
    main()
