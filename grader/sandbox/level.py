"""Which sandbox to use here: light enough to import before torch, so the CLI can start the
worker while the trusted side is still importing."""

from __future__ import annotations

from grader.errors import UsageError
from grader.sandbox import backends


def choose_level(*, allow_weak: bool = True, prefer: str | None = None) -> tuple[str, str]:
    """Pick the strongest sandbox this machine offers.

    Returns:
        ``(level, warning)``; ``warning`` is empty at full strength.

    Raises:
        UsageError: namespaces are unavailable and ``allow_weak`` is false.
    """
    if prefer == "rlimits":
        return "rlimits", "sandbox weakened on request: rlimits only, no namespaces"
    ok, why = backends.namespaces_available()
    if ok:
        return "namespaces", ""
    if prefer == "namespaces" or not allow_weak:
        raise UsageError(
            f"cannot build the namespace sandbox: {why}. Fix that, or pass "
            "--allow-weak-sandbox to grade with rlimits only (student code could then read "
            "files and reach the network)."
        )
    return "rlimits", f"weak sandbox (rlimits only): {why}"


def weak_warning(level: str) -> str:
    """The warning a report carries for a worker already running at ``level``."""
    if level == "namespaces":
        return ""
    ok, why = backends.namespaces_available()
    return f"weak sandbox (rlimits only): {why}" if not ok else "sandbox weakened on request: rlimits only"
