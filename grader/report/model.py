"""The report of one graded submission: plain data every writer renders.

``GradeReport.to_dict()`` is schema 1 of the grader contract; every format (YAML, JSON,
Gradescope, JUnit, Markdown, HTML) is a pure function of it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

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


@dataclass
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

    def to_dict(self) -> dict[str, Any]:
        # Built by hand: ``asdict`` deep-copies through ``copy.deepcopy``, ~30 µs per test,
        # which a batch pays for every test of every submission.
        d = {
            "id": self.id, "part": self.part, "status": self.status.value,
            "max_score": self.max_score, "score": self.score, "visibility": self.visibility,
            "suite": self.suite, "title": dict(self.title), "feedback": dict(self.feedback),
            "expected": self.expected, "actual": self.actual, "file": self.file,
            "line": self.line, "function": self.function, "duration_s": self.duration_s,
        }
        return {k: v for k, v in d.items() if v is not None and v != {}}


@dataclass
class Mistake:
    """A known mistake recognised from behaviour, with the student's own numbers."""

    id: str
    part: str
    message: Bilingual
    evidence: dict[str, Any] = field(default_factory=dict)
    function: str | None = None
    file: str | None = None
    partial_credit: float = 0.0
    #: the rubric marks it the chapter's central mistake (``central: true``): a passing
    #: submission with it is shown as "passed, but …", this mistake first
    central: bool = False

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        if not self.central:  # written only when true: reports without it read as before
            del d["central"]
        return {k: v for k, v in d.items() if v not in (None,)}


@dataclass
class PartScore:
    id: str
    score: float
    max_score: float
    title: Bilingual = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
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
    sandbox: dict[str, Any]
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
    plots: dict[str, Any] = field(default_factory=dict)
    #: who the LMS export says submitted it: id, name, lms, entry, late; optional (batch only)
    student: dict[str, Any] = field(default_factory=dict)
    #: the rubric's late policy as applied: score_before, score, rule; optional
    late: dict[str, Any] = field(default_factory=dict)
    #: hand adjustments from the batch's ledger (grader.report.ledger.apply): automatic_score, score,
    #: delta, entries; optional
    adjustment: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
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
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "GradeReport":
        """Rebuild a report from ``to_dict()`` output (e.g. a YAML file read back)."""
        tests = [
            CaseOutcome(**{**t, "status": Status(t["status"])}) for t in d.get("tests", [])
        ]
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
            student=dict(d.get("student") or {}),
            late=dict(d.get("late") or {}),
            adjustment=dict(d.get("adjustment") or {}),
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
