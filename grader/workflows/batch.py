"""``grader batch``: grade every submission in a folder or an LMS zip export, in parallel.

Stages, each a module of its own and each a function of the one before:

1. :func:`grader.ingest.discovery.find_submissions` — folders, notebooks and zips directly under the
   source (an LMS export zip is unpacked first, safely), OS junk skipped, anything else listed
   with a reason. Student ids come from Moodle / Canvas / Blackboard entry names.
2. :class:`grader.engines.local_pool.LocalPool` — ``jobs`` trusted worker processes
   (:mod:`grader.engines.batch_worker`), each owning one warm sandboxed zygote, pull chunks of
   submissions; reports come back as plain dicts and are written here
   (:mod:`grader.report.outdir`), atomically, as they arrive. ``resume`` skips submissions whose
   report already matches their content hash and the rubric; each student whose final score that
   moves (an extension granted since, files changed, an adjustment now needing review) is named
   with why, on the terminal and in ``OUT/resumes/<time>.{md,csv}`` (:mod:`grader.workflows.changes`).
3. :mod:`grader.outputs.gradebook`, :mod:`grader.outputs.lms_gradebooks` and :mod:`grader.outputs.summary`
   — ``gradebook.csv``, the LMS gradebooks and the class summary.

Example::

    result = run_batch("uploads.zip", "out", rubric, jobs=2)
    result.graded, result.skipped, result.interrupted
"""

from __future__ import annotations

import contextlib
import gc
import os
import secrets
import signal
import threading
import time
from datetime import datetime, timezone
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TYPE_CHECKING, cast

from rich.console import Console

from grader.ingest.anonymous import scrub_data
from grader.ingest.discovery import Discovery, Found, Skipped, files_wanted
from grader.i18n.messages import said
from grader.errors import GraderError, UsageError
from grader.outputs.gradebook import (GradebookEntry, apply_lms, csv_written, gradebook_rows, say_written,
                                      write_gradebook)
from grader.outputs.lms_gradebooks import CanvasTarget, check_formats, write_lms_gradebooks
from grader.report import ledger
from grader.report.outdir import (is_current, note_views, noted_views, read_report, report_path, views_of,
                                  write_report_files, write_student_files)
from grader.engines.local_pool import LocalPool, Tally, WorkerProcess, retire_spares, start_early, workers_for
from grader.report.contain import error_report
from grader.report.model import GradeReport, ReportDict
from grader.workflows.changes import Change, explain

if TYPE_CHECKING:
    from grader.engines.dask import ClusterPool, ClusterSpec
    from grader.ingest.anonymous import Names
    from grader.spec.due import Extension, Timing
    from grader.spec.rubric.model import Rubric
    from grader.ingest.submission.model import Submission, SubmissionDict


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


def run_batch(
    source: str,
    out: str,
    rubric: Rubric,
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
    similarity: bool = False,
    cluster: str | None = None,
    shard_size: int | None = None,
    submitted: dict[str, datetime] | None = None,
    extensions: dict[str, Extension] | None = None,
    canvas: CanvasTarget | None = None,
    again: str = "",
    anonymous: bool = False,
    moodle_lang: str | None = None,
    allow_plain_cluster: bool = False,
    variants: bool = False,
) -> BatchResult:
    """Grade every submission in ``source`` into ``out``; see the module docstring.

    With ``similarity``, the stage of :mod:`grader.insight.similarity` runs after the reports are
    written and before the class summary, whose first screen then lists its groups.

    ``cluster`` (``--cluster SPEC``) grades on a Dask cluster instead of ``jobs`` local
    processes (:mod:`grader.engines.dask`); each node's own sandbox level counts there, not this
    machine's, and ``shard_size`` submissions go to a node at a time. A plain ``tcp://`` address
    that is not loopback (given, or in the scheduler file) is refused unless
    ``allow_plain_cluster`` (``--allow-plain-cluster``), and then warned of on every run.

    ``again`` is the command as it was given (``grader batch … --rubric …``): every hint to run it
    again (``--resume``) repeats it, options included.

    ``anonymous`` (``--anonymous``): every output names each student by a random id
    (:mod:`grader.ingest.anonymous`); the export is unpacked outside ``out``.

    ``variants`` (``--variants``): each student is graded with their own variant of the frozen
    table, drawn by the course secret and their LMS id (a blind batch's real one); the ledger
    gets the table and its hash.

    Raises:
        UsageError: bad source or cluster SPEC, or no namespace sandbox (here, or on a node of
            the cluster) and ``allow_weak`` is false.
        GraderError: the suites could not run (a fault of the assignment, not of a student).
    """
    started = time.monotonic()
    _refuse_early(rubric, jobs=jobs, cluster=cluster, gradebooks=gradebooks, canvas=canvas)
    # This process and its workers keep both CPUs busy on their own: an idle BLAS pool
    # (numpy's) would only spin on them. Read when numpy loads; the workers inherit it.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    console = console or Console(stderr=True, highlight=False, soft_wrap=True)
    outdir = Path(out)
    at_most = None if cluster is not None else _at_most(source, rubric, outdir, summary, resume)
    # A --resume that can have nothing to grade chooses the sandbox only if it grades after all.
    spec, level, warning = _placed(cluster, allow_weak, allow_plain_cluster, at_most == 0, console, lang)
    jobs = 0 if spec is not None else jobs  # on a cluster no local workers: each node chooses its own level
    from grader.ingest.anonymous import check_folder
    check_folder(outdir, anonymous)
    outdir.mkdir(parents=True, exist_ok=True)
    early = _start_early(rubric, jobs, level, warning, outdir, None if jobs == 0 else at_most)
    retired: list[WorkerProcess] = []
    try:
        with _few_collections():
            batch = _Batch(source, out, outdir, rubric, lang=lang, console=console, level=level, warning=warning,
                           started=started, cluster=spec, shard_size=shard_size, allow_weak=allow_weak,
                           submitted=submitted, extensions=extensions, canvas=canvas, again=again,
                           anonymous=anonymous, moodle_lang=moodle_lang, variants=variants)
            return batch.run(early, retired, jobs=jobs, resume=resume, seed=seed, progress=progress,
                             summary=summary, gradebooks=gradebooks, bom=bom, similarity=similarity)
    finally:
        for proc in early + retired:
            proc.stop()


def _placed(cluster: str | None, allow_weak: bool, allow_plain_cluster: bool, later: bool, console: Console,
            lang: str) -> tuple[ClusterSpec | None, str, str]:
    """Where to grade (:func:`_where_to_grade`), saying on the terminal what the instructor must know
    of it: a plain cluster address allowed (:func:`_warn_plain`), a weaker sandbox."""
    spec, level, warning = _where_to_grade(cluster, allow_weak, later=later)
    if spec is not None:
        _warn_plain(spec, allow_plain_cluster, console, lang)
    if warning:
        _flag(console, said("warning", warning=warning), lang)
    return spec, level, warning


@contextlib.contextmanager
def _few_collections() -> Iterator[None]:
    """Hundreds of reports of ~2,000 objects each pass through this process: the default
    collector thresholds would run ~300 passes over them (~0.15 s) for cycles they lack."""
    thresholds, froze = gc.get_threshold(), gc.get_freeze_count() == 0
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        if froze:  # (a caller that had frozen objects itself keeps them frozen)
            gc.unfreeze()


def _warn_plain(spec: ClusterSpec, allow: bool, console: Console, lang: str) -> None:
    """Refuse a plain ``tcp://`` cluster beyond loopback, or (``allow``) warn of it on this run."""
    from grader.engines.dask import refuse_plain

    plain = refuse_plain(spec, allow=allow)
    if plain:
        _flag(console, said("warning", warning=plain), lang)


def _refuse_early(rubric: Rubric, *, jobs: int | None, cluster: str | None, gradebooks: tuple[str, ...],
                  canvas: CanvasTarget | None) -> None:
    """Options that cannot work together, refused before any work."""
    if cluster is not None and jobs is not None:
        raise UsageError(said("jobs_sets_how_many"))
    if "canvas" in gradebooks:  # a Canvas file needs its assignment
        check_formats(("canvas",), {"canvas"}, canvas, rubric.title.en)


def _start_early(rubric: Rubric, jobs: int | None, level: str, warning: str, outdir: Path,
                 at_most: int | None) -> list[WorkerProcess]:
    """The local workers, started while this process finds and hashes the submissions
    (:func:`grader.engines.local_pool.start_early`); none when ``jobs`` is 0 (a cluster grades)."""
    if jobs == 0:
        return []
    base = {"op": "config", "rubric": str(rubric.file), "level": level, "warning": warning}
    return start_early(base, jobs, outdir / ".logs", at_most)


def _at_most(source: str, rubric: Rubric, outdir: Path, summary: bool, resume: bool = False) -> int | None:
    """How many submissions a batch can grade at most, when that is cheap to tell: a folder
    gives at most one per entry (a flat export's loose files are fewer students still), an
    export zip at most one per file it lists (read from its directory, nothing unpacked), and
    the validate corpus is graded beside them unless its finding is recorded. None when the
    corpus will be graded, or for what discovery will refuse with its own message.

    With ``resume``, the reports ``outdir`` already holds are taken off: a ``--resume`` with
    nothing left to grade starts no grading process (none imports torch). A report that
    proves stale costs only time, as any bound too low does."""
    import zipfile

    from grader.report.outdir import corpus_recorded
    from grader.ingest.corpus import corpus_digest

    try:
        if os.path.isdir(source):
            with os.scandir(source) as entries:
                n = sum(1 for _ in entries)
        else:
            with zipfile.ZipFile(source) as zf:
                n = sum(1 for info in zf.infolist() if not info.is_dir())
    except (OSError, zipfile.BadZipFile, ValueError):
        return None
    if summary:
        digest = corpus_digest(rubric)
        if digest is not None and not corpus_recorded(outdir, digest):
            return None
    if resume:
        try:
            with os.scandir(outdir / "reports") as entries:
                n -= sum(1 for e in entries if e.name.endswith(".yaml"))
        except OSError:
            pass
    return max(0, n)


def _where_to_grade(cluster: str | None, allow_weak: bool,
                    later: bool = False) -> tuple[ClusterSpec | None, str, str]:
    """(the cluster's parsed SPEC or None, the sandbox level here, its warning).

    A bad SPEC or a missing extra stops the batch here, before any work. ``later``: there may
    be nothing to grade here, so the level is left empty (``""``) and chosen by
    :meth:`_Batch._grade` if something is graded after all.
    """
    if cluster is not None:
        from grader.engines.dask import parse_spec

        return parse_spec(cluster), "namespaces", ""
    if later:
        return None, "", ""
    from grader.sandbox.level import choose_level

    level, warning = choose_level(allow_weak=allow_weak)
    return None, level, warning


class _Batch:
    """One batch run after its workers started: find, resume, grade, write, summarise."""

    def __init__(self, source: str, out: str, outdir: Path, rubric: Rubric, *, lang: str, console: Console,
                 level: str, warning: str, started: float, cluster: ClusterSpec | None = None,
                 shard_size: int | None = None, allow_weak: bool = False, submitted: dict[str, datetime] | None = None,
                 extensions: dict[str, Extension] | None = None, canvas: CanvasTarget | None = None,
                 again: str = "", anonymous: bool = False, moodle_lang: str | None = None,
                 variants: bool = False) -> None:
        from grader.spec.assignment import assignment_of

        self.anonymous = anonymous
        self.variants = variants
        self.canvas = canvas
        #: the language of the Moodle worksheet the instructor gave (--worksheet): the one to write back for
        self.moodle_lang = moodle_lang
        self.again = again or f"grader batch {source} --out {out}"
        self.source, self.out, self.outdir, self.rubric = source, out, outdir, rubric
        self.assignment = assignment_of(rubric)
        self.lang, self.console, self.level, self.warning, self.started = lang, console, level, warning, started
        self.finished: dict[int, GradeReport] = {}
        self.warned: set[str] = set()
        self.seed = 0
        self.found = Discovery()
        #: submission times (``--submitted``) and extensions (``--extensions``), by student id or
        #: name (grader.spec.due.student_key)
        self.submitted, self.extensions = submitted or {}, extensions or {}
        #: the hand adjustments (grader.report.ledger), read and checked before anything is graded
        self.ledger = ledger.read(outdir)
        self.cluster, self.shard_size, self.allow_weak = cluster, shard_size, allow_weak
        self._pool: ClusterPool | None = None  # opened before discovery when the seed is known
        #: the validate corpus's correct styles graded beside the class (item analysis), by
        #: index after the class's; their reports, by style; and those reports' ids (not counted)
        self.corpus: list[tuple[str, Submission]] = []
        self.corpus_reports: dict[str, GradeReport] = {}
        self._aside: set[int] = set()
        #: with --resume, each report as it was before this run (by index), and each student whose
        #: final score moved since (grader.workflows.changes)
        self._before: dict[int, ReportDict] = {}
        self.changes: list[Change] = []
        self.rewrite_views = False  #: kept reports get their student views written again (_resumable)
        #: blind: every name and id the batch knows, scrubbed from what reports and pages show
        self.names: Names | None = None
        self._named_reasons: set[str] = set()  #: extension reasons that named a student (blind)

    def run(self, early: list[WorkerProcess], retired: list[WorkerProcess], *, jobs: int | None, resume: bool,
            seed: int | None, progress: bool | None, summary: bool, gradebooks: tuple[str, ...],
            bom: bool, similarity: bool = False) -> BatchResult:
        if seed is None and not resume:
            seed = self._folder_seed()
        if self.cluster is not None and (seed is not None or not resume):
            # Known before discovery: the cluster's grading processes warm up meanwhile.
            self.seed = secrets.randbelow(2**31) if seed is None else int(seed)
            seed = self.seed
            self._pool = self._cluster_pool(self.cluster)
            self._pool.open_soon()
        try:
            return self._run(early, retired, jobs=jobs, resume=resume, seed=seed, progress=progress,
                             summary=summary, gradebooks=gradebooks, bom=bom, similarity=similarity)
        finally:
            if self._pool is not None:
                self._pool.close()

    def _run(self, early: list[WorkerProcess], retired: list[WorkerProcess], *, jobs: int | None, resume: bool,
             seed: int | None, progress: bool | None, summary: bool, gradebooks: tuple[str, ...],
             bom: bool, similarity: bool) -> BatchResult:
        self._record_latest_due()
        self.found = self._discover()
        if gradebooks:  # refused before grading: an LMS the export did not come from
            entries: list[Found | Skipped] = [*self.found.found, *self.found.skipped,
                                              *(f.who for f in self.found.failed)]
            check_formats(gradebooks, {i.lms for i in entries if i.lms}, self.canvas, self.rubric.title.en)
        if self.found.keep is not None:  # the names (or blind ids) given, now that nothing refuses
            self.found.keep()
        self._know_names()
        self._say_unmatched()
        todo = self._resumable(resume)
        resumed = len(self.finished)
        digest = self._corpus_to_grade() if summary else None
        if seed is None:
            # A resumed batch keeps the seed it started with, so the whole class is graded alike.
            seed = next((r.seed for r in self.finished.values()), None)
        self.seed = secrets.randbelow(2**31) if seed is None else int(seed)
        if resume and resumed:
            self._say(said("resume_submission_s_already", n=resumed))
        jobs = workers_for(len(todo) + len(self.corpus), jobs)
        retire_spares(early, jobs, retired)
        if summary and todo:
            # The parent mostly waits on its workers: load the plotting library meanwhile.
            threading.Thread(target=_preload_plotting, daemon=True).start()
        n = len(self.found.found)
        interrupted, failure = self._grade(todo, jobs, early, progress,
                                           aside=list(range(n, n + len(self.corpus))))
        if digest is not None and not interrupted and len(self.corpus_reports) == len(self.corpus):
            from grader.insight.item_analysis import corpus_failures
            from grader.report.outdir import write_corpus

            write_corpus(self.outdir, digest, self.seed, corpus_failures(self.corpus_reports),
                         [name for name, _ in self.corpus])
        reports = self._record(interrupted, gradebooks, bom)
        self._say_changes()
        if not interrupted:  # every report's views are now written as the rubric says
            note_views(self.outdir, views_of(self.rubric, self.lang))
        if failure is not None:
            raise GraderError(said("finished_reports_kept_fix", failure=failure, n=len(self.finished), outdir=self.outdir, again=self.again))
        from grader.insight import similarity as alike
        from grader.outputs import similarity_page

        alike.note_source(self.outdir, self.source)
        if similarity and reports:
            try:
                alike_result = similarity_page.run(self.outdir, self.rubric, reports=reports,
                                                   submissions=[(f.submission.name, f.submission) for f in self.found.found])
                for line in alike_result.capped:  # (what the comparison left out, as its page says)
                    self._say(line)
            except Exception as exc:  # noqa: BLE001 - the reports and gradebook stand; say what failed
                _flag(self.console, said("warning_similarity_stage_failed", what=f"{type(exc).__name__}: {exc}",
                                         out=self.out), self.lang)
        if summary and reports:
            from grader.outputs import summary as class_summary

            class_summary.write_summary(reports, self.outdir, self.rubric, unrecognised=self.found.unrecognised)
        if interrupted:
            _flag(self.console, said("interrupted_graded_kept_finish", n=len(self.finished), total=len(self.found.found), outdir=self.outdir, again=self.again), self.lang)
        return BatchResult(reports, len(self.finished) - resumed, resumed, self.found.unrecognised, interrupted,
                           self.outdir, time.monotonic() - self.started,
                           unreadable=len(reports) - len(self.finished))

    def _corpus_to_grade(self) -> str | None:
        """Queue the validate corpus's correct styles unless ``OUT`` already records how they
        fare with this rubric and corpus; the digest to record them under, or None."""
        from grader.report.outdir import read_corpus
        from grader.ingest.corpus import corpus_digest, corpus_submissions

        digest = corpus_digest(self.rubric)
        if digest is None or read_corpus(self.outdir, digest, cached=True) is not None:
            return None
        self.corpus = corpus_submissions(self.rubric)
        if self.corpus:
            self._say(said("item_analysis_correct_styles", n=len(self.corpus)))
        return digest

    def _wire(self, index: int) -> SubmissionDict:
        """Submission ``index`` as plain data for a worker: the class's, then the corpus's."""
        n = len(self.found.found)
        sub = self.found.found[index].submission if index < n else self.corpus[index - n][1]
        return sub.to_dict()

    def _discover(self) -> Discovery:
        from grader.ingest import anonymous

        found = anonymous.find(self.source, self.outdir, self.assignment, anonymous=self.anonymous)
        for entry, why in found.unrecognised:
            _flag(self.console, said("not_graded", why=why), self.lang, before=f"{entry}: ")
        for failed in found.failed:
            _flag(self.console, said("cannot_read_error_report", why=failed.why), self.lang)
        if not found.found and not found.failed:
            seen = len(found.skipped)
            raise UsageError(
                said("no_submission_found_entries", source=self.source, seen=seen, files=files_wanted(self.assignment.part_files)))
        if self.variants:
            self._give_variants(found)
        return found

    def _give_variants(self, found: Discovery) -> None:
        """Each student's own variant (by LMS id: the real one behind an anonymous id), carried by
        the submission into grading; the issued table and its hash into the ledger (once)."""
        from grader.spec.variants import course_secret, frozen_path, load_frozen, variant_for

        if self.rubric.variants is None:
            raise UsageError(said("batch_variants_none", file=str(self.rubric.file)))
        table, generator = load_frozen(frozen_path(Path(self.rubric.file), self.rubric.assignment),
                                       self.rubric.assignment)
        secret = course_secret(course=Path(self.rubric.file).parent, outdirs=(self.outdir,), tell=self._say)
        for f in found.found:
            lms_id = (found.known_as.get(f.student_id) or (f.student_id,))[0]
            f.submission = f.submission.with_variant(
                variant_for(table, secret, self.rubric.assignment, lms_id).as_data())
        if ledger.record_variants(self.outdir, self.rubric.assignment, table, generator):
            self.ledger = ledger.read(self.outdir)

    def _resumable(self, resume: bool) -> list[int]:
        """The submissions to grade; with ``resume``, those with a current report are kept."""
        from grader.spec.fingerprint import rubric_fingerprint

        fingerprint = rubric_fingerprint(self.rubric, ("public", "hidden"))
        # The rubric's view-only options (formats, hidden details, ...) or the language changed
        # since the views were written: the kept reports' views are written again, none regraded.
        self.rewrite_views = resume and noted_views(self.outdir) != views_of(self.rubric, self.lang)
        todo: list[int] = []
        for i, f in enumerate(self.found.found):
            old = read_report(report_path(self.outdir, f.submission.name), self._stale_copy) if resume else None
            if old is not None:
                self._before[i] = old.to_dict()
            if is_current(old, f.submission.content_hash, fingerprint):
                assert old is not None
                self.finished[i] = self._adjusted(i, old)
            else:
                todo.append(i)
        return todo

    def _stale_copy(self, record: Path) -> None:
        """Say that the hidden copy of ``record`` disagreed with it (removed; the record was read)."""
        from grader.report.outdir import cache_path

        _flag(self.console, said("resume_cache_disagreed", name=record.name[: -len(".yaml")],
                                 copy=cache_path(record), record=record), self.lang)

    def _changed(self, index: int, report: ReportDict, *, regraded: bool) -> None:
        """Note how submission ``index``'s final score moved since its report before this run, and why."""
        old = self._before.get(index)
        if old is None:
            return
        change = explain(self.found.found[index].submission.name, old, report, regraded=regraded)
        if change is not None:
            self.changes.append(change)

    def _say_changes(self) -> None:
        """Each student whose final score a --resume moved, on the terminal and in
        ``OUT/resumes/<time>.{md,csv}`` (none written when nothing moved)."""
        from grader.i18n.messages import both
        from grader.workflows.changes import say_changes, write_record

        if not self.changes:
            return
        self.changes.sort(key=lambda c: c.submission)
        changes = self.changes
        if self.anonymous:  # (the report names are the blind ids already)
            changes = [Change(c.submission, "", c.before, c.after, c.tests, c.why) for c in changes]
        say_changes(self.console, changes, self.lang)
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        title = [f"# {both('resume_title', stamp=stamp)}", "", both("resume_count", changed=len(changes)), ""]
        write_record(self.outdir / "resumes", stamp, title, changes)

    def _record_latest_due(self) -> None:
        """Which rubric file this is (``outdir.note_rubric``), and ``OUT/latest_due.json``: the
        rubric's due date or the latest extension's, before any report is written (``hidden_details: after_due`` waits for it: grader.report.redact)."""
        from grader.spec.due import due_for, parse_when
        from grader.report.outdir import note_rubric, write_latest_due

        note_rubric(self.outdir, Path(self.rubric.file), str(self.rubric.assignment))
        if not self.rubric.due:
            return
        assigned = parse_when(self.rubric.due, f"{self.rubric.file}: due")
        write_latest_due(self.outdir, max([assigned, *(due_for(k, assigned, self.extensions)[0]
                                                       for k in self.extensions)]))

    def _when(self, found: Found) -> Timing | None:
        """The submission time and the student's own due date (grader.spec.due), when both are known."""
        from grader.spec.due import due_for, lms_wall_time, parse_when

        if not self.rubric.due:
            return None
        keys = self.found.keys_of(found)
        assigned = parse_when(self.rubric.due, f"{self.rubric.file}: due")
        at = next((self.submitted[k] for k in keys if k in self.submitted), None)
        if at is None and found.lms_time:  # the LMS's own clock (Blackboard), in the due date's zone
            at = lms_wall_time(found.lms_time, assigned.tzinfo or timezone.utc)
        key = next((k for k in keys if k in self.extensions), keys[0])
        due, ext = due_for(key, assigned, self.extensions)
        if ext is not None and self.names is not None and self.names(ext.reason) != ext.reason:
            self._named_reasons.add(ext.reason)  # (said once, by how many: _know_names)
            ext = replace(ext, reason=self.names(ext.reason))
        if at is None:
            # The LMS's late flag decides, but it was set against the LMS's own due date: a
            # student with an extension is not judged by it (grader.spec.due.apply_late).
            return {"submitted": "", "due": due.isoformat(), "extension": ext.reason} if ext else None
        return {"submitted": at.isoformat(), "due": due.isoformat(), "extension": ext.reason if ext else ""}

    def _know_names(self) -> None:
        """Blind: the names and ids to scrub (:class:`grader.ingest.anonymous.Names`), and a
        warning, by how many and never whose, of the extension reasons that name a student:
        each is kept with ``[name]`` or ``[id]`` in its place."""
        if not self.anonymous:
            return
        from grader.ingest.anonymous import names_of

        self.names = names_of(self.outdir)
        for found in self.found.found:
            self._when(found)
        if self._named_reasons:
            _flag(self.console, said("extension_reason_named", n=len(self._named_reasons)), self.lang)

    def _say_unmatched(self) -> None:
        """Warn of each student ``--submitted`` or ``--extensions`` names whom no submission
        matches (a slip there would silently cost that student their time or extension), and of
        students with an extension but no submission time (the LMS's late flag is not applied
        to them). In a blind batch, how many, never who."""
        if not self.rubric.due or not (self.submitted or self.extensions):
            return
        known = {k for f in self.found.found for k in self.found.keys_of(f)}
        for option, listed in (("--submitted", self.submitted), ("--extensions", self.extensions)):
            unmatched = sorted(k for k in listed if k not in known)
            if unmatched:
                who = str(len(unmatched)) if self.anonymous else ", ".join(unmatched[:10]) + (
                    " …" if len(unmatched) > 10 else "")
                _flag(self.console, said("listed_match_no_submission", option=option, n=len(unmatched), who=who),
                      self.lang)
        untimed = [f for f in self.found.found
                   if (when := self._when(f)) is not None and when["submitted"] == "" and f.late]
        if untimed:
            who = str(len(untimed)) if self.anonymous else ", ".join(sorted(f.submission.name for f in untimed)[:10])
            _flag(self.console, said("extension_without_time", n=len(untimed), who=who), self.lang)

    def _adjusted(self, index: int, report: GradeReport) -> GradeReport:
        """A kept report with the late policy (an extension may have been granted since) and the
        ledger as they are now; written again only if that changed it."""
        with ledger.locked(self.outdir):
            self.ledger = ledger.read(self.outdir)
            return self._adjusted_now(index, report)

    def _adjusted_now(self, index: int, report: GradeReport) -> GradeReport:
        from grader.spec.due import undo_late

        found, name = self.found.found[index], self.found.found[index].submission.name
        data = report.to_dict()
        now = ledger.apply(report.to_dict(), [], self.rubric)
        undo_late(now)
        now = apply_lms(now, found, self.rubric, self._when(found))
        now = ledger.apply(now, ledger.for_submission(self.ledger, name), self.rubric)
        if now == data:
            if self.rewrite_views:
                write_student_files(self.outdir, name, report, self.rubric, self.lang, self._warn_format)
            return report
        self._changed(index, now, regraded=False)
        report = GradeReport.from_dict(now)
        self.save(name, report, now)
        return report

    def _grade(self, todo: list[int], jobs: int, early: list[WorkerProcess], progress: bool | None,
               aside: list[int]) -> tuple[bool, GraderError | None]:
        """Grade ``todo`` and then ``aside`` (the corpus: not counted on the progress bar) on the
        local pool or the cluster; (interrupted, the fault that stopped it)."""
        if not todo and not aside:
            return False, None
        tally = Tally(len(todo), self.console, progress, aside=self._aside, lang=self.lang)
        if self.cluster is not None:
            return self._grade_on_cluster(self.cluster, todo + aside, tally)
        if not self.level:  # left to now (a --resume that found something to grade after all)
            from grader.sandbox.level import choose_level

            self.level, self.warning = choose_level(allow_weak=self.allow_weak)
            if self.warning:
                _flag(self.console, said("warning", warning=self.warning), self.lang)
        config = {"op": "config", "rubric": str(self.rubric.file), "seed": self.seed, "level": self.level,
                  "warning": self.warning}
        pool = LocalPool(jobs, config, self.outdir / ".logs", self._wire, early)
        try:
            pool.run(todo + aside, self.write, tally)
        except KeyboardInterrupt:
            return True, None
        except GraderError as exc:  # the suites or the sandbox broke: keep what finished
            return True, exc
        return False, None

    def _folder_seed(self) -> int | None:
        """The seed the folder's reports were graded with (said), or None when it holds none: a
        re-run into the folder grades alike, and a hand adjustment made against a score stays in
        force unless the grading itself changed (``--seed`` draws another on purpose)."""
        from grader.report.outdir import read_record

        for path in sorted((self.outdir / "reports").glob("*.yaml")):
            record = read_record(path)
            if record is not None and isinstance(record.get("seed"), int):
                self._say(said("batch_keeps_folder_seed", seed=record["seed"]))
                return int(record["seed"])
        return None

    def _say(self, text: str) -> None:
        """A line on the terminal in the batch's language (``ja`` shows Japanese; else English)."""
        from grader.i18n.messages import translate

        self.console.print(translate(text, self.lang), markup=False)

    def _cluster_pool(self, spec: ClusterSpec) -> ClusterPool:
        from grader.engines.dask import ClusterPool
        from grader.spec.fingerprint import rubric_fingerprint

        return ClusterPool(spec, rubric=self.rubric, seed=self.seed,
                           fingerprint=rubric_fingerprint(self.rubric, ("public", "hidden")),
                           wire=self._wire, allow_weak=self.allow_weak,
                           shard=self.shard_size, say=self._say,
                           log=self.outdir / ".logs" / "cluster.log")

    def _grade_on_cluster(self, spec: ClusterSpec, todo: list[int], tally: Tally) -> tuple[bool, GraderError | None]:
        pool = self._pool if self._pool is not None and self._pool.seed == self.seed else self._cluster_pool(spec)
        try:
            pool.run(todo, self.write, tally)
        except KeyboardInterrupt:
            return True, None
        except UsageError:  # a node refused (weak sandbox, another rubric): nothing more to grade
            raise
        except GraderError as exc:
            return True, exc
        return False, None

    def write(self, index: int, data: dict[str, Any] | None, reason: str = "") -> GradeReport:
        """Write the report a worker sent, or (``data`` None, or it cannot be written) an
        error report saying ``reason``: every submission ends with a report."""
        # The worker's message, as JSON gives it: a report's dict (GradeReport.to_dict in
        # grader.engines.batch_worker), which GradeReport.from_dict checks below.
        report_data = cast("ReportDict | None", data)
        with _whole(), ledger.locked(self.outdir):  # Ctrl-C waits: a report on disk is also one the gradebook lists
            self.ledger = ledger.read(self.outdir)  # as it is now: an adjustment made meanwhile counts
            return self._write(index, report_data, reason)

    def _write(self, index: int, data: ReportDict | None, reason: str) -> GradeReport:
        if index >= len(self.found.found):
            return self._corpus_report(index - len(self.found.found), data)
        sub = self.found.found[index].submission
        report = None
        if data is not None:
            try:
                if self.names is not None:  # blind: a name the student's code printed or raised
                    data = cast("ReportDict", scrub_data(data, self.names))
                data = apply_lms(data, self.found.found[index], self.rubric, self._when(self.found.found[index]))
                data = ledger.apply(data, ledger.for_submission(self.ledger, sub.name), self.rubric)
                report = GradeReport.from_dict(data)
                self.save(sub.name, report, data)
                self._changed(index, data, regraded=True)
            except Exception as exc:  # noqa: BLE001 - this submission fails, the batch goes on
                report = None
                reason = said("report_could_written", why=f"{type(exc).__name__}: {exc}")
        if report is None:
            report = error_report(self.rubric, sub.name, reason, like=next(iter(self.finished.values()), None),
                                  origin=sub.origin, seed=self.seed)
            # an adjustment made against a score this report no longer has is shown for review
            data = ledger.apply(report.to_dict(), ledger.for_submission(self.ledger, sub.name), self.rubric)
            report = GradeReport.from_dict(data)
            self.save(sub.name, report, data)
            self._changed(index, data, regraded=True)
        self.finished[index] = report
        return report

    def _corpus_report(self, k: int, data: ReportDict | None) -> GradeReport:
        """Keep a corpus style's report in memory (one that did not arrive is left out)."""
        name, sub = self.corpus[k]
        report = (GradeReport.from_dict(data) if data is not None
                  else error_report(self.rubric, sub.name, "not graded", seed=self.seed))
        if data is not None:
            self.corpus_reports[name] = report
        self._aside.add(id(report))
        return report

    def save(self, name: str, report: GradeReport, data: ReportDict) -> None:
        """The report in every format the rubric asks for."""
        write_report_files(self.outdir, name, report, data, self.rubric, self.lang, self._warn_format)

    def _warn_format(self, fmt: str, exc: Exception) -> None:
        if fmt not in self.warned:
            self.warned.add(fmt)
            _flag(self.console, said("warning_reports_skipped", why=exc, fmt=fmt), self.lang)

    def _record(self, interrupted: bool, gradebooks: tuple[str, ...], bom: bool) -> list[GradeReport]:
        """Error reports for unreadable entries, then the gradebooks; every report, in order.

        Under the folder's lock, with the ledger as it is now: a report an adjustment (made while
        this batch graded) changed since it was written is written again with it first."""
        with ledger.locked(self.outdir):
            entries = ledger.read(self.outdir)
            if entries != self.ledger:
                self.ledger = entries
                for i, report in list(self.finished.items()):
                    name = self.found.found[i].submission.name
                    data = report.to_dict()
                    now = ledger.apply(report.to_dict(), ledger.for_submission(entries, name), self.rubric)
                    if now != data:
                        self.finished[i] = GradeReport.from_dict(now)
                        self.save(name, self.finished[i], now)
            return self._record_now(interrupted, gradebooks, bom)

    def _record_now(self, interrupted: bool, gradebooks: tuple[str, ...], bom: bool) -> list[GradeReport]:
        found = self.found
        rows: list[GradebookEntry] = [
            (f, self.finished.get(i), [] if i in self.finished else [("interrupted", {})])
            for i, f in enumerate(found.found)]
        if interrupted:
            rows = [r for r in rows if r[1] is not None]
        like = next(iter(self.finished.values()), None)
        failed_reports = []
        for failed in found.failed:  # entries that could not be read at all
            report = error_report(self.rubric, failed.name, failed.why, like=like, origin="", seed=self.seed)
            who = failed.who
            data = report.to_dict()
            # who it is, and (its flags) why it is no grade: grader export reads it back
            data["student"] = {"id": who.student_id, "name": who.name, "lms": who.lms, "entry": who.entry,
                               "late": who.late, "flags": [[k, dict(v)] for k, v in who.flags]}
            # a score given by hand (the instructor read the upload themselves) stands on every run
            data = ledger.apply(data, ledger.for_submission(self.ledger, failed.name), self.rubric)
            report = GradeReport.from_dict(data)
            self.save(failed.name, report, data)
            failed_reports.append(report)
            rows.append((who, report, []))
        rows += [(s, None, []) for s in found.skipped]
        rows += [(Skipped(name, said("system_file"), "", flags=[("system_file", {})]), None, []) for name in found.junk]
        book = gradebook_rows(rows, self.rubric)
        written = [csv_written(write_gradebook(self.outdir / "gradebook.csv", book, self.rubric, bom=bom), book)]
        if gradebooks:
            written += write_lms_gradebooks(self.outdir, book, self.rubric, gradebooks, bom=bom, lang=self.lang,
                                            canvas=self.canvas, moodle_lang=self.moodle_lang)
        say_written(written, book, self.console, self.lang)
        return [self.finished[i] for i in sorted(self.finished)] + failed_reports


def _flag(console: Console, text: str, lang: str, before: str = "") -> None:
    """``text`` (``label: the rest``) on the terminal in ``lang``, its label in yellow, after
    ``before`` (as it is)."""
    from rich.text import Text

    from grader.i18n.messages import translate
    from grader.sinks import terminal

    label, colon, rest = terminal(translate(text, lang)).partition(": ")
    console.print(Text(terminal(before)) + Text(label, style="yellow") + Text(colon + rest), soft_wrap=True)


@contextlib.contextmanager
def _whole() -> Iterator[None]:
    """Ctrl-C held back until the block ends, then raised as KeyboardInterrupt.

    SIGINT is not blocked but caught: a blocked process-directed signal goes to any thread
    that does not block it (the batch loads matplotlib in one while it grades), and Python
    then raises KeyboardInterrupt in the main thread wherever it is, mid-write included. A
    handler runs in the main thread whichever thread the signal reached; this one only notes it.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    before = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before if before is not None else signal.default_int_handler)
        if caught and callable(before):
            before(signal.SIGINT, None)  # the handler that was in force: KeyboardInterrupt by default
        elif caught and before != signal.SIG_IGN:
            raise KeyboardInterrupt


def _preload_plotting() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot  # noqa: F401
