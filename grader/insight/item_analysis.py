"""Test-level item analysis: which tests tell students apart, and which look broken.

For every test of a batch: the pass rate, and the discrimination — the point-biserial
correlation between passing the test and the rest of the score (the score without this
test's points), as in classical item analysis. A test is flagged when every submission
passes it, when every submission fails it, when its discrimination is below
:data:`LOW_DISCRIMINATION` (it does not go with the rest of the score), or when a correct
style of the validate corpus fails it (``corpus``: test id -> the styles failing it; ``grader
batch`` grades the corpus beside the class and records it with :func:`grader.report.outdir.write_corpus`).

Example::

    rows = analyse(reports)
    [(r.test, r.pass_rate, r.discrimination, r.flags) for r in rows if r.flags]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from grader.report.model import GradeReport, Status
from grader.i18n.messages import by_name

__all__ = ["FLAGS", "LOW_DISCRIMINATION", "Item", "analyse", "corpus_failures", "flag_words"]

#: Below this correlation with the rest of the score a test is flagged.
LOW_DISCRIMINATION = 0.1
#: Fewest submissions for a discrimination worth showing.
MIN_SUBMISSIONS = 5
#: Flag -> its words in each language.
FLAGS = by_name({
    "all-pass": "flag_all_pass", "all-fail": "flag_all_fail", "low-discrimination": "flag_low_discrimination",
    "fails-correct": "flag_fails_correct",
})


@dataclass(frozen=True)
class Item:
    """One test's statistics over the class."""

    test: str
    runs: int
    pass_rate: float
    discrimination: float | None
    flags: tuple[str, ...] = field(default=())
    #: correct styles of the validate corpus that fail it
    corpus: tuple[str, ...] = field(default=())


def _correlation(xs: list[float], ys: list[float]) -> float | None:
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 0 or syy <= 0:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / math.sqrt(sxx * syy)


def analyse(reports: Iterable[GradeReport], corpus: Mapping[str, Iterable[str]] | None = None) -> list[Item]:
    """One :class:`Item` per test, flagged ones first, then by test id."""
    reports = list(reports)
    per_test: dict[str, list[tuple[float, float]]] = {}
    for r in reports:
        total = float(r.score)
        for t in r.tests:
            if t.status is Status.SKIPPED:
                continue
            passed = 1.0 if t.status is Status.PASSED else 0.0
            per_test.setdefault(t.id, []).append((passed, total - float(t.score)))
    corpus = {k: tuple(sorted(v)) for k, v in (corpus or {}).items()}
    items = []
    for test, rows in per_test.items():
        passes = [p for p, _ in rows]
        rate = sum(passes) / len(passes)
        corr = _correlation(passes, [rest for _, rest in rows]) if len(rows) >= MIN_SUBMISSIONS else None
        flags = []
        if rate == 1.0 and len(rows) >= MIN_SUBMISSIONS:
            flags.append("all-pass")
        if rate == 0.0 and len(rows) >= MIN_SUBMISSIONS:
            flags.append("all-fail")
        if corr is not None and corr < LOW_DISCRIMINATION:
            flags.append("low-discrimination")
        if corpus.get(test):
            flags.append("fails-correct")
        items.append(Item(test, len(rows), rate, None if corr is None else round(corr, 3), tuple(flags),
                          tuple(corpus.get(test, ()))))
    items.sort(key=lambda i: (not i.flags, i.test))
    return items


def corpus_failures(reports: Mapping[str, GradeReport]) -> dict[str, list[str]]:
    """test id -> the correct styles (name -> report, as ``grader validate`` grades them) failing it."""
    out: dict[str, list[str]] = {}
    for style, report in reports.items():
        for t in report.tests:
            if t.status in (Status.FAILED, Status.ERROR, Status.TIMEOUT):
                out.setdefault(t.id, []).append(style)
    return out


def flag_words(item: Item, lang: str) -> str:
    """The item's flags in ``lang``; the failing correct styles named after their flag."""
    words = []
    for f in item.flags:
        text = FLAGS[f][lang]
        if f == "fails-correct" and item.corpus:
            text += f" ({', '.join(item.corpus)})"
        words.append(text)
    return ", ".join(words)
