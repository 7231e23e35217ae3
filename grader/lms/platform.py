"""What every platform gives ``grader push`` (:mod:`grader.workflows.push`).

A platform reads the cells it holds now (:meth:`Platform.current`), checks before any write that
it may be written now (:meth:`Platform.check`: e.g. Canvas only into an assignment that posts
grades manually while the results are not public) and writes cells (:meth:`Platform.write`),
answering for every student on its own: one failure never stops the others. Moodle
(:mod:`grader.lms.moodle`) and LTI 1.3 are further classes of the same shape.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from grader.errors import UsageError

__all__ = ["Cell", "Current", "Outcome", "Platform", "PlatformRefused"]


class PlatformRefused(UsageError):
    """The platform may not be written now (a posting policy, an unpublished assignment, a
    token it refuses): nothing was written, and the message says why and what to do."""


@dataclass(frozen=True)
class Current:
    """One student's cell as the LMS holds it now (``score`` None: no grade); ``refused``: why the
    LMS's roster says this id is not to be written (a test student, an inactive member, not a
    learner: LTI's Names and Role Provisioning), as :func:`grader.i18n.messages.said` says it.

    ``unreleased``: the LMS holds the score where students cannot see it yet (Moodle's marking
    workflow before ``released``), and the results are public now: a push shows it, even unchanged.
    """

    score: float | None
    refused: str = ""
    unreleased: bool = False


@dataclass(frozen=True)
class Cell:
    """One cell to write: the student's LMS id, the score and the comment."""

    key: str
    score: float
    comment: str


@dataclass(frozen=True)
class Outcome:
    """The platform's answer for one student: written or not, and what it said."""

    ok: bool
    answer: str


class Platform(Protocol):
    """One LMS's assignment, as ``grader push`` writes into it."""

    name: str

    def target(self) -> dict[str, str]:
        """Where the grades go (platform, url, course, assignment): the ledger's record of a push
        is matched to earlier pushes by it."""
        ...

    def check(self, *, public: bool) -> None:
        """Raise :class:`PlatformRefused` when this assignment may not be written now."""
        ...

    def current(self) -> dict[str, Current]:
        """Every student of the assignment, by LMS id, with the cell the LMS holds now."""
        ...

    def write(self, cells: list[Cell]) -> dict[str, Outcome]:
        """Write ``cells``; an :class:`Outcome` for every one of them."""
        ...
