"""click's own usage errors (an unknown option, a missing argument, a bad value) said in
Japanese too, as the grader's own errors are.

:func:`say_usage_too` changes how one :class:`click.UsageError` shows itself: click's English,
then one Japanese sentence naming what click names; with ``--lang ja`` (or ``GRADER_LANG=ja``),
the usage line in Japanese and the sentence alone. The group in :mod:`grader.cli` calls it for
every usage error its commands raise.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import IO

import click

from grader.cli.shared import LANGS, tr
from grader.i18n.messages import pair, said

__all__ = ["say_usage_too"]


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
        maybe = (tr(said("usage_did_you_mean", options=", ".join(exc.possibilities)), "ja")
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
    return f"{tr(text, 'ja')}。{tr(said('usage_help', command=command), 'ja')}"


def say_usage_too(exc: click.UsageError) -> None:
    """``exc.show`` as click has it, then in Japanese; with --lang ja, the usage line then Japanese only."""
    english = exc.show
    lang = _asked_lang(sys.argv[1:])

    def show(file: IO[str] | None = None) -> None:
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

