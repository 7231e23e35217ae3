"""Stage 1 of ``grader batch``: find the submissions in a folder or an LMS export zip.

:func:`find_submissions` looks at the entries directly under the source (an LMS export zip is
unpacked first, safely), skips OS junk, reads each student's entry with
:func:`grader.submission.load_submission` and lists anything else with a reason. Student ids
and names come from the Moodle / Canvas / Blackboard entry names (:mod:`grader.lms`).

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
from typing import TYPE_CHECKING, Any, NamedTuple

from grader.errors import SubmissionError, UsageError
from grader.outdir import name_aliases
from grader.submission import load_submission

if TYPE_CHECKING:
    from grader.assignment import Assignment
    from grader.submission import Submission

#: Names an OS or a tool leaves next to real files; never submissions, never listed.
JUNK = frozenset({"__MACOSX", ".DS_Store", "__pycache__", "Thumbs.db", "desktop.ini", ".ipynb_checkpoints"})
EXPORT_MAX_BYTES = 2 * 1024**3
EXPORT_MAX_MEMBERS = 50_000


@dataclass
class Found:
    """One entry of the source that is a submission."""

    submission: Any  # grader.submission.Submission (name made unique within the batch)
    student_id: str
    entry: str  # the name as found in the folder or export
    name: str = ""  # the student's name as the LMS wrote it (NFC); "" when it gives none
    late: bool = False  # the LMS flagged the upload as late (Canvas)
    lms: str = ""  # moodle | canvas | blackboard | "" (a plain folder)
    #: plain reasons for the gradebook's errors column: (key of grader.lms.REASONS, slots)
    flags: list[tuple[str, dict[str, str]]] = field(default_factory=list)


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

    @property
    def unrecognised(self) -> list[tuple[str, str]]:
        """(entry, why) of every entry that is not graded."""
        return [(s.entry, s.why) for s in self.skipped]


def student_id_of(entry: str, *, is_dir: bool | None = None) -> str:
    """The student id an LMS export encodes in an entry's name, else the name's stem.

    Only the part of the name the LMS pattern fixes is read (see :mod:`grader.lms`).

    >>> student_id_of("Taro Yamada_12345_assignsubmission_file_")
    '12345'
    >>> student_id_of("yamadataro_12345_67890_chapter07.zip")
    '12345'
    >>> student_id_of("alice.zip")
    'alice'
    """
    from grader.lms import lms_name, nfc

    folder = entry.endswith("_") if is_dir is None else is_dir
    parsed = lms_name(entry, is_dir=folder) or (None if folder else lms_name(entry, is_dir=True))
    if parsed is not None:
        return parsed.student_id
    stem = nfc(entry)
    for suffix in (".zip", ".ipynb"):
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
    return stem


def _is_junk(name: str) -> bool:
    return name in JUNK or name.startswith(".") or name.startswith("._")


def unpack_export(archive: Path, dest: Path) -> Path:
    """Unpack an LMS export zip into ``dest``, refusing names that leave it; returns the root.

    Only the outer archive is unpacked: a student's own zip inside it stays a zip and is read
    in memory by :func:`grader.submission.load_submission`, with its caps.
    """
    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError) as exc:
        raise UsageError(f"{archive}: not a readable zip file ({exc})") from None
    with zf:
        infos = zf.infolist()
        if len(infos) > EXPORT_MAX_MEMBERS or sum(i.file_size for i in infos) > EXPORT_MAX_BYTES:
            raise UsageError(f"{archive}: the export is too large to unpack (over {EXPORT_MAX_MEMBERS}"
                             f" entries or {EXPORT_MAX_BYTES // 1024**3} GiB)")
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        for info in infos:
            name = info.filename.replace("\\", "/")
            parts = [p for p in PurePosixPath(name).parts if p not in ("", ".")]
            if (name.startswith("/") or ".." in parts or re.match(r"[A-Za-z]:", name)
                    or not parts or any(_is_junk(p) for p in parts)):
                continue
            if (info.external_attr >> 16) & 0o170000 == 0o120000:  # a symbolic link
                continue
            target = dest.joinpath(*parts)
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
    return _unwrap(dest)


def _unwrap(root: Path) -> Path:
    """Step into a lone wrapper folder (``Assignment 7-1234/``) that is not itself a submission."""
    from grader.lms import lms_name

    while True:
        entries = [e for e in root.iterdir() if not _is_junk(e.name)]
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
    return ", ".join((parts or {}).values()) or "the assignment's .py files"


def _work_in(folder: Path, assignment: str = "") -> tuple[Path, list[str]]:
    """What to load for a student's folder: the folder, or the one zip it holds.

    A Moodle student who uploaded ``<assignment>.zip`` (or a notebook) has a folder holding
    only that: the zip is the submission; with several, one named after the assignment is
    preferred, then the newest. Returns the path and the files set aside.
    """
    files = [f for f in sorted(folder.iterdir()) if not _is_junk(f.name)]
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
                           if not _is_junk(f.name))
        if path.stat().st_size == 0:
            return True
        if path.suffix.lower() == ".zip" and zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as zf:
                return not any(i.file_size > 0 and not i.is_dir() for i in zf.infolist())
    except (OSError, zipfile.BadZipFile):
        return False
    return False


def _missing_files(sub: Submission, parts: dict[str, str] | None = None) -> list[str]:
    from grader.submission import ANSWERS_FILE

    if sub.kind != "folder":
        return []
    missing = [f for part, f in (parts or {}).items()
               if not any(m.name == part for m in sub.modules)]
    return missing + ([] if sub.answers is not None else [ANSWERS_FILE])


def find_submissions(source: str | os.PathLike[str], staging: Path | None = None,
                     assignment: Assignment | None = None) -> Discovery:
    """Every submission directly under ``source`` (a folder, or an LMS export zip).

    Args:
        source: the folder or export.
        staging: where to unpack an export and regroup the loose files of a flat export
            (``OUTDIR/.sources`` is passed by :func:`grader.batch.run_batch`).
        assignment: what is graded: its part files make a submission, a zip named after it
            is preferred, and a folder with both the .py files and the notebook is graded as
            what the student changed from the handout. Without it, every ``.py`` file counts.
    """
    from grader import lms as lmsnames

    parts = assignment.part_files if assignment is not None else None

    src = Path(source)
    staging = staging or Path(".grader-sources")
    if src.is_file() and src.suffix.lower() == ".zip":
        root = unpack_export(src, staging / "export")
    elif src.is_dir():
        root = src
    else:
        raise UsageError(f"{src}: not a folder of submissions nor an LMS export zip")
    result = Discovery()
    kind = lmsnames.detect(root)
    students, grouped = lmsnames.group_flat_files(root, staging / "lms", kind)
    # (entry, path to read or None, identity, files set aside)
    candidates: list[tuple[str, Path | None, lmsnames.LmsName | None, list[str]]] = []
    symlinks: list[str] = []
    for st in students:
        grouped_ident = lmsnames.LmsName(st.lms, st.student_id, st.name, late=st.late,
                                         other_ids=tuple(sorted(st.other_ids)))
        candidates.append((st.entries[0], st.folder, grouped_ident, list(st.set_aside)))
    for entry in sorted(root.iterdir()):
        if _is_junk(entry.name) or entry.name in grouped:
            continue
        if entry.is_symlink():  # it could point at anything the instructor can read
            symlinks.append(lmsnames.nfc(entry.name))
            continue
        if entry.resolve() in (staging.resolve(), staging.parent.resolve()):
            continue  # our own output folder inside the source
        ident = lmsnames.lms_name(entry.name, is_dir=entry.is_dir(), lms=kind) if kind else None
        candidates.append((lmsnames.nfc(entry.name), entry, ident, []))
    names: set[str] = set()

    def unique(wanted: str) -> str:
        """A report name no other entry has, case aside, whose files no other entry's
        files coincide with (:func:`grader.outdir.name_aliases`)."""
        name, n = wanted, 2
        while name.casefold() in names:
            name, n = f"{wanted}-{n}", n + 1
        names.update(name_aliases(name))
        return name

    for entry_name, path, ident, set_aside in sorted(candidates, key=lambda c: c[0]):
        student_id = ident.student_id if ident else student_id_of(entry_name, is_dir=bool(path and path.is_dir()))
        who: dict[str, Any] = {"student_id": student_id, "name": ident.name if ident else "",
               "late": ident.late if ident else False, "lms": ident.lms if ident else ""}

        shifted: list[tuple[str, dict[str, str]]] = []
        if ident is not None and ident.other_ids:
            shifted.append(("ambiguous_id", {"id": student_id, "others": ", ".join(ident.other_ids)}))

        def skip(key: str, **slots: str) -> None:
            """Not graded, with the plain reason of :data:`grader.lms.REASONS` (in English here;
            every writer shows it in its own language)."""
            said = lmsnames.reason(key, ("en",), **slots)
            if set_aside:
                said += "; set aside: " + "; ".join(set_aside)
            result.skipped.append(Skipped(entry_name, said, flags=[*shifted, (key, slots)], **who))

        if ident is not None and ident.plugin == "onlinetext":
            skip("online_text")
            continue
        if path is None:
            skip("no_work", files=files_wanted(parts))
            continue
        if path.is_file() and path.suffix.lower() not in (".zip", ".ipynb"):
            skip("not_a_submission")
            continue
        target, extra = _work_in(path, assignment.id if assignment else "") if path.is_dir() else (path, [])
        set_aside += [f"{name} (another zip in the same upload)" for name in extra]
        if _is_empty(target):
            skip("empty")
            continue
        stem = entry_name
        for suffix in (".zip", ".ipynb"):
            if stem.lower().endswith(suffix) and not path.is_dir():
                stem = stem[: -len(suffix)]
        base = lmsnames.disk_name(ident.name, student_id) if ident else lmsnames.disk_name(stem, "")
        try:
            sub = load_submission(target, assignment)
        except Exception as exc:  # noqa: BLE001 - the containment rule: one entry fails alone
            said = str(exc) if isinstance(exc, SubmissionError) else f"cannot read it ({type(exc).__name__}: {exc})"
            said = said.replace(str(target), entry_name if target == path else f"{entry_name}/{target.name}")
            said = said.replace(f"{root}{os.sep}", "").replace(f"{staging}{os.sep}", "")  # as in the export
            who_failed = Skipped(entry_name, said, flags=[*shifted, ("unreadable", {"why": said})], **who)
            result.failed.append(Failed(unique(base), student_id, entry_name, said, who_failed))
            continue
        if not sub.modules and sub.answers is None:
            skip("no_work", files=files_wanted(parts))
            continue
        name = unique(base)
        notes = list(sub.notes)
        if name != base:
            notes.append(f"another entry of the batch is also named {base!r}; this one's reports are named {name!r}")
        flags: list[tuple[str, dict[str, str]]] = list(shifted)
        if set_aside:  # the student's report says which of their uploads were not graded
            notes.append("set aside (not graded): " + "; ".join(set_aside))
        missing = _missing_files(sub, parts)
        if missing:
            flags.append(("missing", {"files": ", ".join(missing)}))
        sub = replace(sub, name=name, notes=tuple(notes))
        result.found.append(Found(sub, entry=entry_name, flags=flags, **who))
    for entry_name in symlinks:
        who_link = Skipped(entry_name, "a symbolic link; not followed", student_id_of(entry_name),
                           flags=[("symlink", {})])
        result.failed.append(Failed(unique(lmsnames.disk_name(entry_name, "")), who_link.student_id, entry_name,
                                    f"{entry_name}: a symbolic link; not followed (put the files themselves"
                                    " in the folder)", who_link))
    # Online text beside uploaded files (Moodle keeps one folder per plugin) is no second entry.
    graded = {(f.lms, f.student_id) for f in result.found}
    result.skipped = [s for s in result.skipped if not (
        (s.lms, s.student_id) in graded and any(key == "online_text" for key, _ in s.flags))]
    _flag_shared_ids(result)
    return result


def _flag_shared_ids(result: Discovery) -> None:
    """Two entries that claim one student id: both are flagged, neither is trusted."""
    claims: dict[str, list[Found | Skipped]] = {}
    entries: list[Found | Skipped] = [*result.found, *result.skipped, *(f.who for f in result.failed)]
    for item in entries:
        if item.lms and not any(key == "online_text" for key, _ in item.flags):
            claims.setdefault(item.student_id, []).append(item)
    for student_id, items in claims.items():
        if len(items) > 1:
            listed = ", ".join(i.entry for i in items)
            for item in items:
                item.flags.insert(0, ("duplicate_id", {"id": student_id, "entries": listed}))


