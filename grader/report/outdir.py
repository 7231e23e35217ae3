"""The batch's output folder: where each report lives, and reading reports back.

``OUTDIR/reports/<submission><suffix>``, one file per format, with the suffixes of
:data:`grader.report.SUFFIXES` (the same names ``grader grade --out-dir`` writes). The yaml file
is the batch's own record: ``--resume`` reads it back and :func:`is_current` says whether it
still holds for the submission's content and the rubric.

Beside each yaml record, ``OUTDIR/.cache/reports/<submission>.json`` holds the same data as JSON
with the SHA-256 of the yaml text it was written with. Reading a record back uses it when the
hash still matches and the copy, written out again as a record, is that yaml text byte for byte,
so a copy edited by hand never stands in for the record it names (:func:`read_record`; reading
and checking a 63 KB report's copy takes about 7 ms where libyaml's loader takes about 30 ms:
``grader regrade`` and ``--resume`` read every report); otherwise, and always when it is
missing or unreadable, the yaml file itself is read. The yaml file stays the
record: the cache never holds anything the yaml does not.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import hashlib
import json
import os

import yaml

from grader.report import SUFFIXES
from grader.i18n.messages import said
from grader.report import fastyaml
from grader.report.files import write_atomic
from grader.report.model import GradeReport, ReportDict
from grader.report.redact import Moment
import grader.safeyaml as safeyaml

if TYPE_CHECKING:
    from grader.spec.rubric.model import Rubric

#: Infixes by which one submission's file of one format is another's of a second format:
#: ``x.results`` writes ``x.results.json`` (json), which is ``x``'s Gradescope report.
_INFIXES = tuple(sorted({a[: -len(b)] for a in SUFFIXES.values() for b in SUFFIXES.values()
                         if a != b and a.endswith(b)}))


def name_aliases(name: str) -> set[str]:
    """Report names (case folded) whose files could coincide with ``name``'s."""
    low = name.casefold()
    return {low, *(low + infix for infix in _INFIXES), *(low[: -len(i)] for i in _INFIXES if low.endswith(i))}



def report_yaml(report: GradeReport | ReportDict) -> str:
    """The batch's own record of a report (what ``grader.report.yaml_json`` writes).

    Takes the report or its ``to_dict()`` form; the batch passes the dict the worker sent,
    which saves rebuilding it from dataclasses for every submission.
    """
    return fastyaml.dump(report if isinstance(report, dict) else report.to_dict())


def report_path(outdir: Path, name: str, fmt: str = "yaml") -> Path:
    return outdir / "reports" / f"{name}{SUFFIXES[fmt]}"


def cache_path(record: Path) -> Path:
    """Where the JSON copy of the yaml record at ``record`` (``OUT/reports/x.yaml``) is kept."""
    return record.parent.parent / ".cache" / "reports" / (record.name[: -len(SUFFIXES["yaml"])] + ".json")


def _digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def write_record(path: Path, data: ReportDict) -> None:
    """The yaml record at ``path`` (atomic, synced), then its JSON copy (see the module's docstring).

    The copy is written after the record and names the record's hash, so a crash between the two,
    or a record edited later by hand, leaves a copy that no longer matches and is not used.
    """
    text = report_yaml(data)
    write_atomic(path, text)
    copy = cache_path(path)
    try:
        kept = json.dumps(data, ensure_ascii=False)
        same = json.loads(kept) == data  # not so for keys that are not strings, or a nan: the yaml alone holds those
    except (TypeError, ValueError):
        same = False
    try:
        if not same:
            copy.unlink(missing_ok=True)
            return
        copy.parent.mkdir(parents=True, exist_ok=True)
        part = copy.with_name(f".{copy.name}.{os.getpid()}.part")
        part.write_text(f'{{"yaml_sha256": "{_digest(text.encode("utf-8"))}", "report": {kept}}}', encoding="utf-8")
        os.replace(part, copy)
    except OSError:  # a copy that cannot be kept only costs speed later
        try:
            copy.unlink()
        except OSError:
            pass


def read_record(path: Path, stale: Callable[[Path], None] | None = None) -> ReportDict | None:
    """The yaml record at ``path`` as a dict (from its JSON copy when that still matches), or None
    when it is absent, unreadable or not a mapping. Whether the mapping is a report is for its
    reader to find (:meth:`GradeReport.from_dict` refuses one that is not).

    The copy is used only when it names the record's hash and says, written out as the record is,
    the record's very text. A copy that names the hash but says something else (edited by hand)
    is removed and the record read instead; ``stale(path)`` is told of it."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    cached: ReportDict | None = None
    try:
        kept = json.loads(cache_path(path).read_bytes())
        if isinstance(kept, dict) and kept.get("yaml_sha256") == _digest(raw) and isinstance(kept.get("report"), dict):
            cached = cast("ReportDict", dict(kept["report"]))
            if _dumps_to(cached, raw):
                return cached
    except (OSError, ValueError, RecursionError):
        pass
    try:
        data = safeyaml.load(raw.decode("utf-8"))
    except (UnicodeDecodeError, yaml.YAMLError):
        data = None
    if cached is not None and data != cached:  # the copy disagrees with the record it names
        try:
            cache_path(path).unlink()
        except OSError:
            pass
        if stale is not None:
            stale(path)
    return cast("ReportDict", data) if isinstance(data, dict) else None


def _dumps_to(data: ReportDict, raw: bytes) -> bool:
    """Whether ``data`` written out as a record is ``raw``, byte for byte."""
    try:
        return report_yaml(data).encode("utf-8") == raw
    except Exception:  # noqa: BLE001 - a copy that cannot even be written out is no copy of the record
        return False


def read_report(path: Path, stale: Callable[[Path], None] | None = None) -> GradeReport | None:
    """A report written by an earlier run, or None when absent or unreadable (``stale``: as
    :func:`read_record` says)."""
    data = read_record(path, stale)
    try:
        return GradeReport.from_dict(data) if data is not None else None
    except (KeyError, TypeError, ValueError):
        return None


def is_current(report: GradeReport | None, content_hash: str, rubric_hash: str) -> bool:
    return report is not None and report.content_hash == content_hash and report.rubric_hash == rubric_hash




#: the record that the batch's results were published (``grader publish OUT``)
PUBLISHED = "published.json"


T = TypeVar("T")


def _read_json_record(outdir: Path, name: str, read: Callable[[Any], T | None], refusal: str) -> T | None:
    """``read(data)`` of the JSON record ``outdir/name``, or None when there is none.

    Raises:
        UsageError: ``refusal`` (naming the file and the fix) when the file is there but
            unreadable, or ``read`` raises ``KeyError``/``TypeError``/``ValueError`` or returns None.
    """
    from grader.errors import UsageError

    path = outdir / name
    if not path.exists():
        return None
    try:
        value = read(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        value = None
    if value is None:
        raise UsageError(refusal)
    return value


def read_published(outdir: Path) -> dict[str, str] | None:
    """``{"at", "by"}`` of the publication of ``outdir``'s results, or None when unpublished.

    Raises:
        UsageError: the record is there but unreadable (naming the file and the fix).
    """
    record: dict[str, str] | None = _read_json_record(
        outdir, PUBLISHED, lambda data: {"at": str(data["at"]), "by": str(data["by"])},
        said("publication_record_run_grader", name=PUBLISHED, out=outdir.name))
    return record


def write_published(outdir: Path, by: str, at: datetime) -> dict[str, str]:
    """Record (atomically) that ``outdir``'s results are published, when and by whom."""
    record = {"at": at.isoformat(), "by": by}
    write_atomic(outdir / PUBLISHED, json.dumps(record, ensure_ascii=False) + "\n")
    return record


#: who the batch in the folder named what (written by ``grader batch`` under names, not blind)
ROSTER = ".names.json"
#: a blind folder's map from anonymous ids back to the students (:mod:`grader.ingest.anonymous`)
IDENTITIES = "identities.csv"


class Roster:
    """The report names a folder's batches gave, so that they stay with their students.

    ``given``: names by :func:`grader.ingest.discovery.entry_keys` (an entry's exact name and its
    student); a student keeps theirs from run to run. ``names``: every name any run gave, which
    nobody else is ever given (the ledger's adjustments are made under these names).
    ``current``: the last run's names, each with its student id; a report not among them is of
    an entry no longer in SOURCE, and stays out of the gradebooks.
    """

    def __init__(self, given: dict[str, str] | None = None, current: dict[str, str] | None = None,
                 names: Iterable[str] = ()) -> None:
        self.given = dict(given or {})
        self.current = dict(current or {})
        self.names = {*names, *self.given.values()}

    @classmethod
    def read(cls, outdir: Path) -> Roster | None:
        """The folder's roster, or None when no batch under names has written one.

        Raises:
            UsageError: the file is there but unreadable, or names a report by something that
                cannot be a report's name (naming the file and the fix).
        """
        def parse(data: Any) -> Roster | None:
            given, current, names = data["given"], data["current"], data.get("names", [])
            if not (isinstance(given, dict) and isinstance(current, dict) and isinstance(names, list)):
                return None
            if not all(isinstance(k, str) and isinstance(v, str) for k, v in [*given.items(), *current.items()]):
                return None
            if not all(_report_name_ok(n) for n in [*given.values(), *current, *names]):
                return None
            return cls(given, current, names)

        roster: Roster | None = _read_json_record(outdir, ROSTER, parse,
                                                  said("roster_unreadable", path=outdir / ROSTER))
        return roster

    def record(self, given: dict[str, tuple[str, str]], current: dict[str, str]) -> None:
        """This run's names (``given``: each with its keys; ``current``: each with its student
        id): a key keeps the first name recorded under it, and every name is kept for good."""
        for name, keys in given.items():
            for key in keys:
                self.given.setdefault(key, name)
            self.names.add(name)
        self.current = dict(current)

    def write(self, outdir: Path) -> None:
        data = {"schema": 1, "given": dict(sorted(self.given.items())), "names": sorted(self.names),
                "current": dict(sorted(self.current.items()))}
        write_atomic(outdir / ROSTER, json.dumps(data, ensure_ascii=False, indent=1) + "\n")


def _report_name_ok(name: object) -> bool:
    """Whether ``name`` can be a report's file name in ``reports/`` (as the batch gives them:
    no separator, not hidden, at most 255 bytes of UTF-8)."""
    if not isinstance(name, str) or not name or name.startswith(".") or any(c in name for c in "/\\\0"):
        return False
    try:
        return len(name.encode("utf-8")) <= 255 - len(".yaml")
    except UnicodeEncodeError:
        return False


def reports_now(outdir: Path) -> tuple[list[Path], list[str]]:
    """The yaml records of the entries in the last batch, and the names of those left out (the
    reports of entries since gone from SOURCE, kept in ``reports/``). Where no roster was written
    (a blind folder, or one an older grader wrote), every record is the batch's."""
    paths = sorted((outdir / "reports").glob("*.yaml"))
    roster = None if (outdir / IDENTITIES).is_file() else Roster.read(outdir)
    if roster is None:
        return paths, []
    now = [p for p in paths if p.name[: -len(".yaml")] in roster.current]
    return now, [p.name[: -len(".yaml")] for p in paths if p.name[: -len(".yaml")] not in roster.current]


#: the latest due date of the batch's students, extensions included (written by ``grader batch``)
LATEST_DUE = "latest_due.json"
#: the language the LMS gradebooks' feedback was last written in (a later refresh keeps it)
LANG_NOTE = ".cache/lang.json"


def note_lang(outdir: Path, lang: str, note: str = LANG_NOTE) -> None:
    write_atomic(outdir / note, json.dumps({"lang": lang}) + "\n")


def noted_lang(outdir: Path, note: str = LANG_NOTE) -> str:
    """The language noted by :func:`note_lang` (in ``note``), or "" (none noted, or the note unreadable)."""
    data = _noted(outdir, note)
    return str(data.get("lang") or "") if isinstance(data, dict) else ""


#: the language of the Moodle the worksheet is written for (a later refresh keeps it)
MOODLE_NOTE = ".cache/moodle.json"


def note_moodle_lang(outdir: Path, lang: str) -> None:
    note_lang(outdir, lang, MOODLE_NOTE)


def noted_moodle_lang(outdir: Path) -> str:
    """The language noted by :func:`note_moodle_lang`, or "" (none noted, or the note unreadable)."""
    return noted_lang(outdir, MOODLE_NOTE)


def _noted(outdir: Path, note: str) -> object:
    """The JSON of one of the folder's notes, or None (none written, or it cannot be read)."""
    try:
        return json.loads((outdir / note).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


#: how the student views of the folder's reports were last written (:func:`views_of`)
VIEWS_NOTE = ".cache/views.json"


def views_of(rubric: Rubric, lang: str) -> dict[str, object]:
    """What decides a report's student views besides the report itself: the formats, how much
    of hidden tests and quiz answers they show, and their language. A batch that keeps its
    reports (``--resume``) writes the views again when this changed since :func:`note_views`."""
    options = rubric.report
    return {"formats": [f for f in options.formats if f != "yaml"], "hidden_tests": str(options.hidden_tests.value),
            "hidden_details": str(options.hidden_details.value), "quiz_answers": str(options.quiz_answers.value),
            "languages": list(options.languages), "lang": lang}


def note_views(outdir: Path, views: dict[str, object]) -> None:
    write_atomic(outdir / VIEWS_NOTE, json.dumps(views, ensure_ascii=False, sort_keys=True) + "\n")


def noted_views(outdir: Path) -> dict[str, object] | None:
    """The views noted by :func:`note_views`, or None (none noted, or the note unreadable)."""
    data = _noted(outdir, VIEWS_NOTE)
    return data if isinstance(data, dict) else None


#: the rubric file the batch graded with (so that a command on the folder finds it from anywhere)
RUBRIC_NOTE = ".cache/rubric.json"


def note_rubric(outdir: Path, rubric_file: Path, assignment: str) -> None:
    text = json.dumps({"path": str(Path(rubric_file).resolve()), "assignment": assignment}, ensure_ascii=False)
    write_atomic(outdir / RUBRIC_NOTE, text + "\n")


def noted_rubric(outdir: Path, assignment: str) -> Path | None:
    """The rubric file :func:`note_rubric` noted, where it still exists and is of ``assignment``."""
    data = _noted(outdir, RUBRIC_NOTE)
    if not isinstance(data, dict) or "path" not in data:
        return None
    path = Path(str(data["path"]))
    return path if data.get("assignment") == assignment and path.is_file() else None


def write_latest_due(outdir: Path, due: datetime) -> None:
    write_atomic(outdir / LATEST_DUE, json.dumps({"latest_due": due.isoformat()}) + "\n")


def read_latest_due(outdir: Path) -> datetime | None:
    """The batch's latest due date, or None when none was recorded.

    Raises:
        UsageError: the record is there but unreadable (naming the file and the fix).
    """
    def read(data: Any) -> datetime | None:
        due = datetime.fromisoformat(str(data["latest_due"]))
        return due if due.utcoffset() is not None else None

    due: datetime | None = _read_json_record(
        outdir, LATEST_DUE, read,
        said("due_date_record_run", name=LATEST_DUE, out=outdir.name))
    return due


def moment_of(outdir: Path, at: datetime | None = None) -> Moment:
    """The moment a student view written into ``outdir`` now is written at."""
    return Moment(at=at or datetime.now(timezone.utc), published=read_published(outdir) is not None,
                  latest_due=read_latest_due(outdir))


def write_report_files(outdir: Path, name: str, report: GradeReport, data: ReportDict, rubric: Rubric,
                       lang: str, warn: Callable[[str, Exception], None], at: datetime | None = None) -> None:
    """One submission's report in every format the rubric asks for; the yaml one is the batch's
    own record (``--resume`` reads it back): complete, unredacted. A format that cannot be
    written calls ``warn(format, error)`` and is skipped. The student formats show hidden tests
    as :func:`grader.report.redact.details_visible` decides at ``at`` (default: now)."""
    write_record(report_path(outdir, name, "yaml"), data)
    write_student_files(outdir, name, report, rubric, lang, warn, at)


def write_student_files(outdir: Path, name: str, report: GradeReport, rubric: Rubric, lang: str,
                        warn: Callable[[str, Exception], None], at: datetime | None = None) -> list[Path]:
    """The formats besides the yaml record (what students see); returns the files written."""
    from grader.errors import UsageError
    from grader.report import render

    formats = [fmt for fmt in rubric.report.formats if fmt != "yaml"]
    if not formats:  # the record alone: no moment to look up (two small files read per report)
        return []
    moment = moment_of(outdir, at)
    written = []
    for fmt in formats:
        try:
            text = render(report, fmt, rubric=rubric, lang=lang, moment=moment)
        except UsageError as exc:
            warn(fmt, exc)
            continue
        write_atomic(report_path(outdir, name, fmt), text)
        written.append(report_path(outdir, name, fmt))
    return written



#: which tests the validate corpus's correct styles fail (written by ``grader batch``), in the
#: batch's folder and, for the next batch with the same rubric and corpus, in the user's cache
CORPUS = ".cache/corpus.json"


def _user_corpus(digest: str) -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "grader" / "corpus" / f"{digest}.json"


def write_corpus(outdir: Path, digest: str, seed: int, failures: dict[str, list[str]], styles: list[str]) -> None:
    """Record, for the rubric and corpus hashed as ``digest``, the tests correct styles fail:
    in ``outdir`` and in the user's cache (skipped when that cannot be written)."""
    record = {"digest": digest, "seed": seed, "styles": styles,
              "failures": {test: sorted(names) for test, names in sorted(failures.items())}}
    text = json.dumps(record, ensure_ascii=False) + "\n"
    write_atomic(outdir / CORPUS, text)
    try:
        write_atomic(_user_corpus(digest), text)
    except OSError:
        pass  # a cache: the next batch grades the corpus again


def _read_corpus_file(path: Path, digest: str) -> dict[str, list[str]] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data["digest"] != digest:
            return None
        return {str(test): [str(n) for n in names] for test, names in dict(data["failures"]).items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def corpus_recorded(outdir: Path, digest: str) -> bool:
    """Whether ``outdir`` or the user's cache records the corpus for ``digest`` (read only:
    :func:`read_corpus` is what copies the cache's record in)."""
    return (_read_corpus_file(outdir / CORPUS, digest) is not None
            or _read_corpus_file(_user_corpus(digest), digest) is not None)


def read_corpus(outdir: Path, digest: str | None, *, cached: bool = False) -> dict[str, list[str]] | None:
    """test id -> the correct styles failing it, when ``outdir`` (or, with ``cached``, the user's
    cache, then copied into ``outdir``) holds a record for ``digest``; None when there is none,
    it is for another rubric or corpus, or it is unreadable (the batch grades the corpus again)."""
    if digest is None:
        return None
    found = _read_corpus_file(outdir / CORPUS, digest)
    if found is None and cached:
        path = _user_corpus(digest)
        found = _read_corpus_file(path, digest)
        if found is not None:
            write_atomic(outdir / CORPUS, path.read_text(encoding="utf-8"))
    return found
