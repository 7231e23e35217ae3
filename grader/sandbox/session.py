"""What the trusted side may ask of one submission loaded in the sandbox.

:class:`Session` is the boundary the suites' fixtures (:mod:`grader.grading.collector`), the probes
(:mod:`grader.kit.probes`) and the plot hooks talk to. :class:`grader.sandbox.child.SubmissionSession`
is the implementation (a child of the zygote per submission); everything that crosses is plain
data (:mod:`grader.sandbox.wire`), never a student object.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from grader.errors import SandboxError, WorkerTimeout

__all__ = ["Session", "StudentRaised", "StudentTimeout", "StudentUnavailable"]


class StudentRaised(Exception):
    """The student's function raised instead of returning.

    The session raises this on the trusted side; suites catch it with
    :func:`grader.kit.asserts.raises_student`.

    Args:
        type_name: the exception class name, e.g. ``"ValueError"``.
        message: ``str()`` of the exception.
        where: the student's file and line, e.g. ``"scaling.py:12"``.
        bases: names of the exception's base classes (its MRO after itself), so
            ``raises_student("ValueError")`` also accepts a subclass of ``ValueError``.
    """

    def __init__(
        self, type_name: str, message: str = "", where: str = "", bases: Sequence[str] = ()
    ) -> None:
        self.type_name = type_name
        self.message = message
        self.where = where
        self.bases = tuple(bases)
        text = f"{type_name}: {message}" if message else type_name
        super().__init__(f"{text} (at {where})" if where else text)


class StudentTimeout(WorkerTimeout):
    """The student's code ran past a time limit (per call or per submission)."""


class StudentUnavailable(SandboxError):
    """The function asked for does not exist, or its file failed to load."""

    def __init__(self, message: str, file: str = "", line: int = 0) -> None:
        super().__init__(message)
        self.file = file
        self.line = line


@runtime_checkable
class Session(Protocol):
    """One submission, loaded and callable by name."""

    #: ``folder`` | ``notebook``: how the files were loaded
    kind: str
    #: per module name, what loading it gave (``{"ok": bool, "error": {...}}``)
    load_report: dict[str, Any]
    #: what went wrong on the way (timeouts, crashes), for the report's errors
    events: list[str]
    #: the limits the child reported as applied
    enforced: dict[str, Any]

    def call(self, part: str, func: str, args: list[Any], kwargs: dict[str, Any], *,
             echo_args: bool = False) -> Any:
        """``part.func(*args, **kwargs)`` in the sandbox, as plain data; with ``echo_args``,
        ``(value, args_after)``. Raises ``StudentRaised``, ``StudentTimeout`` or
        ``StudentUnavailable`` (below)."""
        ...

    def module_for(self, part: str) -> dict[str, Any] | None:
        """The loaded module that answers for ``part``, or None when it is missing."""
        ...

    def load_error(self, part: str) -> dict[str, Any] | None:
        """How loading ``part``'s file failed, or None."""
        ...

    def close(self) -> str:
        """End the child; the output the student's code printed (capped)."""
        ...
