"""Command line: each command parses its options, then calls one stage function.

Exit status (computed only in :func:`exit_code_for`):

======  =====================================================================
0       graded (whatever the score)
1       graded, and below the rubric's pass mark when the rubric asks for that
2       usage or configuration error (message names the file, YAML path, fix)
======  =====================================================================

==========  ========================================================================================
watch       ``grader check --watch``: check again on every save
==========  ========================================================================================
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Iterator, Sequence
from enum import IntEnum
from pathlib import Path
from typing import Any, TYPE_CHECKING

import click
from rich.console import Console

from grader.errors import GraderError, RubricError, SubmissionError, UsageError
from grader.i18n.messages import pair, said
from grader.sinks import terminal

if TYPE_CHECKING:
    from grader.spec.rubric.model import Rubric

TABLE_ROWS = 60  # above this, the class summary in OUT is the better view
LANGS = ("ja", "en")
FORMATS = ("yaml", "json", "gradescope", "junit", "markdown", "html")

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


def exit_code_for(reports: Sequence[Any], rubric: Rubric) -> ExitCode:
    if rubric.report.fail_below_pass_mark and any(not r.passed for r in reports):
        return ExitCode.BELOW_PASS_MARK
    return ExitCode.GRADED


def _lang(lang: str | None, rubric: Rubric) -> str:
    if lang:
        return lang
    env = os.environ.get("GRADER_LANG", "")
    if env in LANGS:
        return env
    return str(rubric.report.languages[0]) if rubric.report.languages else "en"


def _load(rubric_path: str | None, submission: str | None = None, assignment: str | None = None) -> Any:
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


def _lang_for(lang: str | None, rubric: Rubric | None, outdir: str | Path) -> str:
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
        return _lang(None, rubric)
    for path in sorted((Path(outdir) / "reports").glob("*.yaml"))[:1]:
        report = read_report(path)
        if report is not None and report.languages and str(report.languages[0]) in LANGS:
            return str(report.languages[0])
    return "en"


def _load_for(outdir: str, rubric_path: str | None, source: str | None = None) -> Any:
    """The rubric of the batch in ``outdir``: --rubric, else the one its reports name (found as
    :func:`_load` finds one, so a course with several assignments needs no --rubric here), else,
    outside the course, the rubric file the batch noted (``outdir.noted_rubric``)."""
    from grader.outputs.gradebook import reports_assignment
    from grader.report.outdir import noted_rubric

    assignment = reports_assignment(Path(outdir)) or None
    try:
        return _load(rubric_path, source, assignment=assignment)
    except UsageError:  # run from outside the course: the rubric file the batch noted, if still there
        noted = noted_rubric(Path(outdir), assignment) if rubric_path is None and assignment else None
        if noted is None:
            raise
        return _load(str(noted), source, assignment=assignment)


def _checked(rubric: Rubric) -> Any:
    from grader.spec.catalogue import check_rubric
    from grader.spec.rubric.load import check_parts

    check_rubric(rubric)  # a `mistakes:` key that names no known mistake is a typo
    check_parts(rubric)  # so is a part file or function the stubs and the reference lack
    return rubric


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


def _tr(text: str, lang: str) -> str:
    from grader.i18n.messages import translate

    return translate(text, lang)


def render(report: Any, fmt: str, rubric: Rubric, lang: str) -> str:
    """One report in one format (audience: the student; hidden tests redacted per rubric)."""
    from grader import report as writers

    return writers.render(report, fmt, rubric=rubric, lang=lang)


class _Points(click.ParamType):  # type: ignore[type-arg]
    """A number of points as a Japanese keyboard may type it: full-width digits and point
    (NFKC), the minus sign U+2212; a decimal comma is refused with the number it stands for."""

    name = "number"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, (int, float)):
            return float(value)
        import unicodedata

        text = unicodedata.normalize("NFKC", str(value)).strip().replace("\u2212", "-")
        try:
            return float(text)
        except ValueError:
            if text.count(",") == 1 and text.replace(",", "", 1).lstrip("+-").isdigit():
                self.fail(said("points_decimal_comma", got=repr(str(value)), example=text.replace(",", ".")), param, ctx)
            self.fail(said("points_not_number", got=repr(str(value))), param, ctx)


rubric_option = click.option(
    "--rubric", "rubric_path", default=None,
    help="The rubric YAML (default: rubrics/*.yaml in the folder you are in or the nearest folder "
         "above it; then the same from the submission).")
lang_option = click.option("--lang", type=click.Choice(LANGS), default=None,
                           help="Language of the feedback (default: the rubric's first; or $GRADER_LANG).")
format_option = click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
                             help="Write the report in this format instead of the terminal view.")
out_dir_option = click.option(
    "--out-dir", "out_dir", type=click.Path(file_okay=False), default=None,
    help="Also write the report in all six formats into this folder (report.yaml, report.json, "
         "report.results.json, report.junit.xml, report.md, report.html) from this one run.")
out_option = click.option("--out", "out", type=click.Path(dir_okay=False), default=None,
                          help="Write the report to this file (format from --format, else from the extension).")


gradebook_option = click.option(
    "--gradebook", "gradebook", multiple=True, type=click.Choice(("csv", "canvas", "moodle")),
    help="Also write the gradebook an LMS imports (repeatable): canvas -> gradebook.canvas.csv (Canvas's "
         "gradebook import), moodle -> gradebook.moodle.csv (grading worksheet) and "
         "moodle-feedback-files.zip; csv is gradebook.csv, always written.")
canvas_gradebook_option = click.option(
    "--canvas-gradebook", "canvas_gradebook", type=click.Path(dir_okay=False, exists=True), default=None,
    help="Your gradebook exported from Canvas (Grades > Export): gradebook.canvas.csv is that file with this "
         "assignment's column filled in, every other row, column and section kept.")
canvas_id_option = click.option(
    "--canvas-assignment-id", "canvas_assignment_id", default=None,
    help="The Canvas assignment's id (the number at the end of its address, .../assignments/ID): the "
         "column is 'Title (ID)', which Canvas's import matches to that assignment.")
bom_option = click.option("--bom", is_flag=True,
                          help="Start the CSV files with a UTF-8 byte order mark, so Excel reads Japanese names.")


def _asked_lang(argv: Sequence[str]) -> str | None:
    """The language the command line asks for (--lang ja, --lang=ja), else $GRADER_LANG."""
    for i, arg in enumerate(argv):
        if arg == "--lang" and i + 1 < len(argv):
            return argv[i + 1] if argv[i + 1] in LANGS else None
        if arg.startswith("--lang="):
            return arg.partition("=")[2] if arg.partition("=")[2] in LANGS else None
    env = os.environ.get("GRADER_LANG", "")
    return env if env in LANGS else None


def _usage_in_japanese(exc: click.UsageError) -> str:
    """click's usage error ``exc`` as one Japanese sentence, naming what click names."""
    from click.exceptions import NoSuchCommand

    if isinstance(exc, (click.NoSuchOption, NoSuchCommand)):
        maybe = (_tr(said("usage_did_you_mean", options=", ".join(exc.possibilities)), "ja")
                 if exc.possibilities else "")
        text = (said("usage_no_such_option", name=exc.option_name, maybe=maybe)
                if isinstance(exc, click.NoSuchOption) else said("usage_no_such_command", name=exc.command_name,
                                                                  maybe=maybe))
    elif isinstance(exc, click.BadParameter) and exc.param is not None:  # (MissingParameter is one too)
        what = exc.param.get_error_hint(exc.ctx) if exc.ctx else exc.param.name
        if isinstance(exc, click.MissingParameter):
            text = said("usage_missing", what=what)
        elif isinstance(exc.param.type, click.Choice):
            text = said("usage_choose", what=what, choices=", ".join(repr(str(c)) for c in exc.param.type.choices))
        else:
            text = said("usage_bad_value", what=what, detail=exc.message.rstrip("."))
    else:
        text = said("usage_other", detail=exc.format_message().rstrip("."))
    command = exc.ctx.command_path if exc.ctx is not None else "grader"
    return f"{_tr(text, 'ja')}。{_tr(said('usage_help', command=command), 'ja')}"


def _say_usage_too(exc: click.UsageError) -> None:
    """``exc.show`` as click has it, then in Japanese; with --lang ja, the usage line then Japanese only."""
    english = exc.show
    lang = _asked_lang(sys.argv[1:])

    def show(file: Any = None) -> None:
        if lang == "ja":
            ctx = exc.ctx
            if ctx is not None:
                pieces = " ".join(ctx.command.collect_usage_pieces(ctx))
                click.echo(f"{pair('usage_line')['ja']}: {ctx.command_path} {pieces}", err=True)
        elif lang in (None, "en"):
            english(file)
        if lang in (None, "ja"):
            click.echo(f"{pair('error')['ja']}: {_usage_in_japanese(exc)}", err=True)

    exc.show = show  # type: ignore[method-assign]
    exc.said_in_japanese_too = True  # type: ignore[attr-defined]


class _Commands(click.Group):
    """The grader's commands: click's own usage errors (an unknown option, a missing argument,
    a bad value) are said in Japanese too, as the grader's own errors are."""

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.UsageError as exc:
            _say_usage_too(exc)
            raise

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as exc:
            if not getattr(exc, "said_in_japanese_too", False):  # (a subcommand's, not ours)
                _say_usage_too(exc)
            raise


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="grader")
def main() -> None:
    """Grade a course's assignments (one rubric each), and name the mistakes made."""
    for stream in (sys.stdout, sys.stderr):
        # A runner whose output is not UTF-8 (a C locale without coercion, a Windows pipe):
        # a character it cannot encode is shown escaped, never the grade's failure.
        if (getattr(stream, "encoding", "") or "").lower().replace("-", "") != "utf8" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


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


def _github(report: Any, rubric: Rubric, lang: str, submission: str, *, annotate: bool,
            sub: Any = None) -> None:
    """In GitHub Actions: the job summary, step outputs, and (``grader check``) annotations."""
    from grader.report import markdown, quiz_parts, redact

    kind = getattr(sub, "kind", "folder")
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
        if kind == "notebook" and sub.modules:
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
        err.print(terminal(_tr(said("runner_file_not_written", variable=variable, path=path,
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


@contextlib.contextmanager
def _lasting_imports() -> Iterator[None]:
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


def _grade_one(submission: str | None, rubric_path: str | None, suites: tuple[str, ...], lang: str | None,
               fmt: str | None, out: str | None, seed: int | None, allow_weak: bool, verbose: bool,
               out_dir: str | None = None) -> int:
    from grader.sandbox.level import choose_level
    from grader.sandbox.spawn import worker_for
    from grader.ingest.submission.load import load_submission

    rubric = _load(rubric_path, submission)
    language = _lang(lang, rubric)
    from grader.spec.assignment import assignment_of

    if submission is None:
        submission = _default_submission(rubric)
    sub = load_submission(submission, assignment_of(rubric))
    fmt = _format_for(out, fmt)
    # Start the sandboxed worker (it imports torch) while this process imports torch and
    # pytest for the trusted side: on two cores the two imports overlap.
    level, _ = choose_level(allow_weak=allow_weak)
    worker = worker_for(level, limits=rubric.limits).start(wait=False)
    try:
        from grader.report.files import write_atomic
        from grader.report.terminal import show

        with _lasting_imports():
            from grader.grading.runner import grade
        [report] = grade(rubric, [sub], suites=suites, seed=seed, allow_weak=allow_weak,
                         want_plots=fmt == "html" or out_dir is not None, worker=worker)
    finally:
        worker.stop()
    if out:
        write_atomic(out, render(report, fmt or "yaml", rubric, language))
        err.print(_tr(said("report_written", path=out), language), markup=False, highlight=False)
    if out_dir:
        from grader.report import SUFFIXES

        for each, suffix in SUFFIXES.items():
            write_atomic(Path(out_dir) / f"report{suffix}", render(report, each, rubric, language))
        err.print(_tr(said("reports_formats_written", n=len(SUFFIXES), path=out_dir), language), markup=False,
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


@main.command()
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
        sys.exit(_guard(lambda: _watch(submission, rubric_path, lang, fmt or out or out_dir)))
    sys.exit(_guard(lambda: _grade_one(submission, rubric_path, ("public",), lang, fmt, out, None, True,
                                       verbose, out_dir)))


def _watch(submission: str | None, rubric_path: str | None, lang: str | None, report_option: Any) -> int:
    from grader.cli.watch import watch

    if report_option:
        raise UsageError(said("watch_prints_terminal_cannot"))
    rubric = _load(rubric_path, submission)
    if submission is None:
        submission = _default_submission(rubric)
    if not Path(submission).exists():
        raise UsageError(said("no_such_file_folder_2", path=submission))
    return watch(submission, rubric, lang=_lang(lang, rubric))


@main.command(name="grade")
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
def grade_cmd(submission: str, rubric_path: str | None, lang: str | None, fmt: str | None, out: str | None,
              out_dir: str | None, seed: int | None, allow_weak_sandbox: bool, verbose: bool) -> None:
    """Grade SUBMISSION with the public and hidden tests; write the report."""
    sys.exit(_guard(lambda: _grade_one(submission, rubric_path, ("public", "hidden"), lang, fmt, out,
                                       seed, allow_weak_sandbox, verbose, out_dir)))


def _submitted_times(rubric: Any, submitted_file: str | None, worksheet_file: str | None) -> dict[str, Any] | None:
    """Each student's submission time: Moodle's worksheet, then --submitted over it."""
    from grader.spec.due import parse_when, read_moodle_worksheet, read_submitted

    times: dict[str, Any] = {}
    if worksheet_file:
        if not rubric.due:
            raise UsageError(said("worksheet_rubric_has_no", file=worksheet_file, rubric=rubric.file))
        zone = parse_when(rubric.due, f"{rubric.file}: due").tzinfo
        assert zone is not None  # parse_when refuses a time without one
        times.update(read_moodle_worksheet(Path(worksheet_file), zone))
    if submitted_file:
        times.update(read_submitted(Path(submitted_file)))
    return times or None


@main.command()
@click.argument("source")
@click.option("--out", "out", required=True, type=click.Path(file_okay=False), help="Folder for reports and the gradebook.")
@rubric_option
@lang_option
@click.option("--seed", type=int, default=None,
              help="Grading seed (default: the one OUT's reports were graded with, else a fresh one; recorded in "
                   "every report).")
@click.option("--allow-weak-sandbox", is_flag=True,
              help="Grade even where Linux namespaces are unavailable (rlimits; one process per "
                   "submission where there is no fork, e.g. Windows), or in the level $GRADER_SANDBOX names.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Grading processes, each with one warm sandbox (default: one per CPU, but no more than "
                   "one for every 8 submissions: a small batch starts no process it cannot use).")
@click.option("--resume", is_flag=True,
              help="Skip submissions whose report in OUT matches their content and this rubric.")
@click.option("--cluster", "cluster", default=None, metavar="SPEC",
              help="Grade on a Dask cluster: a scheduler's tcp:// or tls:// address, a scheduler file "
                   "(.json), or a cluster file (.yaml: kind local|ssh|slurm|pbs|sge|lsf|kubernetes). "
                   "Needs pip install \"grader[cluster]\".")
@click.option("--shard-size", type=click.IntRange(min=1), default=None,
              help="With --cluster: submissions per task (default: a quarter of each worker thread's share of "
                   "what is left, 2 to 128, so shards shrink as the batch ends; 1 where grading one "
                   "submission takes minutes).")
@click.option("--no-progress", is_flag=True, help="No progress bar (e.g. in CI logs).")
@click.option("--table/--no-table", default=None,
              help=f"Print the class table (default: when at most {TABLE_ROWS} submissions were graded).")
@gradebook_option
@canvas_gradebook_option
@canvas_id_option
@bom_option
@click.option("--similarity", is_flag=True,
              help="Also compare the submissions (similarity.csv, similarity.{ja,en}.html; groups on the summary).")
@click.option("--submitted", "submitted_file", type=click.Path(dir_okay=False, exists=True), default=None,
              help="CSV of student,submitted (ISO date-time with offset): lateness measured against the rubric's "
                   "due: and each student's extension.")
@click.option("--extensions", "extensions_file", type=click.Path(dir_okay=False, exists=True), default=None,
              help="CSV of student, due (a date-time) or days, reason: each student's own due date.")
@click.option("--worksheet", "worksheet_file", type=click.Path(dir_okay=False, exists=True), default=None,
              help="Moodle's grading worksheet (Download grading worksheet): each participant's "
                   "\"Last modified (submission)\", read in the time zone of the rubric's due:; --submitted wins.")
@click.option("--anonymous", is_flag=True,
              help="Blind grading: every output names each student by a random id (anon-…); OUT/identities.csv "
                   "(readable by you only) maps the ids back and is used only for the LMS gradebooks.")
def batch(source: str, out: str, rubric_path: str | None, lang: str | None, seed: int | None, allow_weak_sandbox: bool,
          jobs: int | None, resume: bool, cluster: str | None, shard_size: int | None, no_progress: bool,
          table: bool | None, gradebook: tuple[str, ...], canvas_gradebook: str | None,
          canvas_assignment_id: str | None, bom: bool, similarity: bool, submitted_file: str | None,
          extensions_file: str | None, worksheet_file: str | None, anonymous: bool) -> None:
    """Grade every submission in SOURCE (a folder or an LMS zip export) into OUT."""
    from grader.workflows.batch import run_batch

    def body() -> int:
        from grader.spec.due import read_extensions

        rubric = _load(rubric_path, source)
        submitted = _submitted_times(rubric, submitted_file, worksheet_file)
        result = run_batch(source, out, rubric, allow_weak=allow_weak_sandbox, seed=seed, jobs=jobs,
                           resume=resume, lang=_lang(lang, rubric), progress=False if no_progress else None,
                           gradebooks=_formats(gradebook, canvas_gradebook, canvas_assignment_id), bom=bom,
                           canvas=_canvas(canvas_gradebook, canvas_assignment_id), again=_again("resume"),
                           similarity=similarity, cluster=cluster, shard_size=shard_size,
                           submitted=submitted,
                           extensions=read_extensions(Path(extensions_file)) if extensions_file else None,
                           anonymous=anonymous)
        from grader.i18n.messages import say

        language = _lang(lang, rubric)
        line = say("graded_kept_before_graded_2" if result.unreadable else "graded_kept_before_graded",
                   language, graded=result.graded, resumed=result.resumed, ungraded=len(result.unrecognised),
                   kinds=_not_graded(result.unrecognised, language), unreadable=result.unreadable,
                   s=f"{result.elapsed_s:.1f}", path=Path(out) / "gradebook.csv")
        err.print(terminal(line), markup=False, highlight=False, soft_wrap=True)
        if table or (table is None and 0 < len(result.reports) <= TABLE_ROWS):
            from grader.report.terminal import show_many

            wide = Console(highlight=False, width=None if sys.stdout.isatty() else 120)
            show_many(sorted(result.reports, key=lambda r: r.submission), wide, _lang(lang, rubric))
        if result.interrupted:
            return 130
        return int(exit_code_for(result.reports, rubric))

    sys.exit(_guard(body))


@main.command(name="export")
@click.argument("outdir", type=click.Path(file_okay=False, exists=True))
@rubric_option
@lang_option
@gradebook_option
@canvas_gradebook_option
@canvas_id_option
@bom_option
def export_cmd(outdir: str, rubric_path: str | None, lang: str | None, gradebook: tuple[str, ...],
               canvas_gradebook: str | None, canvas_assignment_id: str | None, bom: bool) -> None:
    """Write the gradebooks again from what a finished batch left in OUTDIR (the assignment is
    the one its reports name; --rubric only to choose another rubric file)."""
    from grader.outputs.gradebook import (
        export_gradebooks,
        lms_of,
        say_written,
    )

    def body() -> int:
        rubric = _load_for(outdir, rubric_path)
        formats = _formats(gradebook, canvas_gradebook, canvas_assignment_id)
        if not formats:  # the LMS gradebooks the export's own entries can be matched in
            from grader.outputs.gradebook import old_rows

            formats = tuple(sorted(lms_of(old_rows(Path(outdir) / "gradebook.csv")) & {"canvas", "moodle"}))
        written = export_gradebooks(Path(outdir), rubric, ("csv", *formats) if formats else ("csv",), bom=bom,
                                    lang=_lang_for(lang, rubric, outdir),
                                    canvas=_canvas(canvas_gradebook, canvas_assignment_id))
        say_written(written, [], err, _lang_for(lang, rubric, outdir))
        _say_left_out(Path(outdir), _lang_for(lang, rubric, outdir))
        return 0

    sys.exit(_guard(body))


def _say_left_out(outdir: Path, lang: str) -> None:
    """Which reports in ``outdir`` no gradebook holds: their entries have left SOURCE."""
    from grader.i18n.messages import translate
    from grader.report.outdir import reports_now

    _, gone = reports_now(outdir)
    if gone:
        err.print(translate(said("reports_left_out", n=len(gone), names=", ".join(gone)), lang), markup=False,
                  soft_wrap=True)


def _formats(gradebook: tuple[str, ...], canvas_gradebook: str | None, canvas_id: str | None) -> tuple[str, ...]:
    """The gradebooks asked for; a Canvas option asks for the Canvas file too."""
    wanted = tuple(dict.fromkeys(gradebook))
    if (canvas_gradebook or canvas_id) and "canvas" not in wanted:
        wanted += ("canvas",)
    return wanted


def _canvas(canvas_gradebook: str | None, canvas_id: str | None) -> Any:
    from grader.outputs.gradebook import CanvasTarget

    return CanvasTarget(assignment_id=(canvas_id or "").strip(),
                        export=Path(canvas_gradebook) if canvas_gradebook else None)


def _again(*without: str) -> str:
    """The command as it was given, every option kept (but ``without``), for a hint to run it again."""
    import shlex

    ctx = click.get_current_context()
    words = ["grader", ctx.info_name or ""]
    for param in ctx.command.params:
        value = ctx.params.get(param.name or "")
        if param.name in without or value in (None, False, ()) or (
                ctx.get_parameter_source(param.name or "") == click.core.ParameterSource.DEFAULT):
            continue
        if isinstance(param, click.Argument):
            words.append(str(value))
            continue
        flag = max(param.opts, key=len)
        if isinstance(param, click.Option) and param.is_flag:
            if value is True:
                words.append(flag)
            elif param.secondary_opts:
                words.append(max(param.secondary_opts, key=len))
            continue
        for v in (value if isinstance(value, (tuple, list)) else [value]):
            words += [flag, str(v)]
    return shlex.join(words)


def _not_graded(unrecognised: list[tuple[str, str]], lang: str) -> str:
    """`` (empty upload: 2, online text: 1)``: why the entries not graded were not, in ``lang``."""
    from collections import Counter

    from grader.i18n.messages import say

    kinds = Counter("empty" if "empty" in why else "online text" if "online text" in why else "other"
                    for _, why in unrecognised)
    listed = [text for n, text in ((kinds["empty"], say("empty_upload", lang, n=kinds["empty"])),
                                   (kinds["other"], say("submission", lang, n=kinds["other"])),
                                   (kinds["online text"], say("online_text_2", lang, n=kinds["online text"])))
              if n]
    if not listed:
        return ""
    return f"（{'、'.join(listed)}）" if lang == "ja" else f" ({', '.join(listed)})"


@main.command(name="similarity")
@click.argument("outdir", type=click.Path(file_okay=False, exists=True))
@rubric_option
@click.option("--source", default=None, help="The submissions the batch graded (default: as the batch noted them).")
@click.option("--against", "against", type=click.Path(file_okay=False, exists=True), default=None,
              help="Also compare with a previous term's batch folder.")
def similarity_cmd(outdir: str, rubric_path: str | None, source: str | None, against: str | None) -> None:
    """Which submissions of the batch in OUTDIR look alike: similarity.csv and pages, summary updated."""
    from grader.outputs.similarity_page import refresh

    def body() -> int:
        result = refresh(outdir, _load_for(outdir, rubric_path), source=source, against=against)
        err.print(f"{result.compared} compared, {len(result.pairs)} pairs in {len(result.groups)} groups; "
                  f"{Path(outdir) / 'similarity.csv'}", soft_wrap=True)
        return 0

    sys.exit(_guard(body))


@main.group(name="catalogue")
def catalogue_group() -> None:
    """The assignment's mistake catalogue."""


@catalogue_group.command(name="draft")
@click.argument("outdir", type=click.Path(file_okay=False, exists=True))
@click.option("--cluster", "number", type=click.IntRange(min=1), required=True,
              help="The cluster's number (unrecognised-clusters.csv, the summary's first screen).")
@click.option("--id", "mid", default=None, help="The new mistake id (default: new-mistake-N).")
@rubric_option
def catalogue_draft(outdir: str, number: int, mid: str | None, rubric_path: str | None) -> None:
    """Write a draft catalogue entry and mutant from a cluster of OUTDIR's unknown mistakes."""
    from grader.insight.draft_entry import draft_entry

    def body() -> int:
        done = draft_entry(outdir, _load_for(outdir, rubric_path), number, mid)
        err.print(f"draft {done.id} ({done.function}, {done.size} submissions) added to {done.catalogue}"
                  + (f"; mutant {done.mutant}" if done.mutant else "; no mutant (the code was not found)")
                  + "; word it, delete `draft: true`, then run grader validate", soft_wrap=True)
        return 0

    sys.exit(_guard(body))


@main.command()
@click.argument("outdir", type=click.Path(file_okay=False, exists=True))
@click.argument("student")
@click.option("--part", default=None, help="The part to adjust (default: the total).")
@click.option("--points", type=_Points(), default=None, help="Points to add (negative: to take off), e.g. --points=-2.")
@click.option("--set", "set_to", type=_Points(), default=None, help="The score to set outright.")
@click.option("--undo", type=int, default=None, help="Take back adjustment N (it stays in the ledger).")
@click.option("--confirm", type=int, default=None,
              help="Adjustment N (shown 'needs review') holds against the automatic score as it is now.")
@click.option("--reason", required=True, help="Why the score changes (shown to the student as written).")
@click.option("--by", default="", help="Who makes the change (default: your login name).")
@rubric_option
@lang_option
def adjust(outdir: str, student: str, part: str | None, points: float | None, set_to: float | None,
           undo: int | None, confirm: int | None, reason: str, by: str, rubric_path: str | None,
           lang: str | None) -> None:
    """Adjust STUDENT's score in the batch output OUTDIR by hand; recorded in OUTDIR/ledger.jsonl."""
    from grader.workflows import adjust as adjusting

    def body() -> int:
        rubric = _load_for(outdir, rubric_path)
        out, language = Path(outdir), _lang_for(lang, rubric, outdir)
        given = [x is not None for x in (points, set_to, undo, confirm)]
        if sum(given) != 1:
            raise UsageError(said("give_one_points_set"))
        if undo is not None:
            entry = adjusting.undo(out, rubric, student, undo, reason=reason, by=by, lang=language)
        elif confirm is not None:
            entry = adjusting.confirm(out, rubric, student, confirm, reason=reason, by=by, lang=language)
        else:
            entry = adjusting.adjust(out, rubric, student, part=part, points=points, set_to=set_to, reason=reason,
                                     by=by, lang=language)
        err.print(_tr(said("ledger_entry_written", n=entry.n, what=f"{entry.op} {entry.submission}"), language),
                  markup=False, highlight=False)
        return 0

    sys.exit(_guard(body))


@main.command(name="publish")
@click.argument("outdir", type=click.Path(file_okay=False, exists=True))
@click.option("--by", default="", help="Who publishes (default: your login name).")
@rubric_option
@lang_option
def publish_cmd(outdir: str, by: str, rubric_path: str | None, lang: str | None) -> None:
    """Publish the results in the batch output OUTDIR: students' views show hidden tests in full
    where the rubric says hidden_details: after_publish (recorded in OUTDIR/published.json)."""
    from grader.workflows.publish import publish

    def body() -> int:
        rubric = _load_for(outdir, rubric_path)
        language = _lang_for(lang, rubric, outdir)
        written = publish(Path(outdir), rubric, by=by, lang=language)
        err.print(_tr(said("results_published_files_written", n=len(written)), language), markup=False,
                  highlight=False)
        return 0

    sys.exit(_guard(body))


@main.command()
@click.argument("source")
@click.option("--out", "out", required=True, type=click.Path(file_okay=False, exists=True),
              help="The folder of the batch to grade again (its reports and ledger).")
@click.option("--test", "tests", multiple=True, required=True,
              help="Grade again only the tests whose id matches this pattern (* and ?; repeatable), "
                   "e.g. 'hidden/test_scaling.py::*'; a whole id, brackets and all, matches itself.")
@rubric_option
@lang_option
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Grading processes (default: one per CPU, but no more than one for every 8 submissions).")
@click.option("--allow-weak-sandbox", is_flag=True, help="As for grader batch.")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
def regrade(source: str, out: str, tests: tuple[str, ...], rubric_path: str | None, lang: str | None,
            jobs: int | None, allow_weak_sandbox: bool, no_progress: bool) -> None:
    """Grade SOURCE again with only the tests matching --test, into the batch folder OUT."""
    from grader.workflows.regrade import run_regrade

    def body() -> int:
        rubric = _load_for(out, rubric_path, source)
        language = _lang_for(lang, rubric, out)
        result = run_regrade(source, out, rubric, list(tests), jobs=jobs, allow_weak=allow_weak_sandbox,
                             lang=language, progress=False if no_progress else None)
        for name, why in result.not_regraded:
            err.print(f"{terminal(name)}: {terminal(_tr(why, language))}", markup=False, highlight=False)
        err.print(_tr(said("graded_again_changed_s", n=result.regraded, changed=len(result.changed), s=f"{result.elapsed_s:.1f}", path=result.written[0]), language), markup=False, highlight=False, soft_wrap=True)
        return 0

    sys.exit(_guard(body))


@main.command(name="ledger")
@click.argument("outdir", type=click.Path(file_okay=False, exists=True))
@click.option("--verify", is_flag=True, help="Only check the chain; exit 2 naming the first broken line.")
@lang_option
def ledger_cmd(outdir: str, verify: bool, lang: str | None) -> None:
    """List (or --verify) the hand adjustments recorded in OUTDIR/ledger.jsonl."""
    from grader.report import ledger
    from grader.sinks import tsv_field

    def body() -> int:
        entries = ledger.read(Path(outdir))
        language = _lang_for(lang, None, outdir)
        if not verify:
            for e in entries:
                change = (f"{e.points:+g}" if e.points is not None else f"={e.set:g}" if e.set is not None
                          else f"#{e.target}")
                click.echo("\t".join(tsv_field(f) for f in [str(e.n), e.op, e.submission, e.part or "", change,
                                      "" if e.against is None else f"{e.against:g}", e.by, e.at, e.reason]))
        verified = (said("ledger_verified_entry_chain") if len(entries) == 1
                    else said("ledger_verified_entries_chain", n=len(entries)))
        err.print(_tr(verified, language), markup=False, highlight=False)
        return 0

    sys.exit(_guard(body))


@main.command()
@rubric_option
@click.option("--seed", type=int, default=None, help="Grading seed (default: fresh).")
@click.option("--all", "every", is_flag=True,
              help="Validate every rubric in the rubric's folder (rubrics/*.yaml), one table each.")
def validate(rubric_path: str | None, seed: int | None, every: bool) -> None:
    """Prove the assignment: reference full marks, stubs zero, every mistake's mutant named."""
    from grader.prepare import validate as validation

    def body() -> int:
        with _lasting_imports():
            import grader.grading.runner  # noqa: F401 - torch and pytest, for every rubric below
        if every:
            from grader.ingest.find_rubric import find_rubrics

            paths = sorted(Path(rubric_path).parent.glob("*.yaml")) if rubric_path else find_rubrics()
        else:
            paths = [Path(_load(rubric_path).file)]
        failed = []
        for path in paths:
            rubric = _load(str(path))
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

    sys.exit(_guard(body))


@main.command(name="gradebook")
@click.argument("outputs", nargs=-1, required=True, type=click.Path(file_okay=False, exists=True))
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False),
              help="The course gradebook to write (CSV).")
def gradebook_cmd(outputs: tuple[str, ...], out: str) -> None:
    """Merge the gradebooks of several grader batch OUTPUTS into one course table."""
    from grader.outputs.course_gradebook import merge_with_reasons, own_ids, write_course_gradebook
    from grader.i18n.messages import translate

    def body() -> int:
        rows, assignments, left_out = merge_with_reasons([Path(o) for o in outputs])
        write_course_gradebook(Path(out), rows, assignments)
        env = os.environ.get("GRADER_LANG", "")
        lang = env if env in LANGS else "en"
        for folder in outputs:
            if own_ids(Path(folder)):
                err.print(terminal(translate(said("course_unblinded", folder=folder), lang)), markup=False,
                          soft_wrap=True)
        err.print(terminal(translate(said("course_written", n=len(rows), k=len(assignments),
                                          names=", ".join(assignments), out=out), lang)), markup=False, soft_wrap=True)
        for student, assignment, why in left_out:
            err.print(terminal(translate(said("no_score", student=student, assignment=assignment, why=why), lang)),
                      markup=False, soft_wrap=True)
        return 0

    sys.exit(_guard(body))


@main.command(name="new")
@click.argument("name")
@click.option("--root", type=click.Path(file_okay=False, exists=True), default=".", show_default=True,
              help="The course folder (holding rubrics/, exercises/, solutions/, suites/).")
def new_cmd(name: str, root: str) -> None:
    """Scaffold assignment NAME: rubric, stub, reference, one public and one hidden test, plug-in."""
    from grader.prepare.scaffold import scaffold

    def body() -> int:
        written = scaffold(Path(root), name)
        err.print(f"{len(written)} files written; next: grader validate --rubric "
                  f"{Path(root) / 'rubrics' / (name + '.yaml')}")
        return 0

    sys.exit(_guard(body))


@main.command()
@click.argument("outdir", type=click.Path(file_okay=False))
@rubric_option
@click.option("--force", is_flag=True, help="Replace OUTDIR if it is not empty.")
def release(outdir: str, rubric_path: str | None, force: bool) -> None:
    """Build the student repository in OUTDIR: stubs, public tests, grader, CI; no solutions."""
    from grader.prepare.release import build_release

    def body() -> int:
        files = build_release(_load(rubric_path), outdir, force=force)
        err.print(f"{len(files)} files written to {outdir}")
        return 0

    sys.exit(_guard(body))


@main.command()
@click.argument("outdir", type=click.Path(file_okay=False))
@rubric_option
def gradescope(outdir: str, rubric_path: str | None) -> None:
    """Build OUTDIR/autograder.zip for Gradescope (setup.sh, run_autograder, the course files)."""
    from grader.prepare.gradescope_zip import build_autograder

    def body() -> int:
        zip_path = build_autograder(_load(rubric_path), outdir)
        err.print(f"autograder written to {zip_path}")
        from grader.prepare.gradescope_zip import sandbox_note

        err.print(sandbox_note(), markup=False, soft_wrap=True)
        return 0

    sys.exit(_guard(body))


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


def _guard(fn: Any) -> int:
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
        err.print(_tr(said("interrupted_2"), lang), markup=False, highlight=False)
        return 130
    except click.exceptions.ClickException:
        raise  # (click says it, with its own status)
    except Exception as exc:  # noqa: BLE001 - not the student's fault: its own exit status, not 1
        import traceback

        traceback.print_exc()
        _say_error(pair("grader_error"), GraderError(said("grader_itself_failed", what=f"{type(exc).__name__}: {exc}")))
        return int(ExitCode.INTERNAL_ERROR)


if __name__ == "__main__":  # pragma: no cover
    main()
