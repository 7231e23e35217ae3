"""What decides a report besides the submission: the files :func:`rubric_fingerprint` hashes.

A report records the fingerprint of its rubric, suites, reference and the grader's knowledge of
mistakes (:func:`knowledge_files`), so ``grader batch --resume`` regrades whoever was graded
under other knowledge.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from grader.spec.catalogue import FRAMEWORK_FILE
from grader.spec.rubric.model import Rubric

__all__ = ["KNOWLEDGE_MODULES", "knowledge_files", "rubric_fingerprint"]


#: Modules of the grader whose code decides what a report says about a submission beyond the
#: rubric and the suites: the diagnosis and what recognisers are written with. Found without
#: importing them (the batch parent stays light).
KNOWLEDGE_MODULES = ("grader.kit.probes", "grader.grading.diagnosis")


def knowledge_files(rubric: Rubric | None = None) -> list[Path]:
    """The mistake catalogue(s) and the diagnosis code a rubric's reports depend on.

    The assignment's catalogue, the framework's own entries, the plug-in's Python files (its
    hooks and their neighbours) and :data:`KNOWLEDGE_MODULES`. A change to any of them changes
    :func:`rubric_fingerprint`.
    """
    from importlib.util import find_spec

    catalogue = rubric.plugin.catalogue if rubric is not None else None
    files = ([Path(catalogue)] if catalogue else []) + [FRAMEWORK_FILE]
    hooks = rubric.plugin.hooks if rubric is not None else None
    if hooks:
        files += sorted(Path(hooks).parent.glob("*.py"))
    for name in KNOWLEDGE_MODULES:
        spec = find_spec(name)
        if spec is not None and spec.origin:
            files.append(Path(spec.origin))
    return files


def rubric_fingerprint(rubric: Rubric, suites: Sequence[str]) -> str:
    """Hash of everything that decides a score or a named mistake besides the submission itself.

    The rubric file, the suites' files, the reference (with the hidden suite), and the grader's
    knowledge of mistakes (:func:`knowledge_files`: the catalogue, the plug-in's hooks, the
    diagnosis code), so ``batch --resume`` regrades a class after any of them changed.
    """
    h = hashlib.sha256()
    files = [Path(rubric.file)]
    for name in suites:
        files += sorted(Path(rubric.suite(name).path).rglob("*"))
    if "hidden" in suites and rubric.reference is not None:
        files += sorted(Path(rubric.reference).rglob("*"))
    files += knowledge_files(rubric)
    for f in files:
        if f.is_file() and "__pycache__" not in f.parts:
            h.update(f.name.encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:16]
