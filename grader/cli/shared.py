"""What every command shares: the exit status, the options, the rubric and language a command
finds, and the guard that turns the grader's errors into a message and a status.

The commands live in :mod:`grader.cli.student`, :mod:`grader.cli.batch`, :mod:`grader.cli.term`
and :mod:`grader.cli.prepare`; :mod:`grader.cli` gathers them into one group. This module sits
below all of them, so each imports it and none imports the group.

Exit status (computed only in :func:`exit_code_for` and :func:`guard`):

======  =====================================================================
0       graded (whatever the score)
1       graded, and below the rubric's pass mark when the rubric asks for that
2       usage or configuration error (message names the file, YAML path, fix)
3       the grader itself failed (a bug or the machine)
======  =====================================================================
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from enum import IntEnum
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console

from grader.errors import GraderError, RubricError, SubmissionError, UsageError
from grader.i18n.messages import pair, said
from grader.sinks import terminal

if TYPE_CHECKING:
    from grader.report.model import GradeReport
    from grader.spec.rubric.model import Rubric

__all__ = ["LANGS", "ExitCode", "err", "exit_code_for", "guard", "lang_for", "lang_of", "lang_option",
           "lasting_imports", "load", "load_for", "load_for_batch", "render", "rubric_option", "tr"]

LANGS = ("ja", "en")

#: messages go to stderr (data to stdout or --out)
err = Console(stderr=True, highlight=False)


class ExitCode(IntEnum):
    #: graded, whatever the score
    GRADED = 0
    #: graded and below the pass mark, when the rubric sets ``fail_below_pass_mark``
    BELOW_PASS_MARK = 1
    #: bad command line, rubric or submission path
    USAGE_ERROR = 2
    #: the grader itself failed (a bug or the machine): nothing was said about the student's work
    INTERNAL_ERROR = 3
    #: ``grader push``: every student was dealt with, and the LMS refused or never answered for some
    PUSH_FAILED = 4


def exit_code_for(reports: Sequence[GradeReport], rubric: Rubric) -> ExitCode:
    """The status of a command that graded ``reports`` (the one place it is computed)."""
    if rubric.report.fail_below_pass_mark and any(not r.passed for r in reports):
        return ExitCode.BELOW_PASS_MARK
    return ExitCode.GRADED


def lang_of(lang: str | None, rubric: Rubric | None) -> str:
    """The feedback's language: --lang, else $GRADER_LANG, else the rubric's first (a command
    before any rubric exists: none), else English."""
    if lang:
        return lang
    env = os.environ.get("GRADER_LANG", "")
    if env in LANGS:
        return env
    return str(rubric.report.languages[0]) if rubric is not None and rubric.report.languages else "en"


def tell(text: str) -> None:
    """One line of a command's own on the terminal (stderr), as it is: no markup read into it."""
    err.print(terminal(text), markup=False, highlight=False, soft_wrap=True)


def load(rubric_path: str | None, submission: str | None = None, assignment: str | None = None) -> Rubric:
    """The rubric named by --rubric, else the one :func:`grader.ingest.find_rubric.find_rubric` finds: one
    rule for every command (``assignment`` when what the command reads names it)."""
    from grader.ingest.find_rubric import find_rubric
    from grader.spec.rubric.load import load_rubric

    if rubric_path is None:
        if submission is not None and not Path(submission).exists():
            raise UsageError(said("no_such_file_folder", path=submission))
        return _checked(load_rubric(find_rubric(submission=submission, assignment=assignment)))
    if not Path(rubric_path).exists():
        raise UsageError(
            said("no_such_rubric_pass", path=rubric_path)
        )
    return _checked(load_rubric(rubric_path))


def lang_for(lang: str | None, rubric: Rubric | None, outdir: str | Path) -> str:
    """A command on a batch's folder: --lang, $GRADER_LANG, else the language its LMS
    feedback was last written in (so that one adjustment does not rewrite every student's
    feedback in another), else the rubric's first (without a rubric: the first language of
    the batch's reports), else English."""
    if lang or os.environ.get("GRADER_LANG", "") in LANGS:
        return lang or os.environ["GRADER_LANG"]
    from grader.report.outdir import noted_lang, read_report

    noted = noted_lang(Path(outdir))
    if noted in LANGS:
        return noted
    if rubric is not None:
        return lang_of(None, rubric)
    for path in sorted((Path(outdir) / "reports").glob("*.yaml"))[:1]:
        report = read_report(path)
        if report is not None and report.languages and str(report.languages[0]) in LANGS:
            return str(report.languages[0])
    return "en"


def load_for(outdir: str, rubric_path: str | None, source: str | None = None) -> Rubric:
    """The rubric of the batch in ``outdir``: --rubric, else the one its reports name (found as
    :func:`load` finds one, so a course with several assignments needs no --rubric here), else,
    outside the course, the rubric file the batch noted (``outdir.noted_rubric``)."""
    from grader.outputs.gradebook import reports_assignment
    from grader.report.outdir import noted_rubric

    assignment = reports_assignment(Path(outdir)) or None
    try:
        return load(rubric_path, source, assignment=assignment)
    except UsageError:  # run from outside the course: the rubric file the batch noted, if still there
        noted = noted_rubric(Path(outdir), assignment) if rubric_path is None and assignment else None
        if noted is None:
            raise
        return load(str(noted), source, assignment=assignment)


def load_for_batch(out: str, rubric_path: str | None, source: str, resume: bool) -> Rubric:
    """``grader batch``'s rubric: --rubric; else, into a folder that already holds a batch's
    reports, the rubric those reports name (:func:`load_for`) when resuming, or when SOURCE alone
    does not choose one (a course with several assignments); else the one SOURCE's place finds."""
    if rubric_path is not None or not (Path(out) / "reports").is_dir():
        return load(rubric_path, source)
    if resume:
        return load_for(out, None, source)
    try:
        return load(None, source)
    except UsageError:
        return load_for(out, None, source)


def _checked(rubric: Rubric) -> Rubric:
    from grader.spec.catalogue import check_rubric
    from grader.spec.rubric.load import check_parts

    check_rubric(rubric)  # a `mistakes:` key that names no known mistake is a typo
    check_parts(rubric)  # so is a part file or function the stubs and the reference lack
    return rubric


def tr(text: str, lang: str) -> str:
    """``text`` (a sentence of the grader's, in English) in ``lang``."""
    from grader.i18n.messages import translate

    return translate(text, lang)


def render(report: GradeReport, fmt: str, rubric: Rubric, lang: str) -> str:
    """One report in one format (audience: the student; hidden tests redacted per rubric)."""
    from grader import report as writers

    return writers.render(report, fmt, rubric=rubric, lang=lang)


rubric_option = click.option(
    "--rubric", "rubric_path", default=None,
    help="The rubric YAML (default: rubrics/*.yaml in the folder you are in or the nearest folder "
         "above it; then the same from the submission).")


lang_option = click.option("--lang", type=click.Choice(LANGS), default=None,
                           help="Language of the feedback (default: the rubric's first; or $GRADER_LANG).")


@contextlib.contextmanager
def lasting_imports() -> Iterator[None]:
    """Import torch and pytest (the grading side) as a process that lives to grade once more.

    They make ~10^6 objects that last as long as the process and almost no garbage: the
    collector stays off while they are imported and never walks them afterwards (frozen), which
    makes ``grader grade`` about a fifth faster. Only at the command's edge: a notebook kernel
    or a program calling :func:`grader.grade` keeps its own collector as it was, and a process
    that has imported them already (one running commands in-process) freezes nothing more.
    """
    if "grader.grading.runner" in sys.modules:
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


def _say_error(label: dict[str, str], exc: Exception) -> None:
    """An error in the language asked for (--lang, $GRADER_LANG); in both when none was."""
    from grader.i18n.messages import error_text

    ctx = click.get_current_context(silent=True)
    lang = (ctx.params.get("lang") if ctx is not None else None) or os.environ.get("GRADER_LANG")
    text = str(exc)
    langs = [lang] if lang in LANGS else (["en", "ja"] if error_text(exc, "ja") != text else ["en"])
    for x in langs:
        err.print(f"[red]{label[x]}:[/red] ", markup=True, highlight=False, end="")
        err.print(terminal(error_text(exc, x)), markup=False, highlight=False, soft_wrap=True)


def guard(fn: Callable[[], int]) -> int:
    """Run a command body; turn the grader's own errors into a message and exit 2."""
    try:
        return int(fn())
    except (UsageError, RubricError, SubmissionError) as exc:
        _say_error(pair("error"), exc)
        return int(ExitCode.USAGE_ERROR)
    except GraderError as exc:
        _say_error(pair("grader_error"), exc)
        return int(ExitCode.USAGE_ERROR)
    except KeyboardInterrupt:
        ctx = click.get_current_context(silent=True)
        lang = (ctx.params.get("lang") if ctx is not None else None) or os.environ.get("GRADER_LANG", "en")
        err.print(tr(said("interrupted_2"), lang), markup=False, highlight=False)
        return 130
    except click.exceptions.ClickException:
        raise  # (click says it, with its own status)
    except Exception as exc:  # noqa: BLE001 - not the student's fault: its own exit status, not 1
        import traceback

        traceback.print_exc()
        _say_error(pair("grader_error"), GraderError(said("grader_itself_failed", what=f"{type(exc).__name__}: {exc}")))
        return int(ExitCode.INTERNAL_ERROR)

