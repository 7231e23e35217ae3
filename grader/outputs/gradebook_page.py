"""``OUT/gradebook.<lang>.html``: the batch's gradebook as a page to read, one per course language.

It shows what ``gradebook.csv`` holds, read back from that file (one source): for each
submission the automatic score, the late penalty, the hand adjustment and the final score, left to
right as they add up, the lateness and any extension, the adjustments' reasons
(:mod:`grader.report.ledger`) and those that need review, and why a row has no grade or is in doubt.
The rows adjusted by hand, those whose adjustment needs review and the rows without a grade stand
out, and counts of each head the page.
It is written again whenever ``gradebook.csv`` is: by ``grader batch``, ``grader adjust``,
``grader regrade`` and ``grader export``.

Example::

    write_views(Path("out"), rubric)  # [out/gradebook.ja.html, out/gradebook.en.html]
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import TYPE_CHECKING

from grader import sinks
from grader.i18n import messages
from grader.i18n.messages import one_language
from grader.report.text import LABELS
from grader.report.files import write_atomic
from grader.report.webfont import FONT_STACK, embed

if TYPE_CHECKING:
    from grader.spec.rubric.model import Rubric

__all__ = ["class_links", "report_link", "view_path", "write_views"]

#: gradebook.csv's columns shown, in order, each with its label's key in ``LABELS``
#: (automatic score − late penalty + adjustment = final score, left to right)
_COLUMNS = (("submission", "gb_submission"), ("student_id", "gb_student_id"), ("name", "gb_name"),
            ("automatic_score", "gb_automatic"), ("late_penalty", "gb_late"), ("adjustment", "gb_adjustment"),
            ("score", "gb_score"), ("max_score", "gb_max"), ("passed", "gb_passed"), ("late", "gb_late_flag"),
            ("extension", "gb_extension"), ("adjustment_reasons", "gb_reasons"), ("needs_review", "gb_review"),
            ("errors", "gb_problems"), ("flags", "gb_flags"))
_NUMBERS = ("automatic_score", "late_penalty", "adjustment", "score", "max_score")

_STYLE = """
body { font-family: FONT_STACK; margin: 2em; color: #222; }
table { border-collapse: collapse; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; vertical-align: top; text-align: left;
         line-break: strict; overflow-wrap: anywhere; }
th { background: #f0f0f0; }
nav.class-pages { margin-bottom: 1em; }
nav.class-pages a, nav.class-pages strong { margin-right: 1em; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.adjusted td { background: #fff6d5; }
tr.review td { background: #ffe0b2; font-weight: bold; }
tr.nograde td { background: #fde8e8; }
.legend span { display: inline-block; padding: 0.1em 0.6em; margin-right: 1em; border: 1px solid #ccc; }
""".replace("FONT_STACK", FONT_STACK)


def view_path(outdir: Path, lang: str) -> Path:
    return outdir / f"gradebook.{lang}.html"


#: the class's pages, in the order the links show them: (file name's stem, its title's key)
_PAGES = (("summary", "summary_title"), ("gradebook", "gb_title"), ("similarity", "similarity_title"))


def class_links(outdir: Path, rubric: Rubric, lang: str, here: str) -> str:
    """The links between a batch's pages in ``lang`` (HTML): the class summary, the gradebook page
    (in ``lang`` where the course writes it, else in its first language) and the similarity page
    where similarity was run; ``here`` (``summary``, ``gradebook``, ``similarity``) is not a link."""
    languages = list(rubric.report.languages) or ["en"]
    links = []
    for stem, key in _PAGES:
        if stem == "similarity" and stem != here and not (outdir / "similarity.csv").is_file():
            continue
        page_lang = (lang if lang in languages else languages[0]) if stem == "gradebook" else lang
        text = sinks.html(messages.label(key, lang))
        links.append(f'<strong aria-current="page">{text}</strong>' if stem == here
                     else f'<a href="{stem}.{page_lang}.html">{text}</a>')
    return f'<nav class="class-pages" aria-label="{sinks.html(messages.label("class_pages", lang))}">' \
           + " ".join(links) + "</nav>"


def report_link(outdir: Path, name: str) -> str | None:
    """The address, from ``outdir``, of the submission's report to read: its HTML page, else its
    Markdown, else the yaml record (the formats the rubric asks for); None when there is none."""
    from urllib.parse import quote

    from grader.report.outdir import report_path

    for fmt in ("html", "markdown", "yaml"):
        path = report_path(outdir, name, fmt)
        if name and path.is_file():
            return "reports/" + quote(path.name)
    return None


def _label(key: str, lang: str) -> str:
    if key not in LABELS:  # (this page's own words, in grader/i18n/outputs.py)
        return messages.label(key, lang)
    return LABELS[key].get(lang) or LABELS[key]["en"]


def _rows(gradebook: Path) -> list[dict[str, str]]:
    text = gradebook.read_text(encoding="utf-8").removeprefix("\ufeff")
    return list(csv.DictReader(io.StringIO(text)))


def _shown(column: str, value: str, lang: str) -> str:
    """A cell as the page shows it: the CSV's own text, but yes/no and the flags in words, the
    spreadsheet guard (a leading ``'``) taken off, and an adjustment of 0 left empty."""
    if column == "flags" and value:
        return ", ".join(messages.label(f"gbflag_{flag}", lang) if f"gbflag_{flag}" in messages.LABELS else flag
                         for flag in value.split(";"))
    if column in ("passed",) and value in ("yes", "no"):
        return _label("gb_yes" if value == "yes" else "gb_no", lang)
    if column == "late" and value in ("yes", "no"):
        return _label("gb_late_yes", lang) if value == "yes" else ""
    if column == "adjustment" and value in ("0", "0.0"):
        return ""
    if value[:1] == "'" and value[1:2] in ("=", "+", "-", "@", "\t", "\r", " ", "\u3000"):
        return value[1:]
    return value


def _reasons_in(outdir: Path | None, row: dict[str, str], lang: str) -> str:
    """The row's adjustments in ``lang`` alone, from its report (the CSV cell holds every course
    language); the CSV's own cell when the report cannot be read."""
    from grader.report.outdir import read_report, report_path
    from grader.report.text import adjustment_lines

    cell = row.get("adjustment_reasons") or ""
    if not cell or outdir is None:
        return cell
    try:
        report = read_report(report_path(outdir, row.get("submission") or ""))
    except (KeyError, ValueError, OSError):
        report = None
    if report is None or not report.adjustment:
        return cell
    return " | ".join(adjustment_lines(report, (lang,))[1:]) or cell


def render(rows: list[dict[str, str]], rubric: Rubric, lang: str, outdir: Path | None = None) -> str:
    """The page for ``rows`` (gradebook.csv read back) in ``lang``; with ``outdir``, each
    adjustment's reasons are read from its report in ``lang`` alone."""
    review = [bool((r.get("needs_review") or "").strip()) for r in rows]
    adjusted = [(r.get("adjustment") or "0") not in ("0", "0.0", "") or v for r, v in zip(rows, review)]
    ungraded = [not (r.get("score") or "").strip() for r in rows]
    kinds = ["nograde" if u else "review" if v else "adjusted" if a else ""
             for a, u, v in zip(adjusted, ungraded, review)]
    title = f"{_label('gb_title', lang)}: {rubric.title.get(lang)}"
    head = "".join(f"<th>{sinks.html(_label(key, lang))}</th>" for _, key in _COLUMNS)
    body = []
    for r, kind_of in zip(rows, kinds):
        cells = []
        for column, _ in _COLUMNS:
            value = _shown(column, r.get(column) or "", lang)
            if column == "adjustment_reasons":
                value = _reasons_in(outdir, r, lang)
            elif column == "errors" and value:
                value = one_language(value, lang)
            num = ' class="num"' if column in _NUMBERS else ""
            link = report_link(outdir, value) if column == "submission" and outdir is not None else None
            shown = f'<a href="{sinks.html(link)}">{sinks.html(value)}</a>' if link else sinks.html(value)
            cells.append(f"<td{num}>{shown}</td>")
        body.append((f'<tr class="{kind_of}">' if kind_of else "<tr>") + "".join(cells) + "</tr>")
    counts = _label("gb_counts", lang).format(n=len(rows), adjusted=sum(adjusted),
                                              ungraded=sum(ungraded))
    if any(review):
        counts += " " + _label("gb_review_count", lang).format(review=sum(review))
    legend = (f'<p class="legend"><span style="background:#fff6d5">{sinks.html(_label("gb_adjusted", lang))}</span>'
              f'<span style="background:#ffe0b2">{sinks.html(_label("gb_review_legend", lang))}</span>'
              f'<span style="background:#fde8e8">{sinks.html(_label("gb_ungraded", lang))}</span></p>')
    return embed("<!DOCTYPE html>\n"
                 f'<html lang="{sinks.html(lang)}">\n<head>\n<meta charset="utf-8">\n'
                 f"<title>{sinks.html(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
                 + (class_links(outdir, rubric, lang, "gradebook") + "\n" if outdir is not None else "")
                 + f"<h1>{sinks.html(title)}</h1>\n<p>{sinks.html(counts)}</p>\n{legend}\n"
                 f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n" + "\n".join(body)
                 + "\n</tbody>\n</table>\n</body>\n</html>\n", keep=True)


def write_views(outdir: Path, rubric: Rubric) -> list[Path]:
    """``gradebook.<lang>.html`` for each course language, from ``outdir/gradebook.csv``
    (nothing when that file is absent). Each file is written atomically."""
    gradebook = outdir / "gradebook.csv"
    if not gradebook.is_file():
        return []
    rows = _rows(gradebook)
    return [write_atomic(view_path(outdir, lang), render(rows, rubric, lang, outdir)) for lang in rubric.report.languages]
