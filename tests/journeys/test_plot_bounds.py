"""Plot data is bounded where it is kept, in ``grade`` and ``batch`` alike: a softmax that returns
4 million numbers for the plot's input leaves every file the commands write small.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.helpers import ROOT


def _huge_softmax(sub: Path) -> Path:
    """A correct submission in ``sub`` whose softmax returns 4 million numbers for the plot's input."""
    shutil.copytree(ROOT / "examples" / "submissions" / "correct", sub)
    with (sub / "softmax.py").open("a", encoding="utf-8") as fh:
        fh.write("\n\n_right = softmax\n\n\ndef softmax(x, dim=-1):\n"
                 "    import torch\n    if x.numel() == 8:  # the plot's input\n"
                 "        return torch.zeros(4_000_000)\n    return _right(x, dim)\n")
    return sub


def _small(out: Path) -> None:
    for path in out.rglob("*"):
        if path.is_file():
            assert path.stat().st_size < 2_000_000, (path.name, path.stat().st_size)


def test_grade_out_dir_with_a_huge_softmax_return_writes_a_small_report(tmp_path: Path) -> None:
    """The journey: a softmax that returns 4 million numbers, graded with ``grade --out-dir``
    (reports with plots, as an instructor looks at one submission)."""
    sub = _huge_softmax(tmp_path / "huge")
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "grader", "grade", str(sub), "--rubric",
                          str(ROOT / "rubrics" / "chapter07.yaml"), "--out-dir", str(out), "--lang", "en"],
                         capture_output=True, text=True, timeout=900, check=False, cwd=tmp_path)
    assert run.returncode in (0, 1), run.stderr[-3000:]
    reports = sorted(out.rglob("report*.json")) or sorted(out.rglob("*.json"))
    assert reports, sorted(p.name for p in out.rglob("*"))
    _small(out)
    data = json.loads(reports[0].read_text(encoding="utf-8"))
    softmax = (data.get("plots") or {}).get("softmax") or {}
    assert softmax.get("reference_scaled"), data.get("plots")  # the plot is still there...
    assert softmax.get("student_unscaled") is None  # ...without the 4 million numbers


def test_batch_with_a_huge_softmax_return_writes_small_files(tmp_path: Path) -> None:
    """The same submission in a class graded with ``grader batch``: its record, the batch's
    cached copy of it, the gradebooks and the class summary all stay small, and the rest of it
    is graded as usual. (The batch gathers no plot data today; were it to, ``plot_data``'s
    bound would keep it small.)"""
    src = tmp_path / "class"
    _huge_softmax(src / "huge")
    shutil.copytree(ROOT / "examples" / "submissions" / "correct", src / "alice")
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "grader", "batch", str(src), "--out", str(out), "--rubric",
                          str(ROOT / "rubrics" / "chapter07.yaml"), "-j", "1", "--no-progress", "--lang", "en"],
                         capture_output=True, text=True, timeout=900, check=False, cwd=tmp_path)
    assert run.returncode in (0, 1), run.stderr[-3000:]
    record = out / "reports" / "huge.yaml"
    assert record.is_file() and (out / "reports" / "alice.yaml").is_file(), sorted(p.name for p in out.rglob("*"))
    _small(out)
    import yaml

    data = yaml.safe_load(record.read_text(encoding="utf-8"))
    softmax = (data.get("plots") or {}).get("softmax") or {}
    assert softmax.get("student_unscaled") is None  # the 4 million numbers are nowhere
    parts = {p["id"]: p for p in data["parts"]}
    assert parts["scaling"]["score"] == parts["scaling"]["max_score"]  # and it was graded as usual
