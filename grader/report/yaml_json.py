"""YAML and JSON writers: the report's plain data, as is."""

from __future__ import annotations

import json
from typing import Any

import yaml

from grader.report.model import GradeReport


class _Dumper(yaml.SafeDumper):
    """Block style, multi-line strings as literal blocks, no aliases."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def render_yaml(report: GradeReport, opts: Any = None) -> str:
    return yaml.dump(report.to_dict(), Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=100)


def render_json(report: GradeReport, opts: Any = None) -> str:
    return json.dumps(report.to_dict(), ensure_ascii=False, indent=2) + "\n"
