"""The trust boundary for a report's text, and the report of a submission that could not be graded.

Both are needed wherever reports are written, in a grading process and in ``grader batch``'s own
process alike. This module imports neither torch nor pytest, so that the batch's process, which
only writes reports, never loads them (loading torch there took about 1.3 s of CPU from the grading
processes in every batch).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from typing import TYPE_CHECKING

from grader import sinks
from grader.report.model import GradeReport, PartScore
from grader.spec.fingerprint import rubric_fingerprint

if TYPE_CHECKING:
    from grader.spec.rubric.model import Rubric


def now() -> str:
    """The time a report says it was graded: UTC, to the second."""
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


#: At most this many errors or notes per report; the rest are counted in the last line.
MAX_LINES = 50


def lines(items: list[str]) -> list[str]:
    out = [sinks.cap(sinks.unicode(str(x))) for x in items[:MAX_LINES]]
    if len(items) > MAX_LINES:
        out.append(f"… and {len(items) - MAX_LINES} more")
    return out


def contain(report: GradeReport, output_max: int | None = None) -> GradeReport:
    """The trust boundary for text: every field a submission can reach made valid Unicode and
    capped (:data:`grader.sinks.VALUE_MAX` per value), in place; returns ``report``.

    Student text reaches a report through exception messages, printed output, returned values
    (``expected``/``actual``, a mistake's evidence), file names and notes. After this step
    every writer can encode the report, and no value can make a report unbounded; each sink
    still escapes for its own syntax (:mod:`grader.sinks`).
    """
    u, cap = sinks.unicode, sinks.cap
    for t in report.tests:
        if t.feedback:
            t.feedback = {k: cap(u(v)) for k, v in t.feedback.items()}
        if t.expected is not None:
            t.expected = cap(u(str(t.expected)))
        if t.actual is not None:
            t.actual = cap(u(str(t.actual)))
        if t.file is not None:
            t.file = cap(u(str(t.file)), 1024)
        if t.function is not None:
            t.function = cap(u(str(t.function)), 256)
        if t.line is not None and type(t.line) is not int:
            t.line = None
    for m in report.mistakes:
        m.message = {k: cap(u(v)) for k, v in m.message.items()}
        raw = dict(m.evidence) if isinstance(m.evidence, dict) else {}
        probes = raw.pop("probes", None)  # an unrecognised failure's behaviour signature: its own bound
        evidence, _ = sinks.bound(sinks.clean(raw), items=sinks.EVIDENCE_ITEMS,
                                  scalars=sinks.EVIDENCE_SCALARS, depth=sinks.EVIDENCE_DEPTH,
                                  size=sinks.EVIDENCE_BYTES)
        m.evidence = evidence if isinstance(evidence, dict) else {}
        if probes is not None:
            kept, _ = sinks.bound(sinks.clean(probes), items=sinks.SIGNATURE_ITEMS,
                                  scalars=sinks.SIGNATURE_SCALARS, depth=sinks.SIGNATURE_DEPTH,
                                  size=sinks.SIGNATURE_BYTES)
            if isinstance(kept, dict):
                m.evidence["probes"] = kept
        if m.file is not None:
            m.file = cap(u(str(m.file)), 1024)
    report.errors = lines(report.errors)
    report.notes = lines(report.notes)
    report.submission = cap(u(report.submission), 256)
    report.output = cap(u(report.output), output_max or 1 << 20)
    if report.sandbox:
        report.sandbox = sinks.cap_data(sinks.clean(report.sandbox), 2048)
    if report.plots:
        plots, _ = sinks.bound(sinks.clean(report.plots))  # (kept bounded already: a backstop)
        report.plots = plots if isinstance(plots, dict) else {}
    return report


def error_report(rubric: Rubric, name: str, reason: str, *, like: GradeReport | None = None,
                 content_hash: str = "", origin: str = "", seed: int = 0,
                 suites: Sequence[str] = ("public", "hidden")) -> GradeReport:
    """The report of a submission that could not be graded at all: zero points, the reason
    in ``errors``. ``grader batch`` writes one for an entry it cannot read, or whose grading
    worker could not report it, so every entry has a report and a gradebook row.

    ``like``: a report graded with the same rubric, whose parts give the maximum scores
    (they depend on the tests collected); without it the maxima are 0.
    """
    if like is not None:
        parts = [PartScore(p.id, 0.0, p.max_score, dict(p.title)) for p in like.parts]
    else:
        parts = [PartScore(p.id, 0.0, 0.0, {"en": p.title.en, "ja": p.title.ja}) for p in rubric.parts]
    rounding = int(rubric.report.rounding)
    return contain(GradeReport(
        assignment=rubric.assignment, submission=name, score=0.0,
        max_score=round(sum(p.max_score for p in parts), rounding), tests=[], parts=parts,
        mistakes=[], sandbox={}, errors=[reason], seed=seed, graded_at=now(),
        content_hash=content_hash, rubric_hash=rubric_fingerprint(rubric, suites), origin=origin,
        pass_mark=float(rubric.report.pass_mark), passed=False, suites=list(suites),
        languages=list(rubric.report.languages),
    ))
