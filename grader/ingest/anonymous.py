"""Blind grading (``grader batch … --anonymous``): a random id in place of who submitted.

Right after discovery every entry of the source is given an id (``anon-7f3k2q``, from
:mod:`secrets`) and everything the batch writes names it by that id: report files and their
names, ``gradebook.csv``, the summary, the similarity page, feedback files, terminal lines and
logs. Names, LMS ids, entry and file names are replaced in the notes and flags the batch writes;
notebook metadata is never read into a submission. ``OUTDIR/identities.csv`` (mode 0600,
written atomically) maps each id back to the student id, name, LMS and original entry; an id
stays the same for the same entry on ``--resume`` and every re-run into the same folder.

The entries are handed on in the order of their ids, not of the names discovery met them by:
grading order (so the reports' write times), the gradebooks' rows and the pages follow it. Every
name and id identities.csv knows (with the authors each notebook's metadata gives, its ``also``
column) is a :class:`Names`: what a page or a report shows of the student's own text (the code on
the similarity page, what the code printed or raised) and the instructor's reasons (extensions,
adjustments) carry ``[name]`` / ``[id]`` in their place (:func:`scrub_data`, :func:`names_of`).

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
import json
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

__all__ = ["FILE", "ID_MARK", "NAME_MARK", "REPORT_KEYS", "Identities", "Names", "anonymise", "find", "for_lms", "is_anonymous",
           "names_of", "scrub_data"]

FILE = IDENTITIES
COLUMNS = ["anonymous_id", "student_id", "name", "lms", "entry", "also"]
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

    def also(self, aid: str, names: list[str]) -> None:
        """Other names ``aid``'s upload gives (a notebook's authors): scrubbed like the student's own."""
        text = json.dumps(sorted({str(csv_cell(n)) for n in names if n.strip()}), ensure_ascii=False) if names else ""
        row = self.rows.get(aid)
        if row is not None and row.get("also", "") != text:
            row["also"] = text
            self.changed = True

    def names(self) -> Names:
        """Every name and id these rows know, to scrub from text (:class:`Names`)."""
        names: list[str] = []
        for row in self.rows.values():
            names.append(_uncell(row.get("name", "")))
            try:
                names += [_uncell(str(n)) for n in json.loads(row.get("also") or "[]")]
            except ValueError:
                pass
        return Names(names, [_uncell(r.get("student_id", "")) for r in self.rows.values()])

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


def _uncell(text: str) -> str:
    """A cell as :func:`grader.sinks.csv_cell` wrote it, back (a leading ``'`` before ``=+-@``)."""
    return text[1:] if text[:1] == "'" and text[1:2] in ("=", "+", "-", "@", "\t", "\r") else text


#: what a name or an id becomes in a blind batch's text
NAME_MARK, ID_MARK = "[name]", "[id]"
#: letters of Latin script (a name's or an id's whole tokens are runs of these)
_LATIN = "A-Za-z0-9\u00c0-\u024f"
_TOKEN = re.compile(f"[{_LATIN}]+")
_SPLIT = re.compile(r"[\s\u3000,]+")


class Names:
    """Every name and id a blind batch knows (the roster's names and ids, the authors its
    notebooks give), found in any text and replaced by :data:`NAME_MARK` / :data:`ID_MARK`.

    Latin names are matched as whole words in any case, each part of the name alone and the
    parts run together in either order (``Taro``, ``YAMADA``, ``yamadataro``, ``TaroYamada``;
    a part of two letters only when it starts with a capital: ``Li``, not ``li``). Japanese
    names are matched wherever they stand: each part of two characters or more, and the whole
    name with no space, a space, a full-width space or ``・`` between its parts, family name
    first or given name first. Ids (LMS ids, user names, folder names) are whole tokens in any
    case; a number after a decimal point is not an id (``0.723458``), nor is an id of fewer than
    four digits or three characters (it would be every such number or word).

    Example::

        Names(["山田 太郎", "Alice Quinn"], ["723458"])("# 太郎　山田 alice 723458")
        # -> '# [name] [name] [id]'
    """

    def __init__(self, names: list[str], ids: list[str]) -> None:
        self.latin: set[str] = set()  #: lower-case whole words
        self.capital: set[str] = set()  #: two-letter parts: only as written with a capital
        self.ids: set[str] = set()  #: lower-case whole tokens
        other: set[str] = set()  #: matched anywhere (Japanese and other scripts)
        for name in names:
            name = unicodedata.normalize("NFC", name).strip()
            parts = [p for p in _SPLIT.split(name) if p]
            latin = [t for p in parts for t in _TOKEN.findall(p)]
            for token in latin:
                (self.latin if len(token) > 2 else self.capital if len(token) == 2 else set()).add(token.lower())
            if len(latin) > 1:
                self.latin |= {"".join(latin).lower(), "".join(reversed(latin)).lower()}
            wide = [p for p in parts if not _TOKEN.fullmatch(p)]
            other |= {p for p in wide if len(p) >= 2}
            other |= {t for p in wide for t in re.split(f"[{_LATIN}・_.-]+", p) if len(t) >= 2}
            if len(parts) > 1 and wide:
                for order in (parts, parts[::-1]):
                    other |= {sep.join(order) for sep in ("", " ", "\u3000", "・")}
        for sid in ids:
            sid = unicodedata.normalize("NFC", sid).strip()
            tokens = [t for t in _TOKEN.findall(sid) if _long_enough(t)]
            if sid and tokens == [sid]:
                self.ids.add(sid.lower())
            elif sid:  # an id of several words (a folder called "yamada taro"): each, and the whole
                self.ids |= {t.lower() for t in tokens}
                if not sid.isascii() and len(sid) >= 2:
                    other.add(sid)
        forms = {f for o in other for f in (o, unicodedata.normalize("NFD", o))}
        self.other = (re.compile("|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True)))
                      if forms else None)

    def __bool__(self) -> bool:
        return bool(self.latin or self.capital or self.ids or self.other)

    def _word(self, match: re.Match[str]) -> str:
        word, text, start, end = match.group(0), match.string, match.start(), match.end()
        low = word.lower()
        # a number's digits after or before a decimal point are no id (0.723458, 723458.5)
        decimal = word.isdigit() and (text[start - 2:start - 1].isdigit() and text[start - 1:start] == "."
                                      or text[end:end + 1] == "." and text[end + 1:end + 2].isdigit())
        if low in self.ids and not decimal:
            return ID_MARK
        if low in self.latin or (low in self.capital and word[0].isupper()):
            return NAME_MARK
        return word

    def __call__(self, text: str) -> str:
        if not self or not text:
            return text
        if self.other is not None and not text.isascii():
            text = self.other.sub(NAME_MARK, text)
        if self.latin or self.capital or self.ids:
            text = _TOKEN.sub(self._word, text)
        return text


def _long_enough(token: str) -> bool:
    """An id token worth scrubbing: four digits or more, three characters or more; a shorter one
    (a folder called ``12``, a Moodle site's participant ``7``) would hit every such number."""
    return len(token) >= (4 if token.isdigit() else 3)


def names_of(outdir: Path) -> Names | None:
    """The names to scrub from what a blind folder shows (None when ``outdir`` is not blind)."""
    return Identities.load(outdir).names() if is_anonymous(outdir) else None


#: report keys whose values :func:`scrub_data` leaves as they are: the report's own name, hashes,
#: times, the rubric's ids and the files the grader named
REPORT_KEYS = frozenset({"schema", "assignment", "submission", "content_hash", "rubric_hash", "graded_at", "origin",
                         "id", "part", "status", "visibility", "suite", "file", "function"})


def scrub_data(data: Any, names: Names, keep: frozenset[str] = REPORT_KEYS) -> Any:
    """``data`` (a report's dict, as JSON has it) with every string scrubbed by ``names``; the
    values of the keys in ``keep`` (file names, hashes, the report's own name) as they are.
    A blind batch and a regrade pass each report a worker sends through it: what the student's
    code printed, raised or returned may hold a name."""
    if isinstance(data, str):
        return names(data)
    if isinstance(data, dict):
        return {k: v if k in keep else scrub_data(v, names, keep) for k, v in data.items()}
    if isinstance(data, list):
        return [scrub_data(v, names, keep) for v in data]
    return data


def notebook_authors(path: Path, most: int = 20) -> list[str]:
    """The authors the notebooks of an upload name in their metadata (``metadata.authors``: a list
    of ``{"name": …}``, or a string as some tools write it); unreadable notebooks give none."""
    import zipfile

    texts: list[bytes] = []
    try:
        if path.is_dir():
            for nb in sorted(path.rglob("*.ipynb"))[:most]:
                if nb.is_file() and nb.stat().st_size <= 50 * 2**20:
                    texts.append(nb.read_bytes())
        elif path.suffix.lower() == ".ipynb" and path.stat().st_size <= 50 * 2**20:
            texts.append(path.read_bytes())
        elif zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as zf:
                members = [i for i in zf.infolist() if i.filename.lower().endswith(".ipynb")][:most]
                texts += [zf.read(i) for i in members if i.file_size <= 50 * 2**20]
    except (OSError, ValueError, zipfile.BadZipFile, RuntimeError, NotImplementedError):
        return []
    out: list[str] = []
    for raw in texts:
        try:
            authors = json.loads(raw.decode("utf-8", errors="replace")).get("metadata", {}).get("authors")
        except (ValueError, AttributeError, RecursionError):
            continue
        for author in authors if isinstance(authors, list) else [authors]:
            name = author.get("name") if isinstance(author, dict) else author
            if isinstance(name, str) and 0 < len(name) <= 200:
                out.append(name)
    return out[:most]


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
            ids.also(aid, notebook_authors(sub.path))
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
    # Discovery lists entries in the order of their names; every later stage follows this list
    # (grading order, so the reports' times, the gradebook's rows, the pages): by the ids instead
    out.found.sort(key=lambda f: f.student_id)
    out.skipped.sort(key=lambda s: s.student_id)
    out.failed.sort(key=lambda f: f.name)
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
