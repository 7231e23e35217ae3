"""YAML and JSON writers: the report's plain data, as is."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from grader.report import fastyaml
from grader.report.model import GradeReport

if TYPE_CHECKING:
    from grader.spec.rubric.model import ReportOptions


def render_yaml(report: GradeReport, opts: ReportOptions | None = None) -> str:
    """Block style, keys in schema order, multi-line strings as literal blocks (``fastyaml``)."""
    return fastyaml.dump(report.to_dict())


def render_json(report: GradeReport, opts: ReportOptions | None = None) -> str:
    """The report's plain data as JSON (UTF-8 text, indented)."""
    return json.dumps(report.to_dict(), ensure_ascii=False, indent=2) + "\n"
