"""Copying as evidence: quiz answers or experiment results that fit another student's variant, not their own.

With per-student variants (:mod:`grader.spec.variants`) each student's numeric quiz answers are
worked out from their own numbers (the rubric's ``variants.quiz`` formulas). A submission whose
answers all fit the variant of another student of the batch, and do not all fit its own, was
worked out for the other student's numbers: ``answers fit the variant of s123, not s456's own``,
with each matching value. It takes at least two such answers (every formula, where the rubric
has fewer), so that one wrong answer that happens to be another variant's number is no
evidence; an honest submission, whose answers fit its own variant, is never named.

**Experiment results.** The quiz file (``answers.yaml``, or a notebook's answers cell) may record
the student's measured experiment under :data:`EXPERIMENT_ENTRY` (chapter 7: the variance table,
the rows the experiment function returns, ``{d_k: variance}``, or just the variances in order).
Each list-valued parameter of the variant (chapter 7's ``dims``) is an experiment's dimensions. A
recorded table whose d_k are another student's dimensions and not the student's own, each row's
variance a plausible measurement of its d_k (within :data:`Z` standard errors: the sample variance
of q.k has relative standard error ``sqrt((2 + 6 / d_k) / n)``, taken at :data:`FEWEST_SAMPLES`,
the fewest samples an honest run is allowed), was measured for the other student's variant. The
d_k column is what tells: noise never changes it. A table handed in without it (the variances
alone) fits the student's own dimensions when its values do, and names another student only when
it holds the very same numbers as that student's table, since a mistake can bring honest numbers
near another's dimensions (q.q instead of q.k doubles them: 4, 16, 64 measure as 8, 32, 128). A
table that fits the student's own dimensions is never named, however noisy; one that fits no
variant is no evidence either.

Example::

    found = variant_copies(rubric, [(name, report, answers_text), ...])
    found[0].copier, found[0].source, found[0].values, found[0].kind
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import grader.safeyaml as safeyaml
from grader.i18n.messages import label
from grader.spec.variants import Variant, VariantError

if TYPE_CHECKING:
    from grader.report.model import GradeReport
    from grader.spec.rubric.model import Rubric

__all__ = ["EXPERIMENT_ENTRY", "FEWEST_SAMPLES", "Z", "VariantCopy", "experiment_table", "numeric_answers",
           "variant_copies"]

#: the quiz file's entry that records the measured experiment (chapter 7's variance table)
EXPERIMENT_ENTRY = "variance-table"
#: standard errors a recorded variance may lie from its d_k (as the hidden tests allow)
Z = 5.0
#: the fewest samples per row an honest run is taken to have measured with (a tenth of the
#: contract's default 10000): the widest honest spread, so noise never moves a table off its own d_k
FEWEST_SAMPLES = 1000
#: rows a recorded table needs to be evidence (one number is too little)
_LEAST_ROWS = 2


@dataclass(frozen=True)
class VariantCopy:
    """One submission whose answers fit another student's variant: who, whose, and the values."""

    copier: str
    source: str
    copier_variant: str
    source_variant: str
    #: question -> (the answer given, the other variant's number, the student's own number); for
    #: an experiment, ``<parameter>[i]`` -> (the variance recorded, the other's d_k, the own d_k)
    values: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    #: ``answers`` (quiz answers) or ``experiment`` (a recorded experiment table)
    kind: str = "answers"
    #: an experiment table the same, row for row, as the one the source handed in
    same_as_source: bool = False

    def evidence(self) -> str:
        """Plain words for the similarity csv, in English and then in Japanese."""
        return " / ".join(self._words(lang) for lang in ("en", "ja"))

    def _words(self, lang: str) -> str:
        slots = {"source": self.source, "copier": self.copier, "sv": self.source_variant, "cv": self.copier_variant}
        if self.kind == "experiment":
            rows = list(self.values.values())
            dims = ", ".join(f"{o:g}" for _, o, _ in rows)
            own = ", ".join(f"{m:g}" for _, _, m in rows)
            measured = ", ".join(f"{a:g}" for a, _, _ in rows)
            text = label("variant_copy_experiment", lang, dims=dims, own=own, measured=measured, **slots)
            return text + (label("variant_copy_same_table", lang, source=self.source) if self.same_as_source else "")
        shown = "; ".join(label("variant_copy_value", lang, question=q, given=f"{a:g}", theirs=f"{o:g}", own=f"{m:g}",
                                source=self.source) for q, (a, o, m) in self.values.items())
        return label("variant_copy_answers", lang, shown=shown, **slots)


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


def _number(raw: object) -> float | None:
    if isinstance(raw, bool) or raw is None or isinstance(raw, (dict, list)):
        return None
    try:
        number = float(unicodedata.normalize("NFKC", str(raw)).strip()[:64])
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def experiment_table(text: str | None) -> list[tuple[float | None, float]] | None:
    """The experiment recorded in a quiz file: ``(d_k or None, variance)`` per row, in order.

    :data:`EXPERIMENT_ENTRY` holds the rows the experiment function returns (``[{d_k: 8, variance: 7.9,
    ...}, ...]``), a mapping ``{8: 7.9, ...}``, or the variances in order (``[7.9, ...]``), bare or
    under ``answer:``. Data only, never code; what cannot be read as one of these is None.
    """
    if not text or len(text) > 64_000:
        return None
    try:
        data = safeyaml.load(text)
    except Exception:  # noqa: BLE001 - a student's file: what cannot be read is no evidence
        return None
    if not isinstance(data, dict):
        return None
    entry = next((v for k, v in data.items() if unicodedata.normalize("NFKC", str(k)).strip() == EXPERIMENT_ENTRY), None)
    if isinstance(entry, dict) and set(entry) == {"answer"}:
        entry = entry["answer"]
    rows: list[tuple[float | None, float]] = []
    if isinstance(entry, dict):
        pairs = [(_number(k), _number(v)) for k, v in entry.items()]
        if any(d is None for d, _ in pairs):
            return None
        rows = [(d, v) for d, v in pairs if v is not None]
        if len(rows) != len(pairs):
            return None
    elif isinstance(entry, list):
        for item in entry[:64]:
            if isinstance(item, dict):
                d, v = _number(item.get("d_k")), _number(item.get("variance"))
                if d is None or v is None:
                    return None
                rows.append((d, v))
            else:
                v = _number(item)
                if v is None:
                    return None
                rows.append((None, v))
    else:
        return None
    return rows if len(rows) >= _LEAST_ROWS else None


def _relative_se(d_k: float, n: int) -> float:
    """Relative standard error of the sample variance of q.k with N(0, 1) entries: its fourth
    central moment is 3 d_k^2 + 6 d_k, so Var(s^2) ~ (2 d_k^2 + 6 d_k) / n (the public variance
    test's tolerance is the same statistic)."""
    relative_variance = (2.0 + 6.0 / d_k) / n
    return math.sqrt(relative_variance)


def _table_fits(table: list[tuple[float | None, float]], dims: tuple[int, ...]) -> bool:
    """Whether the recorded rows are a measurement of the experiment with ``dims``: the same d_k
    in order (where recorded), each variance within Z standard errors of its d_k."""
    if len(table) != len(dims):
        return False
    for (d, v), want in zip(table, dims):
        if d is not None and d != want:
            return False
        if want <= 0 or abs(v - want) > Z * _relative_se(want, FEWEST_SAMPLES) * want:
            return False
    return True


def _experiment_copies(variants: dict[str, Variant], tables: dict[str, list[tuple[float | None, float]]],
                       names: list[str]) -> list[VariantCopy]:
    """Each recorded table that fits another student's experiment dimensions and not its own."""
    found: list[VariantCopy] = []
    for name, table in tables.items():
        own = variants[name]
        for param in names:
            mine = own.values.get(param)
            if not isinstance(mine, tuple) or _table_fits(table, mine):
                continue  # the student's own experiment (however noisy): nothing to say
            with_dims = all(d is not None for d, _ in table)
            fitting = []
            for t, other in variants.items():
                dims = other.values.get(param)
                if t == name or dims == mine or not isinstance(dims, tuple) or not _table_fits(table, dims):
                    continue
                # Without its d_k column a table is only numbers, which a mistake can bring near
                # another's dimensions (q.q gives 2 d_k: 4, 16, 64 become 8, 32, 128): then only
                # the very same numbers as that student's table are evidence.
                if with_dims or [v for _, v in tables.get(t, [])] == [v for _, v in table]:
                    fitting.append(t)
            if not fitting:
                continue
            same = [t for t in fitting if [v for _, v in tables.get(t, [])] == [v for _, v in table]]
            source = (same or fitting)[0]
            theirs = variants[source].values[param]
            assert isinstance(theirs, tuple)
            found.append(VariantCopy(name, source, own.id, variants[source].id, {
                f"{param}[{i}]": (v, float(theirs[i]), float(mine[i]) if i < len(mine) else math.nan)
                for i, (_, v) in enumerate(table)},
                kind="experiment", same_as_source=bool(same)))
            break
    return found


def _fits(answer: float, want: float, tolerance: float) -> bool:
    return abs(answer - want) <= tolerance + 1e-9 * max(1.0, abs(want))


def variant_copies(rubric: Rubric, entries: Sequence[tuple[str, GradeReport, str | None]]) -> list[VariantCopy]:
    """Each submission (``(name, report, answers text)``) whose quiz answers, or recorded experiment
    table, fit another student's variant and not its own (experiment tables first)."""
    spec = rubric.variants
    if spec is None:
        return []
    variants: dict[str, Variant] = {}
    for name, report, _ in entries:
        if not report.variant:
            continue
        try:
            v = Variant.from_data(report.variant)
        except VariantError:
            continue
        variants[name] = v
    experiments = [n for n, pool in spec.params if all(isinstance(v, tuple) for v in pool)]
    found: list[VariantCopy] = []
    if experiments:
        tables = {name: t for name, _, text in entries if name in variants
                  for t in [experiment_table(text)] if t is not None}
        found += _experiment_copies(variants, tables, experiments)
    if not spec.quiz:
        return found
    need = min(2, len(spec.quiz))
    keys = {v.id: v.quiz_key(spec) for v in variants.values()}
    given = {name: numeric_answers(text) for name, _, text in entries if name in variants}
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
