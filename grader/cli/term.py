"""The commands of a term after the batch: ``grader adjust`` (a score changed by hand, in the
ledger), ``grader ledger`` (list or verify it), ``grader publish`` (hidden tests shown in full),
``grader push`` (the final scores into the LMS), ``grader pull`` (the submissions from the LMS),
``grader regrade`` (only some tests again) and ``grader gradebook`` (several batches, one course
table).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from grader.cli.shared import LANGS, ExitCode, err, guard, lang_for, lang_of, lang_option, load_for, rubric_option, tr
from grader.errors import UsageError
from grader.i18n.messages import said
from grader.sinks import terminal

__all__ = ["adjust", "gradebook_cmd", "ledger_cmd", "publish_cmd", "pull_cmd", "push_cmd", "regrade"]


class _Points(click.ParamType):  # type: ignore[type-arg]
    """A number of points as a Japanese keyboard may type it: full-width digits and point
    (NFKC), the minus sign U+2212; a decimal comma is refused with the number it stands for."""

    name = "number"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> float:
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


@click.command()
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
    """Adjust STUDENT's score in the batch output OUTDIR by hand; recorded in OUTDIR/ledger.jsonl.

    STUDENT is the submission's name as the batch named its report (the file name in OUTDIR/reports/
    without .yaml, e.g. yamada_taro_123456 or alice), or the student's id from the LMS export
    (Moodle's participant number, Canvas's user id, Blackboard's username); in a blind batch
    (--anonymous), the anon-… id, and nothing else. The final score before and after is printed.
    """
    from grader.workflows import adjust as adjusting

    def body() -> int:
        rubric = load_for(outdir, rubric_path)
        out, language = Path(outdir), lang_for(lang, rubric, outdir)
        given = [x is not None for x in (points, set_to, undo, confirm)]
        if sum(given) != 1:
            raise UsageError(said("give_one_points_set"))
        _, was = adjusting.find(out, student)
        if adjusting.blind_reason(out, reason) != reason:  # (kept with [name] / [id]; never who)
            err.print(tr(said("reason_named_student"), language), markup=False, highlight=False, soft_wrap=True)
        if undo is not None:
            entry = adjusting.undo(out, rubric, student, undo, reason=reason, by=by, lang=language)
        elif confirm is not None:
            entry = adjusting.confirm(out, rubric, student, confirm, reason=reason, by=by, lang=language)
        else:
            entry = adjusting.adjust(out, rubric, student, part=part, points=points, set_to=set_to, reason=reason,
                                     by=by, lang=language)
        err.print(tr(said("ledger_entry_written", n=entry.n, what=f"{entry.op} {terminal(entry.submission)}"),
                     language), markup=False, highlight=False)
        _, now = adjusting.find(out, entry.submission)
        for what, before, after in adjusting.moved(was, now):
            err.print(tr(said("adjust_score_moved", who=terminal(entry.submission), what=what, before=before,
                              after=after), language), markup=False, highlight=False, soft_wrap=True)
        return 0

    sys.exit(guard(body))


@click.command(name="publish")
@click.argument("outdir", type=click.Path(file_okay=False, exists=True))
@click.option("--by", default="", help="Who publishes (default: your login name).")
@rubric_option
@lang_option
def publish_cmd(outdir: str, by: str, rubric_path: str | None, lang: str | None) -> None:
    """Publish the results in the batch output OUTDIR: students' views show hidden tests in full
    where the rubric says hidden_details: after_publish (recorded in OUTDIR/published.json)."""
    from grader.workflows.publish import publish

    def body() -> int:
        rubric = load_for(outdir, rubric_path)
        language = lang_for(lang, rubric, outdir)
        written = publish(Path(outdir), rubric, by=by, lang=language)
        err.print(tr(said("results_published_files_written", n=len(written)), language), markup=False,
                  highlight=False)
        return 0

    sys.exit(guard(body))


@click.command()
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
        rubric = load_for(out, rubric_path, source)
        language = lang_for(lang, rubric, out)
        result = run_regrade(source, out, rubric, list(tests), jobs=jobs, allow_weak=allow_weak_sandbox,
                             lang=language, progress=False if no_progress else None)
        for name, why in result.not_regraded:
            err.print(f"{terminal(name)}: {terminal(tr(why, language))}", markup=False, highlight=False)
        from grader.workflows.changes import say_changes

        say_changes(err, result.changed, language)
        err.print(tr(said("graded_again_changed_s", n=result.regraded, changed=len(result.changed), s=f"{result.elapsed_s:.1f}", path=result.written[0]), language), markup=False, highlight=False, soft_wrap=True)
        return 0

    sys.exit(guard(body))


#: a ledger line's state (grader.report.ledger.states), in words
_STATES = {"applied": said("ledger_state_applied"), "review": said("ledger_state_review"),
           "confirmed": said("ledger_state_confirmed"), "undone": said("ledger_state_undone"),
           "recorded": said("ledger_state_recorded")}


def _noted(note: dict[str, object] | None) -> str:
    """What a line of grader review holds, in the listing's change column: a comment's file and
    lines, a reviewed group, a revealed pseudonym."""
    note = note or {}
    if "file" in note:
        return f"{note.get('file', '')}:{note.get('start', '')}-{note.get('end', '')}"
    return str(note.get("group") or note.get("pseudonym") or "")


@click.command(name="ledger")
@click.argument("outdir", type=click.Path(file_okay=False, exists=True))
@click.option("--verify", is_flag=True, help="Only check the chain; exit 2 naming the first broken line.")
@lang_option
def ledger_cmd(outdir: str, verify: bool, lang: str | None) -> None:
    """List (or --verify) the hand adjustments recorded in OUTDIR/ledger.jsonl, each with its state:
    applied, needs review (the automatic score moved since; still applied), confirmed or undone."""
    from grader.report import ledger
    from grader.sinks import tsv_field
    from grader.workflows.adjust import in_review

    def body() -> int:
        entries = ledger.read(Path(outdir))
        language = lang_for(lang, None, outdir)
        if not verify:
            states = ledger.states(entries, in_review(Path(outdir)))
            for e in entries:
                change = (f"{e.points:+g}" if e.points is not None else f"={e.set:g}" if e.set is not None
                          else str((e.push or {}).get("platform", "")) if e.op == "push"
                          else f"#{e.target}" if e.target is not None else _noted(e.note))
                state = tr(_STATES[states[e.n]], language)
                click.echo("\t".join(tsv_field(f) for f in [str(e.n), e.op, e.submission, e.part or "", change,
                                      state, "" if e.against is None else f"{e.against:g}", e.by, e.at,
                                      e.reason]))
        verified = (said("ledger_verified_entry_chain") if len(entries) == 1
                    else said("ledger_verified_entries_chain", n=len(entries)))
        err.print(tr(verified, language), markup=False, highlight=False)
        recorded = ledger.head(Path(outdir))
        if verify and recorded is not None:
            err.print(tr(said("ledger_verified_proves", head=f"{recorded[0]} {recorded[1]}"), language),
                      markup=False, highlight=False, soft_wrap=True)
        return 0

    sys.exit(guard(body))


@click.command(name="gradebook")
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

    sys.exit(guard(body))



def _state_word(state: str) -> str:
    """A student's state in a push, as the terminal says it."""
    return {"sent": said("push_state_sent"), "unchanged": said("push_state_unchanged"),
            "skipped": said("push_state_skipped"), "failed": said("push_state_failed"),
            "send": said("push_state_send")}[state]


@click.command(name="push")
@click.argument("outdir", type=click.Path(file_okay=False, exists=True))
@click.option("--to", "to", required=True, type=click.Choice(["canvas", "moodle", "lti13"]), help="The LMS to write into.")
@click.option("--url", default=None, help="The LMS's address, e.g. https://canvas.example.edu (canvas, moodle).")
@click.option("--course", default=None, help="The course's id in the LMS (canvas).")
@click.option("--assignment", "assignment", default=None, help="The assignment's id in the LMS (canvas, moodle).")
@click.option("--dry-run", is_flag=True, help="Print the cells a push would change, and write nothing.")
@click.option("--token-file", type=click.Path(dir_okay=False, exists=True), default=None,
              help="A file holding the token, readable by you alone (chmod 600); else $CANVAS_TOKEN "
                   "($MOODLE_TOKEN with --to moodle).")
@click.option("--overwrite-lms-edits", is_flag=True,
              help="Write over a value changed in the LMS since the last push (kept otherwise).")
@click.option("--lms-ids", type=click.Path(dir_okay=False, exists=True), default=None,
              help="CSV student,lms_id: the LMS user id of students of a plain folder.")
@click.option("--by", default="", help="Who pushes (default: your login name).")
@click.option("--platform", "platform_file", type=click.Path(dir_okay=False, exists=True), default=None,
              help="lti13: the platform file (issuer, client id, token endpoint, key, line item): docs/lms-lti13.md.")
@rubric_option
@lang_option
def push_cmd(outdir: str, to: str, url: str | None, course: str | None, assignment: str | None, dry_run: bool,
             token_file: str | None, overwrite_lms_edits: bool, lms_ids: str | None, by: str,
             platform_file: str | None, rubric_path: str | None, lang: str | None) -> None:
    """Write each student's final score and a short comment from the batch output OUTDIR into the LMS;
    every push is recorded in OUTDIR/ledger.jsonl and OUTDIR/push/<time>.csv."""
    from grader.lms.canvas import CanvasPlatform
    from grader.lms.moodle import Moodle, MoodlePlatform
    from grader.lms.platform import Platform
    from grader.lms.transport import Transport
    from grader.workflows.push import push, read_ids, read_token, shared_reasons

    def body() -> int:
        rubric = load_for(outdir, rubric_path)
        language = lang_for(lang, rubric, outdir)
        ids = read_ids(Path(lms_ids)) if lms_ids else {}
        platform: Platform
        if to == "lti13":
            from grader.lms.lti13 import open_platform
            from grader.workflows.push import batch_maximum

            if not platform_file:
                raise UsageError(said("push_lti_needs_platform"))
            platform, http = open_platform(Path(platform_file), maximum=batch_maximum(Path(outdir), rubric),
                                           expected=ids.values())
            close, scrub = http.close, http.scrub
        elif to == "moodle":
            if not (url and assignment):
                raise UsageError(said("push_moodle_needs", missing=", ".join(
                    f"--{n}" for n, v in (("url", url), ("assignment", assignment)) if not v)))
            token = read_token(os.environ, _TOKEN_VARIABLE[to], Path(token_file) if token_file else None)
            transport = Transport(url, token, bearer=False)
            platform = MoodlePlatform(Moodle(url, token, transport), assignment)
            close, scrub = transport.close, transport.scrub
        else:
            if not (url and course and assignment):
                raise UsageError(said("push_canvas_needs", missing=", ".join(
                    f"--{n}" for n, v in (("url", url), ("course", course), ("assignment", assignment)) if not v)))
            token = read_token(os.environ, "CANVAS_TOKEN", Path(token_file) if token_file else None)
            transport = Transport(url, token)
            platform = CanvasPlatform(url, course, assignment, transport)
            close, scrub = transport.close, transport.scrub
        try:
            result = push(Path(outdir), rubric, platform, dry_run=dry_run, overwrite=overwrite_lms_edits, ids=ids,
                          by=by, lang=language, scrub=scrub)
        finally:
            close()
        # (a reason many failures share, a token refused midway, is said once below; each line points to it)
        shared = {reason: n for n, reason in enumerate(shared_reasons(result.lines), 1)}
        for line in result.lines:
            if dry_run:
                if line.state == "send":
                    before = "—" if line.before is None else f"{line.before:g}"
                    click.echo(terminal(tr(said("push_dry_line", who=line.who, key=line.key, before=before,
                                                new=f"{line.new:g}", why=line.why), language)))
                continue
            state = tr(_state_word(line.state), language)
            reason = line.reason
            if line.state == "failed" and reason in shared:
                reason = tr(said("push_reason_below", n=shared[reason]), language)
            text = f"{line.who} [{line.key or '-'}]: {state}" + (f" ({reason})" if reason else "")
            click.echo(terminal(text))
        counts = ", ".join(f"{tr(_state_word(k), language)} {n}" for k, n in result.counts.items())
        if dry_run:
            err.print(terminal(tr(said("push_dry_summary", n=result.counts.get("send", 0), counts=counts), language)),
                      markup=False, highlight=False, soft_wrap=True)
            return 0
        for reason, group in shared_reasons(result.lines).items():
            err.print(terminal(tr(said("push_reason_shared", n=shared[reason], count=len(group), csv=result.csv,
                                       reason=reason), language)), markup=False, highlight=False, soft_wrap=True)
        err.print(terminal(tr(said("push_summary", counts=counts, csv=result.csv, n=result.ledger_n), language)),
                  markup=False, highlight=False, soft_wrap=True)
        return int(ExitCode.PUSH_FAILED) if result.failed else 0

    sys.exit(guard(body))


# --- Moodle: the platform of grader push --to moodle, and grader pull --from moodle ---------------------

#: the environment variable each platform's token is read from (unless --token-file)
_TOKEN_VARIABLE = {"canvas": "CANVAS_TOKEN", "moodle": "MOODLE_TOKEN"}


def _pull_word(state: str) -> str:
    """A student's state in a pull from Canvas, as the terminal says it."""
    return {"new": said("pull_state_new"), "changed": said("pull_state_changed"),
            "unchanged": said("push_state_unchanged"), "not_submitted": said("pull_state_not_submitted"),
            "refused": said("pull_state_refused"), "set_aside": said("pull_state_set_aside"),
            "failed": said("push_state_failed")}[state]


@click.command(name="pull")
@click.argument("src_dir", type=click.Path(file_okay=False))
@click.option("--from", "source", required=True, type=click.Choice(["canvas", "moodle"]), help="The LMS to read from.")
@click.option("--url", required=True, help="The LMS's address, e.g. https://canvas.example.edu")
@click.option("--course", default=None, help="The course's id in the LMS (canvas).")
@click.option("--assignment", "assignment", required=True, help="The assignment's id in the LMS.")
@click.option("--token-file", type=click.Path(dir_okay=False, exists=True), default=None,
              help="A file holding the token, readable by you alone (chmod 600); else $CANVAS_TOKEN "
                   "($MOODLE_TOKEN with --from moodle).")
@lang_option
def pull_cmd(src_dir: str, source: str, url: str, course: str | None, assignment: str, token_file: str | None,
             lang: str | None) -> None:
    """Download the assignment's submissions into SRC_DIR as the LMS's own download names them, with their
    submission times (canvas: SRC_DIR/.pull/submitted.csv; moodle: SRC_DIR/submissions, with
    SRC_DIR/submitted.csv and SRC_DIR/extensions.csv); run again, only what changed is downloaded."""
    from grader.workflows import pull_canvas, pull_moodle
    from grader.workflows.pull import pull
    from grader.workflows.push import read_token

    def body() -> int:
        language = lang_of(lang, None)
        if source == "canvas" and not course:
            raise UsageError(said("pull_canvas_needs_course"))
        token = read_token(os.environ, _TOKEN_VARIABLE[source], Path(token_file) if token_file else None)
        result, scrub = pull(Path(src_dir), source, url=url, course=course, assignment=assignment, token=token,
                             lang=language)
        if isinstance(result, pull_canvas.PullResult):
            for s in result.students:
                text = f"{s.name or '-'} [{s.key}]: {tr(_pull_word(s.state), language)}" + (f" ({s.reason})" if s.reason else "")
                click.echo(terminal(scrub(text)))
            counts = ", ".join(f"{tr(_pull_word(k), language)} {result.count(k)}" for k in pull_canvas.STATES
                               if result.count(k))
            after = (f"grader batch {src_dir} --out OUT --submitted "
                     f"{Path(src_dir) / pull_canvas.STATE_DIR / 'submitted.csv'}")
            err.print(terminal(tr(said("pull_summary", path=src_dir, counts=counts or "0", next=after), language)),
                      markup=False, highlight=False, soft_wrap=True)
            return int(ExitCode.PUSH_FAILED) if result.failed else 0
        assert isinstance(result, pull_moodle.PullResult)
        for who, why in result.failed:
            err.print(terminal(tr(said("pull_failed_one", who=who, why=why), language)), markup=False,
                      highlight=False, soft_wrap=True)
        summary = (said("pull_first_summary", n=len(result.fetched), drafts=result.drafts, folder=result.folder)
                   if result.first else
                   said("pull_again_summary", n=len(result.fetched), unchanged=result.unchanged, drafts=result.drafts,
                        folder=result.folder))
        err.print(terminal(tr(summary, language)), markup=False, highlight=False, soft_wrap=True)
        if result.unnumbered:
            err.print(terminal(tr(said("pull_unnumbered", n=result.unnumbered), language)), markup=False,
                      highlight=False, soft_wrap=True)
        err.print(terminal(tr(said("pull_next", folder=result.folder, submitted=result.submitted,
                                   extensions=result.extensions), language)), markup=False, highlight=False,
                  soft_wrap=True)
        return int(ExitCode.PUSH_FAILED) if result.failed else 0

    sys.exit(guard(body))
