"""Command line: each command parses its options, then calls one stage function.

Exit status (computed only in :func:`grader.cli.shared.exit_code_for` and
:func:`grader.cli.shared.guard`):

======  =====================================================================
0       graded (whatever the score)
1       graded, and below the rubric's pass mark when the rubric asks for that
2       usage or configuration error (message names the file, YAML path, fix)
3       the grader itself failed (a bug or the machine)
4       ``grader push``: the LMS refused, or never answered, for at least one student;
        ``grader pull``: some student's files could not be fetched
======  =====================================================================

This module is the group (``grader``, the console entry point ``grader.cli:main``); the
commands live beside it, by who runs them when:

==========  ========================================================================================
batch       batch, export, similarity, catalogue draft: the commands on a whole class
prepare     new, validate, release, gradescope: the instructor's commands before the term
review      review: the local review app over a finished batch
shared      ExitCode, the options every command takes, the rubric and language it finds, the guard
student     check, grade: the student's commands
term        adjust, ledger, publish, push, regrade, gradebook, pull: the commands of a term around the batch
usage_ja    click's usage errors said in Japanese too
watch       ``grader check --watch``: check again on every save
==========  ========================================================================================
"""

from __future__ import annotations

import sys
from typing import Any

import click

from grader.cli import batch, prepare, student, term
from grader.cli import review
from grader.cli.shared import ExitCode
from grader.cli.usage_ja import say_usage_too

__all__ = ["COMMANDS", "ExitCode", "main"]


class _Commands(click.Group):
    """The grader's commands: click's own usage errors (an unknown option, a missing argument,
    a bad value) are said in Japanese too, as the grader's own errors are."""

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:  # (click's own signature: any Context setting)
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.UsageError as exc:
            say_usage_too(exc)
            raise

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as exc:
            if not getattr(exc, "said_in_japanese_too", False):  # (a subcommand's, not ours)
                say_usage_too(exc)
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



#: every command of the group, by module (``grader --help`` lists them by name)
COMMANDS: tuple[click.Command, ...] = (
    student.check, student.grade_cmd,
    batch.batch, batch.export_cmd, batch.similarity_cmd, batch.catalogue_group,
    term.adjust, term.ledger_cmd, term.publish_cmd, term.push_cmd, term.regrade, term.gradebook_cmd,
    prepare.new_cmd, prepare.validate, prepare.release, prepare.gradescope,
    term.pull_cmd,
    review.review_cmd,
)
for _command in COMMANDS:
    main.add_command(_command)


if __name__ == "__main__":  # pragma: no cover
    main()
