"""Class summary of a batch: statistics, plots, and Markdown + HTML pages in Japanese and English.

``write_summary(reports, outdir, rubric)`` writes::

    OUTDIR/summary/score_histogram.png  test_pass_rate.png  mistakes.png
    OUTDIR/summary.en.md   summary.ja.md     (pictures linked from summary/)
    OUTDIR/summary.en.html summary.ja.html   (self-contained: pictures embedded as base64)

Plot titles and axis labels follow the page's language (Japanese drawn with the font the
matplotlib-fontja package ships, so no system font is needed); test and mistake ids stay ASCII.
"""

from __future__ import annotations

import base64
import functools
import html
import io
import os
import statistics
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

from grader import sinks
from grader.i18n.messages import said
from grader.i18n.messages import translate
from grader.kit.figures import plot_style
from grader.report.text import plot_word
from grader.report.files import write_atomic
from grader.report.model import GradeReport, Status
from grader.report.templates import environment
from grader.i18n.messages import by_lang

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from matplotlib.typing import RcKeyType

    from grader.insight.item_analysis import Item
    from grader.insight.unknown_mistakes import Cluster
    from grader.spec.rubric.model import Rubric

TEXT = by_lang({
    "title": "summary_title", "graded": "summary_graded", "not_graded": "summary_not_graded",
    "mean": "summary_mean", "median": "summary_median", "range": "summary_range", "pass_rate": "summary_pass_rate",
    "scores": "plot_score_distribution", "parts": "summary_parts", "part": "part", "mean_col": "summary_mean_col",
    "max_col": "summary_max_col", "tests": "summary_tests", "test": "test", "rate": "summary_rate",
    "hardest": "summary_hardest", "mistakes": "summary_mistakes", "mistake": "summary_mistake",
    "count": "summary_count", "no_mistakes": "summary_no_mistakes", "unrecognised": "summary_unrecognised",
    "entry": "summary_entry", "why": "summary_why", "errors": "summary_errors", "timeouts": "summary_timeouts",
    "first": "summary_first", "central": "summary_central", "central_row": "summary_central_row",
    "common": "summary_common", "example": "summary_example", "student": "gb_submission",
    "error_list": "summary_error_list", "error_col": "summary_error_col", "none": "summary_none",
    "rings": "summary_rings", "ring_row": "summary_ring_row", "ring_more": "summary_ring_more",
    "clusters": "summary_clusters", "cluster_example": "summary_cluster_example",
    "cluster_tests": "summary_cluster_tests", "cluster_draft": "summary_cluster_draft",
    "items_title": "summary_items_title", "items_note": "summary_items_note", "disc": "summary_disc",
    "flags": "gb_flags", "cases": "summary_cases", "items_counted": "summary_items_counted",
    "shown_of": "summary_shown_of",
})


@dataclass
class ClassStats:
    """Plain numbers about a batch, computed once and shared by every page."""

    n: int
    max_score: float
    scores: list[float]
    mean: float
    median: float
    low: float
    high: float
    passed: int
    with_errors: int
    with_timeouts: int
    parts: list[tuple[str, str, str, float, float]]  # id, title en, title ja, mean, max
    tests: list[tuple[str, float, int]]  # id, pass rate, runs
    mistakes: list[tuple[str, int]]  # id, submissions
    unrecognised: list[tuple[str, str]] = field(default_factory=list)
    #: mistakes the rubric marks central: (id, submissions with it, of which passed)
    central: list[tuple[str, int, int]] = field(default_factory=list)
    #: one example per mistake id, most common first: (id, count, submission, message en/ja)
    examples: list[tuple[str, int, str, dict[str, str]]] = field(default_factory=list)
    #: submissions with errors: (submission, first error)
    error_list: list[tuple[str, str]] = field(default_factory=list)
    #: unknown mistakes grouped by behaviour (grader.insight.unknown_mistakes), largest first
    clusters: list[Cluster] = field(default_factory=list)
    #: similar submissions (grader.insight.similarity): (group, best code score, [who])
    rings: list[tuple[int, float, list[str]]] = field(default_factory=list)
    #: per-test item analysis (grader.insight.item_analysis), flagged tests first
    items: list[Item] = field(default_factory=list)
    #: the submissions the item analysis leaves out (blank, untouched stubs), and how many it counts
    items_left_out: tuple[str, ...] = ()
    items_counted: int = 0


def _who(report: GradeReport) -> str:
    """The submission as the instructor knows it: the LMS name and id where known."""
    who = report.student or {}
    name, sid = str(who.get("name") or ""), str(who.get("id") or "")
    return f"{name} ({sid})" if name and sid else report.submission


#: How much of a submission's first error the summary keeps, and how much of it, once shown in
#: the page's language, it shows: cut after translating, so that a cut never leaves a sentence
#: half in English.
_ERROR_KEPT, _ERROR_SHOWN = 2000, 200


def _error_shown(text: str, lang: str) -> str:
    said = translate(text, lang)
    return said if len(said) <= _ERROR_SHOWN else said[:_ERROR_SHOWN - 1] + "…"


def _first_error(report: GradeReport) -> str:
    if report.errors:
        return report.errors[0].splitlines()[0][:_ERROR_KEPT] if report.errors[0] else ""
    for t in report.tests:
        if t.status in (Status.ERROR, Status.TIMEOUT):
            return f"{t.id}: {t.status.value}"
    return ""


def class_stats(reports: list[GradeReport], unrecognised: list[tuple[str, str]] | None = None,
                central: tuple[str, ...] = ()) -> ClassStats:
    scores = [float(r.score) for r in reports]
    parts: dict[str, list[float]] = {}
    part_info: dict[str, tuple[str, str, float]] = {}
    tests: dict[str, list[int]] = {}
    mistakes: Counter[str] = Counter()
    for r in reports:
        for p in r.parts:
            parts.setdefault(p.id, []).append(float(p.score))
            part_info[p.id] = (p.title.get("en", p.id), p.title.get("ja", p.id), float(p.max_score))
        for t in r.tests:
            tests.setdefault(t.id, []).append(1 if t.status is Status.PASSED else 0)
        mistakes.update({m.id for m in r.mistakes})
    ordered = sorted(reports, key=lambda r: r.submission)
    examples = []
    for mid, count in sorted(mistakes.items(), key=lambda m: (-m[1], m[0])):
        report, found = next((r, m) for r in ordered for m in r.mistakes if m.id == mid)
        examples.append((mid, count, _who(report), dict(found.message)))
    errored = [r for r in ordered if r.errors or any(t.status in (Status.ERROR, Status.TIMEOUT) for t in r.tests)]
    central_rows = []
    for mid in central:
        having = [r for r in reports if any(m.id == mid for m in r.mistakes)]
        central_rows.append((mid, len(having), sum(1 for r in having if r.passed)))
    return ClassStats(
        central=central_rows,
        examples=examples,
        error_list=[(_who(r), _first_error(r)) for r in errored]
        + [(entry, said("not_graded", why=why)) for entry, why in unrecognised or []],
        n=len(reports),
        max_score=max((float(r.max_score) for r in reports), default=0.0),
        scores=scores,
        mean=statistics.fmean(scores) if scores else 0.0,
        median=statistics.median(scores) if scores else 0.0,
        low=min(scores, default=0.0),
        high=max(scores, default=0.0),
        passed=sum(1 for r in reports if r.passed),
        with_errors=sum(1 for r in reports if r.errors or any(t.status is Status.ERROR for t in r.tests)),
        with_timeouts=sum(1 for r in reports if any(t.status is Status.TIMEOUT for t in r.tests)),
        parts=[(pid, *part_info[pid][:2], statistics.fmean(v), part_info[pid][2]) for pid, v in parts.items()],
        tests=sorted(((tid, sum(v) / len(v), len(v)) for tid, v in tests.items()), key=lambda t: (t[1], t[0])),
        mistakes=sorted(mistakes.items(), key=lambda m: (-m[1], m[0])),
        unrecognised=list(unrecognised or []),
    )


# --------------------------------------------------------------------------- plots


def _figure_png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)  # the figures lay themselves out (one draw, not two)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return buf.getvalue()


def _score_histogram(stats: ClassStats, hardest: int, lang: str = "en") -> Figure:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
    top = stats.max_score or 1.0
    ax.hist(stats.scores, bins=min(20, max(5, len(set(stats.scores)))), range=(0, top), color="#4472c4",
            edgecolor="white")
    ax.set_xlabel(plot_word("score_max", lang, top=f"{top:g}"))
    ax.set_ylabel(plot_word("submissions", lang))
    ax.set_title(plot_word("score_distribution", lang))
    return fig


def _test_pass_rate(stats: ClassStats, hardest: int, lang: str = "en") -> Figure:
    import matplotlib.pyplot as plt

    shown = stats.tests[:hardest]
    fig, ax = plt.subplots(figsize=(8, 0.28 * max(4, len(shown)) + 1), layout="constrained")
    labels = [_short(t[0]) for t in shown]
    ax.barh(range(len(shown)), [100 * t[1] for t in shown], color="#70ad47")
    ax.set_yticks(range(len(shown)), labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel(plot_word("passing", lang))
    ax.set_title(plot_word("pass_rate", lang, shown=len(shown), total=len(stats.tests)) if len(shown) < len(stats.tests)
                 else plot_word("pass_rate_all", lang, total=len(stats.tests)))
    return fig


def _mistake_counts(stats: ClassStats, hardest: int, lang: str = "en") -> Figure:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 0.4 * max(3, len(stats.mistakes)) + 1), layout="constrained")
    if stats.mistakes:
        ax.barh(range(len(stats.mistakes)), [m[1] for m in stats.mistakes], color="#ed7d31")
        ax.set_yticks(range(len(stats.mistakes)), [_ascii(m[0]) for m in stats.mistakes], fontsize=8)
        ax.invert_yaxis()
    else:
        ax.text(0.5, 0.5, plot_word("no_mistake", lang), ha="center", va="center", transform=ax.transAxes)
        ax.set_yticks([])
    ax.set_xlabel(plot_word("submissions", lang))
    ax.set_title(plot_word("mistake_counts", lang))
    return fig


#: One of the summary's plots: (the class's statistics, how many tests at most, language) -> figure.
Plot = Callable[[ClassStats, int, str], "Figure"]
_PLOTS: dict[str, Plot] = {"score_histogram": _score_histogram, "test_pass_rate": _test_pass_rate,
                           "mistakes": _mistake_counts}


def _drawn_elsewhere(make: Callable[[], bytes]) -> tuple[int, int] | None:
    """Draw one plot in a forked copy of this process; returns (pid, read end) or None.

    The class summary is the last thing a batch does, and the workers' CPUs are free by
    then: each plot takes ~0.1 s to lay out and rasterise, so they are drawn side by side.
    Only from a single-threaded process (a fork copies no other thread, nor the locks they
    might hold) and where ``fork`` exists; otherwise the caller draws the plot itself.
    """
    if not hasattr(os, "fork") or threading.active_count() > 1 or (os.cpu_count() or 1) < 2:
        return None
    read, write = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        return None
    if pid == 0:  # the copy: draw, send the PNG bytes, and leave without any clean-up
        code = 1
        try:
            os.close(read)
            data = make()
            view = memoryview(data)
            while view:
                view = view[os.write(write, view):]
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    return pid, read


def _collect(pid: int, read: int) -> bytes | None:
    """The PNG bytes a forked copy sent, once it has exited; None if it failed."""
    with os.fdopen(read, "rb") as fh:
        data = fh.read()
    _, status = os.waitpid(pid, 0)
    return data if os.waitstatus_to_exitcode(status) == 0 and data else None


def plots(stats: ClassStats, hardest: int = 25, lang: str = "en") -> dict[str, bytes]:
    """PNG bytes of the three plots, titled and labelled in ``lang`` (test and mistake ids as they are)."""
    return plots_in(stats, (lang,), hardest)[lang]


#: where a batch folder keeps the summary's last plots, under the key of what they show
PLOT_CACHE = ".cache/summary-plots"


def _plots_key(stats: ClassStats, langs: Sequence[str], hardest: int) -> str:
    """A digest of everything the plots show and are drawn with: the numbers they plot, the
    languages and their words, this module's and the figure settings' code, matplotlib's version."""
    import hashlib
    import importlib.metadata
    import importlib.util
    import json

    from grader.kit import figures
    from grader.report.text import PLOT_WORDS

    try:
        mpl = importlib.metadata.version("matplotlib")
    except importlib.metadata.PackageNotFoundError:
        mpl = ""
    shown = {"scores": list(stats.scores), "max": stats.max_score, "tests": [list(t[:2]) for t in stats.tests[:hardest]],
             "n_tests": len(stats.tests), "mistakes": [list(m) for m in stats.mistakes], "langs": list(langs),
             "hardest": hardest, "words": {lang: PLOT_WORDS.get(lang) for lang in langs}, "matplotlib": mpl,
             "fontja": importlib.util.find_spec("matplotlib_fontja") is not None}
    h = hashlib.sha256(json.dumps(shown, sort_keys=True, default=str).encode())
    for module in (__file__, figures.__file__):
        h.update(Path(module).read_bytes())
    return h.hexdigest()


def _cached_plots(folder: Path, key: str, langs: Sequence[str]) -> dict[str, dict[str, bytes]] | None:
    """The plots :func:`_keep_plots` kept in ``folder`` under ``key``, or None (another key, or a file missing)."""
    try:
        if (folder / "key").read_text(encoding="ascii").strip() != key:
            return None
        return {lang: {name: (folder / f"{lang}-{name}.png").read_bytes() for name in _PLOTS} for lang in langs}
    except (OSError, UnicodeDecodeError):
        return None


def _keep_plots(folder: Path, key: str, drawn: dict[str, dict[str, bytes]]) -> None:
    """Keep ``drawn`` in ``folder`` under ``key`` (the key written last: a half-kept set is never read)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "key").unlink(missing_ok=True)
        for lang, pngs in drawn.items():
            for name, data in pngs.items():
                tmp = folder / f".{lang}-{name}.png.part"
                tmp.write_bytes(data)
                tmp.replace(folder / f"{lang}-{name}.png")
        write_atomic(folder / "key", key + "\n")
    except OSError:  # a cache only: the summary is written all the same
        pass


def plots_in(stats: ClassStats, langs: Sequence[str], hardest: int = 25,
             cache: Path | None = None) -> dict[str, dict[str, bytes]]:
    """``{lang: {plot: PNG bytes}}``: every plot in every language of ``langs``, all but one drawn
    side by side in forked copies (each takes ~0.1-0.3 s to lay out and rasterise; a batch's
    summary draws six of them while nothing else runs).

    With ``cache`` (a folder), plots of the same numbers, words and code as the last ones kept
    there are read back instead of drawn (a ``--resume`` with nothing new imports no matplotlib);
    new ones are kept there."""
    if cache is not None:
        digest = _plots_key(stats, langs, hardest)
        kept = _cached_plots(cache, digest, langs)
        if kept is not None:
            return kept
        made = plots_in(stats, langs, hardest)
        _keep_plots(cache, digest, made)
        return made
    import matplotlib

    matplotlib.use("Agg")  # (before pyplot is imported, by the first plot drawn)

    def png(plot: Plot, lang: str) -> bytes:
        # plot_style's keys are rcParams' own names; its dict just does not say so to mypy
        with matplotlib.rc_context(cast("dict[RcKeyType, object]", plot_style(lang))):
            return _figure_png(plot(stats, hardest, lang))

    makers = {(lang, name): functools.partial(png, plot, lang) for lang in langs for name, plot in _PLOTS.items()}
    first, *others = list(makers)
    elsewhere = {key: _drawn_elsewhere(makers[key]) for key in others}
    try:
        drawn = {first: makers[first]()}
    finally:  # (reap the copies whatever happened here)
        sent = {key: _collect(*forked) if forked else None for key, forked in elsewhere.items()}
    for key in others:
        got = sent[key]
        drawn[key] = got if got is not None else makers[key]()  # a copy failed: draw it here
    return {lang: {name: drawn[(lang, name)] for name in _PLOTS} for lang in langs}


def _ascii(text: str) -> str:
    return text.encode("ascii", "replace").decode()


def _short(test_id: str, width: int = 60) -> str:
    text = _ascii(test_id.replace(".py::", "::"))
    return text if len(text) <= width else "..." + text[-(width - 3):]


# --------------------------------------------------------------------------- pages


def render_markdown(stats: ClassStats, rubric: Rubric, lang: str, images: dict[str, str],
                    outdir: Path | None = None) -> str:
    t = TEXT[lang]
    title = getattr(getattr(rubric, "title", None), lang, "") or getattr(rubric, "assignment", "")

    def pct(k: int) -> str:
        return f"{100 * k / stats.n:.0f}%" if stats.n else "–"

    lines = [f"# {t['title']}: {title}", ""]
    if outdir is not None:
        lines += [_markdown_links(outdir, rubric, lang), ""]
    lines += [f"## {t['first']}", ""]
    for mid, total, passed in stats.central:
        lines.append(f"- **{t['central']}**: " + t["central_row"].format(passed=passed, total=total, mid=f"`{mid}`"))
    lines += _insight_markdown(stats, lang)
    lines += ["", f"### {t['common']}{_shown_of(5, len(stats.examples), lang)}", ""]
    if stats.examples:
        lines += [f"| {t['mistake']} | {t['count']} | {t['example']} |", "| --- | ---: | --- |"]
        lines += [f"| `{mid}` | {count} | {_md(who)}: {_md(msg.get(lang) or msg.get('en', ''))} |"
                  for mid, count, who, msg in stats.examples[:5]]
    else:
        lines.append(t["no_mistakes"])
    lines += ["", f"### {t['error_list']} ({len(stats.error_list)}){_shown_of(10, len(stats.error_list), lang)}", ""]
    if stats.error_list:
        lines += [f"| {t['student']} | {t['error_col']} |", "| --- | --- |"]
        lines += [f"| {_md(who)} | {_md(_error_shown(what, lang))} |" for who, what in stats.error_list[:10]]
    else:
        lines.append(t["none"])
    lines += [
        "",
        "| | |", "| --- | --- |",
        f"| {t['graded']} | {stats.n} |",
        f"| {t['not_graded']} | {len(stats.unrecognised)} |",
        f"| {t['mean']} | {stats.mean:.2f} / {stats.max_score:g} |",
        f"| {t['median']} | {stats.median:.2f} |",
        f"| {t['range']} | {stats.low:g} – {stats.high:g} |",
        f"| {t['pass_rate']} | {stats.passed} ({pct(stats.passed)}) |",
        f"| {t['errors']} | {stats.with_errors} |",
        f"| {t['timeouts']} | {stats.with_timeouts} |",
        "", f"## {t['scores']}", "", f"![{t['scores']}]({images['score_histogram']})", "",
        f"## {t['parts']}", "", f"| {t['part']} | {t['mean_col']} | {t['max_col']} |", "| --- | ---: | ---: |",
    ]
    for pid, en, ja, mean, most in stats.parts:
        lines.append(f"| {ja if lang == 'ja' else en} (`{pid}`) | {mean:.2f} | {most:g} |")
    lines += ["", f"## {t['mistakes']}", ""]
    if stats.mistakes:
        lines += [f"![{t['mistakes']}]({images['mistakes']})", "",
                  f"| {t['mistake']} | {t['count']} |", "| --- | ---: |"]
        lines += [f"| `{mid}` | {count} |" for mid, count in stats.mistakes]
    else:
        lines.append(t["no_mistakes"])
    lines += ["", f"## {t['tests']}", "", f"![{t['tests']}]({images['test_pass_rate']})", "",
              t["hardest"] + ":", "", f"| {t['test']} | {t['rate']} |", "| --- | ---: |"]
    lines += [f"| `{tid}` | {100 * rate:.0f}% |" for tid, rate, _ in stats.tests if rate < 1.0]
    if stats.items:
        from grader.insight.item_analysis import flag_words

        lines += ["", f"## {t['items_title']}", "", t["items_note"], "", _md(_items_counted(stats, lang)), "",
                  f"| {t['test']} | {t['cases']} | {t['rate']} | {t['disc']} | {t['flags']} |",
                  "| --- | ---: | ---: | ---: | --- |"]
        lines += [f"| `{i.test}` | {i.cases} | {100 * i.pass_rate:.0f}% | "
                  f"{'–' if i.discrimination is None else f'{i.discrimination:.2f}'} | "
                  f"{sinks.markdown(flag_words(i, lang))} |" for i in stats.items]
    if stats.unrecognised:
        lines += ["", f"## {t['unrecognised']}", "", f"| {t['entry']} | {t['why']} |", "| --- | --- |"]
        lines += [f"| {sinks.markdown(e)} | {sinks.markdown(translate(why, lang))} |"
                  for e, why in stats.unrecognised]
    return "\n".join(lines) + "\n"


def _markdown_links(outdir: Path, rubric: Rubric, lang: str) -> str:
    """The HTML pages of the batch, linked from the Markdown summary (the same pages
    :func:`grader.outputs.gradebook_page.class_links` links)."""
    import re

    from grader.outputs.gradebook_page import class_links

    found = re.findall(r'<a href="([^"]+)">([^<]+)</a>', class_links(outdir, rubric, lang, "summary"))
    return " · ".join(f"[{_md(html.unescape(text))}]({href})" for href, text in found)


def _insight_markdown(stats: ClassStats, lang: str) -> list[str]:
    """The first screen's rings and clusters (student text through the Markdown sink)."""
    from grader.insight.unknown_mistakes import describe

    t = TEXT[lang]
    lines: list[str] = []
    if stats.rings:
        lines += ["", f"### {t['rings']}{_shown_of(5, len(stats.rings), lang)}", ""]
        lines += ["- " + _md(t["ring_row"].format(g=g, n=len(names), best=best, members=", ".join(names)))
                  for g, best, names in stats.rings[:5]]
        lines += ["", _md(t["ring_more"])]
    if stats.clusters:
        lines += ["", f"### {t['clusters']}{_shown_of(5, len(stats.clusters), lang)}", ""]
        for c in stats.clusters[:5]:
            d = describe(c, lang)
            lines.append(f"- **{c.number}.** {_md(d['head'])}; {_md(d['probe'])}; {t['cluster_example']}: "
                         f"{_md(d['example'])}; {t['cluster_tests']}: {_md(d['tests'])}")
        lines += ["", _md(t["cluster_draft"].format(n=stats.clusters[0].number))]
    return lines


def _md(text: str) -> str:
    """Student text inside a Markdown table cell (:func:`grader.sinks.markdown`)."""
    from grader.sinks import markdown

    return markdown(text)


def _items_counted(stats: ClassStats, lang: str) -> str:
    """Over how many submissions the item analysis is, who it leaves out, and its threshold
    (student names raw: each page's sink escapes them)."""
    from grader.insight.item_analysis import MIN_SUBMISSIONS

    left = stats.items_left_out
    names = (f"（{'、'.join(left)}）" if lang == "ja" else f" ({', '.join(left)})") if left else ""
    return TEXT[lang]["items_counted"].format(counted=stats.items_counted, left=len(left), names=names,
                                              least=MIN_SUBMISSIONS)


def _shown_of(shown: int, total: int, lang: str) -> str:
    """`` (5 of 8 shown)`` after a heading whose list is cut; nothing when all of it is shown."""
    return TEXT[lang]["shown_of"].format(shown=shown, total=total) if total > shown else ""


def render_html(stats: ClassStats, rubric: Rubric, lang: str, pngs: dict[str, bytes],
                outdir: Path | None = None) -> str:
    """The summary page in ``lang``; with ``outdir``, it links the batch's other pages."""
    from markupsafe import Markup

    from grader.outputs.gradebook_page import class_links

    env = environment()
    title = getattr(getattr(rubric, "title", None), lang, "") or getattr(rubric, "assignment", "")
    images = {k: "data:image/png;base64," + base64.b64encode(v).decode() for k, v in pngs.items()}
    from grader.insight.unknown_mistakes import describe
    from grader.insight.item_analysis import flag_words
    from grader.report.webfont import embed

    return embed(env.get_template("summary.html.j2").render(
        t=TEXT[lang], lang=lang, title=title, s=stats, images=images,
        nav=Markup(class_links(outdir, rubric, lang, "summary")) if outdir is not None else "",
        flag_words=lambda item: flag_words(item, lang), items_counted=_items_counted(stats, lang),
        shown_of=lambda shown, total: _shown_of(shown, total, lang), n_clusters=len(stats.clusters),
        clusters=[(c, describe(c, lang)) for c in stats.clusters[:5]],
        pct=(lambda k: f"{100 * k / stats.n:.0f}%" if stats.n else "–"),
        say=lambda text: translate(text, lang), error=lambda text: _error_shown(text, lang),
    ), keep=True)


def _rings(reports: list[GradeReport], outdir: Path) -> list[tuple[int, float, list[str]]]:
    """Groups of similar submissions from ``OUTDIR/similarity.csv`` when it is there."""
    from grader.insight.similarity import read_similarity

    who = {r.submission: _who(r) for r in reports}
    groups: dict[int, tuple[float, list[str]]] = {}
    for row in read_similarity(outdir):
        try:
            g, code = int(row["group"]), float(row["code_score"])
        except (KeyError, ValueError):
            continue
        best, names = groups.setdefault(g, (code, []))
        for name in (row.get("submission_a", ""), row.get("submission_b", "")):
            shown = who.get(name, name)
            if shown not in names:
                names.append(shown)
        groups[g] = (max(best, code), names)
    # each group's members by name (a blind batch's: by pseudonym), never by how the pairs ranked
    return [(g, best, sorted(names)) for g, (best, names) in sorted(groups.items())]


def write_summary(reports: list[GradeReport], outdir: str | Path, rubric: Rubric,
                  unrecognised: list[tuple[str, str]] | None = None) -> list[Path]:
    """Write the plots and the Markdown and HTML pages in both languages; returns the paths.

    Also ``OUTDIR/unrecognised-clusters.csv`` (:mod:`grader.insight.unknown_mistakes`); the first screen lists
    those clusters, and the groups of ``OUTDIR/similarity.csv`` when similarity was run.
    """
    from grader.insight import unknown_mistakes as grouping
    from grader.insight.item_analysis import analyse

    out = Path(outdir)
    central = tuple(m.id for m in getattr(rubric, "mistakes", ()) if getattr(m, "central", False))
    stats = class_stats(reports, unrecognised, central)
    stats.clusters = grouping.clusters(reports)
    stats.rings = _rings(reports, out)
    from grader.report.outdir import read_corpus
    from grader.ingest.corpus import corpus_digest

    analysis = analyse(reports, corpus=read_corpus(out, corpus_digest(rubric)))
    who = {r.submission: _who(r) for r in reports}
    stats.items, stats.items_counted = analysis.items, analysis.counted
    stats.items_left_out = tuple(who.get(name, name) for name in analysis.left_out)
    written = [grouping.write_clusters(stats.clusters, out)]
    (out / "summary").mkdir(parents=True, exist_ok=True)
    drawn = plots_in(stats, ("ja", "en"), cache=out / PLOT_CACHE)
    for lang in ("ja", "en"):
        # Each language's pages get plots titled in that language: summary/<plot>.png in
        # English, summary/<plot>.ja.png in Japanese.
        pngs = drawn[lang]
        suffix = ".png" if lang == "en" else f".{lang}.png"
        for name, data in pngs.items():
            path = out / "summary" / f"{name}{suffix}"
            tmp = path.with_name(path.name + ".part")
            tmp.write_bytes(data)
            tmp.replace(path)
            written.append(path)
        links = {name: f"summary/{name}{suffix}" for name in pngs}
        written.append(write_atomic(out / f"summary.{lang}.md", render_markdown(stats, rubric, lang, links, out)))
        written.append(write_atomic(out / f"summary.{lang}.html", render_html(stats, rubric, lang, pngs, out)))
    return written
