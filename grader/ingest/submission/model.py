"""What a submission is once read: ``Submission``, its ``Module`` and ``Chunk`` pieces, and the caps.

Everything here is data. The readers (:mod:`grader.ingest.submission.load` and its neighbours)
build a :class:`Submission` from a folder, a notebook or a zip; the worker receives it as plain
data (:meth:`Submission.to_dict`, shaped as :class:`SubmissionDict`) and loads its modules.

Example::

    sub.kind                      # "folder" or "notebook": what the worker loads
    sub.part_module("part1")      # Module to execute for that part, or None if missing
    sub.to_dict()                 # SubmissionDict: plain data for a trusted worker's pipe
"""

from __future__ import annotations

import hashlib
import json
import re
import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:  # (the wire imports numpy, which reading and hashing a submission does not need)
    from typing import TypeAlias

    from grader.sandbox.wire import ChunkSpec, ModuleSpec

__all__ = [
    "ANSWERS_FILE",
    "ANSWERS_MARKER",
    "NOTEBOOK_MODULE",
    "Chunk",
    "ChunkDict",
    "MiB",
    "Module",
    "ModuleDict",
    "ReadLimits",
    "Submission",
    "SubmissionDict",
    "build_submission",
    "safe_name",
]

ANSWERS_FILE = "answers.yaml"
#: First line of the raw notebook cell that carries the quiz answers.
ANSWERS_MARKER = "# answers.yaml"
NOTEBOOK_MODULE = "notebook"

MiB = 1024 * 1024


#: A :class:`Chunk` and a :class:`Module` as plain data (``to_dict``): the shapes the sandbox's
#: wire defines, since the worker receives them as they are.
if TYPE_CHECKING:
    ChunkDict: TypeAlias = ChunkSpec
    ModuleDict: TypeAlias = ModuleSpec


class _SubmissionCore(TypedDict):
    """A :class:`Submission` as plain data (``Submission.to_dict``): str, int, list and dict only.

    What a batch sends a trusted worker through its pipe, and what the worker reads back with
    :meth:`Submission.from_dict`.
    """

    name: str
    path: str
    origin: str
    kind: str
    modules: list[ModuleDict]
    answers: str | None
    content_hash: str
    notes: list[str]
    code_parts: list[str]


class SubmissionDict(_SubmissionCore, total=False):
    """:class:`_SubmissionCore` and, for a student with a variant, ``variant`` (its plain data)."""

    variant: dict[str, object]


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

    def to_dict(self) -> ChunkDict:
        return {"code": self.code, "label": self.label, "first_line": self.first_line}

    @classmethod
    def from_dict(cls, data: ChunkDict) -> Chunk:
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

    def to_dict(self) -> ModuleDict:
        """Plain data for the wire: only str, int, list and dict."""
        return {
            "name": self.name,
            "filename": self.filename,
            "chunks": [chunk.to_dict() for chunk in self.chunks],
        }

    @classmethod
    def from_dict(cls, data: ModuleDict) -> Module:
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
        variant: the student's own variant as plain data (``{"id", "values"}``,
            :meth:`grader.spec.variants.Variant.as_data`), or None: the chapter's own numbers.
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
    variant: dict[str, object] | None = None

    def to_dict(self) -> SubmissionDict:
        """Plain data for a trusted worker's pipe (str, int, list and dict only)."""
        data: SubmissionDict = {
            "name": self.name, "path": str(self.path), "origin": self.origin, "kind": self.kind,
            "modules": [m.to_dict() for m in self.modules], "answers": self.answers,
            "content_hash": self.content_hash, "notes": list(self.notes),
            "code_parts": list(self.code_parts)}
        if self.variant is not None:
            data["variant"] = self.variant
        return data

    def with_variant(self, variant: dict[str, object] | None) -> Submission:
        """This submission graded with ``variant``: its content hash names the variant too, so
        a cached report of the same files under another variant is never taken for it."""
        if variant is None:
            return self
        mixed = hashlib.sha256(f"{self.content_hash}:{variant.get('id')}".encode()).hexdigest()
        return dataclasses.replace(self, variant=variant, content_hash=mixed)

    @classmethod
    def from_dict(cls, data: SubmissionDict) -> Submission:
        """The submission :meth:`to_dict` sent (a trusted worker reading its pipe)."""
        return cls(name=data["name"], path=Path(data["path"]), origin=data["origin"], kind=data["kind"],
                   modules=tuple(Module.from_dict(m) for m in data["modules"]), answers=data["answers"],
                   content_hash=data["content_hash"], notes=tuple(data["notes"]),
                   code_parts=tuple(data.get("code_parts") or ()), variant=data.get("variant"))

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



def build_submission(
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
        name=safe_name(name),
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



def safe_name(name: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", name).lstrip(".")[:100]
    return safe or "submission"

