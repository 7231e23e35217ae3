"""Blind grading (``grader batch … --anonymous``): a random id in place of who submitted.

Right after discovery every entry of the source is given an id (``anon-7f3k2q``, from
:mod:`secrets`) and everything the batch writes names it by that id: report files and their
names, ``gradebook.csv``, the summary, the similarity page, feedback files, terminal lines and
logs. Names, LMS ids, entry and file names are replaced in the notes and flags the batch writes;
notebook metadata is never read into a submission. ``OUTDIR/identities.csv`` (mode 0600,
written atomically) maps each id back to the student id, name, LMS and original entry; an id
stays the same for the same entry on ``--resume`` and every re-run into the same folder.

identities.csv gives its ids to every command that finds SOURCE beside a blind folder
(:func:`find`: batch, ``--resume``, regrade, similarity), and names back only in two places:
:func:`for_lms`, when the LMS gradebooks are written (Canvas's ``ID``, Moodle's ``Participant
N`` and its feedback folders), and the course table (``grader gradebook``), which joins each
student's assignments by their own id.

Example::

    ids = Identities.load(outdir)
    found = anonymise(found, ids)
    ids.save()
"""

from __future__ import annotations

import csv
import io
import os
import re
import secrets
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.errors import UsageError
from grader.i18n.messages import said
from grader.report.outdir import IDENTITIES
from grader.sinks import csv_cell

if TYPE_CHECKING:
    from grader.spec.assignment import Assignment
    from grader.ingest.discovery import Discovery, Skipped
    from grader.ingest.submission.model import Submission

__all__ = ["FILE", "Identities", "anonymise", "find", "for_lms", "is_anonymous"]

FILE = IDENTITIES
COLUMNS = ["anonymous_id", "student_id", "name", "lms", "entry"]
_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"


def is_anonymous(outdir: Path) -> bool:
    return (outdir / FILE).is_file()


@dataclass
class Identities:
    """identities.csv of one output folder: anonymous id -> who."""

    outdir: Path
    rows: dict[str, dict[str, str]] = field(default_factory=dict)  #: by anonymous id
    changed: bool = False

    @classmethod
    def load(cls, outdir: Path) -> Identities:
        path = outdir / FILE
        ids = cls(outdir)
        if path.is_file():
            from grader.spec.due import csv_records

            with path.open(encoding="utf-8", newline="") as fh:  # (a damaged line is named, never a traceback)
                for row in csv_records(path, csv.DictReader(fh)):
                    ids.rows[row["anonymous_id"]] = {k: row.get(k) or "" for k in COLUMNS}
        return ids

    def id_for(self, entry: str, student_id: str, name: str, lms: str) -> str:
        """The entry's id: the one it had in this folder before, else a new random one."""
        key = str(csv_cell(entry))
        for aid, row in self.rows.items():
            if row["entry"] == key:
                return aid
        aid = ""
        while not aid or aid in self.rows:
            aid = "anon-" + "".join(secrets.choice(_ALPHABET) for _ in range(6))
        self.rows[aid] = {"anonymous_id": aid, "student_id": str(csv_cell(student_id)), "name": str(csv_cell(name)),
                          "lms": str(csv_cell(lms)), "entry": key}
        self.changed = True
        return aid

    def save(self) -> None:
        """Written atomically, readable by its owner only (0600)."""
        from grader.report.files import write_atomic

        buf = io.StringIO()
        writer = csv.DictWriter(buf, COLUMNS, lineterminator="\r\n")
        writer.writeheader()
        writer.writerows(self.rows.values())
        path = write_atomic(self.outdir / FILE, buf.getvalue())  # (a mkstemp file: 0600 already)
        os.chmod(path, 0o600)
        self.changed = False


def check_folder(outdir: Path, anonymous: bool) -> None:
    """Refuse to mix: names into a blind folder, or a blind batch into a folder with names.

    Raises:
        UsageError: naming the folder and the fix.
    """
    has_reports = any((outdir / "reports").glob("*.yaml")) if (outdir / "reports").is_dir() else False
    if is_anonymous(outdir) and not anonymous:
        raise UsageError(said("anonymous_batch_identities_csv", out=outdir))
    if anonymous and has_reports and not is_anonymous(outdir):
        raise UsageError(said("reports_already_name_students", out=outdir))


class _Scrub:
    """Every identity string of the batch replaced by its entry's anonymous id.

    Names and ids (``add``'s ``texts`` and ``ids``) are replaced wherever they appear; the names
    a student gave their own files and folders (``own``) only in that student's texts (a
    folder called ``submission`` must not rename the word in everyone's notes), and never the
    names the assignment itself gives (``generic``). Each is also matched as ``repr`` writes it
    (``'山田\u3000太郎'``), since notes quote some names that way.
    """

    def __init__(self, generic: frozenset[str] = frozenset()) -> None:
        self.words: dict[str, str] = {}
        self.ids: dict[str, str] = {}
        self.own: dict[str, dict[str, str]] = {}
        self.generic = generic

    @staticmethod
    def _forms(text: str) -> set[str]:
        forms = {text, unicodedata.normalize("NFC", text), unicodedata.normalize("NFD", text)}
        return {f for form in forms for f in (form, repr(form)[1:-1]) if len(f) >= 2}

    def add(self, aid: str, *, texts: tuple[str, ...], ids: tuple[str, ...], own: tuple[str, ...] = ()) -> None:
        for text in texts:
            for form in self._forms(text):
                self.words.setdefault(form, aid)
        for sid in ids:
            if sid:
                self.ids.setdefault(sid, aid)
        mine = self.own.setdefault(aid, {})
        for text in own:
            if len(text) >= 3 and text not in self.generic and text.lower() not in self.generic:
                for form in self._forms(text):
                    mine.setdefault(form, aid)

    def __call__(self, text: str, aid: str = "") -> str:
        for word, with_id in sorted(self.own.get(aid, {}).items(), key=lambda kv: len(kv[0]), reverse=True):
            text = text.replace(word, with_id)
        for word in sorted(self.words, key=len, reverse=True):
            text = text.replace(word, self.words[word])
        for sid in sorted(self.ids, key=len, reverse=True):
            text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(sid)}(?![A-Za-z0-9])", self.ids[sid], text)
        return text


#: names a submission holds that are nobody's: the assignment's files are added to them
_NOBODYS = ("__MACOSX", ".DS_Store", "__pycache__", ".ipynb_checkpoints", "answers", "answers.yaml", "submission",
            "submissions", "notebook", "assignsubmission", "file", "onlinetext", "attempt", "LATE")


def _generic(part_files: dict[str, str] | None) -> frozenset[str]:
    names: set[str] = set(_NOBODYS)
    for filename in (part_files or {}).values():
        names |= {filename, Path(filename).stem}
    return frozenset(names | {n.lower() for n in names})


def _flags(flags: list[tuple[str, dict[str, str]]], aid: str, scrub: _Scrub) -> list[tuple[str, dict[str, str]]]:
    out = []
    for key, slots in flags:
        clean = {k: (aid if k in ("id", "entry") else "-" if k == "others" else scrub(str(v), aid))
                 for k, v in slots.items()}
        out.append((key, clean))
    return out


def anonymise(found: Discovery, ids: Identities, part_files: dict[str, str] | None = None) -> Discovery:
    """``found`` with every entry known by its anonymous id (see the module docstring)."""
    from grader.ingest.discovery import Discovery, Failed, Found, OwnNames
    from grader.ingest.lms import disk_name

    items: list[Found | Skipped] = [*found.found, *found.skipped, *(f.who for f in found.failed)]
    scrub = _Scrub(_generic(part_files))
    aids = []
    for item in items:
        aid = ids.id_for(item.entry, item.student_id, item.name, item.lms)
        aids.append(aid)
        sub = item.submission if isinstance(item, Found) else None
        texts = [item.entry, item.name, disk_name(item.name, item.student_id) if item.name else ""]
        own = list(item.own.read())
        if sub is not None:
            texts += [sub.name, sub.path.name, str(sub.path)]
            own += [m.filename for m in sub.modules if m.filename not in (part_files or {}).values()]
        scrub.add(aid, texts=tuple(t for t in texts if t), ids=(item.student_id,), own=tuple(own))
    out = Discovery()
    for item, aid in zip(items[: len(found.found)], aids):
        assert isinstance(item, Found)
        out.found.append(replace(item, submission=_submission(item.submission, aid, scrub, part_files),
                                 student_id=aid, entry=aid, name="", flags=_flags(item.flags, aid, scrub), own=OwnNames()))
        out.known_as[aid] = (item.student_id, item.submission.name)
    for skipped, aid in zip(found.skipped, aids[len(found.found):]):
        out.skipped.append(_skipped(skipped, aid, scrub))
    for failed, aid in zip(found.failed, aids[len(found.found) + len(found.skipped):]):
        who = _skipped(failed.who, aid, scrub)
        out.failed.append(Failed(aid, aid, aid, scrub(failed.why, aid), who))
    out.junk = list(found.junk)  # (an OS's own names, such as .DS_Store: nobody's)
    return out


def find(source: str, outdir: Path, assignment: Assignment, *, anonymous: bool) -> Discovery:
    """SOURCE's submissions, named as the batch in ``outdir`` names them.

    Blind (``anonymous``): unpacked outside ``outdir`` and known by their anonymous ids.
    Otherwise unpacked into ``outdir/.sources`` and known by the names the folder's earlier
    batches gave them (:class:`grader.report.outdir.Roster`). Nothing is recorded here: a batch calls
    the result's ``keep`` once its checks pass, which saves the new ids to identities.csv (blind)
    or the names given to the roster; a regrade or a similarity page only reads.
    Every command that takes SOURCE beside a batch's folder finds it here, so that none of them
    grades a blind batch under the students' names or leaves an export's names in the folder.
    """
    import shutil
    import tempfile

    from grader.ingest.discovery import find_submissions
    from grader.report.outdir import ROSTER, Roster

    if not anonymous:
        roster = Roster.read(outdir) or Roster()
        found = find_submissions(source, outdir / ".sources", assignment, given=roster.given, held=roster.names)

        def keep_names() -> None:
            given = {name: found.keys[name] for name in
                     [*(f.submission.name for f in found.found), *(f.name for f in found.failed)]}
            roster.record(given, {**{f.submission.name: f.student_id for f in found.found},
                                  **{f.name: f.student_id for f in found.failed}})
            outdir.mkdir(parents=True, exist_ok=True)
            roster.write(outdir)

        found.keep = keep_names
        return found
    ids = Identities.load(outdir)
    staging = Path(tempfile.mkdtemp(prefix="grader-sources-"))
    try:  # (anonymised while unpacked: the names a student chose are read from their files)
        found = anonymise(find_submissions(source, staging, assignment), ids, assignment.part_files)
    finally:
        shutil.rmtree(staging, ignore_errors=True)

    def keep_ids() -> None:
        if ids.changed or not is_anonymous(outdir):
            ids.save()
        (outdir / ROSTER).unlink(missing_ok=True)  # (left by a batch under names that graded nothing)

    found.keep = keep_ids
    return found


def _skipped(item: Skipped, aid: str, scrub: _Scrub) -> Skipped:
    from grader.ingest.discovery import OwnNames

    return replace(item, entry=aid, student_id=aid, name="", why=scrub(item.why, aid), flags=_flags(item.flags, aid, scrub),
                   own=OwnNames())


def _submission(sub: Submission, aid: str, scrub: _Scrub, part_files: dict[str, str] | None) -> Submission:
    wanted = set((part_files or {}).values())
    modules = []
    for m in sub.modules:
        if m.filename in wanted:
            modules.append(m)
            continue
        new = "submission" + Path(m.filename).suffix
        chunks = tuple(replace(c, label=c.label.replace(m.filename, new)) for c in m.chunks)
        modules.append(replace(m, filename=new, chunks=chunks))
    return replace(sub, name=aid, path=Path(aid), modules=tuple(modules),
                   notes=tuple(scrub(n, aid) for n in sub.notes))


def for_lms(outdir: Path, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The gradebook's rows for an LMS gradebook: in an anonymous folder, each row carries its
    LMS id (``lms_id``, from identities.csv) beside its anonymous one; elsewhere, as they are."""
    if not is_anonymous(outdir):
        return rows
    ids = Identities.load(outdir).rows
    out = []
    for row in rows:
        who = ids.get(str(row.get("student_id", "")))
        out.append({**row, "lms_id": who["student_id"]} if who else row)
    return out
