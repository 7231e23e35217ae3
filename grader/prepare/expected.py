"""Write the public suites' fixed expected values from the reference solutions.

The public tests run on a student's machine, where no reference exists. Values they cannot get
from torch itself (the chapter's worked examples, the quiz's question list) are stored in the
file a rubric declares as ``plugin.expected`` (e.g. ``suites/chapter07/public/expected.json``),
computed by its hooks' ``expected_values(reference)``; this tool regenerates those files so
they cannot drift from the references. Quiz entries carry each question's id and answer type
only, never the answer.

Usage::

    python -m grader.prepare.expected            # rewrite the file of every rubric in rubrics/
    python -m grader.prepare.expected --check    # exit 1 if one is stale (for CI)
    python -m grader.prepare.expected --rubric rubrics/chapter08.yaml

Inputs are float64 and outputs are rounded to 12 significant digits, so the file does not
change with the machine it is generated on.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

__all__ = ["main", "render"]


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
    """Rewrite the expected-values files, or with ``--check`` report whether they are current.

    Returns:
        0 when written or current, 1 when ``--check`` finds one stale or missing.
    """
    from grader.spec.assignment import assignment_of
    from grader.ingest.find_rubric import find_rubrics
    from grader.spec.rubric.load import load_rubric
    from grader.grading.runner import reference_for

    parser = argparse.ArgumentParser(prog="python -m grader.prepare.expected", description=__doc__.splitlines()[0])
    parser.add_argument("--rubric", type=Path, action="append", default=None,
                        help="the rubric whose plugin.expected to write (repeatable; default: every rubric)")
    parser.add_argument("--check", action="store_true", help="do not write; exit 1 if a file is stale")
    args = parser.parse_args(argv)

    status = 0
    for path in args.rubric or find_rubrics():
        rubric = load_rubric(path)
        out = rubric.plugin.expected
        if out is None:
            continue
        values = assignment_of(rubric).hooks.expected_values(reference_for(rubric))
        if values is None:
            print(f"{path}: its hooks define no expected_values for {_shown(out)}", file=sys.stderr)
            return 1
        text = render(_round(values))
        if args.check:
            current = out.read_text(encoding="utf-8") if out.exists() else None
            if current != text:
                print(f"{_shown(out)}: stale; run python -m grader.prepare.expected to regenerate it", file=sys.stderr)
                status = 1
            else:
                print(f"{_shown(out)}: up to date", file=sys.stderr)
            continue
        out.write_text(text, encoding="utf-8")
        print(f"wrote {_shown(out)}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
