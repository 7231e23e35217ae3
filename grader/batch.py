"""``grader batch``: grade every submission under a folder or in an LMS zip export."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from grader.errors import SubmissionError, UsageError
from grader.report import render
from grader.report.files import write_atomic
from grader.report.terminal import show_many
from grader.runner import grade
from grader.submission import load_submission

JUNK = {"__MACOSX", ".DS_Store", "__pycache__"}


def find_submissions(root: Path) -> tuple[list[Any], list[str]]:
    """Every submission directly under ``root``: folders, notebooks, zips."""
    if not root.is_dir():
        raise UsageError(f"{root}: not a folder of submissions")
    found, skipped = [], []
    for entry in sorted(root.iterdir()):
        if entry.name in JUNK or entry.name.startswith("."):
            continue
        try:
            found.append(load_submission(entry))
        except SubmissionError as exc:
            skipped.append(str(exc))
    return found, skipped


def run_batch(root: str, out: str, rubric: Any, *, allow_weak: bool = False, seed: int | None = None,
              console: Console | None = None, lang: str = "en") -> list[Any]:
    console = console or Console(highlight=False)
    subs, skipped = find_submissions(Path(root))
    for s in skipped:
        console.print(f"[yellow]skipped:[/yellow] {s}")
    outdir = Path(out)

    def write(report: Any) -> None:
        for fmt in rubric.report.formats:
            if fmt in ("yaml", "json"):
                write_atomic(outdir / "reports" / f"{report.submission}.{fmt}", render(report, fmt, rubric=rubric, lang=lang))

    reports = grade(rubric, subs, allow_weak=allow_weak, seed=seed, on_report=write)
    show_many(reports, console, lang)
    return reports
