"""The correct-style corpus: the course's own correct submissions, read as ``grader validate`` and a batch read them.

A rubric's ``plugin.fixtures`` folder holds correct submissions in other students' styles. A style
holding only some files is laid over a copy of the reference (:func:`corpus_paths`);
:func:`corpus_submissions` reads them into memory for a batch's item analysis, and
:func:`corpus_digest` says when they (or anything that decides a score) changed.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from grader.spec.assignment import answer_key, assignment_of
from grader.spec.fingerprint import rubric_fingerprint

if TYPE_CHECKING:
    from grader.ingest.submission.model import Submission
    from grader.spec.rubric.model import Rubric

__all__ = ["WHOLE_SUBMISSIONS", "corpus_digest", "corpus_paths", "corpus_submissions", "load_corpus",
           "reference_copy", "student_answers"]


#: corpus entries graded as they are, not laid over a copy of the reference
WHOLE_SUBMISSIONS = (".ipynb", ".zip")


def load_corpus(folder: Path) -> list[Path]:
    """The correct submissions in ``folder`` (subfolders, notebooks, zips, files), sorted by name."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if not p.name.startswith((".", "_")))


def student_answers(key: Mapping[str, object]) -> str:
    """A filled, student-shaped ``answers.yaml`` (``id: {answer: ...}``) from the answer key."""
    filled = {qid: {"answer": spec.get("answer") if isinstance(spec, dict) else spec} for qid, spec in key.items()}
    return str(yaml.safe_dump(filled, sort_keys=False, allow_unicode=True))


def corpus_paths(root: Path, reference_dir: Path, answers: str, code_files: Sequence[str],
                  fixtures: list[Path]) -> list[Path]:
    """Each correct style as a whole submission, in the order of ``fixtures``."""
    paths = []
    for i, fixture in enumerate(fixtures):
        if fixture.is_file() and fixture.suffix in WHOLE_SUBMISSIONS:
            paths.append(fixture)  # a notebook or a zip is graded as it is
            continue
        # A folder (or one file) over a copy of the reference: a fixture may hold only the
        # files in a given style; a whole submission replaces every file.
        folder = reference_copy(root / f"correct-{i:02d}", reference_dir, answers, code_files)
        for f in ([fixture] if fixture.is_file() else sorted(fixture.iterdir())):
            shutil.copyfile(f, folder / f.name)
        paths.append(folder)
    return paths


def corpus_digest(rubric: Rubric) -> str | None:
    """Hash of the rubric's fingerprint and every file of its correct-style corpus; None
    when the rubric declares no corpus or its folder holds none."""
    fixtures_dir = assignment_of(rubric).fixtures
    fixtures = load_corpus(fixtures_dir) if fixtures_dir is not None else []
    if fixtures_dir is None or not fixtures:
        return None
    h = hashlib.sha256(rubric_fingerprint(rubric, ("public", "hidden")).encode())
    for fixture in fixtures:
        for f in ([fixture] if fixture.is_file() else sorted(fixture.rglob("*"))):
            if f.is_file() and "__pycache__" not in f.parts:
                h.update(f.relative_to(fixtures_dir).as_posix().encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:16]


def corpus_submissions(rubric: Rubric) -> list[tuple[str, Submission]]:
    """The rubric's correct styles as ``grader validate`` grades them: (style name, submission).

    A style holding only some files is laid over a copy of the reference; the copies are read
    into memory, so nothing on disk outlives the call. Empty when the rubric has no corpus.
    """
    from grader.ingest.submission.load import read_submission

    code_files, fixtures_dir = tuple(assignment_of(rubric).part_files.values()), assignment_of(rubric).fixtures
    fixtures = load_corpus(fixtures_dir) if fixtures_dir is not None else []
    if not fixtures or rubric.reference is None:
        return []
    assignment = assignment_of(rubric)
    # (the key is read as data: the reference's code is not loaded, nor the torch it imports)
    answers = student_answers(answer_key(Path(str(rubric.reference)), assignment.quiz_file) or {})
    parts = assignment.part_files
    with tempfile.TemporaryDirectory(prefix="grader-corpus-") as tmp:
        paths = corpus_paths(Path(tmp), Path(str(rubric.reference)), answers, code_files, fixtures)
        return [(f.name, read_submission(p, parts=parts)) for f, p in zip(fixtures, paths)]


def reference_copy(folder: Path, reference: Path, answers: str, code_files: Sequence[str]) -> Path:
    folder.mkdir(parents=True)
    for name in code_files:
        shutil.copyfile(reference / name, folder / name)
    (folder / "answers.yaml").write_text(answers, encoding="utf-8")
    return folder
