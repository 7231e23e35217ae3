"""How Moodle, Canvas and Blackboard name the files of a bulk download, read back.

Each LMS writes the student's identity into the entry names of its export zip. This module
takes it back out, only from the part of the name the LMS itself fixes, so a student who
chooses a display name or a file name cannot make it say someone else's id:

==========  ==================================================================================
Moodle      folder ``<full name>_<participant id>_assignsubmission_file_/<file>`` (or flat:
            ``…_assignsubmission_file_<file>``). Moodle turns ``_`` in the full name into a
            space, so in a folder name the id is the number just before the fixed suffix, and
            in a flat name the number after the first ``_``.
Canvas      ``<sortable name>[_LATE]_<user id>_<attachment id>_<file name>``; the name is
            lower-cased, stripped of non-word characters and of ``_<digits>_`` runs, so the
            first ``_<digits>_<digits>_`` is the ids. A file uploaded again under the same name
            is called ``<stem>-1.<ext>``, ``-2``…; a larger attachment id is a later upload.
Blackboard  ``<assignment>_<username>_attempt_<YYYY-MM-DD-HH-MM-SS>_<file>`` plus one
            ``….txt`` per attempt (``Name: <full name> (<username>)``, ``Files:`` with each
            ``Original filename:`` / ``Filename:`` pair). The latest attempt counts.
==========  ==================================================================================

Example::

    lms_name("山田 太郎_123458_assignsubmission_file_", is_dir=True)
    # LmsName(lms='moodle', student_id='123458', name='山田 太郎', ...)
"""

from __future__ import annotations

import binascii
import hashlib
import re
import shutil
import struct
import unicodedata
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from grader.i18n.messages import say
from grader.i18n.messages import said

__all__ = ["NAME_MAX_BYTES", "LmsName", "MemberName", "Student", "detect", "disk_name", "fit_name",
           "group_flat_files", "lms_name", "member_name", "reason"]

#: The longest name (one path component, in UTF-8 bytes) the grader writes: file systems allow
#: 255, and a report adds a suffix such as ``.results.json``.
NAME_MAX_BYTES = 200

_MOODLE_FOLDER = re.compile(r"^(?P<name>.*)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z]+)_$", re.S)
_MOODLE_FLAT = re.compile(r"^(?P<name>[^_]*)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<file>.+)$", re.S)
_MOODLE_MARK = re.compile(r"_\d+_assignsubmission_[a-z]+_")
_CANVAS = re.compile(
    r"^(?:(?P<name>.*?)_)??(?:(?P<late>LATE)_)?(?P<id>\d+|anon_[A-Za-z0-9]+)_(?P<att>\d+)_(?P<file>.+)$", re.S
)
_CANVAS_TEXT = re.compile(r"^(?:(?P<name>.*?)_)??(?:(?P<late>LATE)_)?(?P<id>\d+|anon_[A-Za-z0-9]+)_(?P<kind>text|link)\.html$",
                          re.S)
_BLACKBOARD = re.compile(
    r"^(?P<assignment>.+?)_(?P<id>[^_]+)_attempt_(?P<when>\d{4}(?:-\d{2}){5})(?:_(?P<file>.+)|(?P<txt>\.txt))$",
    re.S,
)
_BB_NAME = re.compile(r"^Name: (?P<name>.*) \((?P<id>[^()\n]*)\)\s*$", re.M)
_BB_FILES = re.compile(r"Original filename: (?P<original>[^\n]+)\n\s*Filename: (?P<stored>[^\n]+)")
_REUPLOAD = re.compile(r"^(?P<stem>.+?)-(?P<n>\d+)(?P<ext>\.[A-Za-z0-9]+)$")
#: files a flat export may hold for one student (the rest are listed as set aside)
_WANTED = (".py", ".yaml", ".yml", ".ipynb", ".zip")


def nfc(text: str) -> str:
    """Unicode NFC: macOS unzip tools hand back names decomposed (NFD)."""
    return unicodedata.normalize("NFC", text)


@dataclass(frozen=True)
class LmsName:
    """What an LMS entry name says: whose it is, and (flat exports) which file it was."""

    lms: str  # moodle | canvas | blackboard
    student_id: str
    name: str  # display name as the LMS wrote it, NFC; "" when it gives none
    late: bool = False
    file: str = ""  # flat exports: the file's own name after the LMS prefix
    order: tuple[int | str, ...] = ()  # larger = uploaded later (attachment id, attempt time)
    plugin: str = "file"  # Moodle: file | onlinetext | …
    #: other ids the same name could be read as (Canvas: a name ending in _<digits> and a file
    #: name starting <digits>_ shift the split); such an entry is flagged, never exported
    other_ids: tuple[str, ...] = ()
    attempted: str = ""  # Blackboard: the graded attempt's time (see :class:`Student`)


LMS = ("moodle", "canvas", "blackboard")


def lms_name(entry: str, *, is_dir: bool, lms: str | None = None) -> LmsName | None:
    """Parse one entry of an export; None when no LMS pattern fits it.

    ``lms`` restricts the patterns to one LMS (see :func:`detect`): a student's own file
    name may look like another LMS's pattern, never like the whole export's.
    """
    entry = nfc(entry)
    if is_dir:
        m = _MOODLE_FOLDER.match(entry) if lms in (None, "moodle") else None
        if m:
            return LmsName("moodle", m["id"], _moodle_display(m["name"]), plugin=m["plugin"])
        return None
    m = _MOODLE_FLAT.match(entry) if lms in (None, "moodle") else None
    if m and not _MOODLE_MARK.search("_" + m["file"]):
        return LmsName("moodle", m["id"], _moodle_display(m["name"]), file=m["file"], plugin=m["plugin"])
    m = _BLACKBOARD.match(entry) if lms in (None, "blackboard") else None
    if m:
        return LmsName("blackboard", m["id"], "", file=m["file"] or "", order=(m["when"],),
                       plugin="metadata" if m["txt"] else "file")
    m = _CANVAS.match(entry) if lms in (None, "canvas") else None
    if m:
        shifted = (m["att"],) if re.match(r"\d+_.", m["file"]) else ()
        return LmsName("canvas", m["id"], m["name"] or "", late=bool(m["late"]), file=m["file"],
                       order=(int(m["att"]),), other_ids=shifted)
    m = _CANVAS_TEXT.match(entry) if lms in (None, "canvas") else None
    if m:  # a text entry or a URL, not files
        return LmsName("canvas", m["id"], m["name"] or "", late=bool(m["late"]), plugin="onlinetext")
    return None


def detect(root: Path) -> str | None:
    """Which LMS wrote the export in ``root``: the one whose pattern most entries fit."""
    votes = dict.fromkeys(LMS, 0)
    for entry in root.iterdir():
        for lms in LMS:
            if lms_name(entry.name, is_dir=entry.is_dir(), lms=lms) is not None:
                votes[lms] += 1
                break
    best = max(LMS, key=lambda k: votes[k])
    return best if votes[best] else None


def _moodle_display(name: str) -> str:
    return name.strip() or name


#: the longest report name, in UTF-8 bytes (the longest report suffix still fits in 255)
DISK_NAME_BYTES = 160


def disk_name(name: str, student_id: str) -> str:
    """A file-system-safe, Unicode-keeping name that still carries the id: ``山田_太郎_123458``.

    A long name is cut (at most :data:`DISK_NAME_BYTES` bytes), never the id after it.
    """
    def safe(text: str) -> str:
        return re.sub(r"[^\w.-]+", "_", nfc(text)).strip("._")

    tail = safe(student_id)
    head = safe(name) if name and name != student_id else ""
    if not head or not tail:
        return _cut(head or tail, DISK_NAME_BYTES).rstrip("._") or "submission"
    room = DISK_NAME_BYTES - len(tail.encode()) - 1
    if room < 16:  # an id that long is cut itself, with a digest keeping it apart
        return fit_name(f"{head}_{tail}", DISK_NAME_BYTES)
    return f"{_cut(head, room).rstrip('._') or 'x'}_{tail}"


def _cut(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes, at a character boundary."""
    data = text.encode("utf-8")
    return text if len(data) <= limit else data[:max(0, limit)].decode("utf-8", "ignore")


def _digest(text: str) -> str:
    return "~" + hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:8]


def _short_file(file: str, limit: int) -> str:
    """A file name cut to ``limit`` bytes keeping its extension."""
    stem, dot, ext = file.rpartition(".")
    if not dot or len(ext) > 16:
        stem, ext = file, ""
    tail = ("." + ext) if ext else ""
    return _cut(stem, max(1, limit - len(tail.encode()))) + tail


def fit_name(component: str, limit: int = NAME_MAX_BYTES) -> str:
    """One name of an export, shortened to ``limit`` bytes the same way every time, keeping
    the part the LMS fixes (ids, the Moodle suffix, the Canvas attachment id) whole.

    The display name (and a flat export's file name, its extension kept) is cut and a digest
    of the whole name is added, so two long names stay two names.

    >>> fit_name("x" * 300 + "_123458_assignsubmission_file_").endswith("_123458_assignsubmission_file_")
    True
    """
    if len(component.encode("utf-8", "surrogateescape")) <= limit:
        return component
    tag = _digest(component)

    def joined(name: str, fixed: str, file: str = "") -> str:
        room = limit - len(fixed.encode()) - len(tag.encode())
        if file:
            file_room = max(24, room - min(len(name.encode()), room // 2))
            file = _short_file(file, file_room)
            room -= len(file.encode())
        return _cut(name, max(0, room)) + tag + fixed + file

    m = _MOODLE_FOLDER.match(component)
    if m:
        return joined(m["name"], component[m.end("name"):])
    m = _MOODLE_FLAT.match(component)
    if m:
        return joined(m["name"], component[m.end("name"):m.start("file")], m["file"])
    m = _BLACKBOARD.match(component)
    if m and m["file"]:
        return joined(m["assignment"], component[m.end("assignment"):m.start("file")], m["file"])
    m = _CANVAS.match(component)
    if m and m["name"]:
        return joined(m["name"], component[m.end("name"):m.start("file")], m["file"])
    if m:
        return _cut(component[:m.start("file")], limit // 2) + _short_file(
            m["file"], limit - len(_cut(component[:m.start("file")], limit // 2).encode()) - len(tag)) + tag
    stem, dot, ext = component.rpartition(".")
    if dot and 0 < len(ext) <= 16:
        return _cut(stem, limit - len(tag.encode()) - len(ext.encode()) - 1) + tag + "." + ext
    return _cut(component, limit - len(tag.encode())) + tag


# --------------------------------------------------------------------------- names in any zip

_UTF8_FLAG = 0x800
_UNICODE_PATH = 0x7075  # Info-ZIP's "Unicode Path" extra field


@dataclass(frozen=True)
class MemberName:
    """A zip member's name as the platform that wrote it meant it."""

    name: str
    encoding: str  # utf-8 | cp932 | cp437
    doubtful: bool = False  # no encoding reads it cleanly: the name may be garbled


def _unicode_path(info: zipfile.ZipInfo, raw: bytes) -> str | None:
    extra = info.extra or b""
    i = 0
    while i + 4 <= len(extra):
        kind, size = struct.unpack("<HH", extra[i:i + 4])
        body = extra[i + 4:i + 4 + size]
        if kind == _UNICODE_PATH and len(body) >= 5 and body[0] == 1:
            (crc,) = struct.unpack("<L", body[1:5])
            if crc == binascii.crc32(raw) & 0xFFFFFFFF:
                try:
                    return body[5:].decode("utf-8")
                except UnicodeDecodeError:
                    return None
        i += 4 + size
    return None


def _plausible(text: str) -> bool:
    """No control characters, no half-width katakana: what a Japanese Windows name looks like."""
    return not any(unicodedata.category(c).startswith("C") or "\uff61" <= c <= "\uff9f" for c in text)


def member_name(info: zipfile.ZipInfo) -> MemberName:
    """The name of ``info`` as the platform that wrote the zip meant it.

    With the UTF-8 flag (or Info-ZIP's Unicode Path field) the name is UTF-8. Without it, the
    bytes are the writer's own encoding: UTF-8 on Linux and macOS (Info-ZIP, most tools), cp932
    on Japanese Windows (Explorer's "send to compressed folder"), cp437 in the zip standard. The
    first that reads the bytes cleanly is used; a name only cp437 reads is ``doubtful``.
    """
    if info.flag_bits & _UTF8_FLAG:
        return MemberName(info.orig_filename, "utf-8")
    raw = info.orig_filename.encode("cp437")  # zipfile read the bytes as cp437: undo it exactly
    unicode_path = _unicode_path(info, raw)
    if unicode_path is not None:
        return MemberName(unicode_path, "utf-8")
    if raw.isascii():
        return MemberName(raw.decode("ascii"), "utf-8")
    try:
        return MemberName(raw.decode("utf-8"), "utf-8")
    except UnicodeDecodeError:
        pass
    try:
        text = raw.decode("cp932")
    except UnicodeDecodeError:
        pass
    else:
        if _plausible(text):
            return MemberName(text, "cp932")
    return MemberName(raw.decode("cp437"), "cp437", doubtful=True)


# --------------------------------------------------------------------------- flat exports


@dataclass
class Student:
    """One student's files in a flat export, regrouped into a folder of their own."""

    lms: str
    student_id: str
    name: str
    late: bool = False
    other_ids: set[str] = field(default_factory=set)
    #: Blackboard: the graded attempt's time as the export names it (``2026-11-30-23-05-23``,
    #: the server's wall clock, no zone); "" elsewhere
    attempted: str = ""
    folder: Path | None = None
    entries: list[str] = field(default_factory=list)  # export entries used
    set_aside: list[str] = field(default_factory=list)  # older uploads of the same file, etc.
    error: str = ""  # why the files could not be put together (the entry fails alone)


def _reupload(filename: str) -> tuple[str, int]:
    """``scaling-2.py`` -> (``scaling.py``, 2): Canvas's suffix for a file uploaded again."""
    m = _REUPLOAD.match(filename)
    if m:
        return m["stem"] + m["ext"], int(m["n"])
    return filename, 0


def _blackboard_metadata(path: Path) -> tuple[str, str, dict[str, str]]:
    """(username, full name, stored -> original file name) from one attempt's ``.txt``."""
    try:
        text = path.read_bytes()[: 1 << 20].decode("utf-8", "replace").replace("\r\n", "\n")
    except OSError:
        return "", "", {}
    m = _BB_NAME.search(text)
    files = {f["stored"].strip(): f["original"].strip() for f in _BB_FILES.finditer(text)}
    return (m["id"].strip(), nfc(m["name"].strip()), files) if m else ("", "", files)


def group_flat_files(root: Path, staging: Path, lms: str | None,
                     originals: dict[str, str] | None = None) -> tuple[list[Student], set[str]]:
    """Regroup the loose files of a Canvas, Blackboard or flat Moodle export per student.

    For each file name a student uploaded, the latest upload is kept (Canvas: the largest
    attachment id, then the largest ``-N``; Blackboard: the latest attempt); the others are
    listed in ``set_aside``. Returns the students and the export entries they account for.
    ``originals`` maps a name shortened on unpacking to the name in the export (read instead).
    """
    originals = originals or {}
    # Keyed by the name too: two people whose names claim one id stay two entries (and are
    # flagged), never one folder mixing their files.
    candidates: dict[tuple[str, str, str], list[tuple[LmsName, Path]]] = {}
    for entry in sorted(root.iterdir()):
        if not entry.is_file() or entry.is_symlink():
            continue
        parsed = lms_name(originals.get(entry.name, entry.name), is_dir=False, lms=lms) if lms else None
        if parsed is None or parsed.plugin == "onlinetext":
            continue
        candidates.setdefault((parsed.lms, parsed.student_id, parsed.name), []).append((parsed, entry))
    students: list[Student] = []
    used: set[str] = set()
    staged: set[str] = set()
    for (lms, student_id, _), items in sorted(candidates.items()):
        student = Student(lms, student_id, "")
        names: dict[str, str] = {}
        used.update(path.name for _, path in items)
        if lms == "blackboard":
            items = _latest_attempt(items, student)
            for parsed, path in items:
                if parsed.plugin == "metadata":
                    who, full, stored = _blackboard_metadata(path)
                    names.update(stored)
                    if who == student_id and full:
                        student.name = full
        chosen: dict[str, tuple[tuple[tuple[int | str, ...], int], LmsName, Path]] = {}
        for parsed, path in items:
            used.add(path.name)
            student.entries.append(path.name)
            if parsed.plugin == "metadata":
                continue
            original = names.get(path.name, parsed.file)
            target, again = _reupload(original) if lms == "canvas" else (original, 0)
            if not target.lower().endswith(_WANTED):
                student.set_aside.append(f"{path.name} (not a file the grader reads)")
                continue
            student.late = student.late or parsed.late
            student.other_ids.update(parsed.other_ids)
            if lms == "canvas" and parsed.name:
                student.name = parsed.name
            elif lms == "moodle" and parsed.name:
                student.name = parsed.name
            rank = (parsed.order, again)
            if target in chosen:
                older, newer = sorted([chosen[target], (rank, parsed, path)], key=lambda c: c[0])
                chosen[target] = newer
                student.set_aside.append(f"{older[2].name} (an older upload of {target})")
            else:
                chosen[target] = (rank, parsed, path)
        if not chosen:
            students.append(student)
            continue
        folder = staging / disk_name(student.name, f"{lms}-{student_id}")
        while folder.exists() and folder.name in staged:
            folder = folder.with_name(folder.name + "+")
        staged.add(folder.name)
        try:
            if folder.exists():
                shutil.rmtree(folder)
            folder.mkdir(parents=True)
            for target, (_, _, path) in chosen.items():
                shutil.copyfile(path, folder / fit_name(Path(target).name))
            student.folder = folder
        except OSError as exc:  # the ingest rule: this student's entry fails alone
            student.error = said("files_could_put_together", why=exc.strerror or exc)
        students.append(student)
    return students, used


def _latest_attempt(items: list[tuple[LmsName, Path]], student: Student) -> list[tuple[LmsName, Path]]:
    attempts = sorted({p.order for p, _ in items})
    latest = attempts[-1]
    student.attempted = str(latest[0]) if latest else ""
    for parsed, path in items:
        if parsed.order != latest:
            student.set_aside.append(f"{path.name} (an earlier attempt, {parsed.order[0]})")
    return [(p, path) for p, path in items if p.order == latest]


# --------------------------------------------------------------------------- plain reasons

def reason(key: str, langs: tuple[str, ...] | list[str], **slots: str) -> str:
    """One plain reason in the rubric's languages, Japanese first when both: ``ja / en``."""
    texts = [say(key, lang, **slots) for lang in langs if lang in ("en", "ja")]
    return " / ".join(dict.fromkeys(texts)) or say(key, "en", **slots)
