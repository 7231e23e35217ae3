"""``grader review OUT``: the local review app over a finished batch (the ``review`` extra)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from grader.cli.shared import err, guard, lang_for, lang_option, load_for, rubric_option, tr

__all__ = ["review_cmd"]


@click.command(name="review")
@click.argument("outdir", type=click.Path(file_okay=False, exists=True))
@click.option("--port", type=click.IntRange(min=0, max=65535), default=0,
              help="The port on 127.0.0.1 (default: one that is free).")
@click.option("--blind", is_flag=True, help="Show pseudonyms only; revealing a student is a ledger line.")
@click.option("--no-browser", is_flag=True, help="Print the launch URL only; open no browser.")
@click.option("--links", type=click.IntRange(min=1, max=50), default=1,
              help="How many launch URLs to print, one for each reviewer's browser (each works once).")
@click.option("--reviewer", "reviewers", multiple=True,
              help="A launch URL for this reviewer, whose ledger lines name them (repeatable: one per TA).")
@click.option("--by", default="", help="Who reviews, in every ledger line (default: your login name).")
@rubric_option
@lang_option
def review_cmd(outdir: str, port: int, blind: bool, no_browser: bool, links: int, reviewers: tuple[str, ...],
               by: str, rubric_path: str | None, lang: str | None) -> None:
    """Review the batch output OUTDIR in the browser: the queue grouped by mistake, each submission's
    code, comments on lines, score changes; every action a line of OUTDIR/ledger.jsonl."""
    from grader.review.serve import needs_extra, serve

    def body() -> int:
        needs_extra()
        rubric = load_for(outdir, rubric_path)
        language = lang_for(lang, rubric, outdir)
        serve(Path(outdir), rubric, port=port, blind=blind, browser=not no_browser, by=by, lang=language, links=links,
              reviewers=[r for r in reviewers if r.strip()],
              say=lambda text: err.print(tr(text, language), markup=False, highlight=False, soft_wrap=True))
        return 0

    sys.exit(guard(body))
