"""The batch's ledger of hand adjustments: ``OUTDIR/ledger.jsonl``, appended to, never rewritten.

Each line is one JSON object, one event:

==========  =======================================================================================
``n``       its line number (1, 2, ...)
``op``      ``adjust`` (a change to a score), ``undo`` (takes back adjustment ``target``) or
            ``confirm`` (adjustment ``target`` holds against the automatic score as it is now)
``submission`` / ``student``   whose score: the report's name, and the LMS id when there is one
``part``    the part adjusted, or null for the total
``points`` / ``set``           a change of ``±points``, or the score ``set`` outright
``reason``, ``by``, ``at``      why, who (``--by``, else the login name), when (UTC, ISO 8601)
``against`` the automatic score it was made against (the part's, or the total before the late
            policy): when that has changed since (a fixed test, a changed rubric), the adjustment
            is shown as *needs review*, and stays applied until it is confirmed or undone
``prev``    SHA-256 of the line before it (64 zeros for the first)
``push``    only in a ``push`` line (``grader push``, with ``submission`` ""): the platform, its url,
            course and assignment, and per student (by LMS id) the state, the score and the hash of
            the comment written, and the platform's answer
``note``    only in a line of ``grader review``: ``comment`` (a comment on lines of the student's
            code: ``file``, ``start``, ``end``, ``hash`` of those lines, ``lines`` as they were,
            ``text``), ``review`` (a group's member reviewed, the score standing: ``group``) or
            ``reveal`` (a blind review's pseudonym revealed: ``pseudonym``); an ``undo`` may take
            back a comment. None of them moves a score
==========  =======================================================================================

:class:`LedgerLine` names a line's fields as a plain dict, as :func:`append` takes them and
:meth:`Entry.line` writes them. ``OUTDIR/ledger.head`` holds the last line's number and hash and
the line itself; it is written before the line is appended, so it never lags the chain: a line
it does not hold is refused, and an append cut short is finished from it (and said).
:func:`read` checks the whole chain and raises :class:`LedgerError` naming the first line that
does not hold, or cannot be read (not UTF-8, not an entry, cut short); every command that reads
the ledger goes through it.

The chain has no key: it finds any change, reordering, insertion or deletion of lines made
without writing every later line and the head again, and nothing more (whoever can write
``OUTDIR`` can do that); ``grader ledger --verify`` says so, and the README.

Every append, and every writer of reports and gradebooks from the ledger (batch, ``--resume``,
regrade, adjust, publish), holds the folder's lock (:func:`locked`, ``OUTDIR/ledger.lock``) and
reads the ledger under it when it writes: two commands at once take turns, and an adjustment
made while another command runs is in what that command writes. Every view (report,
gradebooks, export) is computed from the automatic report plus the ledger by :func:`apply`,
which first takes off what an earlier run applied: applying twice changes nothing.

Example::

    append(out, op="adjust", submission="alice", part=None, points=2.0, reason="regrade request")
    data = apply(report.to_dict(), for_submission(read(out), "alice"), rubric)
"""

from __future__ import annotations

import getpass
import hashlib
import json
import math
import os
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from grader.errors import UsageError
from grader.i18n.messages import said

if TYPE_CHECKING:
    from typing_extensions import Unpack  # (typing's own from Python 3.11)

    from grader.report.model import AppliedLine, CommentLine, GradeReport, ReportDict
    from grader.spec.rubric.model import Rubric

__all__ = ["Entry", "LedgerError", "LedgerLine", "append", "apply", "apply_report", "automatic_of", "for_submission",
           "head", "locked", "read", "review_of", "states", "verify"]

LEDGER = "ledger.jsonl"
HEAD = "ledger.head"
GENESIS = "0" * 64
OPS = ("adjust", "undo", "confirm", "push", "comment", "review", "reveal")


class _LedgerLineCore(TypedDict):
    op: str
    submission: str


class LedgerLine(_LedgerLineCore, total=False):
    """One event of the ledger as plain data: what :func:`append` is given (it adds ``n`` and
    ``prev``, and ``at`` and ``by`` when not given); each is a field of :class:`Entry`."""

    student: str
    part: str | None
    points: float | None
    set: float | None
    target: int | None
    reason: str
    by: str
    at: str
    against: float | None
    push: dict[str, Any] | None
    note: dict[str, Any] | None


class LedgerError(UsageError):
    """The ledger's chain is broken (an edited, reordered or deleted line): nothing reads it."""


@dataclass(frozen=True)
class Entry:
    """One line of the ledger."""

    n: int
    op: str
    submission: str
    student: str = ""
    part: str | None = None
    points: float | None = None
    set: float | None = None
    target: int | None = None
    reason: str = ""
    by: str = ""
    at: str = ""
    against: float | None = None
    prev: str = GENESIS
    #: a push into an LMS (``op`` ``push``): where, and each student's state, value and the answer
    push: dict[str, Any] | None = None
    #: a reviewer's comment, review or reveal (``grader review``): what it says (the module docstring)
    note: dict[str, Any] | None = None

    def line(self) -> str:
        fields = asdict(self)
        for extra in ("push", "note"):
            if fields[extra] is None:  # (an adjustment's line stays as it always was)
                del fields[extra]
        return json.dumps(fields, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _hash(line: str) -> str:
    return hashlib.sha256(line.encode("utf-8")).hexdigest()


def _path(outdir: Path) -> Path:
    return Path(outdir) / LEDGER


def _broken(outdir: Path, n: int, why: str) -> LedgerError:
    return LedgerError(said("line_ledger_refused_until", path=_path(outdir), n=n, why=why))


LOCK = "ledger.lock"
#: how long a command waits for the folder's lock before it says who holds it (seconds)
NOTICE_AFTER = 3.0
#: the folders this process holds the lock of (resolved path -> how deep), and the lock file each
_held: dict[str, tuple[int, int]] = {}
_guard = threading.RLock()


def _forget_locks() -> None:
    """In a child just forked: its copies of the lock files' descriptors closed, so that the
    folder's lock ends with the process that took it, never kept by a worker it started."""
    for _, fd in _held.values():
        if fd >= 0:
            try:
                os.close(fd)
            except OSError:
                pass
    _held.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_locks)


def _note(text: str) -> None:
    """A line on the terminal (standard error) in the language of ``GRADER_LANG`` (else English)."""
    from grader.i18n.messages import translate
    from grader.sinks import terminal

    lang = os.environ.get("GRADER_LANG", "en")
    print(terminal(translate(text, lang)), file=sys.stderr, flush=True)


def _holder(fd: int) -> str:
    """What the lock file says of the process holding it: ``pid command since``, as it wrote it."""
    try:
        raw = os.pread(fd, 4096, 0)
    except OSError:
        raw = b""
    text = raw.decode("utf-8", "replace").strip()
    return text or said("ledger_lock_holder_unknown")


@contextmanager
def locked(outdir: Path, *, shared: bool = False) -> Iterator[None]:
    """The output folder's lock (``OUTDIR/ledger.lock``, :func:`fcntl.flock`), held for the block:
    every append to the ledger and every writer of reports and gradebooks from it holds it, so
    two commands never interleave. Re-entrant within a process (its threads take turns).

    A command that cannot have it waits; after :data:`NOTICE_AFTER` seconds it says who holds it
    (the pid, the command and since when, which the holder writes into the lock file). Where
    the folder cannot be written (nobody can append then) or the system has no ``flock``, the
    block runs without it. ``shared``: only to read (:func:`read`); readers share the lock, write
    nothing into its file, and wait for a writer as a writer waits for them.
    """
    key = os.path.realpath(outdir)
    with _guard:
        depth, fd = _held.get(key, (0, -1))
        if depth:
            _held[key] = (depth + 1, fd)
        else:
            fd = _acquire(Path(outdir), shared=shared)
            _held[key] = (1, fd)
        try:
            yield
        finally:
            depth, fd = _held[key]
            if depth > 1:
                _held[key] = (depth - 1, fd)
            else:
                del _held[key]
                if fd >= 0:
                    os.close(fd)  # (closing it releases the lock)


def _acquire(outdir: Path, *, shared: bool = False) -> int:
    """The lock file's descriptor, locked; -1 when there is no lock to take (see :func:`locked`)."""
    try:
        import fcntl
    except ImportError:  # (Windows)
        return -1
    try:
        fd = os.open(outdir / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        return -1
    started, told = time.monotonic(), False
    try:
        while True:
            try:
                fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not told and time.monotonic() - started >= NOTICE_AFTER:
                    told = True
                    _note(said("ledger_lock_waiting", path=outdir / LOCK, holder=_holder(fd)))
                time.sleep(0.05)
    except OSError:  # (a file system without locks)
        os.close(fd)
        return -1
    except BaseException:  # (Ctrl-C while waiting)
        os.close(fd)
        raise
    if shared:  # a reader: the file keeps naming the last writer (a dry run writes nothing into OUT)
        if told:
            _note(said("ledger_lock_taken", path=outdir / LOCK))
        return fd
    # the command's name only: its arguments may name a student (a blind batch's folder keeps no name)
    command = " ".join(["grader", *sys.argv[1:2]])[:100].replace("\n", " ")
    since = datetime.now(timezone.utc).isoformat(timespec="seconds")
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}: {command} (since {since})\n".encode("utf-8", "replace"), 0)
    except OSError:
        pass
    if told:
        _note(said("ledger_lock_taken", path=outdir / LOCK))
    return fd


#: each field's types, as a line of the ledger may hold them (a bool is no number here)
_TYPES: dict[str, tuple[type, ...]] = {
    "n": (int,), "op": (str,), "submission": (str,), "student": (str,), "part": (str, type(None)),
    "points": (int, float, type(None)), "set": (int, float, type(None)), "target": (int, type(None)),
    "reason": (str,), "by": (str,), "at": (str,), "against": (int, float, type(None)), "prev": (str,),
    "note": (dict, type(None))}


def _entry(outdir: Path, n: int, text: str) -> Entry:
    try:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise TypeError("not an object")
        entry = Entry(**data)
    except (ValueError, TypeError) as exc:
        raise _broken(outdir, n, said("ledger_entry", kind=type(exc).__name__)) from None
    except RecursionError:  # JSON nested deeper than the parser goes: no ledger line is
        raise _broken(outdir, n, said("ledger_entry_nested")) from None
    for name, kinds in _TYPES.items():
        value = data.get(name, getattr(entry, name))
        if isinstance(value, bool) or not isinstance(value, kinds) or (
                isinstance(value, float) and not math.isfinite(value)):
            raise _broken(outdir, n, said("ledger_entry_field", field=name))
    if entry.op not in OPS:
        raise _broken(outdir, n, said("ledger_entry_op_n"))
    return entry


def read(outdir: Path) -> list[Entry]:
    """Every entry, after checking the chain and the head (under the folder's lock, :func:`locked`).

    Raises:
        LedgerError: naming the first line that was edited, reordered, inserted or deleted, or that
            cannot be read at all (not UTF-8, not a ledger entry, cut short).
    """
    with locked(outdir, shared=True):
        if not _cut_short(outdir):
            return _chain(outdir)[0]
    with locked(outdir):  # an append cut short is finished (written) by one reader at a time
        return _chain(outdir)[0]


def _cut_short(outdir: Path) -> bool:
    """Whether the ledger ends in a line cut short, or holds fewer lines than its head records."""
    path = _path(outdir)
    raw = path.read_bytes() if path.exists() else b""
    recorded = _head(outdir)
    return (bool(raw) and not raw.endswith(b"\n")) or (recorded is not None and recorded[0] > raw.count(b"\n"))


def _lines(outdir: Path, raw: bytes) -> tuple[list[str], bytes]:
    """The ledger's complete lines as text, and what follows the last end of line (a line cut short)."""
    pieces = raw.split(b"\n")
    tail = pieces.pop()
    lines = []
    for i, piece in enumerate(pieces, 1):
        try:
            lines.append(piece.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise _broken(outdir, i, said("ledger_not_utf8", col=exc.start + 1)) from None
    return lines, tail


def _finish_append(outdir: Path, lines: list[str], tail: bytes, recorded: tuple[int, str, str | None] | None,
                   prev: str) -> bool:
    """Whether an append cut short (``ledger.head`` holds the line, the ledger lacks it or ends in a
    part of it) was finished here: the line ``ledger.head`` holds is written in full after the
    complete ones. Only a line that continues the chain, numbered next, is finished."""
    if recorded is None:
        return False
    n, digest, text = recorded
    if text is None or n != len(lines) + 1 or _hash(text) != digest:
        return False
    if not text.encode("utf-8").startswith(tail):
        return False
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return False
    if not isinstance(data, dict) or data.get("n") != n or data.get("prev") != prev:
        return False
    path = _path(outdir)
    size = path.stat().st_size if path.exists() else 0
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        os.ftruncate(fd, size - len(tail))
        os.lseek(fd, 0, os.SEEK_END)
        os.write(fd, (text + "\n").encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    _note(said("ledger_append_finished", path=path, n=n))
    return True


def _chain(outdir: Path) -> tuple[list[Entry], str]:
    """The entries and the hash of the last line (as written), after every check; the caller
    holds the folder's lock."""
    path = _path(outdir)
    recorded = _head(outdir)
    if not path.exists() and (recorded is None or recorded[0] != 1):
        if recorded is not None:
            raise _broken(outdir, 1, said("missing_ledger_head_records_2"))
        return [], GENESIS
    raw = path.read_bytes() if path.exists() else b""
    lines, tail = _lines(outdir, raw)
    prev = GENESIS
    for _ in range(2):  # the second time, after finishing an append cut short
        entries: list[Entry] = []
        prev = GENESIS
        for i, text in enumerate(lines, 1):
            entry = _entry(outdir, i, text)
            if entry.prev != prev:
                # line i holds the hash of the line before it: that one changed, or i moved
                raise _broken(outdir, max(1, i - 1) if i > 1 else 1,
                              said("does_match_hash_line", i=i)
                              if i > 1 else said("does_start_chain_edited"))
            if entry.n != i:
                raise _broken(outdir, i, said("numbered_lines_were_reordered", m=entry.n))
            entries.append(entry)
            prev = _hash(text)
        if not _finish_append(outdir, lines, tail, recorded, prev):
            break
        lines, tail = _lines(outdir, path.read_bytes())
    if tail:
        raise _broken(outdir, len(lines) + 1, said("ledger_line_cut_short"))
    if recorded is not None:
        n, digest, _ = recorded
        if n > len(entries):
            raise _broken(outdir, len(entries) + 1, said("missing_ledger_head_records", n=n, m=len(entries)))
        if n < len(entries):
            raise _broken(outdir, n + 1, said("recorded_ledger_head_lines", n=n))
        if digest != prev:
            raise _broken(outdir, n, said("does_match_hash_ledger"))
    elif entries:
        raise _broken(outdir, len(entries), said("ledger_head_missing"))
    return entries, prev


def head(outdir: Path) -> tuple[int, str] | None:
    """``(lines, hash of the last)`` from ``ledger.head``, or None when there is none."""
    recorded = _head(outdir)
    return None if recorded is None else recorded[:2]


def _head(outdir: Path) -> tuple[int, str, str | None] | None:
    """``(lines, hash of the last, the last line itself or None)`` from ``ledger.head``.

    ``ledger.head`` is ``<lines> <hash>`` and, on its second line, the last line as it was
    appended (heads written before it held only the first line)."""
    try:
        first, _, rest = (Path(outdir) / HEAD).read_bytes().decode("utf-8").partition("\n")
        n, digest = first.split()
        text = rest[:-1] if rest.endswith("\n") else None
        if not n.isdigit() or len(digest) != 64:
            raise ValueError(first)
        return int(n), digest, text
    except FileNotFoundError:
        return None
    except (ValueError, OSError):
        raise _broken(outdir, 1, said("ledger_head_lines_hash")) from None


def verify(outdir: Path) -> int:
    """The number of entries, after :func:`read` checked them."""
    return len(read(outdir))


def who() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def append(outdir: Path, **fields: Unpack[LedgerLine]) -> Entry:
    """Add one entry (after checking the chain so far, under the folder's lock); returns it as written.

    ``ledger.head`` is written first, holding the new line itself, then the line is appended: an
    append cut short between the two is finished by the next reader (:func:`read`), and a line the
    head does not hold is refused; the head never lags the chain."""
    from grader.report.files import write_atomic

    with locked(outdir):
        entries, prev = _chain(outdir)
        path = _path(outdir)
        fields.setdefault("at", datetime.now(timezone.utc).isoformat(timespec="seconds"))
        fields["by"] = fields.get("by") or who()
        entry = Entry(n=len(entries) + 1, prev=prev, **fields)
        text = entry.line()
        write_atomic(Path(outdir) / HEAD, f"{entry.n} {_hash(text)}\n{text}\n")
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, (text + "\n").encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
        return entry


def for_submission(entries: Sequence[Entry], submission: str) -> list[Entry]:
    """The adjustments and comments standing for ``submission``, in order: undone ones left out,
    each adjustment carrying the ``against`` of its latest confirmation."""
    mine = [e for e in entries if e.submission == submission]
    undone = {e.target for e in mine if e.op == "undo"}
    rebased = {e.target: e.against for e in mine if e.op == "confirm"}
    out = []
    for e in mine:
        if e.op == "adjust" and e.n not in undone:
            out.append(Entry(**{**asdict(e), "against": rebased.get(e.n, e.against)}))
        elif e.op == "comment" and e.n not in undone and isinstance(e.note, dict):
            out.append(e)  # (a reviewer's comment on lines: the reports show it, no score moves)
    return _items_once(out)


def _items_once(entries: list[Entry]) -> list[Entry]:
    """A manual rubric item (``grader review``: an adjustment whose ``note`` names an ``item``) counts
    once, at its latest line, for the points that line says the item gives now (``note.points``);
    an ``off`` line takes the item back. So ticking, unticking and changing an item's points never
    depend on the order of the clamps in between."""
    latest: dict[str, int] = {}
    for e in entries:
        if e.op == "adjust" and isinstance(e.note, dict) and isinstance(e.note.get("item"), str):
            latest[e.note["item"]] = e.n
    out = []
    for e in entries:
        item = e.note.get("item") if e.op == "adjust" and isinstance(e.note, dict) else None
        if not isinstance(item, str):
            out.append(e)
        elif latest[item] == e.n and not e.note.get("off"):  # type: ignore[union-attr]
            value = e.note.get("points")  # type: ignore[union-attr]
            points = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else e.points
            out.append(Entry(**{**asdict(e), "points": points}))
    return out


def automatic_of(data: ReportDict, part: str | None) -> float | None:
    """What an adjustment of ``part`` (None: the total) is made against, in a report's dict:
    the part's score, or the total before the late policy. None: no such part."""
    if part is None:
        late = data.get("late") or {}
        return float(late.get("score_before", data["score"]))
    for p in data.get("parts", []):
        if p["id"] == part:
            return float(p["score"])
    return None


def _same(a: float | None, b: float | None) -> bool:
    return a is not None and b is not None and abs(a - b) < 1e-9


def apply(data: ReportDict, entries: Sequence[Entry], rubric: Rubric) -> ReportDict:
    """The report's dict with ``entries`` (one submission's, :func:`for_submission`) applied.

    A reviewer's comments among ``entries`` (``grader review``) become ``comments``: file, lines,
    the lines as they were, the text, who and when. ``score`` becomes the final score, and an adjusted part's ``score`` that part's final score;
    ``adjustment`` keeps the automatic score (and each adjusted part's), the change and each entry
    with its status: ``applied``, or ``review`` when the automatic score it was made against has
    changed since. An entry that needs review stays applied (a score set stays set, points stay
    given) until the instructor confirms or undoes it: no score moves without a person deciding.
    Whatever an earlier call applied is taken off first.
    """
    old = data.pop("adjustment", None)
    if old:
        data["score"], data["passed"] = old["automatic_score"], old["automatic_passed"]
        parts_before = old.get("automatic_parts") or {}
        if parts_before:
            data["parts"] = [{**p, "score": parts_before[p["id"]]} if p["id"] in parts_before else p
                             for p in data.get("parts", [])]
    data.pop("comments", None)
    shown_notes: list[CommentLine] = [
        {"n": e.n, "file": str(n.get("file", "")), "start": int(n.get("start", 0)), "end": int(n.get("end", 0)),
         "lines": [str(x) for x in n.get("lines") or []], "text": str(n.get("text", "")), "by": e.by, "at": e.at}
        for e, n in ((e, e.note) for e in entries if e.op == "comment" and isinstance(e.note, dict))]
    if shown_notes:
        data["comments"] = shown_notes
    entries = [e for e in entries if e.op == "adjust"]
    if not entries:
        return data
    auto, top = float(data["score"]), float(data["max_score"])
    rounding = int(getattr(getattr(rubric, "report", None), "rounding", 2))
    score = auto
    shown: list[AppliedLine] = []
    parts_now: dict[str, float] = {}  # each part's score after the entries so far
    for e in entries:
        now = automatic_of(data, e.part)
        status = "applied" if _same(now, e.against) else "review"
        before = score
        if now is not None:  # (a part the rubric no longer has: nothing to apply it to)
            if e.part is None:
                score = min(max(float(e.set), 0.0), top) if e.set is not None else score + float(e.points or 0.0)
            else:  # a part moves within its own 0..maximum, from where earlier entries left it
                part_max = next(float(p["max_score"]) for p in data["parts"] if p["id"] == e.part)
                current = parts_now.get(e.part, float(now))
                wanted = float(e.set) if e.set is not None else current + float(e.points or 0.0)
                parts_now[e.part] = round(min(max(wanted, 0.0), part_max), rounding)
                score += parts_now[e.part] - current
            score = round(min(max(score, 0.0), top), rounding)
        shown.append({"n": e.n, "part": e.part, "points": e.points, "set": e.set, "reason": e.reason,
                      "by": e.by, "at": e.at, "against": e.against, "now": now, "status": status,
                      "delta": round(score - before, 6)})
    mark = float(data.get("pass_mark", 0.0))
    data["adjustment"] = {"automatic_score": auto, "automatic_passed": bool(data.get("passed", False)),
                          "score": score, "delta": round(score - auto, 6), "entries": shown}
    if parts_now:  # each adjusted part's own score, in every view; its automatic score kept to undo it
        data["adjustment"]["automatic_parts"] = {p["id"]: float(p["score"]) for p in data.get("parts", [])
                                                 if p["id"] in parts_now}
        data["parts"] = [{**p, "score": parts_now[p["id"]]} if p["id"] in parts_now else p
                         for p in data.get("parts", [])]
    data["score"] = score
    data["passed"] = top > 0 and score * 100.0 >= mark * top
    return data


def review_of(data: ReportDict) -> list[AppliedLine]:
    """The entries applied to a report's dict that need review (made against another automatic score)."""
    return [e for e in (data.get("adjustment") or {}).get("entries", []) if e.get("status") == "review"]


def states(entries: Sequence[Entry], review: set[int]) -> dict[int, str]:
    """Each line's state, by its number: an adjustment is ``undone``, ``review`` (its number in
    ``review``: the reports show it needs review), ``confirmed`` or ``applied``; an undo or a
    confirmation is ``recorded``."""
    undone = {e.target for e in entries if e.op == "undo"}
    confirmed = {e.target for e in entries if e.op == "confirm"}
    out = {}
    for e in entries:
        if e.op != "adjust":
            out[e.n] = "recorded"
        elif e.n in undone:
            out[e.n] = "undone"
        elif e.n in review:
            out[e.n] = "review"
        else:
            out[e.n] = "confirmed" if e.n in confirmed else "applied"
    return out


def apply_report(report: GradeReport, entries: Sequence[Entry], rubric: Rubric) -> GradeReport:
    """:func:`apply` on a report object."""
    from grader.report.model import GradeReport as Report

    return Report.from_dict(apply(report.to_dict(), entries, rubric))
