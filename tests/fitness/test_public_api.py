"""The three public façades list exactly their public names, and the old paths of moved modules
still work for one release, with a warning that names the new path.

``grader`` (scripts that grade), ``grader.kit`` (what a chapter's suites and hooks import) and
``grader.notebook`` (the check cell) are the paths people outside the package write; every
other module is the package's own business and may move.
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import types
import warnings

import pytest

import grader
import grader.kit
import grader.notebook
from grader.moved import OLD_PATHS

from tests.helpers import ROOT


def _public(module: types.ModuleType, besides: set[str] = frozenset()) -> set[str]:
    """The module's own public names (not submodules, not what it imports for itself)."""
    return {n for n in vars(module) if not n.startswith("_") and not isinstance(getattr(module, n), types.ModuleType)
            } - {"annotations", "TYPE_CHECKING", "Any"} - besides


def test_grader_lists_every_public_name() -> None:
    assert sorted(grader.__all__) == sorted(_public(grader) | {"grade"})


def test_grade_is_importable_lazily() -> None:
    from grader.grading.runner import grade

    assert grader.grade is grade


def test_the_notebook_lists_every_public_name() -> None:
    own = {n for n, v in vars(grader.notebook).items()
           if getattr(v, "__module__", None) == "grader.notebook" and not n.startswith("_")}
    assert sorted(grader.notebook.__all__) == sorted(own)


def test_the_kit_lists_every_name_it_gives() -> None:
    """Every name of ``grader.kit.__all__`` resolves, and nothing else is offered (its module
    ``__getattr__`` gives exactly the table)."""
    assert grader.kit.__all__ == sorted(set(grader.kit.__all__))
    for name in grader.kit.__all__:
        assert getattr(grader.kit, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'diagnose'"):
        grader.kit.diagnose  # noqa: B018 - the engine is not the plug-in API


def test_the_kit_gives_what_its_modules_export() -> None:
    """The façade leaves out no public name of the modules chapters write with."""
    from grader.kit import asserts, figures, probes, quiz

    wanted = set(asserts.__all__) | set(quiz.__all__) | {"figure", "png", "series", "style"}
    wanted |= set(probes.__all__) - {"randn", "describe_call", "same_signature", "signature_of"}
    assert sorted(wanted - set(grader.kit.__all__)) == []
    assert grader.kit.seeded_randn is probes.randn and grader.kit.randn is asserts.randn
    assert set(figures.__all__) - set(grader.kit.__all__) == {"packaged_ja_font", "plot_style"}


def test_the_kit_loads_light() -> None:
    """Reading the hooks protocol (a batch's parent does) imports neither torch nor pytest."""
    code = "import sys, grader.kit.hooks; print('torch' in sys.modules, 'pytest' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_chapters_import_only_the_kit() -> None:
    """A chapter's suites and hooks import from ``grader.kit`` and nothing else of the grader."""
    wrong = []
    for path in sorted((ROOT / "suites").rglob("*.py")):
        if "mutants" in path.parts or "correct" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            wrong += [f"{path.relative_to(ROOT)}:{node.lineno} {n}" for n in names
                      if n.split(".")[0] == "grader" and n != "grader.kit"]
    assert wrong == []


@pytest.mark.parametrize("old", sorted(OLD_PATHS))
def test_an_old_path_still_works_and_says_where_it_went(old: str) -> None:
    new = OLD_PATHS[old]
    sys.modules.pop(old, None)  # (only the old name: the new module's objects stay the ones in use)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)
    assert [str(w.message).split(" moved to ")[0] for w in caught if w.category is DeprecationWarning] == [old]
    assert new in str(caught[0].message)


def test_an_old_command_path_still_runs() -> None:
    out = subprocess.run([sys.executable, "-m", "grader.tools.expected", "--help"], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert "usage:" in out.stdout
    assert "grader.tools.expected moved to grader.prepare.expected" in out.stderr


def test_the_kit_table_and_its_all_agree() -> None:
    """``__all__`` is written out (mypy reads it); the table of homes gives exactly those names."""
    import grader.kit as kit

    assert sorted(vars(kit)["_HOMES"]) == kit.__all__
