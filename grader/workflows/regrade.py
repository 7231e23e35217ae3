"""``grader regrade``: run only the tests an instructor fixed, for every submission of a batch.

Every submission of SOURCE that has a report in OUT is graded again with only the tests whose
id matches one of the patterns (:func:`fnmatch.fnmatchcase`, e.g. ``hidden/test_scaling.py::*``
or ``*test_head_dim*``), with the seed the batch used and no mistake diagnosis. In each report
those tests' results are replaced; every other test's result is kept as it was, byte for byte
in the YAML record; the parts and the total are scored again from them (with the mistakes'
partial credit as before), then the late policy and the ledger (:mod:`grader.report.ledger`) apply as
in the batch. A report whose results did not move (but for the tests' durations) is not
written again. ``OUT/regrades/<time>.md`` and ``.csv`` list each student whose score or tests
changed: from, to, which tests and why (:mod:`grader.workflows.changes`: the automatic score the
tests moved, an adjustment that now needs review and stays applied); the terminal says the same.

Example::

    result = run_regrade("uploads.zip", "out", rubric, ["hidden/test_scaling.py::test_scale*"], jobs=2)
    result.changed  # [Change(submission, student id, from, to, [test ids], [why])]
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from rich.console import Console

from grader.spec.variants import Variant
from grader.report import ledger
from grader.i18n.messages import said
from grader.workflows.changes import Change, explain
from grader.errors import UsageError
from grader.report.outdir import read_record, report_path, write_report_files, write_student_files
from grader.grading.select import matcher
from grader.report.model import GradeReport, ReportDict

if TYPE_CHECKING:
    from grader.engines.local_pool import WorkerProcess
    from grader.ingest.discovery import Discovery
    from grader.spec.rubric.model import Rubric

__all__ = ["RegradeResult", "merge_tests", "run_regrade"]


@dataclass
class RegradeResult:
    regraded: int
    #: each student whose final score or graded-again tests moved: from, to, and why
    changed: list[Change] = field(default_factory=list)
    not_regraded: list[tuple[str, str]] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)
    elapsed_s: float = 0.0


def merge_tests(old: ReportDict, new: ReportDict, select: Callable[[str], bool], rubric: Rubric,
                entries: Sequence[ledger.Entry], fingerprints: dict[tuple[str, ...], str] | None = None
                ) -> ReportDict:
    """``old`` (a report's dict) with its selected tests' results taken from ``new``; scored again.

    Tests ``select`` does not match keep their dicts untouched, in their places; a selected
    test ``new`` lacks (removed from the suite) goes, one it adds comes after its part's tests.
    """
    from grader.report.model import CaseOutcome, Mistake, score_parts
    from grader.spec.due import apply_late, without_late_note
    from grader.spec.fingerprint import rubric_fingerprint

    data = ledger.apply(old.copy(), [], rubric)  # the automatic report
    fresh = {t["id"]: t for t in new.get("tests", [])}
    tests = []
    for t in data.get("tests", []):
        if not select(t["id"]):
            tests.append(t)
        elif t["id"] in fresh:
            tests.append(fresh.pop(t["id"]))
    order = {p.id: i for i, p in enumerate(rubric.parts)}
    for t in fresh.values():  # new tests: after the last test of their part
        at = max((i + 1 for i, x in enumerate(tests) if order.get(x["part"], 99) <= order.get(t["part"], 99)),
                 default=0)
        tests.insert(at, t)
    credit: dict[str, float] = {}
    for m in data.get("mistakes", []):
        credit[m["part"]] = credit.get(m["part"], 0.0) + float(Mistake(**m).partial_credit or 0.0)
    outcomes = [CaseOutcome.from_dict(t) for t in tests]
    parts = score_parts(rubric, outcomes, credit)
    rounding = int(rubric.report.rounding)
    data["tests"] = tests
    data["parts"] = [p.to_dict() for p in parts]
    data["score"] = round(sum(p.score for p in parts), rounding)
    data["max_score"] = round(sum(p.max_score for p in parts), rounding)
    top = float(data["max_score"])
    data["passed"] = top > 0 and data["score"] * 100.0 >= float(data.get("pass_mark", 0.0)) * top
    suites = tuple(data.get("suites") or ("public", "hidden"))
    known = fingerprints if fingerprints is not None else {}
    if suites not in known:  # (hashing the suites costs ~4 ms: once per batch, not per report)
        known[suites] = rubric_fingerprint(rubric, suites)
    data["rubric_hash"] = known[suites]
    late = bool((data.get("student") or {}).get("late"))
    data.pop("late", None)  # (the score was just computed from the tests)
    data["notes"] = without_late_note(list(data.get("notes", [])))
    apply_late(data, late, rubric, (data.get("student") or {}).get("timing"))
    return ledger.apply(data, entries, rubric)


def _same_but(a: Mapping[str, object], b: Mapping[str, object], but: str) -> bool:
    """Whether ``a`` and ``b`` hold the same keys and values, but for the value of ``but``."""
    return a.keys() == b.keys() and all(a[k] == b[k] for k in a if k != but)


def _same_results(old: ReportDict, new: ReportDict) -> bool:
    """Whether ``new`` says what ``old`` does, but for how long its tests took."""
    if not _same_but(old, new, "tests"):
        return False
    before, after = old.get("tests", []), new.get("tests", [])
    if len(before) != len(after):
        return False
    for a, b in zip(before, after):
        if a is b:  # a test not graded again: the very same dict
            continue
        if not _same_but(a, b, "duration_s"):
            return False
    return True


def _kept_reports(found: Discovery, outdir: Path, result: RegradeResult) -> dict[int, ReportDict]:
    """The batch's report of each submission, by index; every other report in ``outdir`` is
    listed as not regraded, with why (an entry of SOURCE that cannot be read, or none at all)."""
    olds: dict[int, ReportDict] = {}
    kept = {report_path(outdir, f.submission.name) for f in found.found}
    failed = {report_path(outdir, f.name): f.why for f in found.failed}
    for path in sorted((outdir / "reports").glob("*.yaml")):
        if path not in kept:
            record = read_record(path)
            why = failed.get(path) or said("not_in_source_now")
            result.not_regraded.append((str((record.get("submission") if record else None) or path.stem), why))
    for i, f in enumerate(found.found):
        path = report_path(outdir, f.submission.name)
        old = read_record(path)
        if old is not None and old.get("variant") and f.submission.variant is None:
            # graded with the student's own variant: graded again with the same one (its id checked)
            f.submission = f.submission.with_variant(Variant.from_data(old.get("variant")).as_data())
        if old is None:
            result.not_regraded.append((f.submission.name, said("no_report_grader_batch")))
        elif old.get("content_hash") != f.submission.content_hash:
            result.not_regraded.append((f.submission.name, said("files_changed_since_graded")))
        else:
            olds[i] = old
    return olds


def run_regrade(source: str, out: str, rubric: Rubric, patterns: Sequence[str], *, jobs: int | None = None,
                allow_weak: bool = False, lang: str = "en", console: Console | None = None,
                progress: bool | None = None) -> RegradeResult:
    """Grade again, for every submission with a report in ``out``, only the tests matching ``patterns``.

    Raises:
        UsageError: no report in ``out``, no test matches, or a broken ledger.
        GraderError: the suites could not run.
    """
    import time

    from grader.engines.local_pool import start_early
    from grader.sandbox.level import choose_level

    started = time.monotonic()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    console = console or Console(stderr=True, highlight=False, soft_wrap=True)
    outdir = Path(out)
    entries = ledger.read(outdir)  # a broken chain is refused before anything runs
    select = matcher(patterns)
    level, warning = choose_level(allow_weak=allow_weak)
    # The workers (torch, the sandbox, the suites: a few seconds) start while this process reads
    # the kept reports; they learn the batch's seed with their first chunk.
    base: dict[str, object] = {"op": "config", "rubric": str(rubric.file), "level": level, "warning": warning,
                               "tests": list(patterns)}
    early = start_early(base, jobs, outdir / ".logs", _reports_at_most(outdir)) if (outdir / "reports").is_dir() else []
    retired: list[WorkerProcess] = []
    try:
        return _regrade_with(early, retired, source, out, rubric, patterns, select, entries, base, jobs, lang,
                             console, progress, started)
    finally:
        for proc in early + retired:  # those the pool did not take
            proc.stop()


def _reports_at_most(outdir: Path) -> int:
    """How many submissions a regrade can grade at most: the reports in ``outdir`` (each has
    its yaml record, whatever other formats the rubric asks for)."""
    with os.scandir(outdir / "reports") as entries:
        return sum(1 for e in entries if e.name.endswith(".yaml"))


def _regrade_with(early: list[WorkerProcess], retired: list[WorkerProcess], source: str, out: str, rubric: Rubric,
                  patterns: Sequence[str], select: Callable[[str], bool], entries: Sequence[ledger.Entry],
                  base: dict[str, object], jobs: int | None,
                  lang: str, console: Console, progress: bool | None, started: float) -> RegradeResult:
    import time

    from grader.ingest import anonymous
    from grader.spec.assignment import assignment_of
    from grader.engines.local_pool import LocalPool, Tally, retire_spares, workers_for

    outdir = Path(out)
    found = anonymous.find(source, outdir, assignment_of(rubric), anonymous=anonymous.is_anonymous(outdir))
    names = anonymous.names_of(outdir)  # blind: what the code printed or raised may hold a name
    result = RegradeResult(0)
    olds = _kept_reports(found, outdir, result)
    if not olds:
        raise UsageError(said("no_report_grade_again", out=out, source=source))
    if not any(select(t["id"]) for old in olds.values() for t in old.get("tests", [])):
        known = sorted({t["id"] for old in olds.values() for t in old.get("tests", [])})
        wanted = " or ".join(patterns)
        raise UsageError(said("no_test_id_matches", patterns=wanted, example=known[0]))
    seed = int(next(iter(olds.values())).get("seed", 0))
    todo = sorted(olds)
    jobs = workers_for(len(todo), jobs)
    retire_spares(early, jobs, retired)
    config = {**base, "seed": seed}
    fingerprints: dict[tuple[str, ...], str] = {}
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    new_reports: dict[str, GradeReport] = {}

    def write(index: int, data: dict[str, Any] | None, reason: str = "") -> GradeReport:
        name = found.found[index].submission.name
        old = olds[index]
        if data is None:  # this submission could not run now: its report stays as it was
            result.not_regraded.append((name, reason or "no report"))
            return GradeReport.from_dict(old)
        # the worker's message, as JSON gives it: a report's dict (GradeReport.to_dict)
        new = cast("ReportDict", data if names is None else anonymous.scrub_data(data, names))
        with ledger.locked(outdir):  # the ledger as it is now: an adjustment made meanwhile is kept
            standing = ledger.for_submission(ledger.read(outdir), name)
            if standing != ledger.for_submission(entries, name):
                # adjusted since this regrade began: its report (the "before") already says so
                old = ledger.apply(old.copy(), standing, rubric)
            merged = merge_tests(old, new, select, rubric, standing, fingerprints)
            report = GradeReport.from_dict(merged)
            if _same_results(old, merged):  # nothing moved: the record stays as it was, unwritten (~15 ms)
                write_student_files(outdir, name, report, rubric, lang, lambda fmt, exc: None)
            else:
                write_report_files(outdir, name, report, merged, rubric, lang, lambda fmt, exc: None)
        before = {t["id"]: (t["status"], t["score"]) for t in old.get("tests", []) if select(t["id"])}
        after = {t["id"]: (t["status"], t["score"]) for t in merged["tests"] if select(t["id"])}
        moved = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
        change = explain(name, old, merged, moved)
        if change is not None:
            result.changed.append(change)
        new_reports[report.submission] = report
        result.regraded += 1
        return report

    pool = LocalPool(jobs, config, outdir / ".logs", lambda i: found.found[i].submission.to_dict(), early)
    pool.run(todo, write, Tally(len(todo), console, progress, lang=lang))
    from grader.workflows.adjust import refresh_gradebooks

    refresh_gradebooks(outdir, rubric, lang, new_reports)
    result.changed.sort(key=lambda c: (c.submission, c.student))
    result.written = _write_record(outdir, stamp, patterns, result)
    result.elapsed_s = time.monotonic() - started
    return result


def _write_record(outdir: Path, stamp: str, patterns: Sequence[str], result: RegradeResult) -> list[Path]:
    """``regrades/<time>.csv`` and ``.md``: who changed, from → to, which tests, and why."""
    from grader import sinks
    from grader.i18n.messages import both, translate
    from grader.workflows.changes import write_record

    title = [f"# {both('regrade_title', stamp=stamp)}", "",
             both("regrade_tests", tests=sinks.markdown(" ".join(patterns))), "",
             both("regrade_count", n=result.regraded, changed=len(result.changed)), ""]
    tail: list[str] = []
    if result.not_regraded:
        tail += ["", both("regrade_not_again"), ""]
        tail += [f"- {sinks.markdown(name)}: {sinks.markdown(why)} / {sinks.markdown(translate(why, 'ja'))}"
                 for name, why in result.not_regraded]
    return write_record(outdir / "regrades", stamp, title, result.changed, tail)
