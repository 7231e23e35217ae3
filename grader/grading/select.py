"""Which tests of a report a regrade takes again: ``--test PATTERN`` matched against test ids."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Sequence

__all__ = ["matcher"]


def matcher(patterns: Sequence[str]) -> Callable[[str], bool]:
    """``test id -> matches one of patterns`` (each id decided once: a class's reports share them)."""
    pats = [str(p) for p in patterns]
    decided: dict[str, bool] = {}

    def select(test_id: str) -> bool:
        known = decided.get(test_id)
        if known is None:
            # A parametrised id's ``[...]`` is its parameters, not a set of characters: an id
            # given exactly matches itself.
            known = decided[test_id] = any(test_id == p or fnmatch.fnmatchcase(test_id, p) for p in pats)
        return known

    return select
