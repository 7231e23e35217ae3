"""What the student worked on: a folder's ``.py`` files, its notebook, or both, against the handout.

A course hands out stubs and a notebook holding the same exercises; a student may work in
either. :func:`read_work` reads everything a folder or zip holds that could be graded, and
:func:`decide` chooses, against the :class:`Handout` (the fingerprints of what was handed out),
which of the two forms is the student's work (:class:`WorkChoice`).

Example::

    handout = load_handout(rubric)       # <rubric>.handout.json, or the exercises folder
    choose_work("submissions/alice", handout, assignment_of(rubric).part_files).graded   # "notebook"
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from grader.errors import SubmissionError
from grader.i18n.messages import said
from grader.ingest.submission.model import ANSWERS_FILE, Module, ReadLimits
from grader.ingest.submission.notebook import read_notebook
from grader.ingest.submission.trees import (
    Entry,
    FolderTree,
    Tree,
    Unreadable,
    normalise_newlines,
    read_answers,
    read_py,
    too_big_notebook,
)
from grader.spec.assignment import assignment_of

if TYPE_CHECKING:
    from grader.spec.rubric.model import Rubric

__all__ = [
    "HANDOUT_SUFFIX",
    "Handout",
    "HandoutDict",
    "Work",
    "WorkChoice",
    "answers_changed",
    "choose_work",
    "decide",
    "handout_of",
    "load_handout",
    "read_work",
]

#: The handed-out stubs' fingerprints, written by ``grader release`` next to the rubric:
#: ``rubrics/chapter07.yaml`` -> ``rubrics/chapter07.handout.json``.
HANDOUT_SUFFIX = ".handout.json"


class HandoutDict(TypedDict):
    """A :class:`Handout` as plain data: the ``<rubric>.handout.json`` a release carries."""

    schema: int
    files: dict[str, str]
    notebook: str | None
    notebook_answers: str | None


@dataclass
class Work:
    """Everything a folder or zip holds that could be graded, read but not yet chosen."""

    notes: list[str]
    present: list[str]  # code parts whose file exists
    py: dict[str, Module]  # code parts whose file could be read
    py_names: list[str]  # every .py file name at the level read
    answers: str | None  # answers.yaml
    notebook: tuple[str, Module, str | None] | None  # file name, module, its answers cell
    notebooks: list[str]  # every readable notebook at the level read
    several: str | None = None  # the note to give when there were several and one is graded


def read_work(tree: Tree, origin: str, limits: ReadLimits, parts: dict[str, str] | None) -> Work:
    notes: list[str] = list(tree.notes)
    rel = ""
    files, dirs = tree.listdir(rel)
    wrapped_only = not any(
        n.endswith((".py", ".ipynb")) or n == ANSWERS_FILE for n in map(str.lower, files)
    )
    if wrapped_only and len(dirs) == 1:  # an LMS export wraps the work in one folder
        rel = dirs[0]
        files, dirs = tree.listdir(rel)

    notebooks = []
    for filename in sorted(n for n in files if n.lower().endswith(".ipynb")):
        if files[filename].problem:
            notes.append(said("skipped", name=filename, problem=files[filename].problem))
        else:
            notebooks.append(filename)
    if parts is None:  # nothing declared: each .py file is a part named by its stem
        parts = {n[:-3]: n for n in sorted(files) if n.endswith(".py") and n[:-3].isidentifier()}
    present = [part for part, filename in parts.items() if filename in files]
    answers_file = files.get(ANSWERS_FILE)
    answers = read_answers(tree, answers_file, limits, notes) if answers_file else None
    py: dict[str, Module] = {}
    for part in present:
        py_module = read_py(tree, part, parts[part], files[parts[part]], limits, notes)
        if py_module is not None:
            py[part] = py_module

    notebook = None
    several = None
    if notebooks:
        chosen = _choose_notebook(notebooks, files)
        if len(notebooks) > 1:
            listed = ", ".join(notebooks)
            where = said("zip") if origin == "zip" else said("folder") if origin == "folder" else origin
            several = said("held_notebooks_graded", origin=where, n=len(notebooks), listed=listed, chosen=chosen)
        entry = files[chosen]
        if entry.size > limits.max_notebook_bytes:
            if not present:  # the notebook is the only work: it must be readable
                raise SubmissionError(too_big_notebook(tree.describe(entry), entry.size, limits))
            notes.append(too_big_notebook(chosen, entry.size, limits))
        else:
            try:
                data = tree.read(entry, limits.max_notebook_bytes)
            except Unreadable as exc:  # swapped for a link or a FIFO after the listing
                if not present:
                    raise SubmissionError(f"{tree.describe(entry)}: {exc}") from None
                notes.append(said("skipped", name=chosen, problem=exc))
                data = None
            if data is not None and len(data) > limits.max_notebook_bytes:  # it grew since the listing
                if not present:
                    raise SubmissionError(too_big_notebook(tree.describe(entry), len(data), limits))
                notes.append(too_big_notebook(chosen, len(data), limits))
                data = None
            if data is None:
                pass
            elif present:
                try:
                    module, nb_answers = read_notebook(data, chosen, tree.describe(entry), notes)
                    notebook = (chosen, module, nb_answers)
                except SubmissionError as exc:  # the .py files can still be graded
                    notes.append(str(exc))
            else:
                module, nb_answers = read_notebook(data, chosen, tree.describe(entry), notes)
                notebook = (chosen, module, nb_answers)
    py_names = [n for n in files if n.lower().endswith(".py")]
    return Work(notes, present, py, py_names, answers, notebook, notebooks, several)


@dataclass(frozen=True, slots=True)
class Handout:
    """Fingerprints of what students were handed: each stub file and the notebook's cells.

    Fingerprints ignore what editors and Jupyter change by themselves: line endings, trailing
    spaces and blank lines at the end; a notebook's outputs, execution counts, metadata and
    Markdown cells. Only the code (and the answers) a student could have written count.

    Args:
        files: file name (``scaling.py`` ..., ``answers.yaml``) -> fingerprint.
        notebook: fingerprint of the handed-out notebook's code cells, or None.
        notebook_answers: fingerprint of its answers cell, or None.
    """

    files: dict[str, str]
    notebook: str | None = None
    notebook_answers: str | None = None

    @property
    def answers(self) -> str | None:
        return self.files.get(ANSWERS_FILE)

    def to_dict(self) -> HandoutDict:
        return {
            "schema": 1,
            "files": dict(sorted(self.files.items())),
            "notebook": self.notebook,
            "notebook_answers": self.notebook_answers,
        }

    @classmethod
    def from_dict(cls, data: object) -> Handout:
        """The handout :meth:`to_dict` wrote, as JSON gave it back (checked: a release's file)."""
        if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
            raise ValueError("expected a mapping with 'files'")
        files = {str(k): str(v) for k, v in data["files"].items()}
        notebook, answers = data.get("notebook"), data.get("notebook_answers")
        return cls(files, None if notebook is None else str(notebook),
                   None if answers is None else str(answers))

    @classmethod
    def of_folder(cls, folder: str | os.PathLike[str], parts: Mapping[str, str] | None = None) -> Handout:
        """Fingerprints of the stubs in ``folder`` (the rubric's ``exercises``)."""
        work = read_work(FolderTree(Path(folder)), "folder", ReadLimits(), dict(parts) if parts else None)
        files = {m.filename: _fingerprint(m.chunks[0].code) for m in work.py.values()}
        if work.answers is not None:
            files[ANSWERS_FILE] = _fingerprint(work.answers)
        if work.notebook is None:
            return cls(files)
        _, module, nb_answers = work.notebook
        return cls(
            files,
            _notebook_fingerprint(module),
            None if nb_answers is None else _fingerprint(nb_answers),
        )


@functools.cache
def handout_of(rubric: Rubric) -> Handout:
    """What the students of ``rubric`` were handed (:func:`load_handout`), read once per rubric."""
    return load_handout(rubric)


def load_handout(rubric: Rubric) -> Handout:
    """What the students of ``rubric`` were handed.

    A release carries the fingerprints its students started from in
    ``<rubric>.handout.json`` (the stubs in its exercises folder are the student's own work);
    a course repository computes them from its exercises folder.
    """
    manifest = Path(rubric.file).with_name(Path(rubric.file).stem + HANDOUT_SUFFIX)
    try:
        return Handout.from_dict(json.loads(manifest.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return _handout_cached(Path(rubric.exercises), assignment_of(rubric).part_files)
    except (OSError, ValueError) as exc:
        raise SubmissionError(
            said("cannot_read_build_release", path=manifest, why=exc)
        ) from None


def _handout_cached(folder: Path, parts: Mapping[str, str]) -> Handout:
    """:meth:`Handout.of_folder`, kept in the user's cache under a digest of the folder's files,
    the parts and the code that reads them: reading the stubs compiles every cell and parses
    the notebook (nbformat and jsonschema imported, ~0.5 s), which each command on a course
    repository would otherwise pay again. A cache that cannot be read or written is skipped."""
    h = hashlib.sha256(json.dumps(sorted(parts.items())).encode())
    try:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and not path.name.startswith("."):
                h.update(str(path.relative_to(folder)).encode() + b"\0")
                h.update(path.read_bytes())
        for code in sorted(Path(__file__).parent.glob("*.py")):
            h.update(code.read_bytes())
    except OSError:
        return Handout.of_folder(folder, parts)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    kept = Path(base) / "grader" / "handout" / f"{h.hexdigest()[:32]}.json"
    try:
        return Handout.from_dict(json.loads(kept.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        pass
    handout = Handout.of_folder(folder, parts)
    try:
        kept.parent.mkdir(parents=True, exist_ok=True)
        tmp = kept.with_name(f".{kept.name}.{os.getpid()}.part")
        tmp.write_text(json.dumps(handout.to_dict()), encoding="utf-8")
        tmp.replace(kept)
    except OSError:
        pass
    return handout


@dataclass(frozen=True, slots=True)
class WorkChoice:
    """Which of a folder's two forms of the same work is graded, and why.

    Args:
        graded: ``py`` (the ``.py`` files) or ``notebook``.
        py_changed: the ``.py`` files that differ from the handout.
        notebook_changed: whether the notebook's code differs from the handout.
        notebook: the notebook's file name, if the folder has one.
        note: what the student should be told, or None when nothing needs saying.
    """

    graded: str
    py_changed: tuple[str, ...] = ()
    notebook_changed: bool = False
    notebook: str | None = None
    note: str | None = None


def choose_work(folder: str | os.PathLike[str], handout: Handout,
                parts: Mapping[str, str] | None = None) -> WorkChoice:
    """Decide what to grade in a folder that may hold both the ``.py`` files and the notebook.

    The rule (the release README and the CI workflow state it too):

    - only the notebook differs from the handed-out stub: grade the notebook;
    - a ``.py`` file differs: grade the ``.py`` files (if the notebook differs too, say so);
    - neither differs: grade the ``.py`` files, which are the untouched stubs
      (``not-implemented``), and say so;
    - only one of the two is there: grade that one.
    """
    work = read_work(FolderTree(Path(folder)), "folder", ReadLimits(), dict(parts) if parts else None)
    return decide(work, handout)


def decide(work: Work, handout: Handout | None) -> WorkChoice:
    nb_name = work.notebook[0] if work.notebook else (work.notebooks[0] if work.notebooks else None)
    if not work.present:
        return WorkChoice("notebook" if work.notebook else "py", notebook=nb_name)
    if work.notebook is None:
        return WorkChoice("py", notebook=nb_name)
    if handout is None:
        return WorkChoice(
            "py",
            notebook=nb_name,
            note=said("ignored_py_files_were", notebooks=nb_name),
        )
    py_changed = tuple(
        module.filename
        for module in work.py.values()
        if _fingerprint(module.chunks[0].code) != handout.files.get(module.filename)
    )
    nb_changed = _notebook_fingerprint(work.notebook[1]) != handout.notebook
    if nb_changed and not py_changed:
        return WorkChoice(
            "notebook",
            (),
            True,
            nb_name,
            said("graded_differs_handed_out", notebook=nb_name),
        )
    if py_changed and nb_changed:
        return WorkChoice(
            "py",
            py_changed,
            True,
            nb_name,
            said("both_py_files_differ", notebook=nb_name, files=', '.join(py_changed)),
        )
    if py_changed:
        return WorkChoice("py", py_changed, False, nb_name)
    return WorkChoice(
        "py",
        (),
        False,
        nb_name,
        said("neither_py_files_nor", notebook=nb_name),
    )


def _fingerprint(text: str) -> str:
    lines = [line.rstrip() for line in normalise_newlines(text).split("\n")]
    return hashlib.sha256("\n".join(lines).strip("\n").encode("utf-8")).hexdigest()


def _notebook_fingerprint(module: Module) -> str:
    return _fingerprint("\n\x00\n".join(_fingerprint(chunk.code) for chunk in module.chunks))


def answers_changed(answers: str | None, handed_out: str | None) -> bool:
    return answers is not None and _fingerprint(answers) != handed_out


def _choose_notebook(names: list[str], files: dict[str, Entry]) -> str:
    named = [n for n in names if "chapter07" in n.lower()] or names
    return max(named, key=lambda n: (files[n].size, n))
