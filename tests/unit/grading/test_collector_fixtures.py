"""The pytest plug-in's fixtures (grader/grading/collector.py) are the whole vocabulary a suite's
tests ask for: every argument of every test in every chapter's suites is one of them (or a
parameter of its own ``parametrize``), so that the fast path, which computes the plug-in's own
fixtures without pytest's machinery, serves every test (a name its module's
``pytest_generate_tests`` parametrizes counts as its own parameter)."""

from __future__ import annotations

import ast
import inspect

import pytest

from grader.grading import collector

from tests.helpers import ROOT

#: The plug-in's fixtures, as suites see them.
FIXTURES = {name for name, value in vars(collector).items()
            if getattr(value, "_fixture_function_marker", None) is not None or type(value).__name__ == "FixtureFunctionDefinition"}


def _parametrized(node: ast.AST) -> set[str]:
    """The names ``node``'s ``parametrize`` calls give values (a decorator, or a module's
    ``pytest_generate_tests``)."""
    names: set[str] = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call) and ast.unparse(call.func).endswith("parametrize") and call.args:
            first = call.args[0]
            text = first.value if isinstance(first, ast.Constant) else ""
            if isinstance(first, (ast.Tuple, ast.List)):
                text = ",".join(str(e.value) for e in first.elts if isinstance(e, ast.Constant))
            names |= {n.strip() for n in str(text).split(",")}
    return names


def _suite_tests():
    """``(file, test, names its module's pytest_generate_tests parametrizes)`` of every suite."""
    for path in sorted((ROOT / "suites").glob("*/*/test_*.py")):
        if path.parent.name not in ("public", "hidden"):
            continue
        body = ast.parse(path.read_text(encoding="utf-8")).body
        generated = set().union(*(_parametrized(n) for n in body
                                  if isinstance(n, ast.FunctionDef) and n.name == "pytest_generate_tests"))
        for node in body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                yield path, node, generated


def test_the_plug_in_offers_the_fixtures_suites_are_written_with() -> None:
    assert {"student", "ref", "rng", "answers", "grading_seed", "grader_submission"} <= FIXTURES
    assert FIXTURES >= {name for name in collector._OWN}


def test_every_suite_test_asks_only_for_the_plug_ins_fixtures_or_its_own_parameters() -> None:
    seen, wrong = 0, []
    for path, node, generated in _suite_tests():
        params = generated.union(*(_parametrized(deco) for deco in node.decorator_list))
        for arg in node.args.args:
            seen += 1
            if arg.arg not in FIXTURES | params:
                wrong.append(f"{path.relative_to(ROOT)}::{node.name} asks for {arg.arg}")
    assert seen > 20 and wrong == []


@pytest.mark.parametrize("name", ["student", "rng", "answers"])
def test_each_fixture_says_what_it_gives(name: str) -> None:
    function = getattr(collector, name)
    wrapped = getattr(function, "__wrapped__", None) or getattr(function, "_get_wrapped_function", lambda: function)()
    assert inspect.getdoc(wrapped)
