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
                       student changed from the handed-out stubs
                       (:func:`grader.ingest.submission.choice.choose_work`):
                       the notebook when only it changed, else the ``.py`` files.
``.ipynb``             nbformat 4; code cells in order, IPython magics and shell lines
                       neutralised to ``pass``; a raw cell starting ``# answers.yaml`` is the quiz
                       (:mod:`grader.ingest.submission.notebook`).
``.zip``               either of the above, read in memory; unsafe names and zips inside the
                       zip are refused, size and member count are capped
                       (:mod:`grader.ingest.submission.trees`).
=====================  ====================================================================
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from grader.errors import SubmissionError
from grader.i18n.messages import said
from grader.ingest.submission.choice import Handout, answers_changed, decide, handout_of, read_work
from grader.ingest.submission.model import ReadLimits, Submission, build_submission, safe_name
from grader.ingest.submission.notebook import read_notebook
from grader.ingest.submission.trees import FolderTree, Tree, ZipTree, open_given, open_zip, read_fd, too_big_notebook

if TYPE_CHECKING:
    from grader.spec.assignment import Assignment

__all__ = ["load_submission", "read_submission"]


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
            ``.py`` files and notebook the student worked in
            (:func:`grader.ingest.submission.choice.choose_work`). Without
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
        handout: what was handed out (:func:`grader.ingest.submission.choice.load_handout`); with
            it, a folder holding both the ``.py`` files and the notebook is graded as
            :func:`grader.ingest.submission.choice.choose_work` decides.
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
        tree = FolderTree(given)
        try:
            return _from_tree(
                tree, safe_name(_display_name(given)), given, "folder", limits, handout, parts
            )
        finally:
            tree.close()
    suffix = given.suffix.lower()
    if given.is_file() and suffix == ".ipynb":
        fd = open_given(given)
        size = os.fstat(fd).st_size
        if size > limits.max_notebook_bytes:
            os.close(fd)
            raise SubmissionError(too_big_notebook(str(given), size, limits))
        data = read_fd(fd, limits.max_notebook_bytes)
        if len(data) > limits.max_notebook_bytes:  # it grew since fstat()
            raise SubmissionError(too_big_notebook(str(given), len(data), limits))
        notes: list[str] = []
        module, answers = read_notebook(data, given.name, str(given), notes)
        return build_submission(
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
        with os.fdopen(open_given(given), "rb") as handle, open_zip(given, limits, handle) as archive:
            return _from_tree(
                ZipTree(archive, given, limits),
                safe_name(given.stem),
                given,
                "zip",
                limits,
                handout,
                parts,
            )
    hint = said("grade_file_pass_folder") if suffix == ".py" else ""
    files = "/".join(parts.values()) if parts else said("assignment_py_files")
    raise SubmissionError(said("not_a_submission_expected", path=given, files=files, hint=hint))



def _display_name(folder: Path) -> str:
    # abspath, not resolve(): "." names the folder the user is in, not a symlink's target.
    return folder.name or Path(os.path.abspath(folder)).name  # noqa: PTH100



def _from_tree(
    tree: Tree,
    name: str,
    path: Path,
    origin: str,
    limits: ReadLimits,
    handout: Handout | None = None,
    parts: dict[str, str] | None = None,
) -> Submission:
    work = read_work(tree, origin, limits, parts)
    notes = work.notes
    choice = decide(work, handout)
    if choice.note:
        notes.append(choice.note)

    if choice.graded == "notebook":
        assert work.notebook is not None  # noqa: S101 -- decide only chooses a notebook read
        chosen, module, nb_answers = work.notebook
        if work.several:
            notes.append(work.several)
        answers = work.answers
        if nb_answers is not None and answers is not None:
            if handout is not None and answers_changed(answers, handout.answers) and not (
                answers_changed(nb_answers, handout.notebook_answers)
            ):
                nb_answers = None
                notes.append(said("used_answers_yaml_answers", chosen=chosen))
            else:
                notes.append(said("used_answers_cell_ignored", chosen=chosen))
        return build_submission(
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
        and not answers_changed(answers, handout.answers)
        and answers_changed(work.notebook[2], handout.notebook_answers)
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
    return build_submission(name, path, origin, kind="folder", modules=modules, answers=answers, notes=notes,
                  code_parts=tuple(parts) if parts else tuple(work.present))



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
