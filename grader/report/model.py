"""The report of one graded submission: plain data every writer renders.

``GradeReport.to_dict()`` is schema 1 of the grader contract; every format (YAML, JSON,
Gradescope, JUnit, Markdown, HTML) is a pure function of it. :class:`ReportDict` names that plain
data, and the dicts nested in it, once for every module that reads or changes a report's dict
(the ledger, the late policy, regrade, the output folder).
"""

from __future__ import annotations

import sys
from dataclasses import asdict, dataclass, field
from enum import Enum
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypedDict

from grader.spec.due import LateDict, Timing

if TYPE_CHECKING:
    from grader.spec.rubric.model import Rubric

SCHEMA = 1


class Status(str, Enum):
    """What happened to one test. ``error`` and ``timeout`` mean the test could not judge."""

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    TIMEOUT = "timeout"
    SKIPPED = "skipped"


Bilingual = dict[str, str]  # {"en": ..., "ja": ...}

#: What the sandbox and the assignment's plug-in report as they like: the sandbox's level and
#: limits, a mistake's evidence (the student's own numbers), the values for the plots. Plain
#: JSON whose keys each producer chooses, so it stays open here.
JsonObject = dict[str, Any]


class OutcomeDict(TypedDict, total=False):
    """One test in a report's dict (:meth:`CaseOutcome.to_dict`: a None or empty value left out)."""

    id: str
    part: str
    status: str
    max_score: float
    score: float
    visibility: str
    suite: str
    title: Bilingual
    feedback: Bilingual
    expected: str
    actual: str
    file: str
    line: int
    function: str
    duration_s: float


class MistakeDict(TypedDict, total=False):
    """One recognised mistake in a report's dict (:meth:`Mistake.to_dict`)."""

    id: str
    part: str
    message: Bilingual
    evidence: JsonObject
    function: str
    file: str
    partial_credit: float
    central: bool  # written only when true


class PartDict(TypedDict):
    """One part's score in a report's dict (:meth:`PartScore.to_dict`)."""

    id: str
    score: float
    max_score: float
    title: Bilingual


class StudentDict(TypedDict, total=False):
    """Who submitted it, as the LMS export names them (``grader batch`` only)."""

    id: str
    name: str
    lms: str
    entry: str
    late: bool
    #: [reason key, slots] pairs (lists, as YAML and JSON keep them): the gradebook's reasons
    flags: list[list[str | dict[str, str]]]
    #: the submission time and the student's own due date, kept so a regrade measures alike
    timing: Timing


class AppliedLine(TypedDict):
    """One adjustment of the ledger (:mod:`grader.report.ledger`) as a report carries it."""

    n: int
    part: str | None
    points: float | None
    set: float | None
    reason: str
    by: str
    at: str
    against: float | None
    #: the automatic score it is measured against now (None: no such part)
    now: float | None
    #: ``applied``, or ``review`` when the automatic score moved since it was made (still applied)
    status: str
    delta: float


class CommentLine(TypedDict):
    """A reviewer's comment on lines of the student's code (``grader review``), as a report carries it."""

    n: int
    file: str
    start: int
    end: int
    #: the lines commented on, as they were when the comment was made
    lines: list[str]
    text: str
    by: str
    at: str


class AdjustmentDict(TypedDict, total=False):
    """The hand adjustments applied to a report (:func:`grader.report.ledger.apply`); empty when
    none is (every key is there when one is, but ``automatic_parts``: only when a part is adjusted)."""

    automatic_score: float
    automatic_passed: bool
    score: float
    delta: float
    entries: list[AppliedLine]
    #: each adjusted part's automatic score (its ``score`` in ``parts`` is the final one)
    automatic_parts: dict[str, float]


class _ReportCore(TypedDict):
    schema: int
    assignment: str
    submission: str
    score: float
    max_score: float
    passed: bool
    pass_mark: float
    parts: list[PartDict]
    tests: list[OutcomeDict]
    mistakes: list[MistakeDict]
    sandbox: JsonObject
    errors: list[str]
    notes: list[str]
    seed: int
    suites: list[str]
    graded_at: str
    duration_s: float
    content_hash: str
    rubric_hash: str
    origin: str
    languages: list[str]
    output: str


class ReportDict(_ReportCore, total=False):
    """A report as plain data: :meth:`GradeReport.to_dict`, a report file read back, what the
    ledger, the late policy and a regrade change. The last five keys are written only when set."""

    plots: JsonObject
    student: StudentDict
    late: LateDict
    adjustment: AdjustmentDict
    comments: list[CommentLine]


@dataclass(slots=True)
class CaseOutcome:
    """One test's verdict, built by the pytest plugin from hooks (never from pytest's text)."""

    id: str
    part: str
    status: Status
    max_score: float
    score: float = 0.0
    visibility: str = "visible"
    suite: str = "public"
    title: Bilingual = field(default_factory=dict)
    feedback: Bilingual = field(default_factory=dict)
    expected: str | None = None
    actual: str | None = None
    file: str | None = None  # the student's file the failure points at (annotations)
    line: int | None = None
    function: str | None = None
    duration_s: float = 0.0

    def to_dict(self) -> OutcomeDict:
        # Built by hand: ``asdict`` deep-copies through ``copy.deepcopy``, ~30 µs per test,
        # which a batch pays for every test of every submission. A None or empty value is left
        # out; the keys keep their order (the YAML record is compared byte for byte).
        d: OutcomeDict = {
            "id": self.id, "part": self.part, "status": self.status.value,
            "max_score": self.max_score, "score": self.score, "visibility": self.visibility,
            "suite": self.suite,
        }
        if self.title:
            d["title"] = dict(self.title)
        if self.feedback:
            d["feedback"] = dict(self.feedback)
        if self.expected is not None:
            d["expected"] = self.expected
        if self.actual is not None:
            d["actual"] = self.actual
        if self.file is not None:
            d["file"] = self.file
        if self.line is not None:
            d["line"] = self.line
        if self.function is not None:
            d["function"] = self.function
        d["duration_s"] = self.duration_s
        return d

    @classmethod
    def from_dict(cls, d: OutcomeDict) -> CaseOutcome:
        """One test back from :meth:`to_dict`.

        What every report of a class repeats (the test's id, part, suite and visibility, and its
        title: about 30 KB a report in chapter 7) is shared between the reports read in this
        process instead of held once for each (:func:`_shared_title`): a batch holding a large
        class's reports grew by that much per submission."""
        # (the dataclass's own constructor refuses a key it does not know: a report file's test
        # with one is no report of this schema, and the reader says so)
        fields: dict[str, Any] = {**d, "status": Status(d["status"])}
        for key in ("id", "part", "visibility", "suite", "file", "function"):
            if type(fields.get(key)) is str:
                fields[key] = sys.intern(fields[key])
        for key in ("max_score", "score"):  # (a few values: 0, 1, 2, ... points)
            value = fields.get(key)
            if type(value) is float and len(_NUMBERS) < _TITLES_MAX:
                fields[key] = _NUMBERS.setdefault(value.hex(), value)  # (by its bits: -0.0 stays -0.0)
        if "title" in fields:
            fields["title"] = _shared_title(fields["title"])
        return cls(**fields)


#: test titles already read in this process, by their words: one dict shared by every report
_TITLES: dict[tuple[tuple[str, str], ...], Bilingual] = {}
#: the points a test may be worth or score, each held once
_NUMBERS: dict[str, float] = {}
#: at most this many titles (and numbers) are shared (the suites' tests; never a growing collection)
_TITLES_MAX = 20_000


def _shared_title(title: Any) -> Any:
    """The one dict of the words ``title`` holds (a test's title, the same in every report),
    or ``title`` itself when it is not a mapping of strings or the table is full. Nothing
    changes a test's title in place (:meth:`CaseOutcome.to_dict` hands out a copy)."""
    if not isinstance(title, dict) or not all(type(k) is str and type(v) is str for k, v in title.items()):
        return title
    key = tuple(title.items())
    shared = _TITLES.get(key)
    if shared is None:
        if len(_TITLES) >= _TITLES_MAX:
            return title
        shared = _TITLES[key] = {sys.intern(k): v for k, v in title.items()}
    return shared


@dataclass
class Mistake:
    """A known mistake recognised from behaviour, with the student's own numbers."""

    id: str
    part: str
    message: Bilingual
    evidence: JsonObject = field(default_factory=dict)
    function: str | None = None
    file: str | None = None
    partial_credit: float = 0.0
    #: the rubric marks it the chapter's central mistake (``central: true``): a passing
    #: submission with it is shown as "passed, but …", this mistake first
    central: bool = False

    def to_dict(self) -> MistakeDict:
        # asdict deep-copies (the message and the evidence stay the report's own); a None is left out
        plain = asdict(self)
        d: MistakeDict = {}
        for key in ("id", "part", "message", "evidence", "function", "file", "partial_credit"):
            if plain[key] is not None:
                d[key] = plain[key]
        if self.central:  # written only when true: reports without it read as before
            d["central"] = plain["central"]
        return d


@dataclass
class PartScore:
    id: str
    score: float
    max_score: float
    title: Bilingual = field(default_factory=dict)

    def to_dict(self) -> PartDict:
        return {"id": self.id, "score": self.score, "max_score": self.max_score, "title": dict(self.title)}


@dataclass
class GradeReport:
    """Everything known about one graded submission."""

    assignment: str
    submission: str
    score: float
    max_score: float
    tests: list[CaseOutcome]
    parts: list[PartScore]
    mistakes: list[Mistake]
    sandbox: JsonObject
    errors: list[str]
    seed: int
    graded_at: str
    content_hash: str = ""
    rubric_hash: str = ""
    origin: str = ""
    pass_mark: float = 0.0
    passed: bool = False
    suites: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    output: str = ""
    languages: list[str] = field(default_factory=lambda: ["ja", "en"])
    duration_s: float = 0.0
    schema: int = SCHEMA
    #: the student's values for the HTML page's plots (the assignment's plot_data hook, see grader.kit.hooks); optional
    plots: JsonObject = field(default_factory=dict)
    #: who the LMS export says submitted it: id, name, lms, entry, late; optional (batch only)
    student: StudentDict = field(default_factory=StudentDict)
    #: the rubric's late policy as applied: score_before, score, rule; optional
    late: LateDict = field(default_factory=LateDict)
    #: hand adjustments from the batch's ledger (grader.report.ledger.apply): automatic_score, score,
    #: delta, entries; optional
    adjustment: AdjustmentDict = field(default_factory=AdjustmentDict)
    #: a reviewer's comments on lines of the code (grader review, through the ledger); optional
    comments: list[CommentLine] = field(default_factory=list)

    def to_dict(self) -> ReportDict:
        d: ReportDict = {
            "schema": self.schema,
            "assignment": self.assignment,
            "submission": self.submission,
            "score": self.score,
            "max_score": self.max_score,
            "passed": self.passed,
            "pass_mark": self.pass_mark,
            "parts": [p.to_dict() for p in self.parts],
            "tests": [t.to_dict() for t in self.tests],
            "mistakes": [m.to_dict() for m in self.mistakes],
            "sandbox": self.sandbox,
            "errors": list(self.errors),
            "notes": list(self.notes),
            "seed": self.seed,
            "suites": list(self.suites),
            "graded_at": self.graded_at,
            "duration_s": round(self.duration_s, 3),
            "content_hash": self.content_hash,
            "rubric_hash": self.rubric_hash,
            "origin": self.origin,
            "languages": list(self.languages),
            "output": self.output,
        }
        if self.plots:
            d["plots"] = self.plots
        if self.student:
            d["student"] = self.student
        if self.late:
            d["late"] = self.late
        if self.adjustment:
            d["adjustment"] = self.adjustment
        if self.comments:
            d["comments"] = self.comments
        return d

    @classmethod
    def from_dict(cls, d: ReportDict) -> GradeReport:
        """Rebuild a report from ``to_dict()`` output (e.g. a YAML file read back)."""
        tests = [CaseOutcome.from_dict(t) for t in d.get("tests", [])]
        return cls(
            assignment=d["assignment"],
            submission=d["submission"],
            score=d["score"],
            max_score=d["max_score"],
            tests=tests,
            parts=[PartScore(**p) for p in d.get("parts", [])],
            mistakes=[Mistake(**m) for m in d.get("mistakes", [])],
            sandbox=d.get("sandbox", {}),
            errors=list(d.get("errors", [])),
            seed=d.get("seed", 0),
            graded_at=d.get("graded_at", ""),
            content_hash=d.get("content_hash", ""),
            rubric_hash=d.get("rubric_hash", ""),
            origin=d.get("origin", ""),
            pass_mark=d.get("pass_mark", 0.0),
            passed=d.get("passed", False),
            suites=list(d.get("suites", [])),
            notes=list(d.get("notes", [])),
            output=d.get("output", ""),
            languages=list(d.get("languages", ["ja", "en"])),
            duration_s=d.get("duration_s", 0.0),
            schema=d.get("schema", SCHEMA),
            plots=dict(d.get("plots") or {}),
            student=(d.get("student") or StudentDict()).copy(),
            late=(d.get("late") or LateDict()).copy(),
            adjustment=(d.get("adjustment") or AdjustmentDict()).copy(),
            comments=list(d.get("comments") or []),
        )


def score_parts(rubric: Rubric, tests: Sequence[CaseOutcome], credit: dict[str, float]) -> list[PartScore]:
    """Each part's score: its tests' points plus the partial ``credit`` its mistakes earn, up to its
    maximum. Torch-free, so ``grader regrade`` scores in its own process without importing it."""
    parts: list[PartScore] = []
    rounding = int(rubric.report.rounding)
    for part in rubric.parts:
        mine = [t for t in tests if t.part == part.id]
        earned = sum(t.score for t in mine)
        most = sum(t.max_score for t in mine)
        earned = min(most, earned + credit.get(part.id, 0.0))
        parts.append(PartScore(part.id, round(earned, rounding), round(most, rounding),
                               {"en": part.title.en, "ja": part.title.ja}))
    return parts
