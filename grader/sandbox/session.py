"""What the trusted side may ask of one submission loaded in the sandbox.

:class:`Session` is the boundary the suites' fixtures (:mod:`grader.grading.collector`), the probes
(:mod:`grader.kit.probes`) and the plot hooks talk to. :class:`grader.sandbox.child.SubmissionSession`
is the implementation (a child of the zygote per submission); everything that crosses is plain
data (:mod:`grader.sandbox.wire`), never a student object.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, Protocol, TypeAlias, TypedDict, overload, runtime_checkable

from grader.errors import SandboxError, WorkerTimeout
from grader.sandbox.wire import Encoded, Frame, ModuleSpec, WireValue

__all__ = [
    "Echoed", "Enforced", "Loadable", "LoadableModule", "Session", "StudentRaised", "StudentTimeout",
    "StudentUnavailable", "SubmissionSpec",
]

#: What the child reported as applied (limit -> value, or why it is not), short plain values.
Enforced: TypeAlias = "dict[str, int | float | str]"
#: A call's value and its positional arguments as the call left them (None: they could not come back).
Echoed: TypeAlias = "tuple[WireValue, list[WireValue] | None]"


class SubmissionSpec(TypedDict):
    """A submission as plain data, all the sandbox needs of it: ``folder`` | ``notebook``."""

    kind: str
    modules: list[ModuleSpec]


class LoadableModule(Protocol):
    def to_dict(self) -> ModuleSpec:
        """The module as plain data (``Module.to_dict()``)."""
        ...


class Loadable(Protocol):
    """A submission as the sandbox sees it (:class:`grader.ingest.submission.model.Submission` is one)."""

    @property
    def kind(self) -> str: ...

    @property
    def modules(self) -> Sequence[LoadableModule]: ...


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
    #: per module name, what loading it gave (``{"ok": bool, "error": {...}}``), as the child
    #: said it: every field is checked where it is read
    load_report: dict[str, Encoded]
    #: what went wrong on the way (timeouts, crashes), for the report's errors
    events: list[str]
    #: the limits the child reported as applied
    enforced: Enforced

    @overload
    def call(self, part: str, func: str, args: Sequence[object], kwargs: Mapping[str, object], *,
             echo_args: Literal[False] = False) -> WireValue: ...

    @overload
    def call(self, part: str, func: str, args: Sequence[object], kwargs: Mapping[str, object], *,
             echo_args: Literal[True]) -> Echoed: ...

    def call(self, part: str, func: str, args: Sequence[object], kwargs: Mapping[str, object], *,
             echo_args: bool = False) -> WireValue | Echoed:
        """``part.func(*args, **kwargs)`` in the sandbox, as plain data; with ``echo_args``,
        ``(value, args_after)``. Raises ``StudentRaised``, ``StudentTimeout`` or
        ``StudentUnavailable`` (below)."""
        ...

    def module_for(self, part: str) -> ModuleSpec | None:
        """The loaded module that answers for ``part``, or None when it is missing."""
        ...

    def load_error(self, part: str) -> Frame | None:
        """How loading ``part``'s file failed, or None."""
        ...

    def close(self) -> str:
        """End the child; the output the student's code printed (capped)."""
        ...
