"""Open what was listed: a file swapped for a link (or a FIFO) while a submission loads is
never read through it.

Where the student can still write the folder being graded (lab machines' home folders, synced
or shared folders, ``grader check --watch``), a racing writer can replace ``scaling.py`` by a
symbolic link to an outside file between the listing and the opening. Every file is opened
relative to its folder's descriptor with ``O_NOFOLLOW`` and checked on the open descriptor:
the outside content is never graded, whichever moment the swap lands.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from grader.errors import SubmissionError
from grader.ingest.submission.load import load_submission, read_submission

from tests.helpers import ROOT


CORRECT = ROOT / "examples" / "submissions" / "correct"
SECRET = "OUTSIDE-SECRET-7d1f: the hidden suite's expected values"

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink") or os.name != "posix",
                                reason="symbolic links and FIFOs as POSIX has them")


def _race(target: Path, swaps: list[Path], loads: int, load: object, enough: object = None) -> list[object]:
    """Swap ``target`` between the prepared ``swaps`` (atomic renames) while ``load()`` runs
    ``loads`` times, and on (up to 20 times as many) until ``enough(results)``; the results
    (or the SubmissionErrors raised)."""
    stop = threading.Event()

    def swapper() -> None:
        i = 0
        while not stop.is_set():
            spare, tmp = swaps[i % len(swaps)], target.with_name(f".swap-{i}")
            os.link(spare, tmp, follow_symlinks=False)
            os.replace(tmp, target)
            if os.path.lexists(tmp):  # (renaming a hard link onto itself leaves both names)
                os.unlink(tmp)
            i += 1

    thread = threading.Thread(target=swapper, daemon=True)
    thread.start()
    results: list[object] = []
    try:
        for i in range(20 * loads):
            if i >= loads and (enough is None or enough(results)):  # type: ignore[operator]
                break
            try:
                results.append(load())  # type: ignore[operator]
            except SubmissionError as exc:
                results.append(exc)
    finally:
        stop.set()
        thread.join(10)
    return results


def _texts(result: object) -> str:
    if isinstance(result, SubmissionError):
        return str(result)
    return "\n".join([*(c.code for m in result.modules for c in m.chunks),  # type: ignore[attr-defined]
                      result.answers or "", *result.notes])  # type: ignore[attr-defined]


_LINK_NOTE = "scaling.py: it is a symbolic link, not a file"


def _graded(results: list[object]) -> list[object]:
    return [r for r in results if not isinstance(r, SubmissionError) and r.part_module("scaling")]  # type: ignore[attr-defined]


def test_a_file_swapped_for_a_link_while_loading_is_never_read_through_it(tmp_path: Path) -> None:
    secret = tmp_path / "outside" / "secret.py"
    secret.parent.mkdir()
    secret.write_text(f"SECRET = {SECRET!r}\n", encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    for f in CORRECT.iterdir():
        (work / f.name).write_bytes(f.read_bytes())
    spares = tmp_path / "spares"
    spares.mkdir()
    real = spares / "real.py"
    real.write_bytes((CORRECT / "scaling.py").read_bytes())
    link = spares / "link.py"
    link.symlink_to(secret)

    def both(results: list[object]) -> bool:
        return bool(_graded(results)) and any(_LINK_NOTE in _texts(r) for r in results)

    results = _race(work / "scaling.py", [real, link], 400,
                    lambda: read_submission(work, parts={"scaling": "scaling.py", "softmax": "softmax.py",
                                                         "variance": "variance.py"}), both)
    texts = [_texts(r) for r in results]
    assert not [t for t in texts if SECRET in t], "an outside file was read through a swapped-in link"
    # the control: both sides of the race were seen (the real file graded, the link skipped)
    graded = _graded(results)
    skipped = [t for t in texts if _LINK_NOTE in t]
    assert graded and skipped, (len(graded), len(skipped))


def test_a_notebook_swapped_for_a_link_or_a_fifo_is_never_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.ipynb"
    secret.write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5, "x": "'
                      + SECRET + '"}', encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    spares = tmp_path / "spares"
    spares.mkdir()
    real = spares / "real.ipynb"
    real.write_bytes((ROOT / "tests" / "fixtures" / "submissions" / "correct-notebook.ipynb").read_bytes())
    link = spares / "link.ipynb"
    link.symlink_to(secret)
    fifo = spares / "fifo.ipynb"
    os.mkfifo(fifo)  # opened as a file, a FIFO would wait for a writer for ever
    target = work / "chapter07.ipynb"
    os.link(real, target)
    for load in (lambda: load_submission(work), lambda: load_submission(target)):
        def both(results: list[object]) -> bool:
            texts = [_texts(r) for r in results]
            return (any(not isinstance(r, SubmissionError) and r.modules for r in results)  # type: ignore[attr-defined]
                    and any("symbolic link" in t or "not a regular file" in t for t in texts))

        results = _race(target, [real, link, real, fifo], 150, load, both)
        texts = [_texts(r) for r in results]
        assert not [t for t in texts if SECRET in t]
        assert [r for r in results if not isinstance(r, SubmissionError) and r.modules]  # the control
        refused = [t for t in texts if "symbolic link" in t or "not a regular file" in t]
        assert refused, "the race never landed"
