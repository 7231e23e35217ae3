"""Test-level item analysis: which tests tell students apart, and which look broken.

For every test of a batch (a parametrised test's cases together, as one item: its score in a
submission is the share of its cases passed): the pass rate, and the discrimination — the
correlation between the item's score and the rest of the score (the score without this test's
points), as in classical item analysis (the point-biserial correlation when a test has one case).

Blank and untouched-stub submissions (:func:`left_out`: no test passed, and nothing but
``not-implemented`` or functions that are not there) say nothing about a test: they are left out
of the statistics, and counted as left out. A test answered by fewer than :data:`MIN_SUBMISSIONS`
of the rest is too few to judge: with fewer, one student more or less moves the correlation by
more than the whole range the flags tell apart (its standard error is about ``1/sqrt(n-1)``, 0.33
at ten), so such a test is flagged ``too-few`` and gets no other statistic's flag.

A test is flagged when every counted submission passes it, when every one fails it, when its
discrimination is below :data:`LOW_DISCRIMINATION` (it does not go with the rest of the score), or
when a correct style of the validate corpus fails it (``corpus``: test id -> the styles failing it;
``grader batch`` grades the corpus beside the class and records it with
:func:`grader.report.outdir.write_corpus`).

Example::

    result = analyse(reports)
    result.left_out, [(i.test, i.cases, i.pass_rate, i.discrimination, i.flags) for i in result.items if i.flags]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from grader.report.model import GradeReport, Status
from grader.i18n.messages import by_name

__all__ = ["FLAGS", "LOW_DISCRIMINATION", "MIN_SUBMISSIONS", "Analysis", "Item", "analyse", "corpus_failures",
           "flag_words", "left_out", "test_of"]

#: Below this correlation with the rest of the score a test is flagged.
LOW_DISCRIMINATION = 0.1
#: Fewest counted submissions (blank and untouched stubs left out) to judge a test at all.
MIN_SUBMISSIONS = 10
#: Flag -> its words in each language.
FLAGS = by_name({
    "all-pass": "flag_all_pass", "all-fail": "flag_all_fail", "low-discrimination": "flag_low_discrimination",
    "fails-correct": "flag_fails_correct", "too-few": "flag_too_few",
})
#: Mistake ids that say a submission's code is not there to judge.
_NOTHING_THERE = frozenset({"not-implemented"})


@dataclass(frozen=True)
class Item:
    """One test's statistics over the counted submissions (its parametrised cases together)."""

    test: str
    runs: int
    pass_rate: float
    discrimination: float | None
    flags: tuple[str, ...] = field(default=())
    #: correct styles of the validate corpus that fail it
    corpus: tuple[str, ...] = field(default=())
    #: how many parametrised cases it has (1 for a plain test)
    cases: int = 1


@dataclass(frozen=True)
class Analysis:
    """The items, and the submissions the statistics leave out (by name), with how many count."""

    items: list[Item]
    left_out: tuple[str, ...] = ()
    counted: int = 0


def test_of(test_id: str) -> str:
    """A parametrised case's test: its id without the ``[case]`` after the test's name."""
    head, sep, name = test_id.rpartition("::")
    return head + sep + name.split("[", 1)[0]


def left_out(report: GradeReport) -> bool:
    """A blank or untouched-stub submission: no error of its own (a syntax error is an attempt),
    no test passed, and nothing to judge: no test ran at all, or its only mistakes are stubs still
    raising ``NotImplementedError`` and failures naming no function and holding no probe value
    (the functions are not there)."""
    if report.errors or any(t.status is Status.PASSED for t in report.tests):
        return False
    if not report.tests:
        return True
    if not report.mistakes:
        return False
    for m in report.mistakes:
        ev = m.evidence if isinstance(m.evidence, dict) else {}
        absent = m.id == "unrecognised" and not (ev.get("functions") or ev.get("probes") or ev.get("raised"))
        if m.id not in _NOTHING_THERE and not absent:
            return False
    return True


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


def analyse(reports: Iterable[GradeReport], corpus: Mapping[str, Iterable[str]] | None = None) -> Analysis:
    """One :class:`Item` per test, flagged ones first, then by test id; blank and untouched-stub
    submissions left out (:func:`left_out`)."""
    reports = list(reports)
    skipped = tuple(sorted(r.submission for r in reports if left_out(r)))
    counted = [r for r in reports if r.submission not in skipped]
    per_test: dict[str, list[tuple[float, float]]] = {}
    cases: dict[str, set[str]] = {}
    for r in counted:
        total = float(r.score)
        mine: dict[str, list[tuple[float, float]]] = {}
        for t in r.tests:
            if t.status is Status.SKIPPED:
                continue
            test = test_of(t.id)
            cases.setdefault(test, set()).add(t.id)
            mine.setdefault(test, []).append((1.0 if t.status is Status.PASSED else 0.0, float(t.score)))
        for test, runs in mine.items():
            share = sum(p for p, _ in runs) / len(runs)
            per_test.setdefault(test, []).append((share, total - sum(s for _, s in runs)))
    failing: dict[str, set[str]] = {}
    for test_id, styles in (corpus or {}).items():
        failing.setdefault(test_of(test_id), set()).update(styles)
    items = []
    for test, rows in per_test.items():
        passes = [p for p, _ in rows]
        rate = sum(passes) / len(passes)
        enough = len(rows) >= MIN_SUBMISSIONS
        corr = _correlation(passes, [rest for _, rest in rows]) if enough else None
        flags = []
        if not enough:
            flags.append("too-few")
        elif rate == 1.0:
            flags.append("all-pass")
        elif rate == 0.0:
            flags.append("all-fail")
        if corr is not None and corr < LOW_DISCRIMINATION:
            flags.append("low-discrimination")
        styles = tuple(sorted(failing.get(test, ())))
        if styles:
            flags.append("fails-correct")
        items.append(Item(test, len(rows), rate, None if corr is None else round(corr, 3), tuple(flags), styles,
                          len(cases[test])))
    items.sort(key=lambda i: (not i.flags, i.test))
    return Analysis(items, skipped, len(counted))


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
        elif f == "too-few":
            text = text.format(n=item.runs, least=MIN_SUBMISSIONS)
        words.append(text)
    return ", ".join(words)
