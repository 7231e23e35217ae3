"""``grader variants``: per-student variants. ``check`` proves and freezes the issued table;
``show`` says which variant each student (by LMS id) has, from the frozen table and the secret.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from grader.cli.shared import guard, lang_of, lang_option, lasting_imports, load, rubric_option, tell

__all__ = ["variants_group"]


@click.group(name="variants")
def variants_group() -> None:
    """Per-student variants: prove them before release, and look them up."""


@variants_group.command(name="check")
@rubric_option
@lang_option
@click.option("--seed", type=int, default=None, help="Grading seed (default: fresh).")
@click.option("--ledger", "ledger_dir", type=click.Path(file_okay=False), default=None,
              help="A batch output folder: write the issued table and its hash to its ledger.")
def check_cmd(rubric_path: str | None, lang: str | None, seed: int | None, ledger_dir: str | None) -> None:
    """Prove every variant (reference, correct styles, mutants) and freeze the issued table."""
    from grader.i18n.messages import say
    from grader.prepare.variants import check_variants
    from grader.report.ledger import record_variants
    from grader.spec.variants import load_frozen

    def body() -> int:
        rubric = load(rubric_path)
        language = lang_of(lang, rubric)
        with lasting_imports():
            import grader.grading.runner  # noqa: F401 - torch and pytest
        result = check_variants(rubric, seed=seed, tell=lambda text: tell(say_text(text, language)))
        for f in result.failures:
            tell(say("variants_refused_line", language, variant=f.variant, values=f.values, subject=f.subject,
                     problem=f.problem))
        if not result.ok:
            tell(say("variants_refused", language, n=len({f.variant for f in result.failures}),
                     checked=result.checked))
            return 1
        tell(say("variants_proven", language, n=len(result.table), gradings=result.gradings,
                 diagnoses=result.diagnoses, seconds=f"{result.seconds:.0f}", path=result.frozen,
                 hash=result.hash[:16]))
        if ledger_dir is not None and result.frozen is not None:
            _, generator = load_frozen(result.frozen, rubric.assignment)
            if record_variants(Path(ledger_dir), rubric.assignment, result.table, generator):
                tell(say("variants_in_ledger", language, outdir=ledger_dir))
        return 0

    sys.exit(guard(body))


def say_text(text: str, lang: str) -> str:
    from grader.i18n.messages import translate

    return translate(text, lang)


@variants_group.command(name="show")
@click.argument("students", nargs=-1, required=True)
@rubric_option
@lang_option
def show_cmd(students: tuple[str, ...], rubric_path: str | None, lang: str | None) -> None:
    """Each STUDENT's (LMS id's) variant: its id and numbers, tab-separated."""
    from grader.spec.variants import course_secret, frozen_path, load_frozen, variant_for
    from grader.prepare.variants import describe_variant

    def body() -> int:
        rubric = load(rubric_path)
        table, _ = load_frozen(frozen_path(Path(rubric.file), rubric.assignment), rubric.assignment)
        secret = course_secret(course=Path(rubric.file).parent,
                               tell=lambda text: tell(say_text(text, lang_of(lang, rubric))))
        for student in students:
            v = variant_for(table, secret, rubric.assignment, student)
            click.echo("\t".join([student.replace("\t", " "), v.id, describe_variant(v)]))
        return 0

    sys.exit(guard(body))
