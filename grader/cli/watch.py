"""``grader check --watch``: check again on every save, with the same warm checker.

The first check prints the full view (as ``grader check``); each later one prints only what
changed: tests newly passing or failing, mistakes found or fixed, the score. Saves are seen by
polling the modification times and sizes of the submission's files a few times a second: a
submission is a handful of files, so a poll costs a few ``stat`` calls, and it works the same
on every platform and file system (network drives and container mounts included, where change
notifications often never arrive) without another dependency.

Example::

    watch("exercises/chapter07", rubric, lang="ja")      # until Ctrl-C
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from grader.errors import GraderError, SubmissionError
from grader.sinks import terminal

if TYPE_CHECKING:
    from grader.engines.warm_checker import WarmChecker
    from grader.report.model import GradeReport
    from grader.spec.assignment import Assignment
    from grader.spec.rubric.model import Rubric

#: seconds between two looks at the files
POLL_S = 0.2
#: a save is complete when nothing changed for this long (editors write in several steps)
SETTLE_S = 0.1
_WATCHED_SUFFIXES = (".py", ".ipynb", ".yaml", ".yml", ".zip")


def snapshot(path: Path) -> dict[str, tuple[int, int]]:
    """``{file: (mtime_ns, size)}`` of what a submission at ``path`` may be read from.

    A file: itself. A folder: its files and those one level down (an LMS export wraps the
    work in one folder), skipping hidden and cache folders.
    """
    out: dict[str, tuple[int, int]] = {}

    def add(p: Path) -> None:
        try:
            st = p.stat()
        except OSError:
            return
        out[str(p)] = (st.st_mtime_ns, st.st_size)

    if not path.is_dir():
        add(path)
        return out
    for depth_one in [path, *sorted(d for d in _dirs(path))]:
        try:
            entries = list(os.scandir(depth_one))
        except OSError:
            continue
        for entry in entries:
            if entry.is_file(follow_symlinks=False) and entry.name.lower().endswith(_WATCHED_SUFFIXES):
                add(Path(entry.path))
    return out


def _dirs(path: Path) -> list[Path]:
    try:
        return [Path(e.path) for e in os.scandir(path)
                if e.is_dir(follow_symlinks=False) and not e.name.startswith((".", "__"))]
    except OSError:
        return []


def _changed(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> list[str]:
    names = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    return sorted(Path(n).name for n in names)


def watch(submission: str, rubric: Rubric, *, lang: str, console: Console | None = None,
          level: str | None = None, poll_s: float = POLL_S,
          should_stop: Callable[[], bool] | None = None) -> int:
    """Check ``submission`` now and after every save until Ctrl-C (or ``should_stop()``).

    Returns:
        0 (stopped by the user).
    """
    from grader.report import text as _text
    from grader.report.cell import changes
    from grader.report.terminal import show
    from grader.spec.assignment import assignment_of
    from grader.engines.warm_checker import WarmChecker

    console = console or Console(highlight=False)
    path = Path(submission)
    langs = [lang]
    assignment = assignment_of(rubric)
    checker = WarmChecker(rubric.file, level=level).start()
    last: GradeReport | None = None
    try:
        seen = snapshot(path)
        t0 = time.perf_counter()
        last = _check(checker, path, assignment, lang, console)
        if last is not None:
            show(last, console, lang)
        # Names are the student's (a saved file may be called anything): the terminal sink,
        # printed as plain text, never as markup.
        console.print(_text.pick(_text.LABELS["watching"], langs).format(
            what=terminal(str(path)), s=time.perf_counter() - t0), style="dim", soft_wrap=True, markup=False)
        while not (should_stop and should_stop()):
            time.sleep(poll_s)
            now = snapshot(path)
            if now == seen:
                continue
            while True:  # let the save finish
                time.sleep(SETTLE_S)
                settled = snapshot(path)
                if settled == now:
                    break
                now = settled
            files = terminal(", ".join(_changed(seen, now)) or str(path))
            seen = now
            t0 = time.perf_counter()
            report = _check(checker, path, assignment, lang, console)
            if report is None:
                continue
            console.print()
            console.print(_text.pick(_text.LABELS["rechecked"], langs).format(
                file=files, s=time.perf_counter() - t0), style="bold", soft_wrap=True, markup=False)
            for line in changes(last, report, lang):
                console.print(terminal(line), soft_wrap=True, markup=False)
            last = report
    except KeyboardInterrupt:
        pass
    finally:
        checker.stop()
    return 0


def _check(checker: WarmChecker, path: Path, assignment: Assignment, lang: str,
           console: Console) -> GradeReport | None:
    """One check of what is on disk now; None (after saying why) when it cannot be read.

    The work is read as ``grader check`` reads it (the same part files and handout), so a
    notebook-only student is checked on the notebook here too.
    """
    from grader.ingest.submission.load import load_submission

    from grader.i18n.messages import error_text, label

    try:
        sub = load_submission(path, assignment)
    except SubmissionError as exc:  # e.g. a notebook caught half-written: the next save fixes it
        console.print(f"{label('error', lang)}: {terminal(error_text(exc, lang))}", style="red", soft_wrap=True, markup=False)
        return None
    try:
        report: GradeReport = checker.check(sub, lang=lang, views=()).report
        return report
    except GraderError as exc:
        console.print(f"{label('grader_error', lang)}: {terminal(error_text(exc, lang))}", style="red", soft_wrap=True, markup=False)
        return None
