"""The Jinja environment every HTML page of the grader is rendered with, made once per process.

Templates lie in the package's ``templates/`` folder; student text reaches a page only through
the environment's ``finalize`` sink (:func:`grader.sinks.jinja_finalize`), so a value left
unescaped by a template is escaped all the same.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from grader import sinks

if TYPE_CHECKING:
    import jinja2

__all__ = ["environment"]


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The template environment, made once: each page then reuses the compiled template."""
    import jinja2

    from markupsafe import Markup

    from grader.report.webfont import FONT_STACK, MONO_STACK

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("grader", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        trim_blocks=True, lstrip_blocks=True, finalize=sinks.jinja_finalize,
    )
    env.globals["font_stack"] = Markup(FONT_STACK)
    env.globals["mono_stack"] = Markup(MONO_STACK)
    return env
