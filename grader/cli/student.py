"""The student's commands: ``grader check`` (the public tests, as often as they like; ``--watch``
in :mod:`grader.cli.watch`) and ``grader grade`` (public and hidden tests, one submission).

Both grade one submission in a sandboxed worker started while this process imports the
grading side, then write the report (``--out``, ``--out-dir``) or show it, and, in GitHub
Actions, add the job summary, the step outputs and (``check``) the annotations.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console

from grader.cli.shared import (
    err,
    exit_code_for,
    guard,
    lang_of,
    lang_option,
    lasting_imports,
    load,
    render,
    rubric_option,
    tell,
    tr,
)
from grader.errors import UsageError
from grader.i18n.messages import said
from grader.sinks import terminal

if TYPE_CHECKING:
    from grader.ingest.submission.model import Submission
    from grader.report.model import GradeReport
    from grader.spec.rubric.model import Rubric

__all__ = ["FORMATS", "check", "grade_cmd"]


FORMATS = ("yaml", "json", "gradescope", "junit", "markdown", "html")


format_option = click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
                             help="Write the report in this format instead of the terminal view.")


out_dir_option = click.option(
    "--out-dir", "out_dir", type=click.Path(file_okay=False), default=None,
    help="Also write the report in all six formats into this folder (report.yaml, report.json, "
         "report.results.json, report.junit.xml, report.md, report.html) from this one run.")


out_option = click.option("--out", "out", type=click.Path(dir_okay=False), default=None,
                          help="Write the report to this file (format from --format, else from the extension).")


def _default_submission(rubric: Rubric) -> str:
    """What ``grader check`` grades when no folder is named: the exercises folder you are in
    (a notebook cell runs in it), else the rubric's exercises folder."""
    here = Path(os.path.abspath(Path.cwd()))  # noqa: PTH100
    exercises = Path(rubric.exercises)
    if here == exercises or exercises in here.parents:
        return "."
    try:
        return exercises.relative_to(here).as_posix()
    except ValueError:
        return str(exercises)


def _format_for(out: str | None, fmt: str | None) -> str | None:
    if fmt or not out:
        return fmt
    if Path(out).name.lower().endswith("results.json"):
        return "gradescope"
    ext = Path(out).suffix.lower().lstrip(".")
    return {"yml": "yaml", "yaml": "yaml", "json": "json", "xml": "junit", "md": "markdown",
            "html": "html", "htm": "html"}.get(ext, "yaml")


#: GitHub refuses a step's job summary over 1 MiB; ours stays well under it.
SUMMARY_LIMIT = 1024 * 1024 - 64 * 1024


def _github(report: GradeReport, rubric: Rubric, lang: str, submission: str, *, annotate: bool,
            sub: Submission | None = None) -> None:
    """In GitHub Actions: the job summary, step outputs, and (``grader check``) annotations."""
    from grader.report import markdown, quiz_parts, redact

    kind = sub.kind if sub is not None else "folder"
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        _append_for_runner("GITHUB_STEP_SUMMARY", summary,
                           markdown.fit(render(report, "markdown", rubric, lang), SUMMARY_LIMIT, lang), lang)
    outputs = os.environ.get("GITHUB_OUTPUT")
    if outputs:
        _append_for_runner("GITHUB_OUTPUT", outputs, f"score={report.score:g}\nmax-score={report.max_score:g}\n"
                           f"passed={'true' if report.passed else 'false'}\ngraded={kind}\n", lang)
    if annotate and os.environ.get("GITHUB_ACTIONS") == "true":
        locate: markdown.Locator | None = None
        if kind == "notebook" and sub is not None and sub.modules:
            # Every function lives in the notebook, whose lines are not the cells' lines:
            # annotate the notebook file itself.
            where = Path(submission) / sub.modules[0].filename if Path(submission).is_dir() else Path(submission)
            shown_nb = where.as_posix()
            locate = lambda part, function, line=None, said="": (shown_nb, None)  # noqa: E731
        elif Path(submission).is_dir():
            locate = markdown.source_locator({p.id: p.file for p in rubric.parts}, submission)
        shown = redact(report, rubric.report, "student", quiz_parts=quiz_parts(rubric))
        for line in markdown.ci_annotations(shown, rubric.report, lang, locate=locate):
            click.echo(line)


def _append_for_runner(variable: str, path: str, text: str, lang: str) -> None:
    """``text`` appended to the runner's file; one it cannot take is a warning, never the job's failure."""
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        err.print(terminal(tr(said("runner_file_not_written", variable=variable, path=path,
                                    why=exc.strerror or exc), lang)), markup=False, highlight=False, soft_wrap=True)


@contextlib.contextmanager
def _no_workflow_commands() -> Iterator[None]:
    """In GitHub Actions, what is printed inside is only text: a line of a student's that starts
    with ``::`` (their exception's message, say) is no workflow command. GitHub's own way:
    ``::stop-commands::TOKEN`` before, ``::TOKEN::`` after, with a token nobody could guess."""
    if os.environ.get("GITHUB_ACTIONS") != "true":
        yield
        return
    import secrets

    token = secrets.token_hex(16)
    click.echo(f"::stop-commands::{token}")
    try:
        yield
    finally:
        sys.stdout.flush()
        click.echo(f"::{token}::")


def _grade_one(submission: str | None, rubric_path: str | None, suites: tuple[str, ...], lang: str | None,
               fmt: str | None, out: str | None, seed: int | None, allow_weak: bool, verbose: bool,
               out_dir: str | None = None, student: str | None = None) -> int:
    from grader.sandbox.level import choose_level
    from grader.sandbox.spawn import worker_for
    from grader.ingest.submission.load import load_submission

    rubric = load(rubric_path, submission)
    language = lang_of(lang, rubric)
    from grader.spec.assignment import assignment_of

    if submission is None:
        submission = _default_submission(rubric)
    fmt = _format_for(out, fmt)
    variant = None
    if student is not None:  # graded with that student's own variant (grader.spec.variants)
        from grader.spec.variants import student_variant

        variant = student_variant(Path(rubric.file), rubric.assignment, student, tell=tell)
    if not os.path.exists(submission):  # said at once, before any sandbox is chosen or started
        load_submission(submission, assignment_of(rubric))
    # Start the sandboxed worker (it imports torch) first, while this process reads the
    # submission and imports torch and pytest for the trusted side: on two cores they overlap.
    level, _ = choose_level(allow_weak=allow_weak)
    worker = worker_for(level, limits=rubric.limits).start(wait=False)
    try:
        sub = load_submission(submission, assignment_of(rubric)).with_variant(variant)
        from grader.report.files import write_atomic
        from grader.report.terminal import show

        with lasting_imports():
            from grader.grading.runner import grade
        [report] = grade(rubric, [sub], suites=suites, seed=seed, allow_weak=allow_weak,
                         want_plots=fmt == "html" or out_dir is not None, worker=worker)
    finally:
        worker.stop()
    if out:
        write_atomic(out, render(report, fmt or "yaml", rubric, language))
        err.print(tr(said("report_written", path=out), language), markup=False, highlight=False)
    if out_dir:
        from grader.report import SUFFIXES

        for each, suffix in SUFFIXES.items():
            write_atomic(Path(out_dir) / f"report{suffix}", render(report, each, rubric, language))
        err.print(tr(said("reports_formats_written", n=len(SUFFIXES), path=out_dir), language), markup=False,
                  highlight=False)
    with _no_workflow_commands():
        if fmt and not out:
            click.echo(render(report, fmt, rubric, language), nl=False)
        else:
            show(report, Console(highlight=False), language, verbose=verbose)
    # Last: the report is written and shown whatever the runner's files do.
    _github(report, rubric, language, submission, annotate=suites == ("public",) and not (fmt and not out),
            sub=sub)
    return int(exit_code_for([report], rubric))


@click.command()
@click.argument("submission", required=False, default=None)
@rubric_option
@lang_option
@format_option
@out_option
@out_dir_option
@click.option("-v", "--verbose", is_flag=True, help="Also show test ids and what your code printed.")
@click.option("--watch", is_flag=True,
              help="Check again on every save of a submission file, with the same warm sandbox, "
                   "printing only what changed; Ctrl-C stops.")
def check(submission: str | None, rubric_path: str | None, lang: str | None, fmt: str | None, out: str | None,
          out_dir: str | None, verbose: bool, watch: bool) -> None:
    """Run the public tests on SUBMISSION.

    SUBMISSION defaults to the exercises folder you are in (e.g. from a notebook cell), else the
    rubric's exercises folder."""
    if watch:
        sys.exit(guard(lambda: _watch(submission, rubric_path, lang, fmt or out or out_dir)))
    sys.exit(guard(lambda: _grade_one(submission, rubric_path, ("public",), lang, fmt, out, None, True,
                                       verbose, out_dir)))


def _watch(submission: str | None, rubric_path: str | None, lang: str | None, report_option: str | None) -> int:
    from grader.cli.watch import watch

    if report_option:
        raise UsageError(said("watch_prints_terminal_cannot"))
    rubric = load(rubric_path, submission)
    if submission is None:
        submission = _default_submission(rubric)
    if not Path(submission).exists():
        raise UsageError(said("no_such_file_folder_2", path=submission))
    return watch(submission, rubric, lang=lang_of(lang, rubric))


@click.command(name="grade")
@click.argument("submission")
@rubric_option
@lang_option
@format_option
@out_option
@out_dir_option
@click.option("--seed", type=int, default=None, help="Grading seed (default: a fresh random one, recorded in the report).")
@click.option("--allow-weak-sandbox/--no-weak-sandbox", default=True, show_default=True,
              help="Grade in a weak sandbox where namespaces are unavailable (rlimits; one "
                   "process per submission where there is no fork, e.g. Windows).")
@click.option("-v", "--verbose", is_flag=True, help="Also show test ids and what the code printed.")
@click.option("--student", default=None,
              help="Grade with this student's own variant (their LMS id; the rubric's variants:).")
def grade_cmd(submission: str, rubric_path: str | None, lang: str | None, fmt: str | None, out: str | None,
              out_dir: str | None, seed: int | None, allow_weak_sandbox: bool, verbose: bool,
              student: str | None) -> None:
    """Grade SUBMISSION with the public and hidden tests; write the report."""
    sys.exit(guard(lambda: _grade_one(submission, rubric_path, ("public", "hidden"), lang, fmt, out,
                                       seed, allow_weak_sandbox, verbose, out_dir, student=student)))

