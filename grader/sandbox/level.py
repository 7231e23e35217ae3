"""Which sandbox to use here: light enough to import before torch, so the CLI can start the
worker while the trusted side is still importing.

Levels, strongest first: ``namespaces`` (bubblewrap), ``rlimits`` (a forking zygote with
rlimits), ``subprocess`` (one fresh interpreter per submission; the only one on Windows or
wherever ``os.fork`` is missing). ``$GRADER_SANDBOX`` names a level to use instead of the
strongest one (e.g. ``GRADER_SANDBOX=subprocess`` to try the Windows mode on Linux); a weak
level chosen that way is still refused where weak levels are (``grader batch`` without
``--allow-weak-sandbox``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from grader.errors import SandboxRefused, UsageError
from grader.i18n.messages import said
from grader.sandbox import backends

LEVELS = ("namespaces", "rlimits", "subprocess")
#: what a report's warning says each weak level gives up
_WEAK = {
    "rlimits": said("rlimits_only_no_namespaces"),
    "subprocess": (said("one_plain_process_per")),
}


def can_fork() -> bool:
    """Whether the forking levels (namespaces, rlimits) can run here at all."""
    return os.name == "posix" and hasattr(os, "fork")


def _no_fork_reason() -> str:
    return said("platform_has_no_fork") if os.name == "nt" else said("os_fork_available_here")


def _why_weak(level: str, asked: bool) -> str:
    """Why ``level`` is the one that can run: it was asked for, or there is no fork here."""
    if asked:
        return said("sandbox_weakened_on_request")
    if level == "rlimits":
        return said("rlimits_sandbox_needs_fork", why=_no_fork_reason())
    return said("weak_sandbox_because", why=_no_fork_reason())


def _warning(level: str, asked: bool, asked_for: str = "") -> str:
    """The warning of a weak ``level`` (what it gives up, and why it runs); ``asked_for``: the
    level named when no fork left only ``level``."""
    what = _WEAK[level]
    if asked:
        return said("sandbox_weakened_request", what=what)
    if asked_for == "rlimits":
        return said("rlimits_needs_fork_weak", why=_no_fork_reason(), what=what)
    return said("weak_sandbox", why=_no_fork_reason(), what=what)


def _weak(level: str, asked: bool, allow_weak: bool, asked_for: str = "") -> tuple[str, str]:
    if not allow_weak:
        raise UsageError(said("only_weak_sandbox_could", why=_why_weak(asked_for or level, asked), level=level,
                              what=_WEAK[level]))
    return level, _warning(level, asked, asked_for)


def choose_level(*, allow_weak: bool = True, prefer: str | None = None) -> tuple[str, str]:
    """Pick the strongest sandbox this machine offers (or ``prefer``, or ``$GRADER_SANDBOX``).

    Returns:
        ``(level, warning)``; ``warning`` is empty at full strength.

    Raises:
        UsageError: a weak level would be used and ``allow_weak`` is false; an unknown level
            was asked for; namespaces were asked for and cannot be built.
    """
    if prefer is None:
        prefer = os.environ.get("GRADER_SANDBOX", "").strip().lower() or None
    if prefer is not None and prefer not in LEVELS:
        raise UsageError(said("unknown_sandbox_level_grader", level=f"{prefer!r}", levels=', '.join(LEVELS)))
    if not can_fork() and prefer != "subprocess":
        if prefer == "namespaces":
            raise UsageError(said("cannot_build_namespace_sandbox_2", why=_no_fork_reason()))
        return _weak("subprocess", False, allow_weak, asked_for=prefer or "")
    if prefer in ("subprocess", "rlimits"):
        return _weak(prefer, True, allow_weak)
    ok, why = backends.namespaces_available()
    if ok:
        return "namespaces", ""
    if prefer == "namespaces" or not allow_weak:
        raise UsageError(
            said("cannot_build_namespace_sandbox", why=why)
        )
    return "rlimits", said("weak_sandbox_rlimits_only", why=why)


def weak_warning(level: str) -> str:
    """The warning a report carries for a worker already running at ``level``."""
    if level == "namespaces":
        return ""
    if level == "subprocess":
        return _warning("subprocess", can_fork())
    ok, why = backends.namespaces_available()
    return said("weak_sandbox_rlimits_only", why=why) if not ok else said("sandbox_weakened_request_rlimits")


def _user() -> str:
    try:
        import pwd

        return f"{pwd.getpwuid(os.geteuid()).pw_name}, uid {os.geteuid()}"
    except (ImportError, KeyError, AttributeError):
        import getpass

        return getpass.getuser()


def require_other_user(level: str, secrets: Sequence[Path]) -> None:
    """Fail closed: refuse to run students' code at a weak ``level`` as a user who can read ``secrets``.

    Outside namespaces student code runs as the grader's own user, unless that user is root
    (then the worker hands it to ``nobody``, or refuses to start). A non-root instructor
    grading with hidden suites or a reference solution would hand those, the course files
    and the grader's own package folder (writable: code run later by the trusted side) to
    every submission.

    Raises:
        SandboxRefused: ``level`` is not ``namespaces``, the grader is not root, and it can read
            one of ``secrets`` (it must, to grade with them).
    """
    if level == "namespaces" or (hasattr(os, "geteuid") and os.geteuid() == 0):
        return
    readable = [str(p) for p in secrets if os.access(p, os.R_OK)]
    if readable:
        raise SandboxRefused(
            said("refusing_grade_level_student_2", level=level, user=_user(), what=readable[0])
        )
