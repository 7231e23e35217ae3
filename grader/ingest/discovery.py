"""Stage 1 of ``grader batch``: find the submissions in a folder or an LMS export zip.

:func:`find_submissions` looks at the entries directly under the source (an LMS export zip is
unpacked first, safely), skips OS junk, reads each student's entry with
:func:`grader.ingest.submission.load.load_submission` and lists anything else with a reason. Student ids
and names come from the Moodle / Canvas / Blackboard entry names (:mod:`grader.ingest.lms`).

Example::

    found = find_submissions("uploads.zip", staging, assignment=assignment)
    found.found, found.skipped, found.failed
"""

from __future__ import annotations

import os
import re
import shutil
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, NamedTuple, TypedDict, TypeVar

from grader.errors import SubmissionError, UsageError
from grader.i18n.messages import said
from grader.report.outdir import name_aliases
from grader.ingest.submission.load import load_submission

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import TypeAlias

    from grader.spec.assignment import Assignment
    from grader.ingest.lms import LmsName
    from grader.ingest.submission.model import Submission

    #: (entry, path to read or None, identity, files set aside, why it cannot be read)
    _Candidate: TypeAlias = tuple[str, Path | None, LmsName | None, list[str], str]

#: Names an OS or a tool leaves next to real files (and ``._*`` files, macOS's AppleDouble halves): never
#: submissions. Only these are skipped; any other name, one starting with a dot too, is an entry
#: like the rest, and a skipped one directly under SOURCE is named (:attr:`Discovery.junk`).
JUNK = frozenset({"__MACOSX", ".DS_Store", "__pycache__", "Thumbs.db", "desktop.ini", ".ipynb_checkpoints",
                  ".git", ".svn", ".hg", ".Spotlight-V100", ".Trashes", ".fseventsd", ".TemporaryItems",
                  ".localized", "ehthumbs.db", "$RECYCLE.BIN", "System Volume Information"})
#: the folder ``grader pull --from canvas`` keeps its record in, inside the folder it pulls into
#: (:data:`grader.workflows.pull_canvas.STATE_DIR`, holding its ``canvas.json``): the grader's own,
#: never a submission, so a batch of that folder passes it by without a word
PULL_DIR = ".pull"
EXPORT_MAX_BYTES = 2 * 1024**3
EXPORT_MAX_MEMBERS = 50_000

_V = TypeVar("_V")


class _Who(TypedDict):
    """Whose an entry is, as :class:`Found` and :class:`Skipped` both record it."""

    student_id: str
    name: str
    late: bool
    lms: str
    lms_time: str


@dataclass(frozen=True)
class OwnNames:
    """Where the names a student chose in one entry can be read: its unpacked files and folders
    (``path``, the members of each zip among them) and the uploads set aside. Read only by blind
    grading (:mod:`grader.ingest.anonymous`), while the entry is still unpacked: a batch graded under
    names never pays for it."""

    path: Path | None = None
    set_aside: tuple[str, ...] = ()

    def read(self, most: int = 500) -> tuple[str, ...]:
        """Each name and its stem, which a note or reason about the entry may quote."""
        names: list[str] = []
        below: list[Path] = []
        if self.path is not None:
            try:
                below = [self.path, *sorted(self.path.rglob("*"))[:most]] if self.path.is_dir() else [self.path]
            except OSError:
                below = [self.path]
        for item in below:
            names += [item.name, item.stem]
            if item.suffix.lower() == ".zip" and item.is_file():
                try:
                    with zipfile.ZipFile(item) as zf:
                        members = zf.namelist()[:most]
                except (OSError, zipfile.BadZipFile, ValueError):
                    members = []
                for member in members:
                    for part in Path(member).parts:
                        names += [part, Path(part).stem]
        for text in self.set_aside:  # "<file> (why)": the file, and each piece of an LMS's flat name
            upload = text.rsplit(" (", 1)[0]
            names += [upload, Path(upload).stem, *upload.split("_")]
        return tuple(dict.fromkeys(n for n in names if n))


@dataclass
class Found:
    """One entry of the source that is a submission."""

    submission: Submission  # (name made unique within the batch)
    student_id: str
    entry: str  # the name as found in the folder or export
    name: str = ""  # the student's name as the LMS wrote it (NFC); "" when it gives none
    late: bool = False  # the LMS flagged the upload as late (Canvas)
    lms: str = ""  # moodle | canvas | blackboard | "" (a plain folder)
    #: plain reasons for the gradebook's errors column: (key of grader.i18n.messages.MESSAGES, slots)
    flags: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    #: when the LMS says it was submitted, on its own wall clock with no zone (Blackboard's
    #: attempt ``2026-11-30-23-05-23``); "" when the export does not say
    lms_time: str = ""
    #: where the names the student chose can be read (blind grading scrubs them)
    own: OwnNames = field(default_factory=OwnNames)


@dataclass
class Skipped:
    """One entry of the source that could not be graded, and why."""

    entry: str
    why: str  # in English, as the summary lists it
    student_id: str
    name: str = ""
    late: bool = False
    lms: str = ""
    flags: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    lms_time: str = ""
    #: where the names the student chose can be read (blind grading scrubs them from ``why``)
    own: OwnNames = field(default_factory=OwnNames)


class Failed(NamedTuple):
    """An entry shaped like a submission that could not be read: it gets an error report."""

    name: str  # its report's name
    student_id: str
    entry: str
    why: str
    who: Skipped  # who it is, and the plain reason for the gradebook


@dataclass
class Discovery:
    found: list[Found] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    failed: list[Failed] = field(default_factory=list)
    #: blind grading: each anonymous id's own student id and report name, by which the
    #: instructor's files (--submitted, --extensions, Moodle's worksheet) name the student;
    #: held in memory only, never written
    known_as: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: each report name's keys (:func:`entry_keys`), which the folder's roster records
    keys: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: the names directly under SOURCE (or the export's top) skipped as an OS's or a tool's
    #: (:func:`is_junk`), as found: listed on the terminal and in the gradebook, never graded
    junk: list[str] = field(default_factory=list)
    #: records the names (or blind ids) this discovery gave, for the batch to call once its
    #: checks pass (:func:`grader.ingest.anonymous.find`); None where nothing is to be recorded
    keep: Callable[[], None] | None = field(default=None, repr=False, compare=False)

    def keys_of(self, found: Found) -> list[str]:
        """What the instructor's files may name ``found`` by: its student id, then its name
        (as :func:`grader.spec.due.student_key` folds them, as the files' are)."""
        from grader.spec.due import student_key

        own = self.known_as.get(found.student_id)
        return [key for key in (student_key(k) for k in (own or (found.student_id, found.submission.name)) if k) if key]

    @property
    def unrecognised(self) -> list[tuple[str, str]]:
        """(entry, why) of every entry that is not graded, the skipped system files too."""
        return [(s.entry, s.why) for s in self.skipped] + [(name, said("system_file")) for name in self.junk]


def student_id_of(entry: str, *, is_dir: bool | None = None) -> str:
    """The student id an LMS export encodes in an entry's name, else the name's stem.

    Only the part of the name the LMS pattern fixes is read (see :mod:`grader.ingest.lms`).

    >>> student_id_of("Taro Yamada_12345_assignsubmission_file_")
    '12345'
    >>> student_id_of("yamadataro_12345_67890_chapter07.zip")
    '12345'
    >>> student_id_of("alice.zip")
    'alice'
    """
    from grader.ingest.lms import lms_name, nfc

    folder = entry.endswith("_") if is_dir is None else is_dir
    parsed = lms_name(entry, is_dir=folder) or (None if folder else lms_name(entry, is_dir=True))
    if parsed is not None:
        return parsed.student_id
    stem = nfc(entry)
    for suffix in (".zip", ".ipynb"):
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
    return stem


def is_junk(name: str, is_dir: bool = False) -> bool:
    """A name an OS or a tool leaves (:data:`JUNK`, or an AppleDouble file ``._x``; a folder named
    so is a student's like any other): never a submission."""
    return name in JUNK or (name.startswith("._") and not is_dir)


def is_pull_record(entry: Path) -> bool:
    """``entry`` is the record ``grader pull`` keeps in the folder it pulled into (:data:`PULL_DIR`
    with its ``canvas.json``), not a student's folder of that name."""
    return (entry.name == PULL_DIR and entry.is_dir() and not entry.is_symlink()
            and (entry / "canvas.json").is_file())


def _hidden(name: str) -> bool:
    """Inside one student's folder: junk, or a hidden file (``.gitignore``), which is no work."""
    return is_junk(name) or name.startswith(".")


@dataclass
class Unpacked:
    """An unpacked export: its root, and what unpacking it had to say, per top-level name.

    Keys of ``failed`` and ``decoded`` are paths on disk under ``dest`` (``Jane_123_assignsubmission_file_/x.py``);
    :func:`find_submissions` maps them to entries once it knows the export's root.
    """

    dest: Path
    root: Path
    #: name on disk -> the name in the export, for names shortened to fit the file system
    originals: dict[str, str] = field(default_factory=dict)
    #: name on disk -> why (part of) it could not be unpacked
    failed: dict[str, str] = field(default_factory=dict)
    #: name on disk -> (encoding it was read in, doubtful) for names without the UTF-8 flag
    decoded: dict[str, tuple[str, bool]] = field(default_factory=dict)
    #: paths on disk (``__MACOSX``, ``Jane_123_assignsubmission_file_/.DS_Store``) of the system
    #: files and folders (:func:`is_junk`) left packed
    junk: set[str] = field(default_factory=set)


def unpack_export(archive: Path, dest: Path) -> Path:
    """Unpack an LMS export zip into ``dest``, refusing names that leave it; returns the root."""
    return unpack(archive, dest).root


def unpack(archive: Path, dest: Path) -> Unpacked:
    """Unpack an LMS export zip into ``dest``, refusing names that leave it.

    Only the outer archive is unpacked: a student's own zip inside it stays a zip and is read
    in memory by :func:`grader.ingest.submission.load.load_submission`, with its caps. Names are read as
    the platform that wrote the zip meant them (:func:`grader.ingest.lms.member_name`), and a name
    too long for the file system is shortened keeping its LMS id (:func:`grader.ingest.lms.fit_name`).
    Any error with one member (a name the file system refuses, a damaged or encrypted member)
    is recorded against its top-level entry, and unpacking goes on: that entry fails alone.
    """
    from grader.ingest.lms import fit_name, member_name, nfc

    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError) as exc:
        raise UsageError(said("readable_zip_file", path=archive, why=exc)) from None
    with zf:
        infos = zf.infolist()
        if len(infos) > EXPORT_MAX_MEMBERS or sum(i.file_size for i in infos) > EXPORT_MAX_BYTES:
            raise UsageError(said("export_too_large_unpack", path=archive, n=EXPORT_MAX_MEMBERS, gib=EXPORT_MAX_BYTES // 1024**3))
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        result = Unpacked(dest, dest)
        for info in infos:
            read = member_name(info)
            name = read.name.replace("\\", "/")
            parts = [p for p in PurePosixPath(name).parts if p not in ("", ".")]
            if name.startswith("/") or ".." in parts or re.match(r"[A-Za-z]:", name) or not parts:
                continue
            junk = next((i for i, p in enumerate(parts) if is_junk(p, i < len(parts) - 1 or info.is_dir())), None)
            if junk is not None:  # (named by find_submissions when it is directly under SOURCE)
                result.junk.add("/".join(fit_name(p) for p in parts[:junk + 1]))
                continue
            if (info.external_attr >> 16) & 0o170000 == 0o120000:  # a symbolic link
                continue
            fitted = [fit_name(p) for p in parts]
            for short, original in zip(fitted, parts):
                if short != original:
                    result.originals[short] = nfc(original)
            key = "/".join(fitted)
            if read.encoding != "utf-8":
                result.decoded[key] = (read.encoding, read.doubtful)
            target = dest.joinpath(*fitted)
            try:
                if info.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(info) as src, open(target, "wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
            except Exception as exc:  # noqa: BLE001 - the ingest rule: this entry fails, the rest go on
                why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
                result.failed.setdefault(key, said("could_unpacked", name='/'.join(parts[-1:]), why=why))
                try:
                    target.unlink(missing_ok=True)
                except OSError:
                    pass
    result.root = _unwrap(dest)
    return result


def _for_root(unpacked: Unpacked, root: Path, table: dict[str, _V]) -> dict[str, _V]:
    """``table`` (keyed by paths under the archive's top) keyed by the entry directly under
    ``root``, the export's own top once wrapper folders are stepped into."""
    inner = list(root.relative_to(unpacked.dest).parts)
    out: dict[str, _V] = {}
    for key, value in table.items():
        names = key.split("/")
        if names[:len(inner)] == inner and len(names) > len(inner):
            out.setdefault(names[len(inner)], value)
    return out


def _junk_above(unpacked: Unpacked, root: Path) -> list[str]:
    """The system files and folders the export held at ``root``'s level or above it (``__MACOSX``
    beside a wrapper folder): none is a student's, so none is graded, and each is named."""
    from grader.ingest.lms import nfc

    inner = list(root.relative_to(unpacked.dest).parts)
    out = []
    for key in unpacked.junk:
        names = key.split("/")
        if names[:-1] == inner[:len(names) - 1]:
            out.append(nfc(names[-1]))
    return out


def _unwrap(root: Path) -> Path:
    """Step into a lone wrapper folder (``Assignment 7-1234/``) that is not itself a submission."""
    from grader.ingest.lms import lms_name

    while True:
        entries = [e for e in root.iterdir() if not is_junk(e.name, e.is_dir())]
        if len(entries) != 1 or not entries[0].is_dir():
            return root
        inner = entries[0]
        if lms_name(inner.name, is_dir=True) is not None:
            return root  # one student's Moodle folder
        if any(f.suffix in (".py", ".ipynb", ".zip") or f.name == "answers.yaml" for f in inner.iterdir()):
            return root
        root = inner


_WORK = (".py", ".ipynb")


def files_wanted(parts: dict[str, str] | None) -> str:
    """The assignment's exercise files, for messages."""
    return ", ".join((parts or {}).values()) or said("assignment_py_files")


def _work_in(folder: Path, assignment: str = "") -> tuple[Path, list[str]]:
    """What to load for a student's folder: the folder, or the one zip it holds.

    A Moodle student who uploaded ``<assignment>.zip`` (or a notebook) has a folder holding
    only that: the zip is the submission; with several, one named after the assignment is
    preferred, then the newest. Returns the path and the files set aside.
    """
    files = [f for f in sorted(folder.iterdir()) if not _hidden(f.name)]
    plain = [f for f in files if f.is_file() and not f.is_symlink()]
    if any(f.suffix.lower() in _WORK or f.name == "answers.yaml" for f in plain):
        return folder, []
    if any(f.is_dir() for f in files):
        return folder, []  # one level down is read by load_submission
    zips = [f for f in plain if f.suffix.lower() == ".zip"]
    if not zips:
        return folder, []
    named = [z for z in zips if assignment and assignment.lower() in z.name.lower()] or zips
    chosen = max(named, key=lambda z: (z.stat().st_mtime, z.stat().st_size, z.name))
    return chosen, [z.name for z in zips if z != chosen]


def _is_empty(path: Path) -> bool:
    """No files at all: an empty folder, an empty zip, a zero-byte upload."""
    try:
        if path.is_dir():
            return not any(f.is_file() and f.stat().st_size > 0 for f in path.rglob("*")
                           if not _hidden(f.name))
        if path.stat().st_size == 0:
            return True
        if path.suffix.lower() == ".zip" and zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as zf:
                return not any(i.file_size > 0 and not i.is_dir() for i in zf.infolist())
    except (OSError, zipfile.BadZipFile):
        return False
    return False


def _missing_files(sub: Submission, parts: dict[str, str] | None = None) -> list[str]:
    from grader.ingest.submission.model import ANSWERS_FILE

    if sub.kind != "folder":
        return []
    missing = [f for part, f in (parts or {}).items()
               if not any(m.name == part for m in sub.modules)]
    return missing + ([] if sub.answers is not None else [ANSWERS_FILE])


def _candidates(root: Path, staging: Path, kind: str | None, originals: dict[str, str],
                broken: dict[str, str], junk: list[str]) -> tuple[list[_Candidate], list[str]]:
    """Every entry under ``root`` that may be a submission, and the symbolic links among them;
    the system files and folders among them (:func:`is_junk`) are added to ``junk``.

    A flat export's loose files are regrouped per student first; ``broken`` (members that could
    not be unpacked) are used up here, each becoming its entry's reason.
    """
    from grader.ingest import lms as lmsnames

    students, grouped = lmsnames.group_flat_files(root, staging / "lms", kind, originals=originals)
    # (entry, path to read or None, identity, files set aside, why it cannot be read)
    candidates: list[_Candidate] = []
    symlinks: list[str] = []
    ident: lmsnames.LmsName | None
    for st in students:
        ident = lmsnames.LmsName(st.lms, st.student_id, st.name, late=st.late,
                                 other_ids=tuple(sorted(st.other_ids)), attempted=st.attempted)
        why = st.error or "; ".join(broken.pop(e) for e in [*st.entries] if e in broken)
        candidates.append((originals.get(st.entries[0], st.entries[0]), st.folder, ident, list(st.set_aside), why))
    for entry in sorted(root.iterdir()):
        if entry.name in grouped or is_pull_record(entry):
            continue
        if is_junk(entry.name, entry.is_dir() and not entry.is_symlink()):
            junk.append(lmsnames.nfc(entry.name))
            continue
        shown = lmsnames.nfc(originals.get(entry.name, entry.name))
        if entry.is_symlink():  # it could point at anything the instructor can read
            symlinks.append(shown)
            continue
        if entry.resolve() in (staging.resolve(), staging.parent.resolve()):
            continue  # our own output folder inside the source
        ident = lmsnames.lms_name(shown, is_dir=entry.is_dir(), lms=kind) if kind else None
        candidates.append((shown, entry, ident, [], broken.pop(entry.name, "")))
    for entry_name, why in sorted(broken.items()):  # a member that never reached the disk
        shown = lmsnames.nfc(originals.get(entry_name, entry_name))
        ident = lmsnames.lms_name(shown, is_dir=False, lms=kind) if kind else None
        candidates.append((shown, None, ident, [], why))
    return candidates, symlinks


def student_key(lms: str, student_id: str, entry: str) -> str:
    """What an output folder knows a student by from one run to the next: the LMS and its id
    for an LMS's student, else the entry's own name (a plain folder's ``Carol/``)."""
    return f"{lms}:{student_id}" if lms and student_id else f"entry:{entry}"


class _Namer:
    """Report names for one discovery: each entry's from an earlier run where there is one
    (``reserved``, by entry index), else one no other entry has, case aside, whose files no
    other entry's files coincide with (:func:`grader.report.outdir.name_aliases`), that is no other
    entry's own name (``own``), and that no earlier run gave anyone (``held``, casefolded)."""

    def __init__(self, result: Discovery, keys: list[tuple[str, str]], reserved: dict[int, str], own: set[str],
                 held: set[str], owners: dict[str, int] | None = None) -> None:
        self.result, self.keys, self.reserved, self.own, self.held = result, keys, reserved, own, held
        #: a name -> the entry whose own name is byte-identical to it (``José`` written NFC, not its
        #: NFD twin; ``alice``, not ``.alice``): that entry's row is the one with that label
        self.owners = owners or {}
        self.names: set[str] = set()

    def unique(self, wanted: str, index: int) -> str:
        name = self.reserved.get(index, "")
        if not name or set(name_aliases(name)) & self.names:
            name, n = wanted, 2
            while (name.casefold() in self.names or (name != wanted and name in self.own)
                   or name.casefold() in self.held or self.owners.get(name, index) != index):
                name, n = f"{wanted}-{n}", n + 1
        self.names.update(name_aliases(name))
        self.result.keys[name] = self.keys[index]
        return name


def _unreadable(entry_name: str, ident: LmsName | None, why: str, unique: Callable[[str], str]) -> Failed:
    """The entry ``entry_name`` that could not be read (``why``), under a report name of its own."""
    from grader.ingest import lms as lmsnames

    student_id = ident.student_id if ident else student_id_of(entry_name)
    text = said("cannot_read", what=entry_name, why=why)
    who = Skipped(entry_name, text, student_id, name=ident.name if ident else "",
                  late=bool(ident and ident.late), lms=ident.lms if ident else "",
                  flags=[("unreadable", {"why": text})])
    return Failed(unique(lmsnames.disk_name(who.name, student_id) if ident else lmsnames.disk_name(entry_name, "")),
                  student_id, entry_name, text, who)


def find_submissions(source: str | os.PathLike[str], staging: Path | None = None,
                     assignment: Assignment | None = None, given: dict[str, str] | None = None,
                     held: Iterable[str] = ()) -> Discovery:
    """Every submission directly under ``source`` (a folder, or an LMS export zip).

    Args:
        source: the folder or export.
        staging: where to unpack an export and regroup the loose files of a flat export
            (``OUTDIR/.sources`` is passed by :func:`grader.workflows.batch.run_batch`).
        assignment: what is graded: its part files make a submission, a zip named after it
            is preferred, and a folder with both the .py files and the notebook is graded as
            what the student changed from the handout. Without it, every ``.py`` file counts.
        given: the report names earlier runs into the same folder gave, by :func:`student_key`
            (:class:`grader.report.outdir.Roster`): each student keeps theirs, and no other student is
            given one of them, so a name (and the ledger's adjustments made under it) never
            passes from one student to another when others come or go. An entry is known by
            two keys (:func:`entry_keys`): its exact name in SOURCE, looked up first, then its
            student (an LMS id; a plain entry's name without ``.zip``/``.ipynb``).
        held: every name earlier runs gave, which nobody new is given.

    Each report name's keys are in the result's ``keys``, for the roster to record.
    """
    from functools import partial

    from grader.ingest import lms as lmsnames

    parts = assignment.part_files if assignment is not None else None

    src = Path(source)
    staging = staging or Path(".grader-sources")
    unpacked: Unpacked | None = None
    if src.is_file() and src.suffix.lower() == ".zip":
        unpacked = unpack(src, staging / "export")
        root = unpacked.root
    elif src.is_dir():
        root = src
    else:
        raise UsageError(said("folder_submissions_nor_lms", path=src))
    result = Discovery()
    originals = unpacked.originals if unpacked else {}
    broken: dict[str, str] = _for_root(unpacked, root, unpacked.failed) if unpacked else {}
    decoded: dict[str, tuple[str, bool]] = _for_root(unpacked, root, unpacked.decoded) if unpacked else {}
    kind = lmsnames.detect(root)
    result.junk = _junk_above(unpacked, root) if unpacked else []
    candidates, symlinks = _candidates(root, staging, kind, originals, broken, result.junk)
    result.junk = sorted(set(result.junk))
    # Each entry's own name is its report's name when it can be: a name made unique
    # ("alice-2") is never one another entry has as its own.
    own = {lmsnames.disk_name(c[2].name, c[2].student_id) if c[2] else _plain_base(c[0], c[1])
           for c in candidates}
    ordered = sorted(candidates, key=lambda c: c[0])
    keys = [entry_keys(c[0], c[1], c[2]) for c in ordered] + [entry_keys(s, None, None) for s in symlinks]
    namer = _Namer(result, keys, _reserve(keys, dict(given or {})), own,
                   {n.casefold() for n in (*(given or {}).values(), *held)}, _owners(ordered))
    for index, (entry_name, path, ident, set_aside, broke) in enumerate(ordered):
        try:
            _discover_one(result, entry_name, path, ident, set_aside, broke, parts, assignment, root, staging,
                          partial(namer.unique, index=index), decoded)
        except Exception as exc:  # noqa: BLE001 - the ingest rule: one entry fails alone
            why = f"{type(exc).__name__}: {exc}".replace(f"{root}{os.sep}", "").replace(f"{staging}{os.sep}", "")
            result.failed.append(_unreadable(entry_name, ident, why, partial(namer.unique, index=index)))
    for index, entry_name in enumerate(symlinks, start=len(ordered)):
        who_link = Skipped(entry_name, said("symlink"), student_id_of(entry_name),
                           flags=[("symlink", {})])
        result.failed.append(Failed(namer.unique(lmsnames.disk_name(entry_name, ""), index),
                                    who_link.student_id, entry_name,
                                    said("symbolic_link_followed_put", entry=entry_name), who_link))
    # Online text beside uploaded files (Moodle keeps one folder per plugin) is no second entry.
    graded = {(f.lms, f.student_id) for f in result.found}
    result.skipped = [s for s in result.skipped if not (
        (s.lms, s.student_id) in graded and any(key == "online_text" for key, _ in s.flags))]
    _flag_shared_ids(result)
    return result


def _owners(ordered: list[_Candidate]) -> dict[str, int]:
    """Each plain entry's report name -> the entry (by index) whose name on disk, ``.zip`` or
    ``.ipynb`` aside, is that report name byte for byte; the first such, where two are."""
    out: dict[str, int] = {}
    for index, (entry_name, path, ident, _, _) in enumerate(ordered):
        if ident is None and path is not None and _plain_stem(path.name, path) == _plain_base(entry_name, path):
            out.setdefault(_plain_base(entry_name, path), index)
    return out


def _plain_stem(entry_name: str, path: Path | None) -> str:
    """A plain entry's name without ``.zip`` or ``.ipynb`` (a file's; a folder keeps its name)."""
    stem = entry_name
    for suffix in (".zip", ".ipynb"):
        if stem.lower().endswith(suffix) and not (path is not None and path.is_dir()):
            stem = stem[: -len(suffix)]
    return stem


def _plain_base(entry_name: str, path: Path | None) -> str:
    from grader.ingest.lms import disk_name

    return disk_name(_plain_stem(entry_name, path), "")


def entry_keys(entry_name: str, path: Path | None, ident: LmsName | None) -> tuple[str, str]:
    """What an output folder knows an entry by from one run to the next: its student
    (:func:`student_key`; a plain entry by its name without ``.zip``/``.ipynb``, so that
    ``bob/`` and a later ``bob.zip`` are one student), and its exact name in SOURCE (two entries
    whose names differ only in Unicode normalisation are two students)."""
    raw = path.name if path is not None else entry_name
    student = (student_key(ident.lms, ident.student_id, entry_name) if ident
               else student_key("", "", _plain_stem(entry_name, path)))
    return student, f"entry:{raw}"


def _reserve(keys: list[tuple[str, str]], given: dict[str, str]) -> dict[int, str]:
    """Each entry's name from earlier runs: by its exact name first, then by its student; never
    one name to two entries."""
    out: dict[int, str] = {}
    taken: set[str] = set()
    for which in (1, 0):
        for index, pair in enumerate(keys):
            name = given.get(pair[which], "")
            if index not in out and name and name.casefold() not in taken:
                out[index] = name
                taken.add(name.casefold())
    return out


def _name_flags(ident: LmsName | None, student_id: str, entry_name: str, path: Path | None,
                decoded: dict[str, tuple[str, bool]]) -> tuple[list[tuple[str, dict[str, str]]], str, bool]:
    """What an entry's LMS name leaves in doubt (flags for the gradebook), and the encoding its
    name in the zip was read in, with whether that reading is itself in doubt."""
    shifted: list[tuple[str, dict[str, str]]] = []
    if ident is not None and ident.other_ids:
        shifted.append(("ambiguous_id", {"id": student_id, "others": ", ".join(ident.other_ids)}))
    encoding, doubtful = decoded.get(path.name if path is not None else entry_name) or decoded.get(
        entry_name, ("utf-8", False))
    if doubtful:
        shifted.append(("doubtful_name", {"entry": entry_name, "encoding": encoding}))
    return shifted, encoding, doubtful


def _discover_one(result: Discovery, entry_name: str, path: Path | None, ident: LmsName | None, set_aside: list[str],
                  broke: str, parts: dict[str, str] | None, assignment: Assignment | None, root: Path,
                  staging: Path, unique: Callable[[str], str], decoded: dict[str, tuple[str, bool]]) -> None:
    """Sort one entry of the source into found, skipped or failed."""
    from grader.ingest import lms as lmsnames

    student_id = ident.student_id if ident else student_id_of(entry_name, is_dir=bool(path and path.is_dir()))
    who: _Who = {"student_id": student_id, "name": ident.name if ident else "",
           "late": ident.late if ident else False, "lms": ident.lms if ident else "",
           "lms_time": ident.attempted if ident else ""}

    shifted, encoding, doubtful = _name_flags(ident, student_id, entry_name, path, decoded)
    base = lmsnames.disk_name(ident.name, student_id) if ident else _plain_base(entry_name, path)

    def skip(flag: tuple[str, dict[str, str]]) -> None:
        """Not graded, with the plain reason ``flag`` (a key of :data:`grader.i18n.messages.MESSAGES`
        and its slots; in English here, every writer shows it in its own language)."""
        key, slots = flag
        text = lmsnames.reason(key, ("en",), **slots)
        if set_aside:
            text = said("set_aside", why=text, files="; ".join(set_aside))
        result.skipped.append(Skipped(entry_name, text, flags=[*shifted, flag], own=OwnNames(path, tuple(set_aside)),
                                      **who))

    if broke:
        text = f"{entry_name}: {broke}"
        who_failed = Skipped(entry_name, text, flags=[*shifted, ("unreadable", {"why": broke})],
                             own=OwnNames(path, tuple(set_aside)), **who)
        result.failed.append(Failed(unique(base), student_id, entry_name, text, who_failed))
        return
    if ident is not None and ident.plugin == "onlinetext":
        skip(("online_text", {}))
        return
    if path is None:
        skip(("no_work", {"files": files_wanted(parts)}))
        return
    if path.is_file() and path.suffix.lower() not in (".zip", ".ipynb"):
        skip(("not_a_submission", {}))
        return
    target, extra = _work_in(path, assignment.id if assignment else "") if path.is_dir() else (path, [])
    set_aside += [said("another_zip_same_upload", name=name) for name in extra]
    if _is_empty(target):
        skip(("empty", {}))
        return
    try:
        sub = load_submission(target, assignment)
    except Exception as exc:  # noqa: BLE001 - the containment rule: one entry fails alone
        shown = entry_name if target == path else f"{entry_name}/{target.name}"

        def as_in_export(text: str) -> str:
            """``text`` naming the entry as the export does, not the folder it was unpacked to."""
            text = text.replace(str(target), shown)
            return text.replace(f"{root}{os.sep}", "").replace(f"{staging}{os.sep}", "")

        text = (as_in_export(str(exc)) if isinstance(exc, SubmissionError)
                else said("cannot_read_2", why=as_in_export(f"{type(exc).__name__}: {exc}")))
        who_failed = Skipped(entry_name, text, flags=[*shifted, ("unreadable", {"why": text})],
                             own=OwnNames(path, tuple(set_aside)), **who)
        result.failed.append(Failed(unique(base), student_id, entry_name, text, who_failed))
        return
    if not sub.modules and sub.answers is None:
        skip(("no_work", {"files": files_wanted(parts)}))
        return
    name = unique(base)
    notes = list(sub.notes)
    if name != base:
        notes.append(said("another_entry_batch_also", base=f"{base!r}", name=f"{name!r}"))
    if encoding != "utf-8":
        notes.append(said("name_has_no_utf_2" if doubtful else "name_has_no_utf", entry=f"{entry_name!r}",
                          encoding=encoding))
    flags: list[tuple[str, dict[str, str]]] = list(shifted)
    if set_aside:  # the student's report says which of their uploads were not graded
        notes.append(said("set_aside_not_graded", files="; ".join(set_aside)))
    missing = _missing_files(sub, parts)
    if missing:
        flags.append(("missing", {"files": ", ".join(missing)}))
    sub = replace(sub, name=name, notes=tuple(notes))
    result.found.append(Found(sub, entry=entry_name, flags=flags, own=OwnNames(path, tuple(set_aside)), **who))


def _flag_shared_ids(result: Discovery) -> None:
    """Two entries that claim one student id: both are flagged, neither is trusted."""
    claims: dict[str, list[Found | Skipped]] = {}
    items: list[Found | Skipped] = [*result.found, *result.skipped, *(f.who for f in result.failed)]
    for item in items:
        # (plain folders too: "álice" written NFC and NFD is one id twice)
        if not any(key in ("online_text", "symlink") for key, _ in item.flags):
            claims.setdefault(item.student_id, []).append(item)
    for student_id, items in claims.items():
        if len(items) > 1:
            listed = ", ".join(i.entry for i in items)
            for item in items:
                item.flags.insert(0, ("duplicate_id", {"id": student_id, "entries": listed}))


