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

__all__ = ["KNOWLEDGE_MODULES", "VIEW_ONLY", "graded_text", "knowledge_files", "rubric_fingerprint"]

#: Keys of the rubric's ``report:`` section that decide only how the student views are written
#: (which files, how much of hidden tests and quiz answers they show) or the exit code, never
#: what the record says: changing them regrades nothing (``grader batch --resume`` writes the
#: views again instead: grader.workflows.batch).
VIEW_ONLY = ("formats", "hidden_tests", "hidden_details", "quiz_answers", "fail_below_pass_mark")


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


def graded_text(path: Path) -> bytes:
    """What of the rubric file at ``path`` decides a report: its data without :data:`VIEW_ONLY` and
    ``manual`` (items given by hand, whose points the ledger holds)
    (comments and layout do not count either), as canonical JSON; the file's bytes as they are
    when it does not read as a YAML mapping."""
    import json

    from grader import safeyaml

    raw = path.read_bytes()
    try:
        data = safeyaml.load(raw)
    except Exception:  # noqa: BLE001 - an unreadable rubric is hashed as it is (loading it refuses it)
        return raw
    if not isinstance(data, dict):
        return raw
    report = data.get("report")
    if isinstance(report, dict):
        data = {**data, "report": {k: v for k, v in report.items() if k not in VIEW_ONLY}}
    data.pop("manual", None)  # (the items given by hand in grader review: the ledger holds their points)
    return json.dumps(data, sort_keys=True, ensure_ascii=False, default=str).encode()


def rubric_fingerprint(rubric: Rubric, suites: Sequence[str]) -> str:
    """Hash of everything that decides a score or a named mistake besides the submission itself.

    The rubric file (but for :data:`VIEW_ONLY`: :func:`graded_text`), the suites' files, the reference (with the hidden suite), and the grader's
    knowledge of mistakes (:func:`knowledge_files`: the catalogue, the plug-in's hooks, the
    diagnosis code), so ``batch --resume`` regrades a class after any of them changed.
    """
    h = hashlib.sha256()
    rubric_file = Path(rubric.file)
    h.update(rubric_file.name.encode())
    h.update(graded_text(rubric_file))
    files: list[Path] = []
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
