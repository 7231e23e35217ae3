"""Notebooks: a saved ``.ipynb`` or the cells a kernel ran -> the one module the worker loads.

Code cells are kept in order, each a :class:`Chunk` labelled with its cell number; IPython's
magics and shell lines (``%time``, ``!pip``, ``x = !ls``, ``get_ipython()``, ``obj?``) and the
check's lines are neutralised to ``pass``, keeping indentation and line numbers; a cell that is
only the check (:func:`is_check_cell`) is left out, so it is neither graded nor counted; a raw
cell starting ``# answers.yaml`` is the quiz. Nothing is executed here.

Example::

    module, answers = read_notebook(data, "chapter07.ipynb", "alice/chapter07.ipynb", notes)
    sub = notebook_submission("alice", [("In [1]", "def f():\n    return 1")])
"""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path
from typing import Any

from grader.errors import SubmissionError
from grader.i18n.messages import said
from grader.ingest.submission.model import ANSWERS_MARKER, NOTEBOOK_MODULE, Chunk, Module, Submission, build_submission
from grader.ingest.submission.trees import decode_text, normalise_newlines

__all__ = ["is_check_cell", "notebook_submission", "read_notebook"]

# Cell magics whose body is ordinary Python that IPython runs in the user namespace, so the
# functions it defines exist afterwards; every other cell magic (%%bash, %%timeit, ...) is
# skipped whole. %%timeit is deliberately absent: IPython runs its body inside a function.
_PYTHON_BODY_CELL_MAGICS = frozenset({"time", "capture"})
#: a notebook's format is checked in its first this many cells (the rest are read all the same)
VALIDATE_CELLS = 2000


def _schema_problem(exc: Exception) -> str:
    """Where a notebook breaks its format and how (``metadata.authors: is not of type 'array'``),
    never the value found there: a notebook's metadata can name its author."""
    where = ".".join(str(p) for p in getattr(exc, "path", ())) or "notebook"
    message = str(getattr(exc, "message", "") or exc or type(exc).__name__).splitlines()[0]
    shown = repr(getattr(exc, "instance", None))
    if message.startswith(shown):
        message = message[len(shown):].strip()
    return f"{where}: {message.replace(shown, '…')}"


def read_notebook(
    data: bytes, filename: str, where: str, notes: list[str]
) -> tuple[Module, str | None]:
    # Deferred: nbformat pulls in jsonschema, which grading a folder never needs.
    import nbformat  # noqa: PLC0415

    # nbformat's compiled validator (it ships with nbformat): ~0.2 ms a notebook instead of
    # ~3.5 ms, which a batch of hundreds notices; on an error nbformat still words the
    # message as jsonschema does. An explicit choice in the environment is kept.
    os.environ.setdefault("NBFORMAT_VALIDATOR", "fastjsonschema")

    text = decode_text(data, filename, notes)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # nbformat warns about e.g. missing cell ids
            # nbformat is untyped; what it returns is checked cell by cell below.
            nb = _current(text)
            if nb is None:  # an older format: nbformat converts it
                nb = nbformat.convert(nbformat.reader.reads(text), 4)
            cells = list(nb["cells"])
            try:
                # the format is checked in the first VALIDATE_CELLS cells: the check costs about
                # 0.1 ms a cell, and a notebook of 10^5 cells must not stall the batch
                nbformat.validate({**nb, "cells": cells[:VALIDATE_CELLS]} if len(cells) > VALIDATE_CELLS else nb)
            except nbformat.ValidationError as exc:
                first = _schema_problem(exc)
                notes.append(
                    said("does_fully_follow_notebook", filename=filename, first=first)
                )
            if len(cells) > VALIDATE_CELLS:
                notes.append(said("notebook_checked_first_cells", filename=filename, n=len(cells),
                                  most=VALIDATE_CELLS))
    except Exception as exc:  # noqa: BLE001 -- any parse failure means the same to the user
        raise SubmissionError(
            said("cannot_read_notebook_open", path=where, name=type(exc).__name__, why=exc)
        ) from None

    chunks: list[Chunk] = []
    answers: str | None = None
    skipped: list[str] = []
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            continue
        source = cell.get("source", "")
        source = normalise_newlines("".join(map(str, source)) if isinstance(source, list) else str(source))
        if cell.get("cell_type") == "raw" and source.split("\n", 1)[0].strip() == ANSWERS_MARKER:
            if answers is None:
                answers = source
            else:
                notes.append(said("cell_second_answers_cell", filename=filename, n=number))
        elif cell.get("cell_type") == "code" and source.strip():
            code, removed = _neutralise_ipython(source)
            if _only_checks(source, code, removed):
                continue
            skipped.extend(f"cell {number}: {what}" for what in removed)
            chunks.append(Chunk(code=code, label=f"{filename}, cell {number}"))
    _note_skipped(filename, skipped, notes)
    return Module(name=NOTEBOOK_MODULE, filename=filename, chunks=tuple(chunks)), answers


def _current(text: str) -> dict[str, Any] | None:
    """A notebook in the current format (nbformat 4) as plain JSON, read as nbformat reads it
    (its transient metadata aside, which nothing here reads); None for an older format. Reading it
    through nbformat's own objects costs ten times as much on a notebook of many cells."""
    import json

    try:
        nb = json.loads(text)
    except ValueError:  # (nbformat says why, as it always has)
        return None
    if not isinstance(nb, dict) or nb.get("nbformat") != 4 or not isinstance(nb.get("cells"), list):
        return None
    return nb


def _note_skipped(filename: str, skipped: list[str], notes: list[str]) -> None:
    if skipped:
        what = "; ".join(skipped[:5])
        if len(skipped) > 5:
            what = said("and_more", what=what, n=len(skipped) - 5)
        notes.append(said("ipython_magics_shell_commands", filename=filename, what=what))


def notebook_submission(
    name: str,
    cells: list[tuple[str, str]],
    *,
    answers: str | None = None,
    path: str | os.PathLike[str] = ".",
    filename: str = "notebook",
) -> Submission:
    """Cells as a kernel ran them -> a notebook ``Submission``, read as a saved notebook's are.

    Args:
        name: the submission's name (made a safe file name).
        cells: ``(label, source)`` in the order they ran; the label is what students see in
            messages, e.g. ``In [4]``.
        answers: the quiz answers (the text of the notebook's answers cell), if known.
        path: where the work lives (for the report), e.g. the notebook's folder.
        filename: how messages name the whole, e.g. the notebook's file name.
    """
    notes: list[str] = []
    chunks: list[Chunk] = []
    skipped: list[str] = []
    for label, source in cells:
        source = normalise_newlines(str(source))
        if not source.strip():
            continue
        code, removed = _neutralise_ipython(source)
        if _only_checks(source, code, removed):  # (the check cells run before this one)
            continue
        skipped.extend(f"{label}: {what}" for what in removed)
        chunks.append(Chunk(code=code, label=str(label)))
    _note_skipped(filename, skipped, notes)
    module = Module(name=NOTEBOOK_MODULE, filename=filename, chunks=tuple(chunks))
    return build_submission(name, Path(path), "notebook", kind="notebook", modules=(module,), answers=answers,
                  notes=notes)


_ASSIGN_MAGIC = re.compile(r"[\w.\[\]'\"]+(?:\s*,\s*[\w.\[\]'\"]+)*\s*=\s*[!%]")
_GET_IPYTHON = re.compile(r"(?:[\w.\[\]'\"]+\s*=\s*)?get_ipython\s*\(")
_HELP = re.compile(r"\?{1,2}[\w.*]+|[\w.*\[\]()]+\?{1,2}")
# The check cell (``from grader import notebook; notebook.check()``) grades the notebook from
# inside it; graded itself it would only try to import the grader in the sandbox.
_CHECK_CALL = re.compile(
    r"(?:from\s+grader(?:\.notebook)?\s+import\b|import\s+grader(?:\.notebook)?\b"
    r"|(?:grader\.)?notebook\.check\s*\()"
)
# The grader's own magics and shell lines in a notebook (``%grader softmax``, ``%load_ext grader``,
# ``!grader check``): the check, not the student's work.
_GRADER_MAGIC = re.compile(r"(?:%{1,2}\s*(?:grader|load_ext\s+grader)|!\s*grader)\b")
# A line _ipython_kind could replace: it starts with % or !, holds "= %", "= !", get_ipython,
# grader or notebook.check, or ends with "?" (a superset: the scanner and _ipython_kind decide).
_CANDIDATE = re.compile(r"^[^\S\n]*[%!?]|^.*(?:=[^\S\n]*[%!]|get_ipython|grader|notebook\.check)"
                        r"|^.*\?[^\S\n]*$", re.M)


def _neutralise_ipython(source: str) -> tuple[str, list[str]]:
    """Replace IPython-only lines by ``pass``, keeping indentation and the line count.

    Returns the code and a short description of each thing replaced ("line 2: !ls").
    Lines are only examined where a statement can start, so a ``%`` inside a multi-line
    string is left alone.
    """
    lines = source.split("\n")
    first = next((line for line in lines if line.strip()), "")
    indent = first[: len(first) - len(first.lstrip())]
    if indent:  # IPython strips the first line's indentation from the whole cell
        lines = [line.removeprefix(indent) for line in lines]
        first = first.removeprefix(indent)
    start = 0
    removed: list[str] = []
    if first.startswith("%%"):
        magic = (first[2:].split() or [""])[0]
        at = lines.index(first)
        if magic not in _PYTHON_BODY_CELL_MAGICS:
            removed.append(f"%%{magic} cell")
            return "\n".join("pass" if line.strip() else line for line in lines), removed
        removed.append(f"line {at + 1}: %%{magic}")
        lines[at] = ""  # (a blank, not a statement: a `from __future__` import below stays first)
        start = at + 1

    out = lines[:start]
    scanner = _Scanner()
    i = start
    # Only lines that could be IPython syntax need the scanner's verdict; past the last of
    # them the cell is plain Python and is kept as it is (a 12 MB cell costs one search).
    rest = "\n".join(lines[start:])
    last_candidate = None
    for last_candidate in _CANDIDATE.finditer(rest):
        pass
    end = start + (rest.count("\n", 0, last_candidate.start()) + 1 if last_candidate else 0)
    while i < end:
        line = lines[i]
        kind = _ipython_kind(line.lstrip()) if scanner.at_statement_start else None
        if kind is None:
            out.append(line)
            scanner.feed(line)
            i += 1
            continue
        last = i
        if kind in ("python", "check"):  # get_ipython(...) may span lines like any call
            inner = _Scanner()
            inner.feed(lines[last])
            while not inner.at_statement_start and last + 1 < len(lines):
                last += 1
                inner.feed(lines[last])
        else:  # magics and shell lines continue only with a trailing backslash
            while lines[last].rstrip().endswith("\\") and last + 1 < len(lines):
                last += 1
        pad = line[: len(line) - len(line.lstrip())]
        # Inside a block a statement must stand in; at the top a blank line does, so that a
        # `from __future__` import after a magic is still the cell's first statement.
        out.extend(pad + "pass" if pad else "" for _ in range(i, last + 1))
        if kind != "check":  # the check cell is part of every handed-out notebook: no note
            removed.append(f"line {i + 1}: {_shorten(line.strip())}")
        i = last + 1
    out.extend(lines[i:])
    return "\n".join(out), removed


def _ipython_kind(stripped: str) -> str | None:
    if not stripped or stripped.startswith("#"):
        return None
    if _GRADER_MAGIC.match(stripped):
        return "check"
    if stripped.startswith(("%", "!")) or _ASSIGN_MAGIC.match(stripped):
        return "magic"
    if _HELP.fullmatch(stripped.rstrip()):
        return "magic"
    if _GET_IPYTHON.match(stripped):
        return "python"
    if _CHECK_CALL.match(stripped):
        return "check"
    return None


def is_check_cell(source: str) -> bool:
    """A cell that only checks the work (``from grader import notebook`` / ``notebook.check()``,
    ``%grader softmax``, ``!grader check``, comments): not the student's work, so never graded
    and never counted among the cells that were."""
    return _only_checks(source, *_neutralise_ipython(source))


def _only_checks(source: str, code: str, removed: list[str]) -> bool:
    """:func:`is_check_cell` of ``source``, given what :func:`_neutralise_ipython` made of it."""
    if removed or code == source:  # another magic (the student's own), or no check at all
        return False
    return all(not line.strip() or line.strip() == "pass" or line.lstrip().startswith("#")
               for line in code.split("\n"))


def _shorten(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 1] + "\u2026"


_PLAIN_RUN = re.compile(r"[^\"'#()\[\]{}\\]*")
_QUOTED_RUN = {q: re.compile(f"[^\\\\{q}]*") for q in "\"'"}


class _Scanner:
    """Tracks strings, brackets and backslashes so we know where a statement may start."""

    __slots__ = ("continued", "depth", "quote")

    def __init__(self) -> None:
        self.quote = ""
        self.depth = 0
        self.continued = False

    @property
    def at_statement_start(self) -> bool:
        return not self.quote and self.depth == 0 and not self.continued

    def feed(self, line: str) -> None:
        i, n, comment = 0, len(line), False
        skip = _PLAIN_RUN.match
        while i < n:
            if not self.quote:
                run = skip(line, i)  # ordinary characters, in one step (a `*` run: it always matches)
                i = run.end() if run else i
                if i >= n:
                    break
            char = line[i]
            if self.quote:
                run = _QUOTED_RUN[self.quote[0]].match(line, i)
                i = run.end() if run else i
                if i >= n:
                    break
                char = line[i]
                if char == "\\":
                    i += 2
                    continue
                if line.startswith(self.quote, i):
                    i += len(self.quote)
                    self.quote = ""
                    continue
            elif char == "#":
                comment = True
                break
            elif char in "\"'":
                self.quote = char * 3 if line.startswith(char * 3, i) else char
                i += len(self.quote)
                continue
            elif char in "([{":
                self.depth += 1
            elif char in ")]}":
                self.depth = max(0, self.depth - 1)
            i += 1
        ends_with_backslash = line.endswith("\\") and not comment
        if len(self.quote) == 1 and not ends_with_backslash:
            self.quote = ""  # an unterminated string: let the compiler report it
        self.continued = ends_with_backslash and not self.quote
