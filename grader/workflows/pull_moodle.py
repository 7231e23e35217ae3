"""``grader pull SRC_DIR --from moodle``: an assignment's submissions, fetched into the folder ``grader batch`` reads.

What is written below ``SRC_DIR``:

====================  ===================================================================================
``submissions/``      one folder per student, named as Moodle's "Download all submissions" names it:
                      ``<full name>_<participant>_assignsubmission_file_/<file>`` (``_`` in the name a
                      space, the characters Moodle's ``clean_filename`` drops dropped), so ``grader
                      batch SRC_DIR/submissions`` reads it as a Moodle download: the participant number is
                      each student's LMS id, as ``grader push --to moodle`` writes by it
``submitted.csv``     ``student,submitted,attempt,user_id``: the participant number, the submission's
                      ``timemodified`` (ISO 8601, UTC), Moodle's attempt number (0: the first) and the
                      user id (none under blind marking, whose folders are named ``Participant``, as
                      Moodle's own download names them); for ``grader batch --submitted``
``extensions.csv``    ``student,due,reason``: each extension granted in Moodle (its user flags'
                      ``extensionduedate``); for ``grader batch --extensions``
``moodle-pull.json``  what the last pull fetched, by participant: the submission, its ``timemodified``
                      and attempt, the folder and files; the next pull asks Moodle only for what changed
                      since (``mod_assign_get_submissions`` with ``since``) and fetches only those
====================  ===================================================================================

Only submissions with the status ``submitted`` are fetched (a draft is counted, not fetched); a
student whose submission changed is fetched whole into a new folder that then replaces the old, so
a pull cut off midway leaves each folder as it was or as it is now, and the next pull fetches the
rest. A student whose files could not be fetched keeps the folder of the last pull and is named
with the reason. Names and file names are the students' own: each path component is cleaned and
kept below ``submissions/``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from grader.errors import UsageError
from grader.i18n.messages import say, said
from grader.ingest.lms import fit_name, nfc
from grader.lms.moodle import Moodle, MoodleError, Student
from grader.outputs.gradebook import csv_text
from grader.report.files import write_atomic

__all__ = ["STATE", "PullResult", "clean_filename", "folder_name", "pull_moodle"]

STATE = "moodle-pull.json"
SUBMISSIONS = "submissions"
#: characters Moodle's clean_filename (PARAM_FILE) drops from a name (lib/moodlelib.php)
_DROPPED = re.compile(r"[\x00-\x1f\x7f&<>\"`|':\\/]")


@dataclass
class PullResult:
    """What one pull did: who was fetched now, how many kept from an earlier pull as they were,
    drafts and students without a participant number (not fetched), who failed and why."""

    folder: Path
    fetched: list[str] = field(default_factory=list)
    unchanged: int = 0
    drafts: int = 0
    unnumbered: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    first: bool = True
    submitted: Path | None = None
    extensions: Path | None = None


def clean_filename(text: str) -> str:
    """``text`` as Moodle's ``clean_filename`` leaves a name: NFC, without the characters it drops."""
    return _DROPPED.sub("", nfc(text)).strip()


def folder_name(fullname: str, participant: str) -> str:
    """The folder Moodle's download gives a student: ``clean_filename(str_replace('_', ' ', name) . '_' . id)``
    with the plug-in's suffix, cut to a length every file system takes (the id and suffix kept)."""
    return fit_name(clean_filename(fullname.replace("_", " ") + f"_{participant}") + "_assignsubmission_file_")


def _safe_parts(filepath: str) -> list[str]:
    """A submission file's path in its file area, as components safe to create below a folder."""
    parts = []
    for part in filepath.replace("\\", "/").split("/"):
        part = clean_filename(part)
        if part and part not in (".", ".."):
            parts.append(fit_name(part))
    return parts or ["file"]


def _load_state(src: Path, url: str, assignment: str) -> dict[str, Any]:
    path = src / STATE
    if not path.exists():
        return {}
    try:
        state: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(said("pull_state_unreadable", path=path, why=type(exc).__name__)) from None
    students = state.get("students") if isinstance(state, dict) else None  # (any JSON may be here)
    if not isinstance(students, dict) or not all(
            isinstance(s, dict) and isinstance(s.get("timemodified"), int) and isinstance(s.get("folder"), str)
            and s["folder"] not in ("", ".", "..") and "/" not in s["folder"] for s in students.values()):
        raise UsageError(said("pull_state_unreadable", path=path, why="students"))
    if (state.get("url"), str(state.get("assignment"))) != (url, assignment):
        raise UsageError(said("pull_other_assignment", path=path, url=state.get("url"),
                              assignment=state.get("assignment")))
    return state


def _iso(stamp: int) -> str:
    return datetime.fromtimestamp(stamp, timezone.utc).isoformat(timespec="seconds")


def _fetch(moodle: Moodle, submission: dict[str, Any], dest: Path) -> list[str]:
    """Every file of the submission's file areas into ``dest``; their paths below it."""
    written: list[str] = []
    for plugin in submission.get("plugins") or []:
        if plugin.get("type") != "file":
            continue
        for area in plugin.get("fileareas") or []:
            for f in area.get("files") or []:
                url = str(f.get("fileurl") or "")
                if not url:
                    continue
                # (Moodle 3.1 on: filepath "/" and filename; before: filepath with the name in it)
                name = str(f.get("filename") or "")
                parts = _safe_parts((str(f.get("filepath") or "/") + name) if name else str(f.get("filepath") or ""))
                target = dest.joinpath(*parts)
                n = 1
                while target.exists():  # two files cleaned to one name: both kept
                    n += 1
                    stem, dot, ext = parts[-1].rpartition(".")
                    target = target.with_name(f"{stem}-{n}.{ext}" if dot else f"{parts[-1]}-{n}")
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(moodle.download(url))
                written.append(target.relative_to(dest).as_posix())
    return written


def pull_moodle(src: Path, moodle: Moodle, assignment: str, *, lang: str = "en") -> PullResult:
    """Fetch the assignment's submissions into ``src`` (see the module's docstring).

    Raises:
        UsageError: ``src`` holds another assignment's pull or a damaged record of one; Moodle
            refuses the token or the reads (:class:`grader.lms.platform.PlatformRefused`).
    """
    src.mkdir(parents=True, exist_ok=True)
    state = _load_state(src, moodle.url, str(assignment))
    info = moodle.assignment(str(assignment))
    students, unnumbered = moodle.students(info)
    flags = moodle.flags(info)
    by_user: dict[str, Student] = {s.userid: s for s in students if s.active}
    known: dict[str, Any] = dict(state.get("students") or {})
    since = int(state.get("since") or 0)
    data = moodle.read("mod_assign_get_submissions", {"assignmentids": [info.id], "since": since})
    listed: list[dict[str, Any]] = []
    for a in (data or {}).get("assignments") or []:
        if str(a.get("assignmentid")) == info.id:
            listed += [s for s in a.get("submissions") or [] if isinstance(s, dict)]
    folder = src / SUBMISSIONS
    folder.mkdir(exist_ok=True)
    stage = src / ".pulling"  # (beside submissions/, never read by a batch; emptied at the end)
    stage.mkdir(exist_ok=True)
    result = PullResult(folder, first=not state, unnumbered=len(unnumbered))
    newest = since
    for sub in sorted(listed, key=lambda s: int(s.get("timemodified") or 0)):
        student = by_user.get(str(sub.get("userid")))
        if student is None:
            continue  # not a student of the course now (a teacher's own test, withdrawn): not graded
        if sub.get("status") != "submitted":
            result.drafts += 1
            continue
        stamp = int(sub.get("timemodified") or 0)
        before = known.get(student.participant) or {}
        if (before.get("submission"), before.get("timemodified")) == (sub.get("id"), stamp):
            newest = max(newest, stamp)
            continue
        # blind marking, identities not revealed: no name, as Moodle's own download then writes
        shown = say("pull_moodle_participant", lang) if info.blind else student.fullname
        name = folder_name(shown, student.participant)
        staging = Path(tempfile.mkdtemp(prefix=f"{student.participant}-", dir=stage))
        try:
            files = _fetch(moodle, sub, staging)
        except (MoodleError, OSError) as exc:
            shutil.rmtree(staging, ignore_errors=True)
            result.failed.append((f"{shown} [{student.participant}]", moodle.scrub(str(exc))))
            continue
        old = before.get("folder")
        if old and (folder / old).is_dir():
            shutil.rmtree(folder / old)
        if (folder / name).exists():
            shutil.rmtree(folder / name)
        os.replace(staging, folder / name)
        known[student.participant] = {"userid": "" if info.blind else student.userid, "submission": sub.get("id"),
                                      "timemodified": stamp, "attempt": int(sub.get("attemptnumber") or 0),
                                      "folder": name, "files": files}
        result.fetched.append(student.participant)
        newest = max(newest, stamp)
    shutil.rmtree(stage, ignore_errors=True)
    result.unchanged = sum(1 for pid in known if pid not in result.fetched)  # (kept from an earlier pull)
    # the next pull asks from the newest time fetched, unless someone's files failed (then again from here)
    record = {"url": moodle.url, "assignment": info.id, "course": info.course,
              "since": since if result.failed else newest, "students": known}
    write_atomic(src / STATE, json.dumps(record, ensure_ascii=False, indent=1, sort_keys=True) + "\n")
    rows = [[pid, _iso(int(s["timemodified"])), s.get("attempt", 0), s.get("userid", "")]
            for pid, s in sorted(known.items(), key=lambda kv: int(kv[0]) if kv[0].isdigit() else 0)]
    result.submitted = write_atomic(src / "submitted.csv", csv_text(["student", "submitted", "attempt", "user_id"], rows))
    reason = say("pull_moodle_extension", lang)
    extended = [[s.participant, _iso(int(flags[s.userid]["extensionduedate"])), reason] for s in students
                if int((flags.get(s.userid) or {}).get("extensionduedate") or 0) > 0]
    result.extensions = write_atomic(src / "extensions.csv", csv_text(["student", "due", "reason"], extended))
    return result
