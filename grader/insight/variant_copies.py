"""Copying as evidence: quiz answers that fit another student's variant and not the student's own.

With per-student variants (:mod:`grader.spec.variants`) each student's numeric quiz answers are
worked out from their own numbers (the rubric's ``variants.quiz`` formulas). A submission whose
answers all fit the variant of another student of the batch, and do not all fit its own, was
worked out for the other student's numbers: ``answers fit the variant of s123, not s456's own``,
with each matching value. It takes at least two such answers (every formula, where the rubric
has fewer), so that one wrong answer that happens to be another variant's number is no
evidence; an honest submission, whose answers fit its own variant, is never named.

Example::

    found = variant_copies(rubric, [(name, report, answers_text), ...])
    found[0].copier, found[0].source, found[0].values
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import grader.safeyaml as safeyaml
from grader.spec.variants import Variant, VariantError

if TYPE_CHECKING:
    from grader.report.model import GradeReport
    from grader.spec.rubric.model import Rubric

__all__ = ["VariantCopy", "numeric_answers", "variant_copies"]


@dataclass(frozen=True)
class VariantCopy:
    """One submission whose answers fit another student's variant: who, whose, and the values."""

    copier: str
    source: str
    copier_variant: str
    source_variant: str
    #: question -> (the answer given, the other variant's number, the student's own number)
    values: dict[str, tuple[float, float, float]] = field(default_factory=dict)

    def evidence(self) -> str:
        """Plain words for the similarity csv (English; the page words it in both languages)."""
        shown = "; ".join(f"{q} = {a:g} ({self.source}'s: {o:g}, own: {m:g})" for q, (a, o, m) in self.values.items())
        return (f"answers fit the variant of {self.source} ({self.source_variant}), not {self.copier}'s own "
                f"({self.copier_variant}): {shown}")


def numeric_answers(text: str | None) -> dict[str, float]:
    """The numbers of an ``answers.yaml`` (``id: {answer: x}`` or ``id: x``); data only, never code."""
    if not text or len(text) > 64_000:
        return {}
    try:
        data = safeyaml.load(text)
    except Exception:  # noqa: BLE001 - a student's file: what cannot be read is no evidence
        return {}
    if not isinstance(data, dict):
        return {}
    out: dict[str, float] = {}
    for key, entry in data.items():
        given = entry.get("answer") if isinstance(entry, dict) else entry
        if isinstance(given, bool) or given is None:
            continue
        try:
            number = float(unicodedata.normalize("NFKC", str(given)).strip())
        except ValueError:
            continue
        if math.isfinite(number):
            out[unicodedata.normalize("NFKC", str(key))] = number
    return out


def _fits(answer: float, want: float, tolerance: float) -> bool:
    return abs(answer - want) <= tolerance + 1e-9 * max(1.0, abs(want))


def variant_copies(rubric: Rubric, entries: Sequence[tuple[str, GradeReport, str | None]]) -> list[VariantCopy]:
    """Each submission (``(name, report, answers text)``) whose answers fit another's variant only."""
    spec = rubric.variants
    if spec is None or not spec.quiz:
        return []
    need = min(2, len(spec.quiz))
    variants: dict[str, Variant] = {}
    for name, report, _ in entries:
        if not report.variant:
            continue
        try:
            v = Variant.from_data(report.variant)
        except VariantError:
            continue
        variants[name] = v
    keys = {v.id: v.quiz_key(spec) for v in variants.values()}
    given = {name: numeric_answers(text) for name, _, text in entries if name in variants}
    found: list[VariantCopy] = []
    for name, answers in given.items():
        own = variants[name]
        asked = [q for q in spec.quiz if q.question in answers]
        if len(asked) < need:
            continue
        mine = keys[own.id]

        def fits(key: dict[str, dict[str, object]]) -> bool:
            return all(_fits(answers[q.question], float(str(key[q.question]["answer"])), q.tolerance) for q in asked)

        if fits(mine):
            continue  # fits the student's own numbers: nothing to say
        # Whose variant the answers fit: the student who handed in the same answers first, else
        # the first of the batch with that variant.
        fitting = [t for t in given if t != name and variants[t].id != own.id and fits(keys[variants[t].id])]
        if not fitting:
            continue
        same = [t for t in fitting if all(given[t].get(q.question) == answers[q.question] for q in asked)]
        source = (same or fitting)[0]
        theirs = keys[variants[source].id]
        found.append(VariantCopy(name, source, own.id, variants[source].id, {
            q.question: (answers[q.question], float(str(theirs[q.question]["answer"])),
                         float(str(mine[q.question]["answer"]))) for q in asked}))
    return found
