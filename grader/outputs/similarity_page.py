"""The similarity pages (``similarity.{ja,en}.html``) and ``grader similarity OUT``.

:func:`run` compares a finished batch (:func:`grader.insight.similarity.compute`, which writes
``similarity.csv``) and writes the page in each language; :func:`refresh` does it again for an
output folder and then the class summary, whose first screen lists the groups.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from grader.i18n.messages import by_lang, translate
from grader.insight.similarity import Similarity, compute, side_by_side
from grader.report.files import write_atomic
from grader.report.templates import environment

if TYPE_CHECKING:
    from markupsafe import Markup

    from grader.ingest.submission.model import Submission
    from grader.report.model import GradeReport
    from grader.spec.rubric.model import Rubric

__all__ = ["TEXT", "refresh", "render_page", "render_regions", "run"]

TEXT = by_lang({
    "title": "similarity_title", "lead": "similarity_lead", "intro": "similarity_intro",
    "group": "similarity_group", "members": "similarity_members", "pair": "similarity_pair",
    "code": "similarity_code", "behaviour": "similarity_behaviour", "shared": "similarity_shared",
    "none": "similarity_none", "compared": "similarity_compared", "against": "similarity_against",
    "ring": "similarity_ring", "summary_link": "similarity_summary_link", "code_col": "similarity_code_col",
    "capped": "similarity_capped",
})


def render_regions(result: Similarity) -> list[Markup]:
    """Each flagged pair's matching regions side by side, as HTML: the same on every
    language's page, so rendered once (the student text in them escaped by the templates' sink)."""
    from markupsafe import Markup

    template = environment().get_template("similarity_regions.html.j2")
    return [Markup(template.render(regions=side_by_side(p, result.coded))) for p in result.pairs]


def render_page(result: Similarity, rubric: Rubric, lang: str, regions: Sequence[Markup] | None = None,
                outdir: Path | None = None) -> str:
    """The similarity page in ``lang``: groups, then each pair's matching regions side by side
    (``regions``: :func:`render_regions`, when the caller already has them); with ``outdir``, it
    links the batch's other pages."""
    from markupsafe import Markup

    from grader.outputs.gradebook_page import class_links

    title = getattr(getattr(rubric, "title", None), lang, "") or getattr(rubric, "assignment", "")
    if regions is None:
        regions = render_regions(result)
    pairs = [{"p": p, "regions": r} for p, r in zip(result.pairs, regions)]
    who = {name: c.who for name, c in result.coded.items()}
    from grader.report.webfont import embed

    return embed(str(environment().get_template("similarity.html.j2").render(
        t=TEXT[lang], lang=lang, title=title, r=result, pairs=pairs, who=who,
        capped=[translate(line, lang) for line in result.capped],
        nav=Markup(class_links(outdir, rubric, lang, "similarity")) if outdir is not None else "",
        rings=[(g, [who.get(m, m) for m in members]) for g, members in result.groups.items()])), keep=True)


def run(outdir: str | Path, rubric: Rubric, *, source: str | None = None,
        submissions: Sequence[tuple[str, Submission]] | None = None, reports: Sequence[GradeReport] | None = None,
        against: str | None = None, against_source: str | None = None) -> Similarity:
    """Compare a finished batch's submissions (:func:`grader.insight.similarity.compute`, with the
    same arguments) and write the page in each language beside ``similarity.csv``."""
    out = Path(outdir)
    result = compute(out, rubric, source=source, submissions=submissions, reports=reports, against=against,
                     against_source=against_source)
    regions = render_regions(result)  # the same on both pages
    for lang in ("ja", "en"):
        write_atomic(out / f"similarity.{lang}.html", render_page(result, rubric, lang, regions, out))
    return result


def refresh(outdir: str | Path, rubric: Rubric, *, source: str | None = None, against: str | None = None) -> Similarity:
    """``grader similarity OUT``: :func:`run`, then the class summary again (its first screen
    lists the groups). Entries the batch did not grade come back from ``gradebook.csv``."""
    from grader.insight.unknown_mistakes import read_reports
    from grader.outputs.summary import write_summary

    out = Path(outdir)
    reports = read_reports(out)
    result = run(out, rubric, source=source, reports=reports, against=against)
    names = {r.submission for r in reports}
    try:
        rows = list(csv.DictReader(io.StringIO((out / "gradebook.csv").read_text(encoding="utf-8"))))
    except OSError:
        rows = []
    skipped = [(r.get("submission", ""), r.get("errors", "")) for r in rows
               if r.get("submission") not in names and not r.get("score")]
    write_summary(reports, out, rubric, unrecognised=skipped)
    return result
