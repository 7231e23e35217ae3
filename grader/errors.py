"""The grader's exception tree.

::

    GraderError
      ├ UsageError                 -> exit 2
      ├ RubricError(ValueError)    -> exit 2; carries file and yaml_path
      ├ SubmissionError            -> recorded in report.errors; a batch continues
      └ SandboxError
          ├ WorkerTimeout          -> the call or submission ran out of time
          └ WorkerCrashed          -> the worker died or broke the protocol

Student failures are not grader exceptions: they are data (``CaseOutcome``, ``Mistake``).
"""

from __future__ import annotations


class GraderError(Exception):
    """Base of every error the grader raises on purpose."""


class UsageError(GraderError):
    """The command line asked for something impossible (exit 2)."""


class SandboxRefused(UsageError):
    """Student code would run as a user it must not run as; nothing was graded (exit 2)."""


class RubricError(GraderError, ValueError):
    """A rubric file is invalid.

    Args:
        file: the rubric's path as the user wrote it.
        yaml_path: where in the YAML, e.g. ``parts[2].points``.
        problem: what is wrong, with the value found.
        fix: what to write instead.
    """

    def __init__(self, file: str, yaml_path: str, problem: str, fix: str = "") -> None:
        self.file = file
        self.yaml_path = yaml_path
        self.problem = problem
        self.fix = fix
        where = f"{file}: {yaml_path}: " if yaml_path else f"{file}: "
        super().__init__(where + problem + (f"; {fix}" if fix else ""))


class SubmissionError(GraderError):
    """A submission cannot be read at all (not a folder, notebook or zip we understand)."""


class SandboxError(GraderError):
    """The worker could not do what was asked."""


class WorkerTimeout(SandboxError):
    """A call or a whole submission went over its wall-clock limit; the worker was killed."""


class WorkerCrashed(SandboxError):
    """The worker process died or sent something that is not a valid frame."""
