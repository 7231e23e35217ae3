"""Which rubric a command grades when none is named: the course's ``rubrics/`` folder, as git finds ``.git``.

:func:`find_rubric` walks up from the working folder (or a submission's) to the first folder holding
``rubrics/*.yaml`` and, among several rubrics, chooses the one the submission names (its
``assignment:`` id, the folder it lies in, or the files an LMS zip holds); :func:`find_rubrics`
lists them all. Both raise :class:`grader.errors.UsageError` naming where they looked.
"""

from __future__ import annotations

import functools
import os
import re
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any

from grader.i18n.messages import said
from grader.ingest.lms import lms_name
import grader.safeyaml as safeyaml

__all__ = ["RUBRICS_FOLDER", "find_rubric", "find_rubrics"]


#: Where a course or release keeps its rubrics, relative to its top folder.
RUBRICS_FOLDER = "rubrics"


def find_rubric(
    cwd: str | os.PathLike[str] | None = None, submission: str | os.PathLike[str] | None = None,
    assignment: str | None = None, option: str = "--rubric PATH",
) -> Path:
    """The rubric of the course or release folder that ``cwd`` or ``submission`` lies in.

    Walks up from the working folder, then from the submission, looking in each folder for
    ``rubrics/*.yaml``, as git looks for ``.git``: ``grader check`` in a notebook cell (whose
    working folder is ``exercises/chapter07``) and ``grader batch`` run on a download folder
    from inside the course both find the course's rubric.

    When a ``rubrics/`` folder holds several rubrics, the one whose ``exercises`` folder holds
    the submission (or the working folder) is chosen; a folder with one rubric needs no choice.

    Args:
        cwd: the working folder (default: the process's).
        submission: the submission as the user named it, if the command has one.
        assignment: the assignment id, when what the command reads names it (a batch's
            reports): the rubric with that ``assignment:`` is chosen.
        option: how the caller's user names a rubric, for the messages (a notebook's
            ``notebook.check(rubric="PATH")``; the command line's ``--rubric PATH``).

    Returns:
        The rubric file: relative to the process's working folder when it lies inside it
        (so messages stay short), else absolute.

    Raises:
        UsageError: no rubric found (the message lists where it looked), or several rubrics
            fit equally (it names them).
    """
    from grader.errors import UsageError

    here = Path(os.path.abspath(cwd if cwd is not None else Path.cwd()))  # noqa: PTH100
    starts = [here]
    if submission is not None:
        sub = Path(os.path.abspath(here / submission))  # noqa: PTH100
        start = sub if sub.is_dir() else sub.parent
        if start not in starts:
            starts.append(start)
    inside = [here] + ([Path(os.path.abspath(here / submission))] if submission else [])  # noqa: PTH100
    seen: set[Path] = set()
    ambiguous = ""
    for start in starts:
        for folder in (start, *start.parents):
            if folder in seen:
                break  # the rest of this walk was already looked at
            seen.add(folder)
            candidates = sorted((folder / RUBRICS_FOLDER).glob("*.yaml"))
            if not candidates:
                continue
            chosen = (_choose_by_id(candidates, assignment) or _choose_rubric(candidates, inside)
                      or _choose_by_content(candidates, inside[1:]))
            if chosen is None:
                # A course with several assignments: the submission's own walk may still find
                # the one folder (a release) that is its course.
                listed = ", ".join(_show_from(c, here) for c in candidates)
                ambiguous = ambiguous or (
                    said("holds_rubrics_neither_working", folder=_show_from(folder / RUBRICS_FOLDER, here), n=len(candidates), listed=listed,
                         option=option)
                )
                break
            return Path(_show_from(chosen, Path(os.path.abspath(Path.cwd()))))  # noqa: PTH100
    if ambiguous:
        raise UsageError(ambiguous)
    walks = None  # (each walk a sentence of its own, so that it is said in the reader's language too)
    for start in reversed(starts):
        walk = said("up", start=start.as_posix(), top=start.anchor)
        walks = walk if walks is None else said("up_and", walk=walk, more=walks)
    raise UsageError(
        said("no_rubric_found_looked", folder=RUBRICS_FOLDER, walks=walks, option=option)
    )


def find_rubrics(cwd: str | os.PathLike[str] | None = None) -> list[Path]:
    """Every rubric of the course the working folder lies in (``rubrics/*.yaml``, sorted).

    Raises:
        UsageError: no ``rubrics/`` folder with a rubric in the working folder or above it.
    """
    from grader.errors import UsageError

    here = Path(os.path.abspath(cwd if cwd is not None else Path.cwd()))  # noqa: PTH100
    for folder in (here, *here.parents):
        found = sorted((folder / RUBRICS_FOLDER).glob("*.yaml"))
        if found:
            return [Path(_show_from(f, here)) for f in found]
    raise UsageError(said("no_rubric_found_no", dir=RUBRICS_FOLDER, start=here.as_posix()))


def _peek(candidate: Path) -> Any:
    """A candidate rubric's data, as far as choosing between candidates needs it (parsed once per
    version of the file: the choice reads each candidate up to three times)."""
    stat = candidate.stat()
    return _peek_at(str(candidate), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=64)
def _peek_at(path: str, mtime_ns: int, size: int) -> Any:
    # The YAML as parsed, unchecked (Any): every reader below guards its access with try.
    return safeyaml.load(Path(path).read_text(encoding="utf-8-sig"))


def _choose_by_id(candidates: list[Path], assignment: str | None) -> Path | None:
    """The one candidate whose ``assignment:`` is ``assignment``; None without one."""
    if not assignment:
        return None
    hits = []
    for candidate in candidates:
        try:
            data = _peek(candidate)
        except Exception:  # noqa: BLE001 -- an unreadable rubric simply does not match
            continue
        if isinstance(data, dict) and str(data.get("assignment")) == assignment:
            hits.append(candidate)
    return hits[0] if len(hits) == 1 else None


def _choose_rubric(candidates: list[Path], inside: list[Path]) -> Path | None:
    """The candidate whose ``exercises`` folder holds one of ``inside``; the only one; or None."""
    if len(candidates) == 1:
        return candidates[0]
    for path in inside:
        for candidate in candidates:
            try:
                data = _peek(candidate)
                exercises = Path(os.path.abspath(candidate.parent / data["exercises"]))  # noqa: PTH100
            except Exception:  # noqa: BLE001 -- an unreadable rubric simply does not match
                continue
            if path == exercises or exercises in path.parents:
                return candidate
    return None


_DEF = re.compile(r"\bdef\s+([A-Za-z_]\w*)\s*\(")
_SNIFF_BYTES = 16 * 1024 * 1024
_SNIFF_NAMES = 5000


def _choose_by_content(candidates: list[Path], submissions: list[Path]) -> Path | None:
    """The one candidate whose part files (or, in a notebook, whose functions) the submission has.

    A course holds several assignments, and a submission outside every exercises folder (a
    download, an LMS export) still says which one it is: chapter 7's has ``scaling.py``,
    chapter 8's ``masking.py``. Only names are read (a folder's entries and those one level
    down, a zip's member names, a notebook's ``def`` lines); None when no single rubric wins.
    """
    if not submissions:
        return None
    names, defs = _names_in(submissions[0])
    scores = []
    for candidate in candidates:
        try:
            data = _peek(candidate)
            parts = [p for p in data["parts"] if isinstance(p, dict)]
        except Exception:  # noqa: BLE001 -- an unreadable rubric simply does not match
            continue
        files = {str(p.get("file")) for p in parts if str(p.get("file", "")).endswith(".py")}
        functions = {str(f) for p in parts for f in (p.get("functions") or [])}
        scores.append((len(files & names) + len(functions & defs), candidate))
    best = max((score for score, _ in scores), default=0)
    winners = [c for score, c in scores if score == best]
    return winners[0] if best > 0 and len(winners) == 1 else None


def _names_in(path: Path) -> tuple[set[str], set[str]]:
    """File names (a folder's, one level down too; a zip's) and a notebook's defined functions."""


    names: set[str] = set()
    defs: set[str] = set()
    try:
        if path.is_dir():
            for entry in list(path.iterdir())[:_SNIFF_NAMES]:
                names.add(entry.name)
                if entry.is_dir() and not entry.is_symlink():
                    names.update(e.name for e in list(entry.iterdir())[:_SNIFF_NAMES])
        elif path.suffix.lower() == ".zip":
            with zipfile.ZipFile(path) as zf:
                for member in zf.namelist()[:_SNIFF_NAMES]:
                    name = PurePosixPath(member).name
                    names.add(name)
                    # a flat LMS download names each file <who>_<ids>_<file>: the file is the name
                    parsed = lms_name(name, is_dir=False) if "/" not in member.rstrip("/") else None
                    if parsed is not None and parsed.file:
                        names.add(re.sub(r"-\d+(\.[A-Za-z0-9]+)$", r"\1", parsed.file))
        elif path.suffix.lower() == ".ipynb":
            with path.open("rb") as fh:
                text = fh.read(_SNIFF_BYTES).decode("utf-8", "replace")
            defs.update(_DEF.findall(text))
    except (OSError, zipfile.BadZipFile, ValueError):
        pass
    return names, defs


def _show_from(path: Path, base: Path) -> str:
    try:
        return path.relative_to(base).as_posix() or "."
    except ValueError:
        return path.as_posix()
