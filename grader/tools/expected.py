"""Write the public suite's fixed expected values from the reference solution.

The public tests run on a student's machine, where no reference exists. Values they cannot get
from torch itself (the chapter's worked examples, the quiz's question list) are stored in
``suites/chapter07/public/expected.json``; this tool regenerates that file so it cannot drift
from the reference. The quiz entries carry each question's id and answer type only, never the
answer.

Usage::

    python -m grader.tools.expected            # rewrite the file
    python -m grader.tools.expected --check    # exit 1 if the file is stale (for CI)

Inputs are float64 and outputs are rounded to 12 significant digits, so the file does not
change with the machine it is generated on.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import torch
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_SOLUTIONS = Path("solutions/chapter07")
DEFAULT_OUT = Path("suites/chapter07/public/expected.json")
CHOICES = ["a", "b", "c", "d"]

__all__ = ["build", "main", "render"]


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        msg = f"cannot import {path}"
        raise ImportError(msg)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _round(value: Any) -> Any:
    """Round floats (in nested lists/dicts) to 12 significant digits."""
    if isinstance(value, torch.Tensor):
        return _round(value.tolist())
    if isinstance(value, float):
        return float(f"{value:.12g}")
    if isinstance(value, list):
        return [_round(v) for v in value]
    if isinstance(value, dict):
        return {k: _round(v) for k, v in value.items()}
    return value


def _t(values: Sequence[Any]) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float64)


def build(solutions: Path) -> dict[str, Any]:
    """Compute the public expected values from the reference in ``solutions``."""
    scaling = _load(solutions / "scaling.py", "_expected_ref_scaling")
    softmax = _load(solutions / "softmax.py", "_expected_ref_softmax")
    key = yaml.safe_load((solutions / "answers.yaml").read_text(encoding="utf-8")) or {}

    sizes = [(768, 12), (4096, 32), (512, 8)]
    scores = [40.0, -24.0, 10.0, 8.0, 6.0]
    chapter_scores = [12.0, 9.0, 6.0, 3.0]
    p = [0.5, 0.3, 0.2]
    data: dict[str, Any] = {
        "_generated_by": "python -m grader.tools.expected (from the reference solution; do not edit)",
        "head_dim": [
            {"d_model": m, "n_heads": h, "expected": scaling.head_dim(m, h)} for m, h in sizes
        ],
        "scaling_factor": [
            {"d_model": m, "n_heads": h, "expected": scaling.scaling_factor(m, h)} for m, h in sizes
        ],
        "scale_scores": {
            "scores": scores,
            "d_k": 64,
            "expected": scaling.scale_scores(_t(scores), 64),
        },
        "softmax": {"x": [10.0, 8.0, 6.0], "expected": softmax.softmax(_t([10.0, 8.0, 6.0]))},
        "compare_saturation": {
            "scores": chapter_scores,
            "d_k": 64,
            "expected": softmax.compare_saturation(_t(chapter_scores), 64),
        },
        "softmax_jacobian": {"p": p, "expected": softmax.softmax_jacobian(_t(p))},
        "quiz": [
            {"id": str(qid), "type": spec["type"], **({"choices": CHOICES} if spec["type"] == "choice" else {})}
            for qid, spec in key.items()
        ],
    }
    return _round(data)


def _dump(value: Any, level: int) -> str:
    # Like json.dumps(indent=2), but a list of plain values stays on one line, so a matrix
    # reads as rows.
    pad, inner = "  " * level, "  " * (level + 1)
    if isinstance(value, dict) and value:
        items = [f"{inner}{json.dumps(k, ensure_ascii=False)}: {_dump(v, level + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list) and any(isinstance(v, (list, dict)) for v in value):
        items = [f"{inner}{_dump(v, level + 1)}" for v in value]
        return "[\n" + ",\n".join(items) + f"\n{pad}]"
    return json.dumps(value, ensure_ascii=False)


def render(data: dict[str, Any]) -> str:
    """The file's text: stable key order, two-space indent, flat lists on one line."""
    return _dump(data, 0) + "\n"


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def main(argv: Sequence[str] | None = None) -> int:
    """Rewrite the expected-values file, or with ``--check`` report whether it is current.

    Returns:
        0 when written or current, 1 when ``--check`` finds it stale or missing.
    """
    parser = argparse.ArgumentParser(prog="python -m grader.tools.expected", description=__doc__.splitlines()[0])
    parser.add_argument("--solutions", type=Path, default=ROOT / DEFAULT_SOLUTIONS, help="reference solution folder")
    parser.add_argument("--out", type=Path, default=ROOT / DEFAULT_OUT, help="file to write or check")
    parser.add_argument("--check", action="store_true", help="do not write; exit 1 if the file is stale")
    parser.add_argument("--rubric", type=Path, default=None,
                        help="write the file its assignment declares (plugin.expected), from its hooks")
    args = parser.parse_args(argv)

    if args.rubric is not None:
        from grader.assignment import assignment_of
        from grader.rubric import load_rubric
        from grader.runner import reference_for

        rubric = load_rubric(args.rubric)
        values = assignment_of(rubric).hooks.expected_values(reference_for(rubric))
        if values is None or rubric.plugin.expected is None:
            print(f"{args.rubric}: declares no plugin.expected or its hooks no expected_values", file=sys.stderr)
            return 1
        args.out = rubric.plugin.expected
        text = render(_round(values))
    else:
        text = render(build(args.solutions))
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.exists() else None
        if current != text:
            print(f"{_shown(args.out)}: stale; run python -m grader.tools.expected to regenerate it", file=sys.stderr)
            return 1
        print(f"{_shown(args.out)}: up to date", file=sys.stderr)
        return 0
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {_shown(args.out)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
