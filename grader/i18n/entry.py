"""One entry of the tables: a sentence or a label in both languages."""

from __future__ import annotations

from typing import NamedTuple


class M(NamedTuple):
    """One sentence in both languages; the slots (``{name}``) are the same on both sides."""

    en: str
    ja: str
