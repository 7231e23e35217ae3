"""YAML read safely and fast: libyaml's safe loader where PyYAML was built with it, PyYAML's own otherwise.

Both read YAML 1.1 into plain data (no tags that build objects); libyaml's parses a report or a
rubric several times faster. Every YAML file the grader reads goes through :func:`load`, but for
the rubric as it is validated (:mod:`grader.spec.rubric.load` reads it with line numbers, for its errors).

Example::

    data = load(path.read_text(encoding="utf-8"))
"""

from __future__ import annotations

from typing import Any

import yaml

__all__ = ["LOADER", "load"]

#: The loader class used: ``yaml.CSafeLoader`` when libyaml is there, else ``yaml.SafeLoader``.
LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load(text: str | bytes) -> Any:
    """The plain data of one YAML document (raises ``yaml.YAMLError`` as ``yaml.safe_load`` does)."""
    return yaml.load(text, Loader=LOADER)  # noqa: S506 - a safe loader
