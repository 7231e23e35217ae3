"""``grader batch``: grade every submission in a folder or an LMS zip export, in parallel.

Stages, each a function of the one before:

1. :func:`find_submissions` — folders, notebooks and zips directly under the source (an LMS
   export zip is unpacked first, safely), OS junk skipped, anything else listed as
   unrecognised. Student ids come from Moodle / Canvas entry names where present.
2. :func:`run_batch` — ``jobs`` trusted worker processes (:mod:`grader._batchworker`), each
   owning one warm sandboxed zygote, pull chunks of submissions from a queue; reports come
   back as plain dicts and are written here, atomically, as they arrive. ``resume`` skips
   submissions whose report already matches their content hash and the rubric.
3. :func:`write_gradebook` and :mod:`grader.summary` — ``gradebook.csv`` and the class summary.

Example::

    result = run_batch("uploads.zip", "out", rubric, jobs=2)
    result.graded, result.skipped, result.interrupted
"""

from __future__ import annotations

import gc
import json
import math
import os
import re
import secrets
import select
import selectors
import shutil
import signal
import subprocess
import sys
import threading
import time
import zipfile
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple

import yaml
from rich.console import Console

from grader.errors import GraderError, SubmissionError, UsageError
from grader.report import fastyaml
from grader.report.files import write_atomic
from grader.report.model import GradeReport, Status
from grader.sinks import REPORT_MAX, terminal_markup
from grader.submission import load_submission

#: Names an OS or a tool leaves next to real files; never submissions, never listed.
JUNK = frozenset({"__MACOSX", ".DS_Store", "__pycache__", "Thumbs.db", "desktop.ini", ".ipynb_checkpoints"})
#: File extension per report format (``OUTDIR/reports/<submission>.<ext>``).
EXTENSIONS = {"yaml": "yaml", "json": "json", "gradescope": "gradescope.json", "junit": "xml",
              "markdown": "md", "html": "html"}
EXPORT_MAX_BYTES = 2 * 1024**3
EXPORT_MAX_MEMBERS = 50_000


# --------------------------------------------------------------------------- discovery


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


def _files_wanted(parts: dict[str, str] | None) -> str:
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


def _missing_files(sub: Any, parts: dict[str, str] | None = None) -> list[str]:
    from grader.submission import ANSWERS_FILE

    if sub.kind != "folder":
        return []
    missing = [f for part, f in (parts or {}).items()
               if not any(m.name == part for m in sub.modules)]
    return missing + ([] if sub.answers is not None else [ANSWERS_FILE])


def find_submissions(source: str | os.PathLike[str], staging: Path | None = None,
                     handout: Any = None, parts: dict[str, str] | None = None,
                     assignment: str = "") -> Discovery:
    """Every submission directly under ``source`` (a folder, or an LMS export zip).

    Args:
        source: the folder or export.
        handout: the handed-out stubs (:func:`grader.submission.load_handout`): a folder with
            both the .py files and the notebook is graded as what the student changed.
        staging: where to unpack an export and regroup the loose files of a flat export
            (``OUTDIR/.sources`` is passed by :func:`run_batch`).
        parts: part id -> exercise file, from the rubric (which files make a submission).
        assignment: the rubric's assignment id; a zip named after it is preferred.
    """
    from grader import lms as lmsnames

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
        ident = lmsnames.LmsName(st.lms, st.student_id, st.name, late=st.late,
                                 other_ids=tuple(sorted(st.other_ids)))
        candidates.append((st.entries[0], st.folder, ident, list(st.set_aside)))
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
        """A report name no other entry has, case aside (``x.gradescope`` would share the
        file ``x.gradescope.json`` with the Gradescope report of ``x``)."""
        name, n = wanted, 2
        while name.casefold() in names:
            name, n = f"{wanted}-{n}", n + 1
        low = name.casefold()
        names.update({low, f"{low}.gradescope", low.removesuffix(".gradescope")})
        return name

    for entry_name, path, ident, set_aside in sorted(candidates, key=lambda c: c[0]):
        student_id = ident.student_id if ident else student_id_of(entry_name, is_dir=bool(path and path.is_dir()))
        who = {"student_id": student_id, "name": ident.name if ident else "",
               "late": ident.late if ident else False, "lms": ident.lms if ident else ""}

        shifted: list[tuple[str, dict[str, str]]] = []
        if ident is not None and ident.other_ids:
            shifted.append(("ambiguous_id", {"id": student_id, "others": ", ".join(ident.other_ids)}))

        def skip(said: str, key: str, **slots: str) -> None:
            if set_aside:
                said += "; set aside: " + "; ".join(set_aside)
            result.skipped.append(Skipped(entry_name, said, flags=[*shifted, (key, slots)], **who))

        if ident is not None and ident.plugin == "onlinetext":
            skip("online text, not files", "online_text")
            continue
        if path is None:
            skip(f"holds no {_files_wanted(parts)}, answers.yaml, notebook or zip", "no_work",
                 files=_files_wanted(parts))
            continue
        if path.is_file() and path.suffix.lower() not in (".zip", ".ipynb"):
            skip("not a folder, notebook or zip", "not_a_submission")
            continue
        target, extra = _work_in(path, assignment) if path.is_dir() else (path, [])
        set_aside += [f"{name} (another zip in the same upload)" for name in extra]
        if _is_empty(target):
            skip("the upload is empty", "empty")
            continue
        stem = entry_name
        for suffix in (".zip", ".ipynb"):
            if stem.lower().endswith(suffix) and not path.is_dir():
                stem = stem[: -len(suffix)]
        base = lmsnames.disk_name(ident.name, student_id) if ident else lmsnames.disk_name(stem, "")
        try:
            sub = load_submission(target, handout=handout, parts=parts)
        except Exception as exc:  # noqa: BLE001 - the containment rule: one entry fails alone
            said = str(exc) if isinstance(exc, SubmissionError) else f"cannot read it ({type(exc).__name__}: {exc})"
            said = said.replace(str(target), entry_name if target == path else f"{entry_name}/{target.name}")
            said = said.replace(f"{root}{os.sep}", "").replace(f"{staging}{os.sep}", "")  # as in the export
            who_failed = Skipped(entry_name, said, flags=[*shifted, ("unreadable", {"why": said})], **who)
            result.failed.append(Failed(unique(base), student_id, entry_name, said, who_failed))
            continue
        if not sub.modules and sub.answers is None:
            skip(f"holds no {_files_wanted(parts)}, answers.yaml or notebook", "no_work",
                 files=_files_wanted(parts))
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
    claims: dict[str, list[Any]] = {}
    for item in [*result.found, *result.skipped, *(f.who for f in result.failed)]:
        if item.lms and not any(key == "online_text" for key, _ in item.flags):
            claims.setdefault(item.student_id, []).append(item)
    for student_id, items in claims.items():
        if len(items) > 1:
            entries = ", ".join(i.entry for i in items)
            for item in items:
                item.flags.insert(0, ("duplicate_id", {"id": student_id, "entries": entries}))


def _wire_submission(sub: Any) -> dict[str, Any]:
    return sub.to_dict()


# --------------------------------------------------------------------------- reports on disk


_FastLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def report_yaml(report: GradeReport | dict[str, Any]) -> str:
    """The batch's own record of a report (what ``grader.report.yaml_json`` writes).

    Takes the report or its ``to_dict()`` form; the batch passes the dict the worker sent,
    which saves rebuilding it from dataclasses for every submission.
    """
    return fastyaml.dump(report if isinstance(report, dict) else report.to_dict())


def report_path(outdir: Path, name: str, fmt: str = "yaml") -> Path:
    return outdir / "reports" / f"{name}.{EXTENSIONS.get(fmt, fmt)}"


def read_report(path: Path) -> GradeReport | None:
    """A report written by an earlier run, or None when absent or unreadable."""
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_FastLoader)  # noqa: S506 - a safe loader
        return GradeReport.from_dict(data) if isinstance(data, dict) else None
    except (OSError, yaml.YAMLError, KeyError, TypeError, ValueError):
        return None


def is_current(report: GradeReport | None, content_hash: str, rubric_hash: str) -> bool:
    return report is not None and report.content_hash == content_hash and report.rubric_hash == rubric_hash


# --------------------------------------------------------------------------- gradebook

GRADEBOOK_FIXED = ["submission", "student_id", "name", "lms", "late", "score", "max_score", "passed"]
GRADEBOOK_TAIL = ["late_penalty", "mistakes", "errors", "content_hash", "graded_at"]


def apply_lms(data: dict[str, Any], found: Found, rubric: Any) -> dict[str, Any]:
    """Add who submitted it (from the LMS naming) to a report, and apply the late policy.

    The late policy (rubric ``late:``) takes its points off the total of a submission the
    LMS flagged as late; the report keeps the score before it and says why, in its notes.
    """
    if found.lms or found.name or found.late:
        data["student"] = {"id": found.student_id, "name": found.name, "lms": found.lms,
                           "entry": found.entry, "late": found.late,
                           "flags": [[key, dict(slots)] for key, slots in found.flags]}
    policy = getattr(rubric, "late", None)
    if found.late and policy is not None:
        before, top = float(data["score"]), float(data["max_score"])
        after = round(policy.apply(before, top), int(rubric.report.rounding))
        rule = {lang: policy.describe(lang) for lang in ("en", "ja")}
        data["late"] = {"score_before": before, "score": after, "penalty": round(before - after, 6), "rule": rule}
        data["score"] = after
        data["passed"] = top > 0 and after * 100.0 >= float(data.get("pass_mark", rubric.report.pass_mark)) * top
        said = {"en": f"late: {before:g} → {after:g} ({rule['en']})",
                "ja": f"提出期限後: {before:g} → {after:g}（{rule['ja']}）"}
        data["notes"] = [*data.get("notes", []),
                         " / ".join(said[lang] for lang in rubric.report.languages if lang in said)]
    return data


def _reasons(flags: list[tuple[str, dict[str, str]]], langs: Any) -> list[str]:
    from grader.lms import reason

    return [reason(key, langs, **slots) for key, slots in flags]


def gradebook_rows(rows: list[tuple[Any, GradeReport | None, list[tuple[str, dict[str, str]]]]],
                   rubric: Any) -> list[dict[str, Any]]:
    """Rows of the gradebook: graded submissions, then entries that could not be graded.

    Each row is ``(Found or Skipped, report or None, extra flags)``; the errors column holds
    the report's errors and a plain reason for every flag, in the rubric's languages.
    """
    parts = [p.id for p in rubric.parts]
    langs = tuple(rubric.report.languages)
    out = []
    for item, report, extra in rows:
        row: dict[str, Any] = {"student_id": item.student_id, "name": item.name, "lms": item.lms,
                               "late": "yes" if item.late else "no", "entry": item.entry,
                               # whose it is is in doubt: never sent back to the LMS automatically
                               "flagged": any(k in ("duplicate_id", "ambiguous_id") for k, _ in item.flags)}
        errors = _reasons([*item.flags, *extra], langs)
        if report is not None:
            scores = {p.id: p.score for p in report.parts}
            row.update(submission=report.submission, score=report.score, max_score=report.max_score,
                       passed="yes" if report.passed else "no",
                       late_penalty=report.late.get("penalty", "") if report.late else "",
                       mistakes=";".join(dict.fromkeys(m.id for m in report.mistakes)),
                       errors=" | ".join(errors if isinstance(item, Skipped) else
                                         [*(e.replace("\n", " ") for e in report.errors), *errors]),
                       content_hash=report.content_hash, graded_at=report.graded_at, report=report)
            row.update({f"part:{p}": scores.get(p, "") for p in parts})
            if isinstance(item, Skipped):  # an upload that could not be read: its 0 is no grade for the LMS
                row["flagged"] = True
        else:
            name = item.submission.name if isinstance(item, Found) and item.submission else item.entry
            row.update(submission=name, errors=" | ".join(errors))
        out.append(row)
    return out


def write_gradebook(path: Path, rows: list[dict[str, Any]], rubric: Any, *, bom: bool = False) -> Path:
    """``gradebook.csv``: every cell through :func:`grader.gradebook.cell` (no formulas)."""
    from grader.gradebook import csv_text

    columns = GRADEBOOK_FIXED + [f"part:{p.id}" for p in rubric.parts] + GRADEBOOK_TAIL
    return write_atomic(path, csv_text(columns, [[row.get(c, "") for c in columns] for row in rows], bom=bom))


def write_lms_gradebooks(outdir: Path, rows: list[dict[str, Any]], rubric: Any, formats: tuple[str, ...],
                         *, bom: bool = False, lang: str = "en", assignment: str | None = None) -> list[Path]:
    """The gradebooks the LMS imports (``--gradebook canvas|moodle``), beside gradebook.csv."""
    from grader import gradebook
    from grader.report import render

    top = max((float(r["max_score"]) for r in rows if r.get("max_score") not in (None, "")), default=0.0)
    written = []
    if "canvas" in formats:
        written.append(gradebook.write_canvas(outdir / "gradebook.canvas.csv", rows,
                                              assignment or rubric.assignment, top, bom=bom))
    if "moodle" in formats:
        for row in rows:
            row["feedback"] = _feedback_comment(row, rubric, lang)
        written.append(gradebook.write_moodle(outdir / "gradebook.moodle.csv", rows, top, bom=bom))
        files = [(row["name"], row["student_id"], f"report.{lang}.html",
                  render(row["report"], "html", rubric=rubric, lang=lang))
                 for row in rows if row.get("lms") == "moodle" and row.get("report") is not None
                 and not row.get("flagged") and str(row["student_id"]).isdigit()]
        written.append(gradebook.write_moodle_feedback(outdir / "moodle-feedback-files.zip", files))
    return written


_REASON_KEYS = ("duplicate_id", "ambiguous_id", "missing")


def export_gradebooks(outdir: Path, rubric: Any, formats: tuple[str, ...], *, bom: bool = False,
                      lang: str = "en") -> list[Path]:
    """``grader export``: the LMS gradebooks again, from the reports a batch left in ``outdir``."""
    paths = sorted((outdir / "reports").glob("*.yaml"))
    reports = [r for r in (read_report(p) for p in paths) if r is not None]
    if not reports:
        raise UsageError(f"{outdir}: no reports in {outdir / 'reports'}; run grader batch with --out {outdir} first")
    rows = []
    for report in reports:
        who = report.student or {}
        flags = [(str(f[0]), {str(k): str(v) for k, v in dict(f[1]).items()}) for f in who.get("flags") or []
                 if isinstance(f, (list, tuple)) and len(f) == 2 and str(f[0]) in _REASON_KEYS]
        item = Found(None, str(who.get("id") or report.submission), str(who.get("entry") or report.submission),
                     name=str(who.get("name") or ""), late=bool(who.get("late")), lms=str(who.get("lms") or ""),
                     flags=flags)
        rows.append((item, report, []))
    book = gradebook_rows(rows, rubric)
    written = []
    if "csv" in formats:
        written.append(write_gradebook(outdir / "gradebook.csv", book, rubric, bom=bom))
    return written + write_lms_gradebooks(outdir, book, rubric, formats, bom=bom, lang=lang)


def _feedback_comment(row: dict[str, Any], rubric: Any, lang: str) -> str:
    """A short plain comment for the LMS's feedback column (HTML-escaped: Moodle shows HTML)."""
    from grader.sinks import html

    report = row.get("report")
    if report is None:
        return html(row.get("errors", ""))
    ja = lang == "ja"
    text = (f"得点 {report.score:g} / {report.max_score:g}" if ja else f"Score {report.score:g} / {report.max_score:g}")
    if report.late:
        text += (f"（期限後: {report.late['score_before']:g} から）" if ja
                 else f" (late: from {report.late['score_before']:g})")
    if report.mistakes:
        ids = ", ".join(dict.fromkeys(m.id for m in report.mistakes))
        text += f"。間違い: {ids}" if ja else f". Mistakes: {ids}"
    text += "。詳しくはフィードバックファイルを見てください。" if ja else ". See the feedback file for details."
    return html(text)


# --------------------------------------------------------------------------- workers


class _Proc:
    """One trusted worker process and its JSON-lines pipe."""

    def __init__(self, config: dict[str, Any] | None, log: Path, pass_fds: tuple[int, ...] = (),
                 adopt: tuple[int, int] | None = None) -> None:
        """Start ``python -m grader._batchworker`` and send it ``config``; or, with ``adopt``
        (our ends of its pipes), stand for a worker that another worker forks."""
        self.proc: subprocess.Popen[bytes] | None = None
        self.pid: int | None = None  # an adopted worker's, from its "ready" message
        if adopt is None:
            log.parent.mkdir(parents=True, exist_ok=True)
            with log.open("ab") as err:  # the worker's own diagnostics; student output never goes here
                self.proc = subprocess.Popen(
                    [sys.executable, "-m", "grader._batchworker"],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, pass_fds=pass_fds,
                    start_new_session=True,  # Ctrl-C reaches the parent only; it decides
                )
            assert self.proc.stdin is not None and self.proc.stdout is not None
            self.stdin, self.stdout = self.proc.stdin, self.proc.stdout
            self.pid = self.proc.pid
        else:
            self.stdin, self.stdout = os.fdopen(adopt[0], "wb"), os.fdopen(adopt[1], "rb")
        self.log = log
        self.pending: list[bytes] = []  # the start of a message not yet ended by a newline
        self.pending_size = 0
        self.overflow = False  # dropping a message longer than sinks.REPORT_MAX
        self.ready = False
        self.busy: list[int] = []  # indices handed out and not reported yet
        self.chunks: list[list[int]] = []  # chunks handed out and not finished, oldest first
        self.stopping = False
        if config is not None:
            self.send(config)

    @classmethod
    def start_group(cls, config: dict[str, Any], cpus: list[int], n: int, logs: Path) -> list["_Proc"]:
        """``n`` workers for the price of one import: the first forks the others.

        Where ``fork`` exists, the first worker gets the pipes of the others and forks one
        copy per pipe pair once it has imported torch, pytest and the suites' helpers.
        """
        cpu = lambda k: cpus[k] if cpus else None  # noqa: E731
        if n < 2 or not hasattr(os, "fork") or config.get("level") not in ("namespaces", "rlimits"):
            return [cls({**config, "cpu": cpu(k)}, logs / f"worker-{k}.log") for k in range(n)]
        ours, theirs, siblings = [], [], []
        for k in range(1, n):
            to_r, to_w = os.pipe()
            from_r, from_w = os.pipe()
            ours.append((to_w, from_r))
            theirs += [to_r, from_w]
            siblings.append({"in": to_r, "out": from_w, "cpu": cpu(k)})
        try:
            first = cls({**config, "cpu": cpu(0), "siblings": siblings}, logs / "worker-0.log",
                        pass_fds=tuple(theirs))
        except BaseException:
            for fd in [*theirs, *(fd for pair in ours for fd in pair)]:
                os.close(fd)
            raise
        for fd in theirs:
            os.close(fd)
        # The forked workers write their diagnostics into the first one's log.
        return [first] + [cls(None, logs / "worker-0.log", adopt=pair) for pair in ours]

    def send(self, message: dict[str, Any]) -> bool:
        try:
            self.stdin.write((json.dumps(message) + "\n").encode())
            self.stdin.flush()
            return True
        except (BrokenPipeError, OSError):
            return False

    def read_lines(self) -> list[dict[str, Any]] | None:
        """Complete messages available now; None at end of file."""
        # 64 KiB holds a whole report (~40 KiB); a larger size costs every read a map and an
        # unmap of that many bytes (see grader.wire.FrameReader.wanted).
        data = os.read(self.stdout.fileno(), 1 << 16)
        if not data:
            return None
        if b"\n" not in data:  # part of a long message: kept, joined once when it ends
            self.pending_size += len(data)
            if self.overflow or self.pending_size > REPORT_MAX:
                # Too long for any report: dropped (its submission is graded again, then
                # given an error report), so memory stays bounded.
                self.pending, self.overflow = [], True
            else:
                self.pending.append(data)
            return []
        head, _, rest = data.rpartition(b"\n")
        if self.overflow:
            head = head.partition(b"\n")[2]  # the end of the message being dropped
            self.overflow = False
        elif self.pending:
            head = b"".join([*self.pending, head])
        self.pending = [rest] if rest else []
        self.pending_size = len(rest)
        messages = []
        for line in head.split(b"\n"):
            if line.strip():
                try:
                    messages.append(json.loads(line))
                except ValueError:  # (the submission it was for is graded again, then failed)
                    pass
        return messages

    def stop(self, grace: float = 5.0) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                try:
                    self.proc.send_signal(signal.SIGTERM)
                    self.proc.wait(timeout=grace)
                except (subprocess.TimeoutExpired, ProcessLookupError):
                    self.proc.kill()
                    self.proc.wait()
        else:
            self._stop_adopted(grace)
        for stream in (self.stdin, self.stdout):
            try:
                stream.close()
            except OSError:
                pass

    def _stop_adopted(self, grace: float) -> None:
        """Not our child: signal it by pid (or, before it said ready, close its input) and
        wait for the end of its output, which comes when it and its sandbox are gone."""
        try:
            self.stdin.close()  # a worker that has not started grading sees the end of its input
        except OSError:
            pass
        if self.pid is not None:
            _signal(self.pid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        fd = self.stdout.fileno()
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            data = os.read(fd, 1 << 16)
            if not data:
                return
            if self.pid is None and b'"hello"' in data:  # it says its pid as soon as it exists
                try:
                    self.pid = int(json.loads(data.split(b"\n", 1)[0])["pid"])
                except (ValueError, KeyError, TypeError):
                    continue
                _signal(self.pid, signal.SIGTERM)
        if self.pid is not None:
            _signal(self.pid, signal.SIGKILL)


def _signal(pid: int, sig: int) -> None:
    """Send ``sig`` to a worker that may already be gone."""
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


@dataclass
class BatchResult:
    """What a batch run did; ``exit_code`` lives in the CLI (one place)."""

    reports: list[GradeReport]
    graded: int
    resumed: int
    unrecognised: list[tuple[str, str]]
    interrupted: bool
    outdir: Path
    elapsed_s: float = 0.0
    unreadable: int = 0  #: entries that could not be read; each got an error report


def chunk_size(remaining: int, jobs: int) -> int:
    """Submissions per hand-out: a worker keeps one pytest session, so small chunks cost little and balance well."""
    return max(1, min(8, math.ceil(remaining / (jobs * 4))))


def run_batch(
    source: str,
    out: str,
    rubric: Any,
    *,
    jobs: int | None = None,
    resume: bool = False,
    allow_weak: bool = False,
    seed: int | None = None,
    lang: str = "en",
    console: Console | None = None,
    progress: bool | None = None,
    summary: bool = True,
    gradebooks: tuple[str, ...] = (),
    bom: bool = False,
) -> BatchResult:
    """Grade every submission in ``source`` into ``out``; see the module docstring.

    Raises:
        UsageError: bad source, or no namespace sandbox and ``allow_weak`` is false.
        GraderError: the suites could not run (a fault of the assignment, not of a student).
    """
    from grader.sandbox.level import choose_level

    started = time.monotonic()
    # This process and its workers keep both CPUs busy on their own: an idle BLAS pool
    # (numpy's) would only spin on them. Read when numpy loads; the workers inherit it.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    console = console or Console(stderr=True, highlight=False, soft_wrap=True)
    outdir = Path(out)
    level, warning = choose_level(allow_weak=allow_weak)
    if warning:
        console.print(f"[yellow]warning:[/yellow] {warning}")
    outdir.mkdir(parents=True, exist_ok=True)
    # Workers (each importing torch and starting its sandbox, ~1 s) start now, while this
    # process finds and hashes the submissions; they learn the seed with their first chunk.
    early: list[_Proc] = []
    if jobs != 0:
        wanted = max(1, jobs or os.cpu_count() or 1)
        cpus = _cpus_for(wanted)
        base = {"op": "config", "rubric": str(rubric.file), "level": level, "warning": warning}
        early = _Proc.start_group(base, cpus, wanted, outdir / ".logs")
    retired: list[_Proc] = []
    # Hundreds of reports of ~2,000 objects each pass through this process: the default
    # collector thresholds would run ~300 passes over them (~0.15 s) for cycles they lack.
    thresholds, froze = gc.get_threshold(), gc.get_freeze_count() == 0
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)
    try:
        return _run_batch(source, out, outdir, rubric, early, retired, jobs=jobs, resume=resume, seed=seed,
                          lang=lang, console=console, progress=progress, summary=summary, level=level,
                          warning=warning, started=started, gradebooks=gradebooks, bom=bom)
    finally:
        for proc in early + retired:
            proc.stop()
        gc.set_threshold(*thresholds)
        if froze:  # (a caller that had frozen objects itself keeps them frozen)
            gc.unfreeze()


def _run_batch(source: str, out: str, outdir: Path, rubric: Any, early: list["_Proc"], retired: list["_Proc"],
               *, jobs: int | None,
               resume: bool, seed: int | None, lang: str, console: Console, progress: bool | None,
               summary: bool, level: str, warning: str, started: float,
               gradebooks: tuple[str, ...] = (), bom: bool = False) -> BatchResult:
    from grader.report import render
    from grader.rubric import rubric_fingerprint
    from grader.runner import error_report
    from grader.submission import load_handout

    from grader.assignment import assignment_of

    found = find_submissions(source, outdir / ".sources", handout=load_handout(rubric), assignment=rubric.assignment,
                             parts=assignment_of(rubric).part_files)
    for entry, why in found.unrecognised:
        console.print(f"[yellow]not graded:[/yellow] {terminal_markup(entry)}: {terminal_markup(why)}", markup=True)
    for failed in found.failed:
        console.print(f"[yellow]cannot read:[/yellow] {terminal_markup(failed.why)}"
                      " (an error report is written)", markup=True)
    if not found.found and not found.failed:
        seen = len(found.skipped)
        raise UsageError(
            f"{source}: no submission found ({seen} entr{'y' if seen == 1 else 'ies'} looked at, none "
            f"holds {_files_wanted(assignment_of(rubric).part_files)}, answers.yaml, a notebook or a zip"
            " of them); "
            "pass the folder or the LMS's download zip that holds the students' uploads")
    fingerprint = rubric_fingerprint(rubric, ("public", "hidden"))

    finished: dict[int, GradeReport] = {}
    todo: list[int] = []
    for i, f in enumerate(found.found):
        old = read_report(report_path(outdir, f.submission.name)) if resume else None
        if is_current(old, f.submission.content_hash, fingerprint):
            assert old is not None
            finished[i] = old
        else:
            todo.append(i)
    if seed is None:
        # A resumed batch keeps the seed it started with, so the whole class is graded alike.
        seed = next((r.seed for r in finished.values()), None)
    seed = secrets.randbelow(2**31) if seed is None else int(seed)
    resumed = len(finished)
    if resume and resumed:
        console.print(f"resume: {resumed} submission(s) already graded with this rubric; skipped")

    warned: set[str] = set()

    def write(index: int, data: dict[str, Any] | None, reason: str = "") -> GradeReport:
        """Write the report a worker sent, or (``data`` None, or it cannot be written) an
        error report saying ``reason``: every submission ends with a report."""
        sub = found.found[index].submission
        report = None
        if data is not None:
            try:
                data = apply_lms(data, found.found[index], rubric)
                report = GradeReport.from_dict(data)
                save(sub.name, report, data)
            except Exception as exc:  # noqa: BLE001 - this submission fails, the batch goes on
                report = None
                reason = f"its report could not be written ({type(exc).__name__}: {exc})"
        if report is None:
            report = error_report(rubric, sub.name, reason, like=next(iter(finished.values()), None),
                                  origin=sub.origin, seed=seed)
            save(sub.name, report, report.to_dict())
        finished[index] = report
        return report

    def save(name: str, report: GradeReport, data: dict[str, Any]) -> None:
        # The yaml file is the batch's own record (resume reads it back): complete, unredacted.
        write_atomic(report_path(outdir, name, "yaml"), report_yaml(data))
        for fmt in rubric.report.formats:
            if fmt == "yaml":
                continue
            try:
                text = render(report, fmt, rubric=rubric, lang=lang)
            except UsageError as exc:
                if fmt not in warned:
                    warned.add(fmt)
                    console.print(f"[yellow]warning:[/yellow] {exc}; {fmt} reports skipped")
                continue
            write_atomic(report_path(outdir, name, fmt), text)

    interrupted = False
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(todo) or 1))
    while len(early) > jobs:  # fewer submissions to grade than workers started
        spare = early.pop()
        spare.send({"op": "stop"})
        retired.append(spare)  # stopped at the very end: no waiting for it here
    if summary and todo:
        # The parent mostly waits on its workers: load the plotting library meanwhile.
        threading.Thread(target=_preload_plotting, daemon=True).start()
    failure: GraderError | None = None
    if todo:
        try:
            _drive(todo, found, jobs, rubric, level, warning, seed, write, console, progress,
                   outdir / ".logs", early)
        except KeyboardInterrupt:
            interrupted = True
        except GraderError as exc:  # the suites or the sandbox broke: keep what finished
            failure, interrupted = exc, True
    rows: list[tuple[Any, GradeReport | None, list[tuple[str, dict[str, str]]]]] = [
        (f, finished.get(i), [] if i in finished else [("interrupted", {})]) for i, f in enumerate(found.found)]
    if interrupted:
        rows = [r for r in rows if r[1] is not None]
    like = next(iter(finished.values()), None)
    failed_reports = []
    for failed in found.failed:  # entries that could not be read at all
        report = error_report(rubric, failed.name, failed.why, like=like, origin="", seed=seed)
        who = failed.who
        data = report.to_dict()
        if who.lms or who.name:
            data["student"] = {"id": who.student_id, "name": who.name, "lms": who.lms, "entry": who.entry,
                               "late": who.late, "flags": [[k, dict(v)] for k, v in who.flags]}
            report = GradeReport.from_dict(data)
        save(failed.name, report, data)
        failed_reports.append(report)
        rows.append((who, report, []))
    rows += [(s, None, []) for s in found.skipped]
    book = gradebook_rows(rows, rubric)
    write_gradebook(outdir / "gradebook.csv", book, rubric, bom=bom)
    if gradebooks:
        write_lms_gradebooks(outdir, book, rubric, gradebooks, bom=bom, lang=lang)
    reports = [finished[i] for i in sorted(finished)] + failed_reports
    if failure is not None:
        raise GraderError(f"{failure} ({len(finished)} finished reports kept in {outdir}; "
                          "fix the cause, then run again with --resume)")
    if summary and reports:
        from grader import summary as class_summary

        class_summary.write_summary(reports, outdir, rubric, unrecognised=found.unrecognised)
    graded = len(finished) - resumed
    if interrupted:
        console.print(
            f"[yellow]interrupted:[/yellow] {len(finished)} of {len(found.found)} graded and kept in "
            f"{outdir}; finish with: grader batch {source} --out {out} --resume", markup=True)
    return BatchResult(reports, graded, resumed, found.unrecognised, interrupted, outdir,
                       time.monotonic() - started, unreadable=len(failed_reports))


def _preload_plotting() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot  # noqa: F401


def _cpus_for(jobs: int) -> list[int]:
    """One CPU per worker when there are enough, else none (the scheduler places them).

    A worker and its sandboxed child take turns (the worker waits while the student's
    function runs, and the other way round), so a pair never needs two CPUs at once;
    keeping each pair on its own CPU spares every call a wake-up on another CPU.
    """
    try:
        allowed = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return []
    return allowed[:jobs] if 1 < jobs <= len(allowed) else []


def _counts(report: GradeReport) -> tuple[bool, bool, bool]:
    statuses = {t.status for t in report.tests}
    return (not report.passed, Status.ERROR in statuses or bool(report.errors), Status.TIMEOUT in statuses)


def _drive(todo: list[int], found: Discovery, jobs: int, rubric: Any, level: str, warning: str,
           seed: int, write: Any, console: Console, progress: bool | None, logs: Path,
           early: list[_Proc] | None = None) -> None:
    """Hand chunks of ``todo`` to ``jobs`` workers; write each report as it comes back."""
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)

    queue = deque(todo)
    retries: dict[int, int] = {}
    config = {"op": "config", "rubric": str(rubric.file), "seed": seed, "level": level, "warning": warning}
    procs: list[_Proc] = []
    sel = selectors.DefaultSelector()
    tally = {"below pass": 0, "errors": 0, "timeouts": 0}
    spawned = [0]

    def stats() -> str:
        return (f"below pass {tally['below pass']}  errors {tally['errors']}  "
                f"timeouts {tally['timeouts']}")

    bar = Progress(TextColumn("grading"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[stats]}"),
                   TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                   console=console, disable=progress is False, transient=False)
    task = bar.add_task("grading", total=len(todo), stats=stats())

    cpus = _cpus_for(jobs)

    def spawn() -> None:
        slot = spawned[0] % jobs
        if early:
            proc = early.pop(0)  # started before the submissions were found; now ours to stop
        else:
            proc = _Proc({**config, "cpu": cpus[slot] if cpus else None}, logs / f"worker-{spawned[0]}.log")
        spawned[0] += 1
        procs.append(proc)
        sel.register(proc.stdout, selectors.EVENT_READ, proc)

    def hand_out(proc: _Proc) -> None:
        """Keep two chunks ahead of each worker: it never waits for us between chunks."""
        while len(proc.chunks) < 2 and not proc.stopping:
            if not queue:
                proc.stopping = True  # read after the chunks already in its pipe
                proc.send({"op": "stop"})
                return
            n = chunk_size(len(queue), jobs)
            items = [queue.popleft() for _ in range(min(n, len(queue)))]
            proc.chunks.append(items)
            proc.busy += items
            proc.send({"op": "grade", "seed": seed, "items": [
                {"index": i, "submission": _wire_submission(found.found[i].submission)} for i in items]})

    try:
        with bar:
            for _ in range(jobs):
                spawn()
            while sel.get_map():
                for key, _ in sel.select(timeout=1.0):
                    proc: _Proc = key.data
                    messages = proc.read_lines()
                    for msg in messages or []:
                        op = msg.get("op")
                        if op == "hello":  # a forked worker's first word: its pid
                            proc.pid = proc.pid or msg.get("pid")
                        elif op == "ready":
                            proc.ready = True
                            proc.pid = proc.pid or msg.get("pid")
                            hand_out(proc)
                        elif op == "report":
                            report = write(msg["index"], msg.get("report"), str(msg.get("error") or ""))
                            if msg["index"] in proc.busy:
                                proc.busy.remove(msg["index"])
                            below, err, tout = _counts(report)
                            tally["below pass"] += below
                            tally["errors"] += err
                            tally["timeouts"] += tout
                            bar.update(task, advance=1, stats=stats())
                        elif op == "chunk_done":
                            done = proc.chunks.pop(0) if proc.chunks else []
                            missed = [i for i in done if i in proc.busy]  # should be none
                            proc.busy = [i for i in proc.busy if i not in missed]
                            for i in missed:
                                retries[i] = retries.get(i, 0) + 1
                                if retries[i] > 2:
                                    write(i, None, "its report did not arrive from the grading worker"
                                                   " three times; it was not graded")
                                    bar.update(task, advance=1, stats=stats())
                            queue.extendleft(reversed([i for i in missed if retries[i] <= 2]))
                            hand_out(proc)
                        elif op == "fatal":
                            raise GraderError(f"a grading worker stopped: {msg.get('message')} "
                                              f"(its log: {proc.log})")
                    if messages is None:  # the worker process ended
                        sel.unregister(proc.stdout)
                        proc.stop()
                        procs.remove(proc)
                        lost = proc.busy
                        if lost:
                            for i in lost:
                                retries[i] = retries.get(i, 0) + 1
                            failed = [i for i in lost if retries[i] > 2]
                            for i in failed:  # this submission alone is given up on
                                write(i, None, "its grading worker stopped three times while grading"
                                               " it; it was not graded (the batch log has details)")
                                bar.update(task, advance=1, stats=stats())
                            queue.extendleft(reversed([i for i in lost if retries[i] <= 2]))
                        if queue and len(procs) < jobs:
                            if spawned[0] >= 2 * jobs + 5:
                                raise GraderError(f"grading workers keep stopping; see {proc.log}")
                            spawn()
    finally:
        for proc in procs:
            proc.stop()
        sel.close()
