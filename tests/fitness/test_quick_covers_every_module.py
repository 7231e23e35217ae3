"""``make quick`` covers every module of grader/: each is imported by a test that ``make quick`` runs.

The journeys (``slow``, left out of ``make quick``) run the grader end to end and reach most of the
package; a module only they import would go untested between commits. The check is static: an
import in a test file outside tests/journeys/ counts (at its top, or inside a test or a helper),
unless it sits in a test marked ``slow`` (or a file so marked), and importing a module counts for
the packages above it too. So does ``importlib.import_module`` with the module's name, or with an
f-string naming a package's modules (``f"grader.i18n.{name}"``: every module of that package). The
old paths kept for one release (``grader.moved.OLD_PATHS``) count as imported: tests/fitness/
test_public_api.py imports each of them by name.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers import ROOT, TESTS

PACKAGE = ROOT / "grader"
#: Test files whose imports count: every Python file of tests/ but the journeys and the fixtures.
QUICK = [p for p in sorted(TESTS.rglob("*.py")) if not {"journeys", "fixtures"} & set(p.relative_to(TESTS).parts)]


def modules(package: Path = PACKAGE) -> set[str]:
    """Every module of the package by its dotted name (a package by its ``__init__.py``)."""
    found = set()
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        found.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def _slow(node: ast.AST) -> bool:
    """Whether a module's ``pytestmark`` or a test's decorators name the ``slow`` marker."""
    if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "pytestmark" for t in node.targets):
        return "mark.slow" in ast.unparse(node.value)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return any("mark.slow" in ast.unparse(d) for d in node.decorator_list)
    return False


def imported(source: str, known: set[str]) -> set[str]:
    """The modules of ``known`` that ``source`` imports where ``make quick`` runs it (not in a test
    marked slow, nor in a file marked slow), with the packages above them."""
    tree = ast.parse(source)
    if any(_slow(node) for node in tree.body if isinstance(node, ast.Assign)):
        return set()
    named: set[str] = set()
    quick = [node for node in tree.body if not _slow(node)]
    for node in (inner for top in quick for inner in ast.walk(top)):
        if isinstance(node, ast.Import):
            named |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            named.add(node.module)
            named |= {f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Call) and ast.unparse(node.func).endswith("import_module") and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                named.add(first.value)
            elif isinstance(first, ast.JoinedStr) and first.values and isinstance(first.values[0], ast.Constant):
                prefix = str(first.values[0].value)
                if prefix.endswith("."):  # a package's modules, by name
                    named |= {m for m in known if m.startswith(prefix)}
    return _with_packages(named, known)


def _with_packages(named: set[str], known: set[str]) -> set[str]:
    """The modules of ``known`` among ``named`` and the packages above them."""
    hit = set()
    for name in named:
        while name:
            if name in known:
                hit.add(name)
            name = name.rpartition(".")[0]
    return hit


def test_every_module_is_imported_by_a_quick_test() -> None:
    from grader.moved import OLD_PATHS

    known = modules()
    covered = set().union(*(imported(p.read_text(encoding="utf-8"), known) for p in QUICK))
    covered |= _with_packages(set(OLD_PATHS), known)
    missing = sorted(known - covered)
    assert missing == [], (f"no test that make quick runs imports {', '.join(missing)}: add a unit test (not marked slow) "
                           "in tests/unit/<subpackage>/test_<module>.py, so that make quick tests it")


def test_the_check_can_fail() -> None:
    """An import inside a function counts, with its packages; a name from a module counts for it;
    an import in a slow test, or in a slow file, does not."""
    known = {"grader", "grader.report", "grader.report.junit", "grader.report.files", "grader.kit", "grader.kit.quiz"}
    source = ("import pytest\n\n\ndef test_x():\n    from grader.report import junit\n    import grader.kit\n\n\n"
              "@pytest.mark.slow\ndef test_y():\n    from grader.report import files\n")
    assert imported(source, known) == {"grader", "grader.report", "grader.report.junit", "grader.kit"}
    assert imported("import pytest\npytestmark = pytest.mark.slow\nimport grader.kit.quiz\n", known) == set()
    by_name = "import importlib\n\n\ndef test_x():\n    importlib.import_module(f'grader.report.{x}')\n"
    assert imported(by_name, known) == {"grader", "grader.report", "grader.report.junit", "grader.report.files"}
