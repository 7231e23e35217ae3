"""What the trusted side may ask of one submission loaded in the sandbox.

:class:`Session` is the boundary the suites' fixtures (:mod:`grader.plugin`), the probes
(:mod:`grader.probing`) and the plot hooks talk to. :class:`grader.sandbox.worker.SubmissionSession`
is the implementation (a child of the zygote per submission); everything that crosses is plain
data (:mod:`grader.wire`), never a student object.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["Session"]


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
        ``StudentUnavailable`` (:mod:`grader.sandbox.worker`)."""
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
