"""The two levels of a folder on disk or a zip in memory that a submission uses, read-only.

A :class:`Tree` lists files and subfolders and reads a file with a size cap; nothing is
extracted, imported or followed. :class:`FolderTree` opens every folder and file below the one
the user named relative to its parent's descriptor, never through a link; :class:`ZipTree`
reads a zip's members in memory and refuses unsafe names, zips over the caps and duplicate
entries. The readers of single files (:func:`read_py`, :func:`read_answers`) decode them the way
Python and a text editor would, and note what they could not use.

Example::

    tree = FolderTree(Path("submissions/alice"))
    files, folders = tree.listdir("")
    module = read_py(tree, "part1", "part1.py", files["part1.py"], ReadLimits(), notes)
"""

from __future__ import annotations

import errno
import io
import os
import re
import stat
import tokenize
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from grader.errors import SubmissionError
from grader.i18n.messages import said
from grader.ingest.submission.model import ANSWERS_FILE, MiB, Chunk, Module, ReadLimits

__all__ = [
    "Entry",
    "FolderTree",
    "Tree",
    "Unreadable",
    "ZipTree",
    "decode_text",
    "normalise_newlines",
    "open_given",
    "open_zip",
    "read_answers",
    "read_fd",
    "read_py",
    "size_text",
    "too_big_notebook",
]

_ZIP_LESS = said("zip_only_py_files")
_SYMLINK = said("symbolic_link_file")
_NOT_FILE = said("regular_file")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
#: Whether files can be opened relative to a folder's descriptor (not on Windows).
_DIR_FDS = os.open in os.supports_dir_fd and hasattr(os, "O_DIRECTORY") and bool(_NOFOLLOW)
# Tools add these next to the real files; they are never part of the work.
_JUNK_DIRS = frozenset({"__MACOSX", "__pycache__", ".ipynb_checkpoints", ".git"})
_JUNK_FILES = frozenset({".DS_Store", "Thumbs.db", "desktop.ini"})


@dataclass(frozen=True, slots=True)
class Entry:
    name: str
    rel: str
    size: int
    problem: str = ""  # why it cannot be read, e.g. a symbolic link


class Tree:
    """The two levels of a folder or zip that submissions use, read-only."""

    notes: tuple[str, ...] = ()
    inner_zips: list[str]  # zips inside a zip; a folder never fills it

    def listdir(self, rel: str) -> tuple[dict[str, Entry], list[str]]:
        """Files (by name) and non-junk subfolder paths directly under ``rel``."""
        raise NotImplementedError

    def read(self, entry: Entry, cap: int) -> bytes:
        """At most ``cap + 1`` bytes of the entry, so callers can tell it is too big."""
        raise NotImplementedError

    def describe(self, entry: Entry) -> str:
        raise NotImplementedError


class Unreadable(Exception):
    """A listed file that is no longer a regular file when opened (a link or FIFO swapped in)."""


def _open_file(name: str, dir_fd: int | None, path: Path) -> int:
    """A descriptor of regular file ``name`` in the folder ``dir_fd``, never following a link.

    Opened with ``O_NOFOLLOW`` (a link gives ``ELOOP``) and ``O_NONBLOCK`` (a FIFO does not
    wait for a writer), then checked on the open descriptor, so nothing swapped in after the
    listing is read. Without descriptors for folders (Windows), ``path`` is checked with
    ``lstat`` and the open file compared with it.

    Raises:
        Unreadable: it is a link or not a regular file.
    """
    flags = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        if dir_fd is not None:
            fd = os.open(name, flags, dir_fd=dir_fd)
        else:
            before = os.lstat(path)
            if stat.S_ISLNK(before.st_mode):
                raise Unreadable(_SYMLINK)
            fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):  # O_NOFOLLOW met a link (EMLINK: BSD)
            raise Unreadable(_SYMLINK) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Unreadable(_NOT_FILE)
        if dir_fd is None and (st.st_dev, st.st_ino) != (before.st_dev, before.st_ino):
            raise Unreadable(_NOT_FILE)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_fd(fd: int, cap: int) -> bytes:
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


class FolderTree(Tree):
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

    def listdir(self, rel: str) -> tuple[dict[str, Entry], list[str]]:
        files: dict[str, Entry] = {}
        dirs: list[str] = []
        where = self.root / rel
        fd = _open_dir(self.fd, rel) if self.fd is not None else None
        try:
            with os.scandir(fd if fd is not None else where) as it:
                for item in it:
                    path = f"{rel}/{item.name}" if rel else item.name
                    if item.is_symlink():
                        # A link could point at the reference solution or the hidden tests.
                        files[item.name] = Entry(item.name, path, 0, _SYMLINK)
                    elif item.is_dir(follow_symlinks=False):
                        if item.name not in _JUNK_DIRS and not item.name.startswith("."):
                            dirs.append(path)
                    elif item.is_file(follow_symlinks=False):
                        size = item.stat(follow_symlinks=False).st_size
                        files[item.name] = Entry(item.name, path, size)
        finally:
            if fd is not None:
                os.close(fd)
        return files, sorted(dirs)

    def read(self, entry: Entry, cap: int) -> bytes:
        folder, _, name = entry.rel.rpartition("/")
        if self.fd is None:
            return read_fd(_open_file(name, None, self.root / entry.rel), cap)
        parent = _open_dir(self.fd, folder)
        try:
            return read_fd(_open_file(name, parent, self.root / entry.rel), cap)
        finally:
            os.close(parent)

    def describe(self, entry: Entry) -> str:
        return str(self.root / entry.rel)


def open_given(given: Path) -> int:
    """The notebook or zip the user named, as a descriptor: its folder is the user's, the file
    itself is opened without following a link (a link swapped in after it was found)."""
    if not _DIR_FDS:
        return _open_file(given.name, None, given)
    parent = os.open(given.parent, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    try:
        return _open_file(given.name, parent, given)
    except Unreadable as exc:
        raise SubmissionError(f"{given}: {exc}") from None
    finally:
        os.close(parent)


def open_zip(path: Path, limits: ReadLimits, handle: BinaryIO | None = None) -> zipfile.ZipFile:
    """``path`` as a zip, read from ``handle`` (an open file of it) when given."""
    size = os.fstat(handle.fileno()).st_size if handle is not None else path.stat().st_size
    if size > limits.max_zip_bytes:
        raise SubmissionError(
            said("zip_over_limit", path=path, size=size_text(size), limit=size_text(limits.max_zip_bytes), fix=_ZIP_LESS)
        )
    try:
        return zipfile.ZipFile(handle if handle is not None else path)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise SubmissionError(
            said("readable_zip_file_create", what=path, why=exc)
        ) from None


class ZipTree(Tree):
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
                said("zip_unpacks_over_limit", path=path, size=size_text(total), limit=size_text(limits.max_zip_bytes), fix=_ZIP_LESS)
            )
        self.members: dict[str, tuple[zipfile.ZipInfo, Entry]] = {}
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
            self.members[rel] = (info, Entry(parts[-1], rel, info.file_size, problem))
            if rel.lower().endswith(".zip"):
                self.inner_zips.append(rel)
        if ignored:
            self.notes = (said("ignored_zip", what=', '.join(sorted(ignored))),)

    def listdir(self, rel: str) -> tuple[dict[str, Entry], list[str]]:
        prefix = f"{rel}/" if rel else ""
        files: dict[str, Entry] = {}
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

    def read(self, entry: Entry, cap: int) -> bytes:
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

    def describe(self, entry: Entry) -> str:
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


# --- sizes, for messages --------------------------------------------------------------


def size_text(n: int) -> str:
    """A byte count for people: ``21 MiB``, ``2.5 KiB``, ``300 bytes``."""
    for unit, scale in (("MiB", MiB), ("KiB", 1024)):
        if n >= scale:
            return f"{n / scale:.1f}".removesuffix(".0") + f" {unit}"
    return f"{n} bytes"


def too_big_notebook(where: str, size: int, limits: ReadLimits) -> str:
    return said("notebook_over_limit", where=where, size=size_text(size), limit=size_text(limits.max_notebook_bytes))


# --- reading files ------------------------------------------------------------------------


def read_py(
    tree: Tree, part: str, filename: str, entry: Entry, limits: ReadLimits, notes: list[str]
) -> Module | None:
    data = _read_small(tree, entry, limits, notes)
    if data is None:
        return None
    code = _decode_source(data, filename, notes)
    return Module(name=part, filename=filename, chunks=(Chunk(code=code, label=filename),))


def read_answers(tree: Tree, entry: Entry, limits: ReadLimits, notes: list[str]) -> str | None:
    data = _read_small(tree, entry, limits, notes)
    return None if data is None else decode_text(data, ANSWERS_FILE, notes)


def _read_small(tree: Tree, entry: Entry, limits: ReadLimits, notes: list[str]) -> bytes | None:
    if entry.problem:
        notes.append(said("skipped", name=entry.name, problem=entry.problem))
        return None
    if entry.size > limits.max_file_bytes:
        notes.append(said("skipped", name=entry.name, problem=said(
            "over_limit_one_file", size=size_text(entry.size), limit=size_text(limits.max_file_bytes))))
        return None
    try:
        data = tree.read(entry, limits.max_file_bytes)
    except Unreadable as exc:  # swapped for a link or a FIFO after the listing
        notes.append(said("skipped", name=entry.name, problem=exc))
        return None
    if len(data) > limits.max_file_bytes:  # the file grew, or a zip header understated it
        notes.append(said("skipped", name=entry.name, problem=said("over_limit", limit=size_text(limits.max_file_bytes))))
        return None
    return data


def normalise_newlines(text: str) -> str:
    # Python's own source reader does the same, so this changes nothing the code can see.
    return text.replace("\r\n", "\n").replace("\r", "\n")


def decode_text(data: bytes, label: str, notes: list[str]) -> str:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("utf-8-sig", errors="replace")
        notes.append(said("valid_utf_8_unreadable", label=label))
    return normalise_newlines(text)


def _decode_source(data: bytes, label: str, notes: list[str]) -> str:
    """Decode Python source as the interpreter would: BOM, then a coding cookie, then UTF-8."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, LookupError):  # a cookie naming no usable codec
        return decode_text(data, label, notes)
    except UnicodeDecodeError:
        try:
            text = data.decode(encoding, errors="replace")
        except Exception:  # noqa: BLE001 - a codec with no "replace" (punycode, idna...)
            notes.append(said("declares_encoding_cannot_read", label=label, encoding=f"{encoding!r}"))
            return decode_text(data, label, notes)
        shown = "UTF-8" if encoding.startswith("utf-8") else encoding
        notes.append(said("valid_unreadable_bytes_were", label=label, encoding=shown))
    except Exception:  # noqa: BLE001 - a codec that fails in its own way (punycode: IndexError...)
        notes.append(said("declares_encoding_cannot_read", label=label, encoding=f"{encoding!r}"))
        return decode_text(data, label, notes)
    return normalise_newlines(text)
