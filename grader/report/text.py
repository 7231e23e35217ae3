"""Words the writers share: bilingual labels, status names, number formatting."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from grader.report.model import CaseOutcome, GradeReport, Mistake, Status
from grader.i18n.messages import by_lang, by_name, pair

if TYPE_CHECKING:
    from grader.spec.rubric.model import ReportOptions

LABELS: dict[str, dict[str, str]] = by_name({
    "report": "report", "score": "score", "part": "part", "test": "test", "tests": "tests", "status": "status",
    "points": "points", "mistakes": "mistakes", "errors": "errors", "notes": "notes", "adjustments": "adjustments",
    "comments": "report_comments",
    "gb_title": "gb_title", "gb_counts": "gb_counts", "gb_adjusted": "gb_adjusted", "gb_ungraded": "gb_ungraded",
    "gb_submission": "gb_submission", "gb_student_id": "gb_student_id", "gb_name": "gb_name",
    "gb_score": "gb_score", "gb_automatic": "gb_automatic", "gb_adjustment": "gb_adjustment", "gb_max": "gb_max",
    "gb_passed": "gb_passed", "gb_yes": "passed", "gb_no": "gb_no", "gb_late": "gb_late",
    "gb_reasons": "gb_reasons", "gb_problems": "gb_problems", "gb_flags": "gb_flags", "passed": "passed",
    "below": "below", "passed_but": "passed_but", "central_title": "central_title", "pass_mark": "pass_mark",
    "expected": "expected", "actual": "actual", "plots": "plots", "no_plots": "no_plots", "sandbox": "sandbox",
    "weak": "weak", "output": "output", "submission": "submission", "mistake_ids": "mistake_ids", "seed": "seed",
    "grading_failed": "grading_failed", "check": "check", "failing": "failing", "all_passed": "all_passed",
    "some_passed": "some_passed", "hidden_more": "hidden_more", "hidden_some": "hidden_some",
    "graded_cells": "graded_cells", "not_run": "not_run", "not_run_how": "not_run_how",
    "level_strong": "level_strong", "now_passing": "now_passing", "now_failing": "now_failing", "found": "found",
    "fixed": "fixed", "score_word": "score_word", "unchanged": "unchanged", "n_tests": "n_tests", "watching": "watching",
    "rechecked": "rechecked",
})

STATUS_WORDS: dict[Status, dict[str, str]] = {
    Status.PASSED: pair("passed"),
    Status.FAILED: pair("status_failed"),
    Status.ERROR: pair("error"),
    Status.TIMEOUT: pair("status_timeout"),
    Status.SKIPPED: pair("status_skipped"),
}

STATUS_MARKS = {
    Status.PASSED: "✅", Status.FAILED: "❌", Status.ERROR: "⚠️", Status.TIMEOUT: "⏱️",
    Status.SKIPPED: "➖",
}


def sentence(text: str, langs: Sequence[str]) -> str:
    """One of the grader's own sentences (a note, a problem) in every language of ``langs``."""
    from grader.i18n.messages import translate

    return " / ".join(dict.fromkeys(translate(text, x) for x in langs)) or text


#: Words on the grader's own plots (the class summary), per language. An assignment's figures
#: carry their own words (its hooks).
PLOT_WORDS: dict[str, dict[str, str]] = by_lang({
    "score_max": "plot_score_max", "submissions": "plot_submissions",
    "score_distribution": "plot_score_distribution", "passing": "plot_passing", "pass_rate": "plot_pass_rate",
    "pass_rate_all": "plot_pass_rate_all", "no_mistake": "plot_no_mistake", "mistake_counts": "plot_mistake_counts",
})


def plot_word(key: str, lang: str, **slots: object) -> str:
    words = PLOT_WORDS.get(lang) or PLOT_WORDS["en"]
    return words[key].format(**slots)


def order(lang: str, languages: Sequence[str]) -> list[str]:
    """The languages to show, ``lang`` first (if the rubric allows it)."""
    langs = [lang] if lang in languages else []
    return langs + [x for x in languages if x not in langs] or [lang]


def label(key: str, langs: Sequence[str], sep: str = " / ") -> str:
    """A label in every language of ``langs``, e.g. ``得点 / Score``."""
    words = LABELS[key]
    return sep.join(dict.fromkeys(words[x] for x in langs if x in words))


def pick(text: dict[str, str], langs: Sequence[str]) -> str:
    """The first of ``langs`` that ``text`` has; any language it has otherwise."""
    for x in langs:
        if text.get(x):
            return text[x]
    return next(iter(text.values()), "")


def each(text: dict[str, str], langs: Sequence[str]) -> list[str]:
    """``text`` in every language of ``langs`` it has, without repeats."""
    return list(dict.fromkeys(text[x] for x in langs if text.get(x)))


def num(x: float) -> str:
    """A score as people write it: ``8``, ``2.5``."""
    return f"{x:g}"


def title_of(t: CaseOutcome, langs: Sequence[str]) -> str:
    """The test's title plus its parameters (``[768-12]``), or its id."""
    title = pick(t.title, langs) or t.id
    if t.title and t.id.endswith("]") and "[" in t.id:
        title += " [" + t.id.rsplit("[", 1)[1]
    return title


def central(report: GradeReport) -> list[Mistake]:
    """The rubric's central mistakes found in ``report`` (``central: true``), in report order."""
    return [m for m in report.mistakes if m.central]


def passed_but(report: GradeReport) -> list[Mistake]:
    """The central mistakes of a *passing* report: what turns "passed" into "passed, but …"."""
    return central(report) if report.passed else []


def verdict(report: GradeReport, langs: Sequence[str], quote: str = "") -> str:
    """``passed`` / ``below the pass mark``, or ``passed, but with the central mistake X``
    (``quote`` wraps each id, e.g. a backtick for Markdown)."""
    but = passed_but(report)
    if but:
        # A mistake found in two parts (code and quiz) is one mistake: the headline names it once.
        ids = ", ".join(f"{quote}{mid}{quote}" for mid in dict.fromkeys(m.id for m in but))
        return " / ".join(dict.fromkeys(LABELS["passed_but"][x].format(ids=ids) for x in langs
                                        if x in LABELS["passed_but"]))
    return label("passed" if report.passed else "below", langs)


def languages_of(report: GradeReport, options: ReportOptions | None) -> list[str]:
    """The languages a writer shows: the rubric's, else the report's, else English."""
    configured = options.languages if options is not None else None
    return list(configured or report.languages or ["en"])


#: The adjustments section (grader.report.ledger): one wording for every writer.
ADJUST_WORDS: dict[str, dict[str, str]] = by_lang({
    "total": "adjust_total", "points": "adjust_points", "set": "adjust_set", "entry": "adjust_entry",
    "whole": "adjust_whole", "part": "adjust_part", "review": "adjust_review",
})


def adjustment_lines(report: GradeReport, langs: Sequence[str]) -> list[str]:
    """The adjustments of ``report`` as plain lines (each in every language of ``langs``);
    the reason is shown as the instructor wrote it. Empty when there is none."""
    adj = report.adjustment
    if not adj:
        return []

    def one(key: str, **slots: object) -> str:
        return " / ".join(dict.fromkeys(ADJUST_WORDS[x][key].format(**slots) for x in langs if x in ADJUST_WORDS)
                          or [ADJUST_WORDS["en"][key].format(**slots)])

    def delta(x: float) -> str:
        return f"{x:+g}"

    lines = [one("total", auto=num(float(adj["automatic_score"])), delta=delta(float(adj["delta"])),
                 final=num(float(adj["score"])))]
    for e in adj.get("entries", []):
        now, set_to, points = e.get("now"), e.get("set"), e.get("points")
        words = [x for x in langs if x in ADJUST_WORDS] or ["en"]
        said = []
        for x in words:
            w = ADJUST_WORDS[x]
            change = (w["set"].format(set=num(float(set_to))) if set_to is not None else
                      w["points"].format(sign="+" if float(points or 0.0) >= 0 else "-",
                                         points=num(abs(float(points or 0.0)))))
            where = w["whole"] if e.get("part") is None else w["part"].format(part=e["part"])
            text = w["entry"].format(n=e["n"], change=change, where=where, reason=e.get("reason", ""),
                                     by=e.get("by", ""), at=e.get("at", ""))
            if e.get("status") == "review":  # still applied, until the instructor decides
                text += w["review"].format(n=e["n"], against=num(float(e["against"] or 0)),
                                           now="—" if now is None else num(float(now)))
            said.append(text)
        lines.append(" / ".join(dict.fromkeys(said)))
    return lines


#: The reviewer's comments on lines (grader review): one wording for every writer.
COMMENT_WORDS: dict[str, dict[str, str]] = by_lang({"line": "report_comment_line"})


def comment_lines(report: GradeReport, langs: Sequence[str]) -> list[tuple[str, list[str]]]:
    """Each reviewer's comment of ``report`` as (a plain line in every language of ``langs``, the
    lines of code it is on, as they were); the comment is shown as the reviewer wrote it."""
    out = []
    words = [x for x in langs if x in COMMENT_WORDS] or ["en"]
    for c in report.comments:
        said = [COMMENT_WORDS[x]["line"].format(file=c.get("file", ""), start=c.get("start", ""), end=c.get("end", ""),
                                                 text=c.get("text", ""), by=c.get("by", ""), at=c.get("at", ""))
                for x in words]
        out.append((" / ".join(dict.fromkeys(said)), [str(x) for x in c.get("lines") or []]))
    return out
