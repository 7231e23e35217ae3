"""``grader pull SRC_DIR --from canvas``: the submissions of one assignment, into the folder ``grader batch`` reads.

Each student's latest attempt is written as Canvas's own "Download Submissions" zip names its
files (``ContentZipper``, read back by :mod:`grader.ingest.lms`):
``<sortable name>[_LATE]_<user id>_<attachment id>_<file name>``, an online text entry as
``<sortable name>[_LATE]_<user id>_text.html``. Beside them, in ``SRC_DIR/.pull/`` (a dot folder,
which ``grader batch`` does not read as a submission):

==============  ==========================================================================================
submitted.csv   ``student,submitted``: each student's Canvas user id and submission time, for
                ``grader batch SRC_DIR --submitted SRC_DIR/.pull/submitted.csv`` (lateness measured
                by the rubric's ``due:`` and ``--extensions``, never by Canvas's flag alone)
students.csv    every user of the assignment the pull saw: Canvas id, name, state (``new``, ``changed``,
                ``unchanged``, ``not_submitted``, ``refused``, ``set_aside``, ``failed``), attempt, time,
                files, reason
canvas.json     what this folder holds, for the next pull: the Canvas, course and assignment, and each
                student's attempt, ``submitted_at`` and files
==============  ==========================================================================================

Who is pulled is read from the course's enrollments, by Canvas user id (never by name): a
student (``StudentEnrollment``, active, invited or completed) is pulled; the test student
(``StudentViewEnrollment``), a withdrawn student (inactive, deleted, rejected), staff and anyone
not enrolled are refused, each with the reason. A student whose files an earlier pull wrote and
who is now refused has those files moved to ``SRC_DIR/.pull/set-aside/<id>/``, not deleted.

A second pull downloads only the students whose attempt, submission time or files changed
(their earlier files are replaced); the others are ``unchanged``. A pull cut off (Ctrl-C, a kill)
is finished by running it again: what it had not recorded is downloaded again, over itself. A file name a student chose is
kept as Canvas keeps it, without ``/``, ``\\``, control characters and the characters Windows
refuses, and shortened (:func:`grader.ingest.lms.fit_name`); every file is written whole or not
at all.

Example::

    result = pull_canvas(Path("src"), CanvasPlatform(url, course, assignment, transport), lang="en")
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from grader.errors import UsageError
from grader.i18n.messages import say, said
from grader.ingest.discovery import PULL_DIR
from grader.ingest.lms import fit_name
from grader.lms.transport import TokenRefused
from grader.report.files import write_atomic

__all__ = ["FILE_MAX", "STATE_DIR", "PullResult", "Pulled", "Source", "canvas_file_name", "classify", "pull_canvas"]

#: the largest file a pull downloads (bytes); a larger one is refused for that student
FILE_MAX = 100 * 1024**2
#: the folder in SRC_DIR the pull writes its own files into (a batch of SRC_DIR passes it by)
STATE_DIR = PULL_DIR
#: the states of a student in a pull, as the code names them
STATES = ("new", "changed", "unchanged", "not_submitted", "refused", "set_aside", "failed")

_STUDENT_STATES = ("active", "invited", "creation_pending", "completed")


class Source(Protocol):
    """An LMS assignment a pull reads (:class:`grader.lms.canvas.CanvasPlatform`)."""

    name: str

    def target(self) -> dict[str, str]: ...

    def enrollments(self) -> list[dict[str, Any]]: ...

    def submissions(self) -> list[dict[str, Any]]: ...

    def download(self, url: str, limit: int) -> bytes: ...


@dataclass
class Pulled:
    """One user of the assignment, as this pull left them."""

    key: str
    name: str
    state: str
    attempt: str = ""
    submitted_at: str = ""
    files: list[str] = field(default_factory=list)
    reason: str = ""


@dataclass
class PullResult:
    folder: Path
    students: list[Pulled]

    def count(self, state: str) -> int:
        return sum(1 for s in self.students if s.state == state)

    @property
    def failed(self) -> bool:
        return any(s.state == "failed" for s in self.students)


def canvas_file_name(sortable_name: str, key: str, attachment: str, display_name: str, *, late: bool) -> str:
    """The name Canvas's ContentZipper gives an attachment: the sortable name lower-cased with its
    ``_<digits>_`` runs joined and non-word characters dropped, ``LATE`` where late, the user id,
    the attachment id, then the file's display name without the characters a file system refuses
    (``attachment == "text"``: the online text entry, ``…_text.html``)."""
    parts = [re.sub(r"_(\d+)_", r"\1", sortable_name).lower()] if sortable_name else []
    parts += ["LATE"] if late else []
    prefix = re.sub(r"[^\w]", "", "_".join([*parts, key]))
    if attachment == "text":
        return fit_name(f"{prefix}_text.html")
    shown = re.sub(r'[\x00-\x1f\x7f/\\:*?"<>|]+', "_", display_name).strip() or "file"
    return fit_name(f"{prefix}_{attachment}_{shown}")


def classify(enrollments: Sequence[dict[str, Any]]) -> dict[str, tuple[str, str]]:
    """Each user id's standing in the course, from all their enrollments (a user may hold several):
    ``(standing, what)``, standing one of student, test, withdrawn (what: the states) and staff
    (what: the types)."""
    kinds: dict[str, list[tuple[str, str]]] = {}
    for e in enrollments:
        if e.get("user_id") is not None:
            kinds.setdefault(str(e["user_id"]), []).append((str(e.get("type", "")), str(e.get("enrollment_state", ""))))
    out: dict[str, tuple[str, str]] = {}
    for key, held in kinds.items():
        if any(k == "StudentEnrollment" and s in _STUDENT_STATES for k, s in held):
            out[key] = ("student", "")
        elif any(k == "StudentViewEnrollment" for k, _ in held):
            out[key] = ("test", "")
        elif any(k == "StudentEnrollment" for k, _ in held):
            out[key] = ("withdrawn", ", ".join(sorted({s for k, s in held if k == "StudentEnrollment"})))
        else:
            out[key] = ("staff", ", ".join(sorted({k for k, _ in held})))
    return out


def _refusal(standing: tuple[str, str], lang: str) -> str:
    """Why a user who is not a student of the course is not pulled."""
    kind, what = standing
    if kind == "test":
        return say("pull_test_student", lang)
    if kind == "withdrawn":
        return say("pull_withdrawn", lang, what=what)
    if kind == "staff":
        return say("pull_not_student", lang, what=what)
    if kind == "student":
        return say("pull_not_listed", lang)
    return say("pull_not_enrolled", lang)


def _read_state(folder: Path, target: dict[str, str]) -> dict[str, Any]:
    state_file = folder / STATE_DIR / "canvas.json"
    if not folder.exists():
        return {}
    if not state_file.exists():
        others = [p.name for p in folder.iterdir() if p.name != STATE_DIR]
        if others:
            raise UsageError(said("pull_folder_not_empty", path=folder, example=others[0]))
        return {}
    try:
        state = json.loads(state_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(said("pull_state_unreadable", path=state_file, why=type(exc).__name__)) from None
    if not isinstance(state, dict) or not isinstance(state.get("students"), dict):
        raise UsageError(said("pull_state_unreadable", path=state_file, why="students"))
    held = state.get("target") or {}
    if any(str(held.get(k, "")) != v for k, v in target.items()):
        raise UsageError(said("pull_other_course", path=folder, course=held.get("course", "?"),
                              assignment=held.get("assignment", "?")))
    return state


def _own_file(folder: Path, name: str) -> Path | None:
    """``folder/name`` for a name an earlier pull recorded, never anything outside ``folder``."""
    if not name or "/" in name or "\\" in name or name in (".", "..") or name.startswith("."):
        return None
    return folder / name


def _attachments(sub: dict[str, Any]) -> list[dict[str, Any]]:
    """The attachments of a submission (an id that is not a number, which no Canvas gives, is left out:
    it would not read back as Canvas's name)."""
    return [a for a in (sub.get("attachments") or []) if isinstance(a, dict) and str(a.get("id", "")).isdigit()]


def _signature(sub: dict[str, Any]) -> dict[str, Any]:
    return {"attempt": sub.get("attempt"), "submitted_at": sub.get("submitted_at"),
            "attachments": sorted(str(a["id"]) for a in _attachments(sub)),
            "text": bool(sub.get("body")) and not _attachments(sub)}


def pull_canvas(folder: Path, source: Source, *, lang: str, limit: int = FILE_MAX) -> PullResult:
    """Pull the assignment's submissions into ``folder`` (see the module's docstring).

    Raises:
        UsageError: the folder holds files no pull wrote, or a pull of another assignment; Canvas
            refused to list the course (:class:`grader.lms.platform.PlatformRefused`). Nothing was
            written then.
    """
    target = source.target()
    state = _read_state(folder, target)
    before: dict[str, Any] = state.get("students", {})
    enrollments = source.enrollments()
    standing = classify(enrollments)
    submissions = source.submissions()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / STATE_DIR).mkdir(exist_ok=True)
    if not state:  # claimed before the first file is written: a pull cut off is this folder's to finish
        write_atomic(folder / STATE_DIR / "canvas.json", json.dumps({"target": target, "students": {}}) + "\n")
    kept: dict[str, Any] = {}
    pulled: list[Pulled] = []
    seen: set[str] = set()
    stopped = ""  #: why no further file is downloaded (the token refused midway)
    # (Canvas's user ids are numbers, which the file names carry: anything else is left out)
    listed = [s for s in submissions if str(s.get("user_id", "")).isdigit()]
    for sub in sorted(listed, key=lambda s: int(s["user_id"])):
        key = str(sub["user_id"])
        seen.add(key)
        given = sub.get("user")
        user: dict[str, Any] = given if isinstance(given, dict) else {}
        name = str(user.get("name") or "")
        line = Pulled(key, name, "", str(sub.get("attempt") or ""), str(sub.get("submitted_at") or ""))
        pulled.append(line)
        who = standing.get(key, ("none", ""))
        submitted = bool(_attachments(sub) or sub.get("body")) and sub.get("submitted_at") is not None
        if who[0] != "student":
            line.state, line.reason = "refused", _refusal(who, lang)
            _set_aside(folder, key, before.get(key), line, lang)
            continue
        if not submitted:
            line.state = "not_submitted"
            _set_aside(folder, key, before.get(key), line, lang)
            continue
        sign = _signature(sub)
        old = before.get(key)
        if old is not None and old.get("sign") == sign and all(
                (p := _own_file(folder, f)) is not None and p.exists() for f in old.get("files", [])):
            line.state, line.files = "unchanged", list(old.get("files", []))
            kept[key] = old
            continue
        try:
            if stopped:
                raise UsageError(stopped)
            files = _download(folder, sub, user, key, source, limit)
        except UsageError as exc:  # one student's file refused: the others go on, nothing half-written
            line.state, line.reason = "failed", str(exc)
            if old is not None:
                kept[key] = old  # the earlier attempt's files stay, and are fetched again next time
            continue
        except TokenRefused as exc:  # the token expired midway: no further download is tried
            stopped = line.reason = str(exc)
            line.state = "failed"
            if old is not None:
                kept[key] = old
            continue
        for f in (old or {}).get("files", []):
            p = _own_file(folder, f)
            if p is not None and f not in files and p.exists():
                p.unlink()
        line.state, line.files = ("changed" if old is not None else "new"), files
        kept[key] = {"sign": sign, "files": files, "name": name, "submitted_at": sub.get("submitted_at")}
    names = {str(e.get("user_id")): str((e.get("user") or {}).get("name") or "") for e in enrollments
             if isinstance(e.get("user"), dict)}
    for key, (kind, _what) in sorted(standing.items()):  # withdrawn, never pulled: said, not silent
        if kind == "withdrawn" and key not in seen and key not in before:
            pulled.append(Pulled(key, names.get(key, ""), "refused", reason=_refusal(standing[key], lang)))
    for key, old in before.items():  # pulled before, and no longer listed (withdrawn since)
        if key not in seen:
            line = Pulled(key, str(old.get("name", "")), "refused",
                          reason=_refusal(standing.get(key, ("none", "")), lang))
            _set_aside(folder, key, old, line, lang)
            pulled.append(line)
    pulled.sort(key=lambda s: (len(s.key), s.key))  # by Canvas id, as a number
    _write_records(folder, target, kept, pulled)
    return PullResult(folder, pulled)


def _download(folder: Path, sub: dict[str, Any], user: dict[str, Any], key: str, source: Source,
              limit: int) -> list[str]:
    """Every file of ``sub``'s latest attempt, written whole; their names. Nothing is written if one fails."""
    from grader.lms.transport import Failed

    sortable = str(user.get("sortable_name") or user.get("name") or "")
    late = bool(sub.get("late"))
    blobs: list[tuple[str, bytes]] = []
    attachments = _attachments(sub)
    if not attachments:
        blobs.append((canvas_file_name(sortable, key, "text", "", late=late), str(sub.get("body") or "").encode()))
    for a in attachments:
        url = str(a.get("url") or "")
        shown = str(a.get("display_name") or a.get("filename") or "")
        if not url:
            raise UsageError(said("pull_no_url", file=shown))
        try:
            blobs.append((canvas_file_name(sortable, key, str(a["id"]), shown, late=late), source.download(url, limit)))
        except TokenRefused:
            raise
        except Failed as exc:
            raise UsageError(str(exc)) from None
    names = []
    for name, data in blobs:
        _write_bytes(folder / name, data, folder / STATE_DIR)
        names.append(name)
    return names


def _write_bytes(path: Path, data: bytes, scratch: Path) -> None:
    """``data`` into ``path`` whole, through a temporary file in ``scratch`` (the pull's own record
    folder, which no batch grades, so a pull killed mid-file leaves no stray entry) and a rename."""
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=".part.", dir=scratch)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _set_aside(folder: Path, key: str, old: dict[str, Any] | None, line: Pulled, lang: str) -> None:
    """Move the files an earlier pull wrote for ``key`` to ``.pull/set-aside/<key>/`` (none are deleted)."""
    files = [p for f in (old or {}).get("files", []) if (p := _own_file(folder, f)) is not None and p.exists()]
    if not files:
        return
    aside = folder / STATE_DIR / "set-aside" / re.sub(r"\W", "_", key)
    aside.mkdir(parents=True, exist_ok=True)
    for p in files:
        shutil.move(str(p), str(aside / p.name))
    line.reason += say("pull_set_aside", lang, n=len(files), path=aside.relative_to(folder))
    if line.state != "refused":
        line.state = "set_aside"


def _write_records(folder: Path, target: dict[str, str], kept: dict[str, Any], pulled: list[Pulled]) -> None:
    state_dir = folder / STATE_DIR
    times = io.StringIO()
    writer = csv.writer(times, lineterminator="\n")
    writer.writerow(["student", "submitted"])
    for key, record in sorted(kept.items(), key=lambda x: int(x[0]) if x[0].isdigit() else 0):
        if record.get("submitted_at"):
            writer.writerow([key, record["submitted_at"]])
    write_atomic(state_dir / "submitted.csv", times.getvalue())
    table = io.StringIO()
    writer = csv.writer(table, lineterminator="\n")
    writer.writerow(["lms_id", "name", "state", "attempt", "submitted_at", "files", "reason"])
    for s in pulled:
        writer.writerow([s.key, _cell(s.name), s.state, s.attempt, s.submitted_at, " ".join(s.files), _cell(s.reason)])
    write_atomic(state_dir / "students.csv", table.getvalue())
    write_atomic(state_dir / "canvas.json", json.dumps({"target": target, "students": kept}, ensure_ascii=False,
                                                         indent=1, sort_keys=True) + "\n")
    os.chmod(state_dir / "students.csv", 0o600)  # it names the students


def _cell(text: str) -> str:
    """A CSV cell a spreadsheet will not run: a leading ``= + - @`` quoted with ``'``."""
    text = re.sub(r"[\x00-\x1f\x7f]", " ", text)
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text
