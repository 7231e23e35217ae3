"""``grader publish OUT``: release hidden tests' details in a batch's student views.

It records the publication in ``OUT/published.json`` (atomically: when, and who ``--by``),
then writes again every student view the folder holds (the report formats besides the yaml
record, and the Moodle feedback files) so they show hidden tests in full where the rubric's
``report.hidden_details`` is ``after_publish``. Every later writer of the folder (a batch run
again, ``--resume``, ``grader adjust``, ``regrade``, ``export``) reads the record, so the views
stay published.

Example::

    publish(Path("out"), rubric, by="tanaka", lang="ja")
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from grader.errors import UsageError
from grader.i18n.messages import said
from grader.report.outdir import read_report, write_published, write_student_files

if TYPE_CHECKING:
    from grader.spec.rubric.model import Rubric

__all__ = ["publish"]


def publish(outdir: Path, rubric: Rubric, *, by: str = "", lang: str = "en",
            at: datetime | None = None) -> list[Path]:
    """Record the publication, then write the student views again; returns the files written.

    Raises:
        UsageError: ``outdir`` holds no batch output.
    """
    from grader.report import ledger

    if not (outdir / "reports").is_dir():
        raise UsageError(said("no_batch_output_here", out=outdir.name))
    with ledger.locked(outdir):  # (no adjustment's views written meanwhile are overwritten)
        return _publish(outdir, rubric, by, lang, at)


def _publish(outdir: Path, rubric: Rubric, by: str, lang: str, at: datetime | None) -> list[Path]:
    from grader.report import ledger

    write_published(outdir, by or ledger.who(), at or datetime.now(timezone.utc))
    written: list[Path] = []
    for path in sorted((outdir / "reports").glob("*.yaml")):
        report = read_report(path)
        if report is None:
            continue
        written += write_student_files(outdir, path.name[: -len(".yaml")], report, rubric, lang,
                                       lambda fmt, exc: None, at)
    if (outdir / "moodle-feedback-files.zip").exists():
        from grader.workflows.adjust import refresh_gradebooks

        refresh_gradebooks(outdir, rubric, lang, {})
        written.append(outdir / "moodle-feedback-files.zip")
    return written
