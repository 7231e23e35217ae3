"""The one redaction step that runs before every writer.

Writers never decide what a student may see: :func:`redact` does, once, from the rubric's
``report`` options, and hands every writer the same already-trimmed report. So no format can
show what the configuration hides, and a new format cannot forget to hide it.

================  ===========================================================================
hidden_tests      what the *student* audience keeps of a test whose visibility is not
                  ``visible`` (``hidden``, ``after_due_date``, ``after_published``)
================  ===========================================================================
none              one summary entry per part ("hidden tests": score and max score only)
pass-fail         each test's id, title and status; no feedback, values, file or line
full              the test as it is
================  ===========================================================================

``quiz_answers`` decides whether the *student* audience sees the answer key of a quiz
question answered wrongly (a quiz test's ``expected``): ``never``; ``after_due_date`` (the
default) only when that test's visibility is ``after_due_date``, i.e. in a report released
after the due date and never in ``grader check``; ``always``. When anything of a hidden test
is concealed, the plot data goes too (its inputs may be a hidden test's), in every format.

``hidden_details`` says from when the *student* audience sees hidden tests as ``full``, whatever
``hidden_tests`` says: ``never`` (the default), ``after_due`` (the rubric's due date has passed
at the :class:`Moment` the view is written), ``after_publish`` (``grader publish OUT`` ran);
:func:`details_visible` is that one rule, and from then on the tests are ``visible`` to
Gradescope too.

The ``instructor`` audience keeps every test. Both audiences get scores rounded to
``rounding`` places and text limited to the rubric's languages.

Example::

    shown = redact(report, rubric.report, "student")
    yaml_json.render_yaml(shown, rubric.report)
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from enum import Enum

from grader.report.model import CaseOutcome, GradeReport, Status
from grader.spec.rubric.model import ReportOptions
from grader.i18n.messages import pair

AUDIENCES = ("student", "instructor")

_HIDDEN_TITLE = pair("hidden_title")
_HIDDEN_NOTE = pair("hidden_note")


@dataclass(frozen=True)
class Moment:
    """When a student view is written: the time (None: the clock now), and whether the batch's
    results were published (``grader publish OUT``)."""

    at: datetime | None = None
    published: bool = False
    #: the latest due date of anyone in the batch, extensions included (``OUT/latest_due.json``)
    latest_due: datetime | None = None


def details_visible(options: ReportOptions | None, due: str = "", moment: Moment | None = None) -> bool:
    """The one rule: may a student see hidden tests in full at ``moment``?

    ``report.hidden_details`` ``never`` (the default): no; ``after_due``: once the rubric's
    ``due`` has passed, and every extension granted in the batch too (``moment.latest_due``:
    a student still working must not learn the hidden tests from a classmate's report; no due
    given: no); ``after_publish``: once the results were published. Before that moment the
    student sees what ``hidden_tests`` says.
    """
    when = _word((options or _DEFAULTS).hidden_details)
    moment = moment or Moment()
    if when == "after_publish":
        return moment.published
    if when == "after_due" and due:
        at = moment.at or datetime.now(timezone.utc)
        deadline = datetime.fromisoformat(due.replace("Z", "+00:00"))
        if moment.latest_due is not None and moment.latest_due > deadline:
            deadline = moment.latest_due
        return at >= deadline
    return False


#: the options of a rubric that sets none (what ``options=None`` means)
_DEFAULTS = ReportOptions()


def _word(value: Enum | str) -> str:
    """An option as its YAML word (an enum's value)."""
    return str(value.value) if isinstance(value, Enum) else str(value)


def _langs(text: dict[str, str], languages: Sequence[str]) -> dict[str, str]:
    kept = {k: v for k, v in text.items() if k in languages}
    return kept or dict(text)  # a text in no configured language is better than none


def _summary(part: str, tests: list[CaseOutcome], rounding: int) -> CaseOutcome:
    """One entry standing for ``tests`` (all of one part): their total, nothing else."""
    n = len(tests)
    bad = [t for t in tests if t.status != Status.PASSED]
    status = Status.PASSED if not bad else (
        Status.FAILED if any(t.status == Status.FAILED for t in bad) else bad[0].status
    )
    # The most restrictive visibility wins, so Gradescope never shows the summary earlier
    # than it would have shown the tests themselves.
    order = ["visible", "after_published", "after_due_date", "hidden"]
    visibility = max((t.visibility for t in tests), key=lambda v: order.index(v) if v in order else 3)
    return CaseOutcome(
        id=f"{tests[0].suite}/{part}",
        part=part,
        status=status,
        max_score=round(sum(t.max_score for t in tests), rounding),
        score=round(sum(t.score for t in tests), rounding),
        visibility=visibility,
        suite=tests[0].suite,
        title={k: v.format(n=n) for k, v in _HIDDEN_TITLE.items()},
        feedback=dict(_HIDDEN_NOTE) if bad else {},
        duration_s=sum(t.duration_s for t in tests),
    )


def redact(report: GradeReport, options: ReportOptions | None = None, audience: str = "student", *,
           quiz_parts: frozenset[str] | set[str] = frozenset(), due: str = "",
           moment: Moment | None = None) -> GradeReport:
    """Return a copy of ``report`` holding only what ``audience`` may see.

    Args:
        report: the full report from the runner; it is not changed.
        options: the rubric's :class:`grader.spec.rubric.model.ReportOptions` (defaults when None).
        audience: ``"student"`` (hidden tests trimmed per ``hidden_tests``) or
            ``"instructor"`` (everything).
        quiz_parts: the parts whose tests' ``expected`` is the answer key (the rubric's parts
            graded from ``answers.yaml``; :func:`grader.report.quiz_parts`).
        due: the rubric's due date (ISO 8601), for ``hidden_details: after_due``.
        moment: when the view is written (:func:`details_visible` decides from it).

    Returns:
        A new report; totals and part scores are unchanged apart from rounding.

    Raises:
        ValueError: an unknown audience.
    """
    if audience not in AUDIENCES:
        raise ValueError(f"unknown audience {audience!r}; use one of {', '.join(AUDIENCES)}")
    opts = options or _DEFAULTS
    detail, key_shown = _word(opts.hidden_tests), _word(opts.quiz_answers)
    rounding, languages = int(opts.rounding), tuple(opts.languages)
    out = copy.deepcopy(report)
    released = audience == "student" and details_visible(options, due, moment)
    if released:
        detail = "full"

    tests: list[CaseOutcome] = []
    held: dict[str, list[CaseOutcome]] = {}
    trimmed = False
    for t in out.tests:
        t.score = round(t.score, rounding)
        t.max_score = round(t.max_score, rounding)
        t.title = _langs(t.title, languages)
        t.feedback = _langs(t.feedback, languages)
        if (audience == "student" and t.part in quiz_parts and key_shown != "always"
                and not (key_shown == "after_due_date" and t.visibility == "after_due_date")):
            t.expected = None  # the answer key
        concealed = audience == "student" and t.visibility != "visible" and detail != "full"
        if not concealed:
            if released and t.visibility != "visible":
                t.visibility = "visible"  # Gradescope shows it too, from now on
            tests.append(t)
            continue
        trimmed = True
        if detail == "pass-fail":
            t.feedback = {}
            t.expected = t.actual = t.file = t.function = None
            t.line = None
            tests.append(t)
        else:  # none: keep only the points, one entry per part, where the first one stood
            if t.part not in held:
                held[t.part] = []
                tests.append(CaseOutcome(id=f"\0{t.part}", part=t.part, status=t.status, max_score=0))
            held[t.part].append(t)
    out.tests = [
        _summary(t.part, held[t.part], rounding) if t.id == f"\0{t.part}" else t for t in tests
    ]
    if trimmed:
        # What the student's code printed while hidden tests ran could echo their inputs, and
        # the plots' inputs may be a hidden test's: neither is shown.
        out.output = ""
        out.plots = {}
    for p in out.parts:
        p.score = round(p.score, rounding)
        p.max_score = round(p.max_score, rounding)
        p.title = _langs(p.title, languages)
    for m in out.mistakes:
        m.message = _langs(m.message, languages)
    out.score = round(out.score, rounding)
    out.max_score = round(out.max_score, rounding)
    out.languages = [lang for lang in out.languages if lang in languages] or list(languages)
    return out
