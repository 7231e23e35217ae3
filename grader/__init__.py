"""Autograder for a course's assignments, each declared by its rubric (see docs/architecture.md).

The public API, for scripts that grade without the command line::

    from grader import load_rubric, load_submission, grade
    from grader.spec.assignment import assignment_of
    rubric = load_rubric("rubrics/chapter07.yaml")
    [report] = grade(rubric, [load_submission("examples/submissions/correct", assignment_of(rubric))])
    print(report.score, report.max_score, [m.id for m in report.mistakes])

Heavy modules (torch, pytest) load on first use of ``grade``, not on ``import grader``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from grader.errors import (
    GraderError,
    RubricError,
    SandboxError,
    SubmissionError,
    UsageError,
    WorkerCrashed,
    WorkerTimeout,
)
from grader.report.model import CaseOutcome, GradeReport, Mistake, PartScore, Status
from grader.spec.rubric.load import load_rubric
from grader.spec.rubric.model import Rubric
from grader.ingest.submission.load import load_submission
from grader.ingest.submission.model import Submission

if TYPE_CHECKING:
    from grader.grading.runner import grade

__all__ = [
    "CaseOutcome",
    "GradeReport",
    "GraderError",
    "Mistake",
    "PartScore",
    "Rubric",
    "RubricError",
    "SandboxError",
    "Status",
    "Submission",
    "SubmissionError",
    "UsageError",
    "WorkerCrashed",
    "WorkerTimeout",
    "grade",
    "load_rubric",
    "load_submission",
]


def __getattr__(name: str) -> Any:
    if name == "grade":
        from grader.grading.runner import grade

        return grade
    raise AttributeError(f"module 'grader' has no attribute {name!r}")
