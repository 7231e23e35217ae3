"""Folder | notebook | zip -> ``Submission``: the source the sandboxed worker will load.

This module runs on the trusted side. It only reads bytes: it never imports, executes or
extracts student files, so a hostile submission can at worst be refused or score zero.

Example::

    sub = load_submission("submissions/alice.zip")
    sub.kind                      # "folder" or "notebook": what the worker loads
    sub.part_module("part1")      # Module to execute for that part, or None if missing
    [m.to_dict() for m in sub.modules]   # plain data for the wire

What is accepted (see the assignment contract, "What a submission is"):

=====================  ====================================================================
folder                 the assignment's ``.py`` files (its rubric's parts) and
                       ``answers.yaml``, any missing; also one level down when the folder only wraps one
                       subfolder (LMS exports). A folder with no ``.py`` but a notebook is
                       graded as that notebook.
both                   a folder with the ``.py`` files and a notebook is graded as what the
                       student changed from the handed-out stubs (:func:`choose_work`):
                       the notebook when only it changed, else the ``.py`` files.
``.ipynb``             nbformat 4; code cells in order, IPython magics and shell lines
                       neutralised to ``pass``; a raw cell starting ``# answers.yaml`` is the quiz.
``.zip``               either of the above, read in memory; unsafe names and zips inside the
                       zip are refused, size and member count are capped.
=====================  ====================================================================
"""

from __future__ import annotations

import difflib
import errno
import functools
import hashlib
import io
import json
import os
import re
import stat
import tokenize
import warnings
import zipfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from grader.errors import SubmissionError
from grader.i18n.messages import said
from grader.spec.assignment import assignment_of

if TYPE_CHECKING:
    from grader.spec.assignment import Assignment
    from grader.spec.rubric import Rubric

__all__ = [
    "ANSWERS_FILE",
    "HANDOUT_SUFFIX",
    "Chunk",
    "Handout",
    "WorkChoice",
    "choose_work",
    "Module",
    "ReadLimits",
    "Submission",
    "handout_of",
    "load_handout",
    "load_submission",
    "read_submission",
    "notebook_submission",
]

ANSWERS_FILE = "answers.yaml"
#: First line of the raw notebook cell that carries the quiz answers.
ANSWERS_MARKER = "# answers.yaml"
NOTEBOOK_MODULE = "notebook"

MiB = 1024 * 1024
_ZIP_LESS = said("zip_only_py_files")
_SYMLINK = said("symbolic_link_file")
_NOT_FILE = said("regular_file")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
#: Whether files can be opened relative to a folder's descriptor (not on Windows).
_DIR_FDS = os.open in os.supports_dir_fd and hasattr(os, "O_DIRECTORY") and bool(_NOFOLLOW)
# Tools add these next to the real files; they are never part of the work.
_JUNK_DIRS = frozenset({"__MACOSX", "__pycache__", ".ipynb_checkpoints", ".git"})
_JUNK_FILES = frozenset({".DS_Store", "Thumbs.db", "desktop.ini"})
# Cell magics whose body is ordinary Python that IPython runs in the user namespace, so the
# functions it defines exist afterwards; every other cell magic (%%bash, %%timeit, ...) is
# skipped whole. %%timeit is deliberately absent: IPython runs its body inside a function.
_PYTHON_BODY_CELL_MAGICS = frozenset({"time", "capture"})


@dataclass(frozen=True, slots=True)
class ReadLimits:
    """Caps that keep a hostile or careless upload from exhausting the trusted process.

    ======================  =========  ==================================================
    field                   default    over it
    ======================  =========  ==================================================
    ``max_file_bytes``      1 MiB      that ``.py`` / ``answers.yaml`` is skipped, with a note
    ``max_notebook_bytes``  16 MiB     ``SubmissionError`` when it is the notebook graded
    ``max_zip_bytes``       20 MiB     ``SubmissionError`` (zip file, or all members unpacked)
    ``max_zip_members``     1000       ``SubmissionError``
    ======================  =========  ==================================================
    """

    max_file_bytes: int = field(
        default=1 * MiB, metadata={"help": "largest .py or answers.yaml that is read"}
    )
    max_notebook_bytes: int = field(
        default=16 * MiB, metadata={"help": "largest notebook that is read"}
    )
    max_zip_bytes: int = field(
        default=20 * MiB, metadata={"help": "largest zip, both packed and unpacked"}
    )
    max_zip_members: int = field(default=1000, metadata={"help": "most entries a zip may hold"})


@dataclass(frozen=True, slots=True)
class Chunk:
    """One piece of source the worker executes, in order, in the module's namespace.

    Args:
        code: the source, newlines normalised to ``\\n``.
        label: where it came from, as shown to students: ``part1.py`` or
            ``chapter09.ipynb, cell 4``.
        first_line: line number of the chunk's first line within its file or cell.
    """

    code: str
    label: str
    first_line: int = 1

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "label": self.label, "first_line": self.first_line}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Chunk:
        return cls(code=data["code"], label=data["label"], first_line=data["first_line"])


@dataclass(frozen=True, slots=True)
class Module:
    """A module the worker builds by executing its chunks in order.

    Args:
        name: the part id (``part1``) for folders, ``notebook`` for a notebook.
        filename: the file it came from, e.g. ``part1.py`` or ``chapter09.ipynb``.
        chunks: the source pieces; one for a ``.py`` file, one per non-empty code cell.
    """

    name: str
    filename: str
    chunks: tuple[Chunk, ...]

    def to_dict(self) -> dict[str, Any]:
        """Plain data for the wire: only str, int, list and dict."""
        return {
            "name": self.name,
            "filename": self.filename,
            "chunks": [chunk.to_dict() for chunk in self.chunks],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Module:
        chunks = tuple(Chunk.from_dict(chunk) for chunk in data["chunks"])
        return cls(name=data["name"], filename=data["filename"], chunks=chunks)


@dataclass(frozen=True, slots=True)
class Submission:
    """Everything read from one submission, ready for the worker.

    Args:
        name: the name as found (folder name, notebook stem or zip stem), made a safe file
            name: characters outside ``[A-Za-z0-9._-]`` become ``_``.
        path: where it was found, as given.
        origin: ``folder`` | ``notebook`` | ``zip``: what the path was.
        kind: ``folder`` | ``notebook``: what the worker loads.
        modules: only the files present; a missing file has no ``Module``.
        answers: raw text of ``answers.yaml`` or of the notebook's answers cell; ``None`` if absent.
        content_hash: sha256 hex of the graded content (module names, code, answers). File
            and archive names are not part of it, so the same files give the same hash as a
            folder or as a zip.
        notes: what the student should know about how the submission was read, in English.
    """

    name: str
    path: Path
    origin: str
    kind: str
    modules: tuple[Module, ...]
    answers: str | None
    content_hash: str
    notes: tuple[str, ...] = ()
    code_parts: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Plain data for a trusted worker's pipe (str, int, list and dict only)."""
        return {"name": self.name, "path": str(self.path), "origin": self.origin, "kind": self.kind,
                "modules": [m.to_dict() for m in self.modules], "answers": self.answers,
                "content_hash": self.content_hash, "notes": list(self.notes),
                "code_parts": list(self.code_parts)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Submission:
        """The submission :meth:`to_dict` sent (a trusted worker reading its pipe)."""
        return cls(name=data["name"], path=Path(data["path"]), origin=data["origin"], kind=data["kind"],
                   modules=tuple(Module.from_dict(m) for m in data["modules"]), answers=data["answers"],
                   content_hash=data["content_hash"], notes=tuple(data["notes"]),
                   code_parts=tuple(data.get("code_parts") or ()))

    def part_module(self, part: str) -> Module | None:
        """The module to load for a code part (an id of the assignment's ``.py`` parts).

        A notebook defines every part, so its single module answers for each of them.
        Returns ``None`` for a missing file or a part that is not a code part (of the parts
        the submission was read with; any part when they are not known).
        """
        if self.code_parts and part not in self.code_parts:
            return None
        wanted = NOTEBOOK_MODULE if self.kind == "notebook" else part
        return next((module for module in self.modules if module.name == wanted), None)


def load_submission(
    path: str | os.PathLike[str],
    assignment: Assignment | None = None,
    *,
    limits: ReadLimits | None = None,
) -> Submission:
    """Read a folder, notebook or zip into a ``Submission`` without running any of it.

    Every command reads a student's work through this one call, so ``grader check``,
    ``--watch``, ``grade``, ``batch`` and the notebook check grade the same files.

    Args:
        path: the submission as the user named it.
        assignment: what is graded (:func:`grader.spec.assignment.assignment_of`): its part files
            say which files make a submission, and its handout decides which of a folder's
            ``.py`` files and notebook the student worked in (:func:`choose_work`). Without
            it, every ``.py`` file of a folder is a part named by its stem, none is reported
            missing, and the ``.py`` files are graded.
        limits: size caps; the defaults suit one student's work.

    Returns:
        The submission; files it could not use are explained in ``notes``.

    Raises:
        SubmissionError: the path is not a submission at all, or a zip / notebook cannot be
            read safely. The message names the file and what to do.
    """
    if assignment is None:
        return read_submission(path, limits=limits)
    return read_submission(path, limits=limits, handout=handout_of(assignment.rubric), parts=assignment.part_files)


def read_submission(
    path: str | os.PathLike[str],
    *,
    limits: ReadLimits | None = None,
    handout: Handout | None = None,
    parts: Mapping[str, str] | None = None,
) -> Submission:
    """:func:`load_submission` with the handout and the part files given one by one.

    Args:
        handout: what was handed out (:func:`load_handout`); with it, a folder holding both
            the ``.py`` files and the notebook is graded as :func:`choose_work` decides.
        parts: code part id -> file name (``Assignment.part_files``).
    """
    limits = limits or ReadLimits()
    given = Path(path)
    try:
        return _load(given, limits, handout, dict(parts) if parts else None)
    except SubmissionError:
        raise
    except OSError as exc:  # permissions, a file removed while we read, a broken disk
        raise SubmissionError(
            said("cannot_read_check_path", path=given, why=exc.strerror or exc)
        ) from None
    except Exception as exc:  # noqa: BLE001 - the containment rule: whatever a file's bytes
        # make a decoder or parser raise (corrupt compressed data, exotic codecs, a broken
        # notebook, a recursion limit) fails this submission only, with a plain reason.
        raise SubmissionError(
            said("cannot_read_save_create", what=given, why=f"{type(exc).__name__}: {_reason(exc)}")
        ) from None


def _reason(exc: BaseException) -> str:
    """An exception's message, short and on one line (it may quote the student's bytes)."""
    text = " ".join(str(exc).split()) or "no details"
    return text if len(text) <= 200 else text[:200] + "…"


def _load(given: Path, limits: ReadLimits, handout: Handout | None, parts: dict[str, str] | None) -> Submission:
    if given.is_dir():
        tree = _FolderTree(given)
        try:
            return _from_tree(
                tree, _safe_name(_display_name(given)), given, "folder", limits, handout, parts
            )
        finally:
            tree.close()
    suffix = given.suffix.lower()
    if given.is_file() and suffix == ".ipynb":
        fd = _open_given(given)
        size = os.fstat(fd).st_size
        if size > limits.max_notebook_bytes:
            os.close(fd)
            raise SubmissionError(_too_big_notebook(str(given), size, limits))
        data = _read_fd(fd, limits.max_notebook_bytes)
        if len(data) > limits.max_notebook_bytes:  # it grew since fstat()
            raise SubmissionError(_too_big_notebook(str(given), len(data), limits))
        notes: list[str] = []
        module, answers = _read_notebook(data, given.name, str(given), notes)
        return _build(
            given.stem,
            given,
            "notebook",
            kind="notebook",
            modules=(module,),
            answers=answers,
            notes=notes,
            code_parts=tuple(parts or ()),
        )
    if given.is_file() and suffix == ".zip":
        with os.fdopen(_open_given(given), "rb") as handle, _open_zip(given, limits, handle) as archive:
            return _from_tree(
                _ZipTree(archive, given, limits),
                _safe_name(given.stem),
                given,
                "zip",
                limits,
                handout,
                parts,
            )
    hint = said("grade_file_pass_folder") if suffix == ".py" else ""
    files = "/".join(parts.values()) if parts else said("assignment_py_files")
    raise SubmissionError(said("not_a_submission_expected", path=given, files=files, hint=hint))


# --- building the Submission --------------------------------------------------------------


def _build(
    name: str,
    path: Path,
    origin: str,
    *,
    kind: str,
    modules: tuple[Module, ...],
    answers: str | None,
    notes: list[str],
    code_parts: tuple[str, ...] = (),
) -> Submission:
    return Submission(
        name=_safe_name(name),
        path=path,
        origin=origin,
        kind=kind,
        modules=modules,
        answers=answers,
        content_hash=_content_hash(kind, modules, answers),
        notes=tuple(notes),
        code_parts=code_parts,
    )


def _content_hash(kind: str, modules: tuple[Module, ...], answers: str | None) -> str:
    # Labels and file names are left out on purpose: renaming a notebook or zipping a
    # folder does not change what is graded.
    canonical = {
        "kind": kind,
        "modules": [
            [module.name, [[chunk.first_line, chunk.code] for chunk in module.chunks]]
            for module in modules
        ],
        "answers": answers,
    }
    text = json.dumps(canonical, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _display_name(folder: Path) -> str:
    # abspath, not resolve(): "." names the folder the user is in, not a symlink's target.
    return folder.name or Path(os.path.abspath(folder)).name  # noqa: PTH100


def _safe_name(name: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", name).lstrip(".")[:100]
    return safe or "submission"


def _from_tree(
    tree: _Tree,
    name: str,
    path: Path,
    origin: str,
    limits: ReadLimits,
    handout: Handout | None = None,
    parts: dict[str, str] | None = None,
) -> Submission:
    work = _read_work(tree, origin, limits, parts)
    notes = work.notes
    choice = _decide(work, handout)
    if choice.note:
        notes.append(choice.note)

    if choice.graded == "notebook":
        assert work.notebook is not None  # noqa: S101 -- _decide only chooses a notebook read
        chosen, module, nb_answers = work.notebook
        if work.several:
            notes.append(work.several)
        answers = work.answers
        if nb_answers is not None and answers is not None:
            if handout is not None and _answers_changed(answers, handout.answers) and not (
                _answers_changed(nb_answers, handout.notebook_answers)
            ):
                nb_answers = None
                notes.append(said("used_answers_yaml_answers", chosen=chosen))
            else:
                notes.append(said("used_answers_cell_ignored", chosen=chosen))
        return _build(
            name,
            path,
            origin,
            kind="notebook",
            modules=(module,),
            answers=nb_answers or answers,
            notes=notes,
            code_parts=tuple(parts or ()),
        )

    answers = work.answers
    if (
        handout is not None
        and work.notebook is not None
        and work.notebook[2] is not None
        and not _answers_changed(answers, handout.answers)
        and _answers_changed(work.notebook[2], handout.notebook_answers)
    ):
        answers = work.notebook[2]
        notes.append(said("used_answers_cell_answers", chosen=work.notebook[0]))
    naming = _naming_note(work.present, work.py_names, parts) if parts else None
    if naming:
        notes.append(naming)
    modules = tuple(work.py[part] for part in work.present if part in work.py)
    if not modules and answers is None and tree.inner_zips:
        raise SubmissionError(
            said("holds_another_zip_instead", path=path, name=', '.join(tree.inner_zips[:3]))
        )
    return _build(name, path, origin, kind="folder", modules=modules, answers=answers, notes=notes,
                  code_parts=tuple(parts) if parts else tuple(work.present))


@dataclass
class _Work:
    """Everything a folder or zip holds that could be graded, read but not yet chosen."""

    notes: list[str]
    present: list[str]  # code parts whose file exists
    py: dict[str, Module]  # code parts whose file could be read
    py_names: list[str]  # every .py file name at the level read
    answers: str | None  # answers.yaml
    notebook: tuple[str, Module, str | None] | None  # file name, module, its answers cell
    notebooks: list[str]  # every readable notebook at the level read
    several: str | None = None  # the note to give when there were several and one is graded


def _read_work(tree: _Tree, origin: str, limits: ReadLimits, parts: dict[str, str] | None) -> _Work:
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
    answers = _read_answers(tree, answers_file, limits, notes) if answers_file else None
    py: dict[str, Module] = {}
    for part in present:
        py_module = _read_py(tree, part, parts[part], files[parts[part]], limits, notes)
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
                raise SubmissionError(_too_big_notebook(tree.describe(entry), entry.size, limits))
            notes.append(_too_big_notebook(chosen, entry.size, limits))
        else:
            try:
                data = tree.read(entry, limits.max_notebook_bytes)
            except _Unreadable as exc:  # swapped for a link or a FIFO after the listing
                if not present:
                    raise SubmissionError(f"{tree.describe(entry)}: {exc}") from None
                notes.append(said("skipped", name=chosen, problem=exc))
                data = None
            if data is not None and len(data) > limits.max_notebook_bytes:  # it grew since the listing
                if not present:
                    raise SubmissionError(_too_big_notebook(tree.describe(entry), len(data), limits))
                notes.append(_too_big_notebook(chosen, len(data), limits))
                data = None
            if data is None:
                pass
            elif present:
                try:
                    module, nb_answers = _read_notebook(data, chosen, tree.describe(entry), notes)
                    notebook = (chosen, module, nb_answers)
                except SubmissionError as exc:  # the .py files can still be graded
                    notes.append(str(exc))
            else:
                module, nb_answers = _read_notebook(data, chosen, tree.describe(entry), notes)
                notebook = (chosen, module, nb_answers)
    py_names = [n for n in files if n.lower().endswith(".py")]
    return _Work(notes, present, py, py_names, answers, notebook, notebooks, several)


# --- what the student worked on -----------------------------------------------------------

#: The handed-out stubs' fingerprints, written by ``grader release`` next to the rubric:
#: ``rubrics/chapter07.yaml`` -> ``rubrics/chapter07.handout.json``.
HANDOUT_SUFFIX = ".handout.json"


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

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": 1,
            "files": dict(sorted(self.files.items())),
            "notebook": self.notebook,
            "notebook_answers": self.notebook_answers,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Handout:
        if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
            raise ValueError("expected a mapping with 'files'")
        files = {str(k): str(v) for k, v in data["files"].items()}
        notebook, answers = data.get("notebook"), data.get("notebook_answers")
        return cls(files, None if notebook is None else str(notebook),
                   None if answers is None else str(answers))

    @classmethod
    def of_folder(cls, folder: str | os.PathLike[str], parts: Mapping[str, str] | None = None) -> Handout:
        """Fingerprints of the stubs in ``folder`` (the rubric's ``exercises``)."""
        work = _read_work(_FolderTree(Path(folder)), "folder", ReadLimits(), dict(parts) if parts else None)
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
        return Handout.of_folder(rubric.exercises, assignment_of(rubric).part_files)
    except (OSError, ValueError) as exc:
        raise SubmissionError(
            said("cannot_read_build_release", path=manifest, why=exc)
        ) from None


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
    work = _read_work(_FolderTree(Path(folder)), "folder", ReadLimits(), dict(parts) if parts else None)
    return _decide(work, handout)


def _decide(work: _Work, handout: Handout | None) -> WorkChoice:
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
    lines = [line.rstrip() for line in _normalise_newlines(text).split("\n")]
    return hashlib.sha256("\n".join(lines).strip("\n").encode("utf-8")).hexdigest()


def _notebook_fingerprint(module: Module) -> str:
    return _fingerprint("\n\x00\n".join(_fingerprint(chunk.code) for chunk in module.chunks))


def _answers_changed(answers: str | None, handed_out: str | None) -> bool:
    return answers is not None and _fingerprint(answers) != handed_out


def _choose_notebook(names: list[str], files: dict[str, _Entry]) -> str:
    named = [n for n in names if "chapter07" in n.lower()] or names
    return max(named, key=lambda n: (files[n].size, n))


def _naming_note(present: list[str], py_files: list[str], parts: dict[str, str]) -> str | None:
    missing = [filename for part, filename in parts.items() if part not in present]
    stray = sorted(n for n in py_files if n not in parts.values())
    if not missing or (present and not stray):
        return None
    expected = ", ".join(parts.values())
    if not stray:
        return said("found_none_no_other", files=expected)
    wanted = list(missing)
    renames = []
    for name in stray:
        match = difflib.get_close_matches(name.lower(), missing, n=1, cutoff=0.6)
        if match:
            renames.append(said("rename_to", name=name, to=match[0]))
            missing.remove(match[0])
    listed = ", ".join(stray)
    if not present:
        if renames:
            return said("found_none_py_files_rename", files=expected, present=listed, renames=" ".join(renames))
        return said("found_none_py_files", files=expected, present=listed)
    if renames:
        return said("found_no_py_files_rename", missing=" or ".join(wanted), present=listed, renames=" ".join(renames))
    return said("found_no_py_files", missing=" or ".join(wanted), present=listed)


def _size(n: int) -> str:
    """A byte count for people: ``21 MiB``, ``2.5 KiB``, ``300 bytes``."""
    for unit, scale in (("MiB", MiB), ("KiB", 1024)):
        if n >= scale:
            return f"{n / scale:.1f}".removesuffix(".0") + f" {unit}"
    return f"{n} bytes"


def _too_big_notebook(where: str, size: int, limits: ReadLimits) -> str:
    return said("notebook_over_limit", where=where, size=_size(size), limit=_size(limits.max_notebook_bytes))


# --- reading files ------------------------------------------------------------------------


def _read_py(
    tree: _Tree, part: str, filename: str, entry: _Entry, limits: ReadLimits, notes: list[str]
) -> Module | None:
    data = _read_small(tree, entry, limits, notes)
    if data is None:
        return None
    code = _decode_source(data, filename, notes)
    return Module(name=part, filename=filename, chunks=(Chunk(code=code, label=filename),))


def _read_answers(tree: _Tree, entry: _Entry, limits: ReadLimits, notes: list[str]) -> str | None:
    data = _read_small(tree, entry, limits, notes)
    return None if data is None else _decode_text(data, ANSWERS_FILE, notes)


def _read_small(tree: _Tree, entry: _Entry, limits: ReadLimits, notes: list[str]) -> bytes | None:
    if entry.problem:
        notes.append(said("skipped", name=entry.name, problem=entry.problem))
        return None
    if entry.size > limits.max_file_bytes:
        notes.append(said("skipped", name=entry.name, problem=said(
            "over_limit_one_file", size=_size(entry.size), limit=_size(limits.max_file_bytes))))
        return None
    try:
        data = tree.read(entry, limits.max_file_bytes)
    except _Unreadable as exc:  # swapped for a link or a FIFO after the listing
        notes.append(said("skipped", name=entry.name, problem=exc))
        return None
    if len(data) > limits.max_file_bytes:  # the file grew, or a zip header understated it
        notes.append(said("skipped", name=entry.name, problem=said("over_limit", limit=_size(limits.max_file_bytes))))
        return None
    return data


def _normalise_newlines(text: str) -> str:
    # Python's own source reader does the same, so this changes nothing the code can see.
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _decode_text(data: bytes, label: str, notes: list[str]) -> str:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("utf-8-sig", errors="replace")
        notes.append(said("valid_utf_8_unreadable", label=label))
    return _normalise_newlines(text)


def _decode_source(data: bytes, label: str, notes: list[str]) -> str:
    """Decode Python source as the interpreter would: BOM, then a coding cookie, then UTF-8."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, LookupError):  # a cookie naming no usable codec
        return _decode_text(data, label, notes)
    except UnicodeDecodeError:
        try:
            text = data.decode(encoding, errors="replace")
        except Exception:  # noqa: BLE001 - a codec with no "replace" (punycode, idna...)
            notes.append(said("declares_encoding_cannot_read", label=label, encoding=f"{encoding!r}"))
            return _decode_text(data, label, notes)
        shown = "UTF-8" if encoding.startswith("utf-8") else encoding
        notes.append(said("valid_unreadable_bytes_were", label=label, encoding=shown))
    except Exception:  # noqa: BLE001 - a codec that fails in its own way (punycode: IndexError...)
        notes.append(said("declares_encoding_cannot_read", label=label, encoding=f"{encoding!r}"))
        return _decode_text(data, label, notes)
    return _normalise_newlines(text)


# --- notebooks ----------------------------------------------------------------------------


def _schema_problem(exc: Exception) -> str:
    """Where a notebook breaks its format and how (``metadata.authors: is not of type 'array'``),
    never the value found there: a notebook's metadata can name its author."""
    where = ".".join(str(p) for p in getattr(exc, "path", ())) or "notebook"
    message = str(getattr(exc, "message", "") or exc or type(exc).__name__).splitlines()[0]
    shown = repr(getattr(exc, "instance", None))
    if message.startswith(shown):
        message = message[len(shown):].strip()
    return f"{where}: {message.replace(shown, '…')}"


def _read_notebook(
    data: bytes, filename: str, where: str, notes: list[str]
) -> tuple[Module, str | None]:
    # Deferred: nbformat pulls in jsonschema, which grading a folder never needs.
    import nbformat  # noqa: PLC0415

    # nbformat's compiled validator (it ships with nbformat): ~0.2 ms a notebook instead of
    # ~3.5 ms, which a batch of hundreds notices; on an error nbformat still words the
    # message as jsonschema does. An explicit choice in the environment is kept.
    os.environ.setdefault("NBFORMAT_VALIDATOR", "fastjsonschema")

    text = _decode_text(data, filename, notes)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # nbformat warns about e.g. missing cell ids
            # nbformat is untyped; what it returns is checked cell by cell below.
            nb = nbformat.convert(nbformat.reader.reads(text), 4)  # type: ignore[no-untyped-call]
            cells = list(nb["cells"])
            try:
                nbformat.validate(nb)
            except nbformat.ValidationError as exc:
                first = _schema_problem(exc)
                notes.append(
                    said("does_fully_follow_notebook", filename=filename, first=first)
                )
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
        source = _normalise_newlines("".join(source) if isinstance(source, list) else str(source))
        if cell.get("cell_type") == "raw" and source.split("\n", 1)[0].strip() == ANSWERS_MARKER:
            if answers is None:
                answers = source
            else:
                notes.append(said("cell_second_answers_cell", filename=filename, n=number))
        elif cell.get("cell_type") == "code" and source.strip():
            code, removed = _neutralise_ipython(source)
            skipped.extend(f"cell {number}: {what}" for what in removed)
            chunks.append(Chunk(code=code, label=f"{filename}, cell {number}"))
    _note_skipped(filename, skipped, notes)
    return Module(name=NOTEBOOK_MODULE, filename=filename, chunks=tuple(chunks)), answers


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
        source = _normalise_newlines(str(source))
        if not source.strip():
            continue
        code, removed = _neutralise_ipython(source)
        skipped.extend(f"{label}: {what}" for what in removed)
        chunks.append(Chunk(code=code, label=str(label)))
    _note_skipped(filename, skipped, notes)
    module = Module(name=NOTEBOOK_MODULE, filename=filename, chunks=tuple(chunks))
    return _build(name, Path(path), "notebook", kind="notebook", modules=(module,), answers=answers,
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
    if stripped.startswith(("%", "!")) or _ASSIGN_MAGIC.match(stripped):
        return "magic"
    if _HELP.fullmatch(stripped.rstrip()):
        return "magic"
    if _GET_IPYTHON.match(stripped):
        return "python"
    if _CHECK_CALL.match(stripped):
        return "check"
    return None


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
                i = skip(line, i).end()  # ordinary characters, in one step
                if i >= n:
                    break
            char = line[i]
            if self.quote:
                i = _QUOTED_RUN[self.quote[0]].match(line, i).end()
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


# --- trees: a folder on disk or a zip in memory --------------------------------------------


@dataclass(frozen=True, slots=True)
class _Entry:
    name: str
    rel: str
    size: int
    problem: str = ""  # why it cannot be read, e.g. a symbolic link


class _Tree:
    """The two levels of a folder or zip that submissions use, read-only."""

    notes: tuple[str, ...] = ()
    inner_zips: list[str]  # zips inside a zip; a folder never fills it

    def listdir(self, rel: str) -> tuple[dict[str, _Entry], list[str]]:
        """Files (by name) and non-junk subfolder paths directly under ``rel``."""
        raise NotImplementedError

    def read(self, entry: _Entry, cap: int) -> bytes:
        """At most ``cap + 1`` bytes of the entry, so callers can tell it is too big."""
        raise NotImplementedError

    def describe(self, entry: _Entry) -> str:
        raise NotImplementedError


class _Unreadable(Exception):
    """A listed file that is no longer a regular file when opened (a link or FIFO swapped in)."""


def _open_file(name: str, dir_fd: int | None, path: Path) -> int:
    """A descriptor of regular file ``name`` in the folder ``dir_fd``, never following a link.

    Opened with ``O_NOFOLLOW`` (a link gives ``ELOOP``) and ``O_NONBLOCK`` (a FIFO does not
    wait for a writer), then checked on the open descriptor, so nothing swapped in after the
    listing is read. Without descriptors for folders (Windows), ``path`` is checked with
    ``lstat`` and the open file compared with it.

    Raises:
        _Unreadable: it is a link or not a regular file.
    """
    flags = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        if dir_fd is not None:
            fd = os.open(name, flags, dir_fd=dir_fd)
        else:
            before = os.lstat(path)
            if stat.S_ISLNK(before.st_mode):
                raise _Unreadable(_SYMLINK)
            fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):  # O_NOFOLLOW met a link (EMLINK: BSD)
            raise _Unreadable(_SYMLINK) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _Unreadable(_NOT_FILE)
        if dir_fd is None and (st.st_dev, st.st_ino) != (before.st_dev, before.st_ino):
            raise _Unreadable(_NOT_FILE)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _read_fd(fd: int, cap: int) -> bytes:
    """At most ``cap + 1`` bytes from ``fd`` (closed afterwards)."""
    try:
        chunks: list[bytes] = []
        left = cap + 1
        while left > 0:
            data = os.read(fd, min(left, 1 << 20))
            if not data:
                break
            chunks.append(data)
            left -= len(data)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _open_dir(root_fd: int, rel: str) -> int:
    """A descriptor of folder ``rel`` under ``root_fd``, opened one component at a time
    without following links."""
    flags = os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    fd = os.dup(root_fd)
    for part in [p for p in rel.split("/") if p]:
        try:
            nxt = os.open(part, flags, dir_fd=fd)
        finally:
            os.close(fd)
        fd = nxt
    return fd


class _FolderTree(_Tree):
    """A folder as it was listed: every folder and file below the one the user named is opened
    relative to its parent's descriptor, never through a link, and read with a size cap."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.inner_zips = []
        self.fd: int | None = None
        if _DIR_FDS:
            self.fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def listdir(self, rel: str) -> tuple[dict[str, _Entry], list[str]]:
        files: dict[str, _Entry] = {}
        dirs: list[str] = []
        where: Any = self.root / rel
        fd = _open_dir(self.fd, rel) if self.fd is not None else None
        try:
            with os.scandir(fd if fd is not None else where) as it:
                for item in it:
                    path = f"{rel}/{item.name}" if rel else item.name
                    if item.is_symlink():
                        # A link could point at the reference solution or the hidden tests.
                        files[item.name] = _Entry(item.name, path, 0, _SYMLINK)
                    elif item.is_dir(follow_symlinks=False):
                        if item.name not in _JUNK_DIRS and not item.name.startswith("."):
                            dirs.append(path)
                    elif item.is_file(follow_symlinks=False):
                        size = item.stat(follow_symlinks=False).st_size
                        files[item.name] = _Entry(item.name, path, size)
        finally:
            if fd is not None:
                os.close(fd)
        return files, sorted(dirs)

    def read(self, entry: _Entry, cap: int) -> bytes:
        folder, _, name = entry.rel.rpartition("/")
        if self.fd is None:
            return _read_fd(_open_file(name, None, self.root / entry.rel), cap)
        parent = _open_dir(self.fd, folder)
        try:
            return _read_fd(_open_file(name, parent, self.root / entry.rel), cap)
        finally:
            os.close(parent)

    def describe(self, entry: _Entry) -> str:
        return str(self.root / entry.rel)


def _open_given(given: Path) -> int:
    """The notebook or zip the user named, as a descriptor: its folder is the user's, the file
    itself is opened without following a link (a link swapped in after it was found)."""
    if not _DIR_FDS:
        return _open_file(given.name, None, given)
    parent = os.open(given.parent, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    try:
        return _open_file(given.name, parent, given)
    except _Unreadable as exc:
        raise SubmissionError(f"{given}: {exc}") from None
    finally:
        os.close(parent)


def _open_zip(path: Path, limits: ReadLimits, handle: Any = None) -> zipfile.ZipFile:
    """``path`` as a zip, read from ``handle`` (an open file of it) when given."""
    size = os.fstat(handle.fileno()).st_size if handle is not None else path.stat().st_size
    if size > limits.max_zip_bytes:
        raise SubmissionError(
            said("zip_over_limit", path=path, size=_size(size), limit=_size(limits.max_zip_bytes), fix=_ZIP_LESS)
        )
    try:
        return zipfile.ZipFile(handle if handle is not None else path)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise SubmissionError(
            said("readable_zip_file_create", what=path, why=exc)
        ) from None


class _ZipTree(_Tree):
    def __init__(self, archive: zipfile.ZipFile, path: Path, limits: ReadLimits) -> None:
        self.archive = archive
        self.path = path
        self.inner_zips = []
        infos = archive.infolist()
        if len(infos) > limits.max_zip_members:
            raise SubmissionError(
                said("zip_holds_entries_over", path=path, n=len(infos), limit=limits.max_zip_members, fix=_ZIP_LESS)
            )
        total = sum(info.file_size for info in infos)
        if total > limits.max_zip_bytes:
            raise SubmissionError(
                said("zip_unpacks_over_limit", path=path, size=_size(total), limit=_size(limits.max_zip_bytes), fix=_ZIP_LESS)
            )
        self.members: dict[str, tuple[zipfile.ZipInfo, _Entry]] = {}
        ignored: set[str] = set()
        for info in infos:
            parts = _safe_parts(info.filename, path)
            junk = _junk_label(parts)
            if junk:
                ignored.add(junk)
                continue
            if info.is_dir() or not parts:
                continue
            rel = "/".join(parts)
            if rel in self.members:
                # Which copy counts would be a guess (unzip asks, Python takes the last).
                raise SubmissionError(
                    said("zip_holds_two_entries", what=path, name=f"{rel!r}")
                )
            mode = info.external_attr >> 16
            problem = _SYMLINK if stat.S_ISLNK(mode) else ""
            self.members[rel] = (info, _Entry(parts[-1], rel, info.file_size, problem))
            if rel.lower().endswith(".zip"):
                self.inner_zips.append(rel)
        if ignored:
            self.notes = (said("ignored_zip", what=', '.join(sorted(ignored))),)

    def listdir(self, rel: str) -> tuple[dict[str, _Entry], list[str]]:
        prefix = f"{rel}/" if rel else ""
        files: dict[str, _Entry] = {}
        dirs: set[str] = set()
        for member, (_, entry) in self.members.items():
            if not member.startswith(prefix):
                continue
            head, _, rest = member[len(prefix) :].partition("/")
            if rest:
                dirs.add(prefix + head)
            else:
                files[head] = entry
        return files, sorted(dirs)

    def read(self, entry: _Entry, cap: int) -> bytes:
        info, _ = self.members[entry.rel]
        try:
            with self.archive.open(info) as handle:
                return handle.read(cap + 1)
        except RuntimeError as exc:  # zipfile's way of saying "encrypted"
            raise SubmissionError(
                said("cannot_read_create_zip", what=self.describe(entry), why=exc)
            ) from None
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, OSError) as exc:
            raise SubmissionError(
                said("cannot_read_create_zip_3", what=self.describe(entry), why=exc)
            ) from None

    def describe(self, entry: _Entry) -> str:
        return f"{self.path}: {entry.rel}"


def _safe_parts(name: str, path: Path) -> tuple[str, ...]:
    """The path components of a zip entry name; refuses names that point outside the zip."""
    posix = name.replace("\\", "/")
    parts = PurePosixPath(posix).parts
    if posix.startswith("/") or re.match(r"[A-Za-z]:", posix) or ".." in parts or "\x00" in name:
        raise SubmissionError(
            said("refused_zip_holds_entry", what=path, name=f"{name!r}")
        )
    return tuple(part for part in parts if part not in ("", "."))


def _junk_label(parts: tuple[str, ...]) -> str:
    for part in parts[:-1]:
        if part in _JUNK_DIRS:
            return f"{part}/"
    if parts and parts[-1] in _JUNK_DIRS:  # a bare directory entry such as "__MACOSX/"
        return f"{parts[-1]}/"
    if parts and parts[-1] in _JUNK_FILES:
        return parts[-1]
    if parts and parts[-1].startswith("._"):
        return "._* files"
    return ""
