"""``OUT/gradebook.<lang>.html``: the batch's gradebook as a page to read, one per course language.

It shows what ``gradebook.csv`` holds, read back from that file (one source): for each
submission the final score beside the automatic score, the hand adjustment and its reasons
(:mod:`grader.report.ledger`), the late penalty, and why a row has no grade or is in doubt. The rows
adjusted by hand and the rows without a grade stand out, and counts of both head the page.
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

__all__ = ["view_path", "write_views"]

#: gradebook.csv's columns shown, in order, each with its label's key in ``LABELS``
_COLUMNS = (("submission", "gb_submission"), ("student_id", "gb_student_id"), ("name", "gb_name"),
            ("score", "gb_score"), ("automatic_score", "gb_automatic"), ("adjustment", "gb_adjustment"),
            ("max_score", "gb_max"), ("passed", "gb_passed"), ("late_penalty", "gb_late"),
            ("adjustment_reasons", "gb_reasons"), ("errors", "gb_problems"), ("flags", "gb_flags"))

_STYLE = """
body { font-family: FONT_STACK; margin: 2em; color: #222; }
table { border-collapse: collapse; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; vertical-align: top; text-align: left; }
th { background: #f0f0f0; white-space: nowrap; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.adjusted td { background: #fff6d5; }
tr.nograde td { background: #fde8e8; }
.legend span { display: inline-block; padding: 0.1em 0.6em; margin-right: 1em; border: 1px solid #ccc; }
""".replace("FONT_STACK", FONT_STACK)


def view_path(outdir: Path, lang: str) -> Path:
    return outdir / f"gradebook.{lang}.html"


def _label(key: str, lang: str) -> str:
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
    adjusted = [(r.get("adjustment") or "0") not in ("0", "0.0", "") for r in rows]
    ungraded = [not (r.get("score") or "").strip() for r in rows]
    kinds = ["nograde" if u else "adjusted" if a else "" for a, u in zip(adjusted, ungraded)]
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
            num = ' class="num"' if column in ("score", "automatic_score", "adjustment", "max_score") else ""
            cells.append(f"<td{num}>{sinks.html(value)}</td>")
        body.append((f'<tr class="{kind_of}">' if kind_of else "<tr>") + "".join(cells) + "</tr>")
    counts = _label("gb_counts", lang).format(n=len(rows), adjusted=sum(adjusted),
                                              ungraded=sum(ungraded))
    legend = (f'<p class="legend"><span style="background:#fff6d5">{sinks.html(_label("gb_adjusted", lang))}</span>'
              f'<span style="background:#fde8e8">{sinks.html(_label("gb_ungraded", lang))}</span></p>')
    return embed("<!DOCTYPE html>\n"
                 f'<html lang="{sinks.html(lang)}">\n<head>\n<meta charset="utf-8">\n'
                 f"<title>{sinks.html(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
                 f"<h1>{sinks.html(title)}</h1>\n<p>{sinks.html(counts)}</p>\n{legend}\n"
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
