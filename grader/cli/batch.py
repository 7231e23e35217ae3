"""The commands on a whole class: ``grader batch`` (grade every submission of a folder or an LMS
export into OUT), ``grader export`` (the gradebooks again from OUT), ``grader similarity`` (which
submissions look alike) and ``grader catalogue draft`` (a catalogue entry from a cluster of
unknown mistakes).
"""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console

from grader.cli.shared import (
    err,
    exit_code_for,
    guard,
    lang_for,
    lang_of,
    lang_option,
    load_for,
    load_for_batch,
    rubric_option,
    tell,
)
from grader.errors import UsageError
from grader.i18n.messages import said
from grader.sinks import terminal

if TYPE_CHECKING:
    from grader.outputs.lms_gradebooks import CanvasTarget
    from grader.spec.rubric.model import Rubric

__all__ = ["batch", "catalogue_group", "export_cmd", "similarity_cmd"]


TABLE_ROWS = 60  # above this, the class summary in OUT is the better view


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


def _submitted_times(rubric: Rubric, submitted_file: str | None,
                     worksheet_file: str | None) -> dict[str, datetime] | None:
    """Each student's submission time: Moodle's worksheet, then --submitted over it."""
    from grader.spec.due import parse_when, read_moodle_worksheet, read_submitted

    times: dict[str, datetime] = {}
    if worksheet_file:
        if not rubric.due:
            raise UsageError(said("worksheet_rubric_has_no", file=worksheet_file, rubric=rubric.file))
        zone = parse_when(rubric.due, f"{rubric.file}: due").tzinfo
        assert zone is not None  # parse_when refuses a time without one
        times.update(read_moodle_worksheet(Path(worksheet_file), zone))
    if submitted_file:
        times.update(read_submitted(Path(submitted_file)))
    return times or None


@click.command()
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
@click.option("--allow-plain-cluster", is_flag=True,
              help="With --cluster: reach a tcp:// scheduler on another host without TLS (refused otherwise: "
                   "whoever reaches its port can run code on every node; docs/security.md). Warned of on every run.")
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
                   "\"Last modified (submission)\" (Moodle shown in English or Japanese), read in the time zone of the "
                   "rubric's due:; --submitted wins. gradebook.moodle.csv is then written in that worksheet's "
                   "language (else in the batch's).")
@click.option("--anonymous", is_flag=True,
              help="Blind grading: every output names each student by a random id (anon-…); OUT/identities.csv "
                   "(readable by you only) maps the ids back and is used only for the LMS gradebooks.")
def batch(source: str, out: str, rubric_path: str | None, lang: str | None, seed: int | None, allow_weak_sandbox: bool,
          jobs: int | None, resume: bool, cluster: str | None, shard_size: int | None, no_progress: bool,
          table: bool | None, gradebook: tuple[str, ...], canvas_gradebook: str | None,
          canvas_assignment_id: str | None, bom: bool, similarity: bool, submitted_file: str | None,
          extensions_file: str | None, worksheet_file: str | None, anonymous: bool,
          allow_plain_cluster: bool) -> None:
    """Grade every submission in SOURCE (a folder or an LMS zip export) into OUT."""
    from grader.workflows.batch import run_batch

    def body() -> int:
        from grader.spec.due import read_extensions

        from grader.spec.due import worksheet_lang

        rubric = load_for_batch(out, rubric_path, source, resume)
        submitted = _submitted_times(rubric, submitted_file, worksheet_file)
        result = run_batch(source, out, rubric, allow_weak=allow_weak_sandbox, seed=seed, jobs=jobs,
                           resume=resume, lang=lang_of(lang, rubric), progress=False if no_progress else None,
                           gradebooks=_formats(gradebook, canvas_gradebook, canvas_assignment_id), bom=bom,
                           canvas=_canvas(canvas_gradebook, canvas_assignment_id), again=_again("resume"),
                           similarity=similarity, cluster=cluster, shard_size=shard_size,
                           submitted=submitted,
                           extensions=read_extensions(Path(extensions_file)) if extensions_file else None,
                           anonymous=anonymous, allow_plain_cluster=allow_plain_cluster,
                           moodle_lang=worksheet_lang(Path(worksheet_file)) if worksheet_file else None)
        from grader.i18n.messages import say

        language = lang_of(lang, rubric)
        line = say("graded_kept_before_graded_2" if result.unreadable else "graded_kept_before_graded",
                   language, graded=result.graded, resumed=result.resumed, ungraded=len(result.unrecognised),
                   kinds=_not_graded(result.unrecognised, language), unreadable=result.unreadable,
                   s=f"{result.elapsed_s:.1f}", path=Path(out) / "gradebook.csv")
        err.print(terminal(line), markup=False, highlight=False, soft_wrap=True)
        if table or (table is None and 0 < len(result.reports) <= TABLE_ROWS):
            from grader.report.terminal import show_many

            wide = Console(highlight=False, width=None if sys.stdout.isatty() else 120)
            show_many(sorted(result.reports, key=lambda r: r.submission), wide, lang_of(lang, rubric))
        if result.interrupted:
            return 130
        return int(exit_code_for(result.reports, rubric))

    sys.exit(guard(body))


@click.command(name="export")
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
    from grader.outputs.gradebook import GradebookRow, lms_of, say_written
    from grader.outputs.lms_gradebooks import export_gradebooks

    def body() -> int:
        rubric = load_for(outdir, rubric_path)
        formats = _formats(gradebook, canvas_gradebook, canvas_assignment_id)
        if not formats:  # the LMS gradebooks the export's own entries can be matched in
            from grader.outputs.gradebook import old_rows

            rows = [GradebookRow.read_back(row) for row in old_rows(Path(outdir) / "gradebook.csv")]
            formats = tuple(sorted(lms_of(rows) & {"canvas", "moodle"}))
        written = export_gradebooks(Path(outdir), rubric, ("csv", *formats) if formats else ("csv",), bom=bom,
                                    lang=lang_for(lang, rubric, outdir),
                                    canvas=_canvas(canvas_gradebook, canvas_assignment_id))
        say_written(written, [], err, lang_for(lang, rubric, outdir))
        _say_left_out(Path(outdir), lang_for(lang, rubric, outdir))
        return 0

    sys.exit(guard(body))


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


def _canvas(canvas_gradebook: str | None, canvas_id: str | None) -> CanvasTarget:
    from grader.outputs.lms_gradebooks import CanvasTarget

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


@click.command(name="similarity")
@click.argument("outdir", type=click.Path(file_okay=False, exists=True))
@rubric_option
@click.option("--source", default=None, help="The submissions the batch graded (default: as the batch noted them).")
@click.option("--against", "against", type=click.Path(file_okay=False, exists=True), default=None,
              help="Also compare with a previous term's batch folder.")
@click.option("--top", type=click.IntRange(min=1), default=None,
              help="Also list the N most similar pairs below the flag (near misses), with their scores.")
@click.option("--threshold", type=click.FloatRange(0.0, 1.0), default=None,
              help="Also list every pair below the flag whose code score is at least X (with --top: the first N of them).")
@click.option("--pair", "pairs", type=(str, str), multiple=True, metavar="A B",
              help="Also show this pair's scores (repeatable): each a submission as the gradebook's submission "
                   "column names it, or the student's id or name.")
@lang_option
def similarity_cmd(outdir: str, rubric_path: str | None, source: str | None, against: str | None,
                   top: int | None, threshold: float | None, pairs: tuple[tuple[str, str], ...],
                   lang: str | None) -> None:
    """Which submissions of the batch in OUTDIR look alike: similarity.csv and pages, summary updated."""
    from grader.i18n.messages import say, translate
    from grader.insight.similarity import BEHAVIOUR_FLAG, CODE_FLAG, CODE_WITH_BEHAVIOUR, Pair, named
    from grader.outputs.similarity_page import refresh

    def body() -> int:
        rubric = load_for(outdir, rubric_path)
        language = lang_for(lang, rubric, outdir)
        result = refresh(outdir, rubric, source=source, against=against)
        named_pairs = [(named(result, a), named(result, b)) for a, b in pairs]  # (an unknown name fails here)

        def shown(p: Pair) -> str:
            who = {n: c.who for n, c in result.coded.items()}
            flag = (say("similarity_pair_flagged", language, g=p.group) if p.group
                    else say("similarity_pair_not_flagged", language))
            return say("similarity_pair_line", language, a=who.get(p.a, p.a), b=who.get(p.b, p.b),
                       code=f"{p.code_score:.3f}", behaviour=f"{p.behaviour_score:.3f}", flag=flag)

        tell(say("similarity_done", language, n=result.compared, pairs=len(result.pairs), groups=len(result.groups),
                 path=Path(outdir) / "similarity.csv"))
        for line in result.capped:  # (what the comparison left out, as its page says)
            tell(translate(line, language))
        if top is not None or threshold is not None or named_pairs:
            tell(say("similarity_rule", language, code=CODE_FLAG, code_b=CODE_WITH_BEHAVIOUR,
                     behaviour=BEHAVIOUR_FLAG))
        if top is not None or threshold is not None:
            near = result.nearest(top=top, threshold=threshold)
            tell(say("similarity_near_threshold", language, threshold=threshold) if threshold is not None
                 else say("similarity_near_top", language, n=top))
            for p in near:
                tell(shown(p))
            if not near:
                tell(say("similarity_near_none", language))
        if named_pairs:
            tell(say("similarity_pairs_named", language))
            for a, b in named_pairs:
                tell(shown(result.score(a, b)))
        return 0

    sys.exit(guard(body))


@click.group(name="catalogue")
def catalogue_group() -> None:
    """The assignment's mistake catalogue."""


@catalogue_group.command(name="draft")
@click.argument("outdir", type=click.Path(file_okay=False, exists=True))
@click.option("--cluster", "number", type=click.IntRange(min=1), required=True,
              help="The cluster's number (unrecognised-clusters.csv, the summary's first screen).")
@click.option("--id", "mid", default=None, help="The new mistake id (default: new-mistake-N).")
@rubric_option
@lang_option
def catalogue_draft(outdir: str, number: int, mid: str | None, rubric_path: str | None, lang: str | None) -> None:
    """Write a draft catalogue entry and mutant from a cluster of OUTDIR's unknown mistakes."""
    import shlex

    from grader.i18n.messages import say
    from grader.insight.draft_entry import draft_entry

    def body() -> int:
        rubric = load_for(outdir, rubric_path)
        language = lang_for(lang, rubric, outdir)
        done = draft_entry(outdir, rubric, number, mid)
        # the command names the rubric: in a course of several, a bare `grader validate` cannot choose
        file = Path(rubric.file).resolve()
        try:
            shown = file.relative_to(Path.cwd().resolve())
        except ValueError:
            shown = file
        mutant = (say("draft_mutant", language, path=done.mutant) if done.mutant
                  else say("draft_no_mutant", language))
        tell(say("draft_written", language, id=done.id, function=done.function, n=done.size, catalogue=done.catalogue,
                 mutant=mutant, validate=shlex.join(["grader", "validate", "--rubric", str(shown)])))
        return 0

    sys.exit(guard(body))
