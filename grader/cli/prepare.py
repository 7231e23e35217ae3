"""The instructor's commands before the term: ``grader new`` (scaffold an assignment),
``grader validate`` (prove it), ``grader release`` (the student repository) and
``grader gradescope`` (the autograder zip).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console

from grader.cli.shared import LANGS, err, guard, lang_of, lang_option, lasting_imports, load, rubric_option, tell

__all__ = ["gradescope", "new_cmd", "release", "validate"]


@click.command()
@rubric_option
@click.option("--seed", type=int, default=None, help="Grading seed (default: fresh).")
@click.option("--all", "every", is_flag=True,
              help="Validate every rubric in the rubric's folder (rubrics/*.yaml), one table each.")
def validate(rubric_path: str | None, seed: int | None, every: bool) -> None:
    """Prove the assignment: reference full marks, stubs zero, every mistake's mutant named."""
    from grader.prepare import validate as validation

    def body() -> int:
        with lasting_imports():
            import grader.grading.runner  # noqa: F401 - torch and pytest, for every rubric below
        if every:
            from grader.ingest.find_rubric import find_rubrics

            paths = sorted(Path(rubric_path).parent.glob("*.yaml")) if rubric_path else find_rubrics()
        else:
            paths = [Path(load(rubric_path).file)]
        failed = []
        for path in paths:
            rubric = load(str(path))
            result = validation.validate(rubric, seed=seed)
            if sys.stdout.isatty():
                table = validation.render_table(result)
                if every:
                    table.title = f"{path.name}: {table.title}"
                Console(highlight=False).print(table)
            else:  # a CI log or a file: plain lines, nothing cut to fit a width
                sys.stdout.write((f"{path.name}: " if every else "") + validation.render_lines(result))
            if not result.ok:
                failed.append(path.name)
        if every:
            err.print(f"{len(paths) - len(failed)} of {len(paths)} rubrics hold"
                      + (f"; failing: {', '.join(failed)}" if failed else ""))
        return 1 if failed else 0

    sys.exit(guard(body))


@click.command(name="new")
@click.argument("name")
@click.option("--root", type=click.Path(file_okay=False, exists=True), default=".", show_default=True,
              help="The course folder (holding rubrics/, exercises/, solutions/, suites/).")
@click.option("--lang", type=click.Choice(LANGS), default=None,
              help="The language of this command's lines (default: $GRADER_LANG, else English).")
def new_cmd(name: str, root: str, lang: str | None) -> None:
    """Scaffold assignment NAME: rubric, stub, reference, one public and one hidden test, plug-in."""
    from grader.i18n.messages import say
    from grader.prepare.scaffold import scaffold

    def body() -> int:
        written = scaffold(Path(root), name)
        tell(say("new_written", lang_of(lang, None), n=len(written), rubric=Path(root) / "rubrics" / (name + ".yaml")))
        return 0

    sys.exit(guard(body))


@click.command()
@click.argument("outdir", type=click.Path(file_okay=False))
@rubric_option
@lang_option
@click.option("--force", is_flag=True, help="Replace OUTDIR if it is not empty.")
@click.option("--variants", "roster", type=click.Path(dir_okay=False, exists=True), default=None,
              help="A file of the students' LMS ids (one a line, or a CSV with an lms_id or student_id column): "
                   "one personal repository each, OUTDIR/<id>/, with that student's own variant only.")
def release(outdir: str, rubric_path: str | None, lang: str | None, force: bool, roster: str | None) -> None:
    """Build the student repository in OUTDIR: stubs, public tests, grader, CI; no solutions."""
    from grader.i18n.messages import say
    from grader.prepare.release import build_release

    def body() -> int:
        rubric = load(rubric_path)
        if roster is not None:
            from grader.prepare.variants import personal_releases, read_roster

            made = personal_releases(rubric, outdir, read_roster(Path(roster)), force=force, tell=tell)
            tell(say("variants_releases_written", lang_of(lang, rubric), n=len(made), outdir=outdir))
            return 0
        files = build_release(rubric, outdir, force=force)
        tell(say("release_files_written", lang_of(lang, rubric), n=len(files), outdir=outdir))
        return 0

    sys.exit(guard(body))


@click.command()
@click.argument("outdir", type=click.Path(file_okay=False))
@rubric_option
@lang_option
@click.option("--variants", "roster", type=click.Path(dir_okay=False, exists=True), default=None,
              help="A file of the students' LMS ids (as for grader release --variants): each submission is graded "
                   "with the variant of the student id Gradescope gives it (the course secret stays here).")
def gradescope(outdir: str, rubric_path: str | None, lang: str | None, roster: str | None) -> None:
    """Build OUTDIR/autograder.zip for Gradescope (setup.sh, run_autograder, the course files)."""
    from grader.i18n.messages import say
    from grader.prepare.gradescope_zip import build_autograder, sandbox_note

    def body() -> int:
        rubric = load(rubric_path)
        language = lang_of(lang, rubric)
        variants = None
        if roster is not None:
            from grader.prepare.variants import read_roster, roster_variants

            variants = roster_variants(rubric, read_roster(Path(roster)), tell=tell)
        zip_path = build_autograder(rubric, outdir, variants=variants)
        tell(say("gradescope_written", language, path=zip_path))
        tell(sandbox_note(language))
        return 0

    sys.exit(guard(body))

