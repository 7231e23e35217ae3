"""``grader pull SRC_DIR --from canvas|moodle``: an assignment's submissions, into the folder ``grader batch`` reads.

One command; each platform's pull lives in its own module and writes what that platform's own
download writes, so ``grader batch`` reads it as that platform's export:

===========  ==========================================================================================
canvas       :mod:`grader.workflows.pull_canvas`: the files in ``SRC_DIR`` as Canvas's "Download
             Submissions" zip names them, the submission times in ``SRC_DIR/.pull/submitted.csv``;
             needs ``--course``
moodle       :mod:`grader.workflows.pull_moodle`: a folder a student in ``SRC_DIR/submissions`` as
             Moodle's "Download all submissions" names it, with ``SRC_DIR/submitted.csv`` and
             ``SRC_DIR/extensions.csv``
===========  ==========================================================================================

Both take the token the command read (the platform's variable or ``--token-file``), send it to
``--url`` only and never say it; a second pull fetches only what changed; a student whose files
could not be fetched is named with the reason and the others are pulled.

Example::

    result, scrub = pull(Path("src"), "canvas", url=url, course="7", assignment="42", token=token, lang="en")
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from grader.errors import UsageError
from grader.i18n.messages import said
from grader.workflows import pull_canvas, pull_moodle

__all__ = ["pull"]


def pull(src: Path, source: str, *, url: str, course: str | None, assignment: str, token: str,
         lang: str) -> tuple[pull_canvas.PullResult | pull_moodle.PullResult, Callable[[str], str]]:
    """Pull ``assignment`` from the platform ``source`` into ``src``: what the pull did, and the
    function that takes the token out of any text about it (for what the terminal says).

    Raises:
        UsageError: ``--from canvas`` without ``course``; whatever the platform's pull refuses.
    """
    from grader.lms.canvas import CanvasPlatform
    from grader.lms.moodle import Moodle
    from grader.lms.transport import Transport

    if source == "canvas" and not course:
        raise UsageError(said("pull_canvas_needs_course"))
    transport = Transport(url, token, bearer=source != "moodle")
    try:
        if source == "moodle":
            return pull_moodle.pull_moodle(src, Moodle(url, token, transport), assignment, lang=lang), transport.scrub
        return (pull_canvas.pull_canvas(src, CanvasPlatform(url, str(course), assignment, transport), lang=lang),
                transport.scrub)
    finally:
        transport.close()
