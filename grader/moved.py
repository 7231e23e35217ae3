"""The old import paths of modules that moved into subpackages, kept working for one release.

Each old module (``grader/testing.py`` ...) is one call of :func:`forward`: importing it warns
once (``DeprecationWarning``, naming the new path) and gives the new module itself, so
``from grader.testing import assert_close`` and ``grader.testing.assert_close`` keep working and
the objects are the same. :func:`run_as_main` does the same for ``python -m grader.tools.X``.
These paths go in the next release; :data:`OLD_PATHS` lists them for the docs and the tests.
"""

from __future__ import annotations

import importlib
import runpy
import sys
import warnings
from types import ModuleType

__all__ = ["OLD_PATHS", "forward", "run_as_main"]

#: old path -> new path
OLD_PATHS: dict[str, str] = {
    "grader.testing": "grader.kit.asserts",
    "grader.probing": "grader.kit.probes",
    "grader.plotting": "grader.kit.figures",
    "grader.quizsuite": "grader.kit.quiz",
    "grader.hooks": "grader.kit.hooks",
    "grader.assignment": "grader.spec.assignment",
    "grader.tools.build_notebook": "grader.prepare.build_notebook",
    "grader.tools.expected": "grader.prepare.expected",
}


def _warn(old: str, new: str, category: type[Warning] = DeprecationWarning) -> None:
    advice = "import from grader.kit" if new.startswith("grader.kit.") else f"use {new}"
    warnings.warn(f"{old} moved to {new} and this path goes in the next release: {advice}",
                  category, stacklevel=4)


def forward(old: str) -> ModuleType:
    """Make the module being imported as ``old`` the new one (and warn that the path moved)."""
    new = OLD_PATHS[old]
    _warn(old, new)
    module = importlib.import_module(new)
    sys.modules[old] = module
    return module


def run_as_main(old: str) -> None:
    """``python -m old``: warn (shown by default: a person typed the command), then run the new
    module as the program."""
    new = OLD_PATHS[old]
    _warn(old, new, FutureWarning)
    runpy.run_module(new, run_name="__main__", alter_sys=True)
