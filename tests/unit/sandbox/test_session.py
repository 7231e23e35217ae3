"""The package's import graph: no module imports, at load time, a module that imports it back.

Modules import each other at the top only downwards (a stage imports the stages before it and
the shared floors: errors, sinks, report model); imports inside functions are how a lower
module reaches a higher one when it must, lazily. A cycle among top-level imports makes the
import order decide what exists, which is how partly-initialised modules break at random.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "grader"


def _modules() -> dict[str, Path]:
    mods = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        mods[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return mods


def _top_level_imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Modules of the package that ``name`` imports when it loads (not in functions, not
    under ``if TYPE_CHECKING``)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            names: list[str] = []
            if isinstance(child, ast.Import):
                names = [a.name for a in child.names]
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    base = ".".join(package[: len(package) - (child.level - 1)] + ([base] if base else []))
                names = [base, *(f"{base}.{a.name}" for a in child.names)]
            for each in names:
                while each and each not in known:
                    each = each.rpartition(".")[0]
                if each and each != name:
                    found.add(each)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of ``graph`` as a path, or [] (depth-first search with colours)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(node: str) -> list[str]:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := walk(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state and (found := walk(node)):
            return found
    return []


def test_no_cycle_among_top_level_imports() -> None:
    mods = _modules()
    graph = {name: _top_level_imports(name, path, set(mods)) for name, path in mods.items()}
    assert _cycle(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    """The check above can fail: a planted cycle is found."""
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]


def test_the_batch_stages_import_downwards_only() -> None:
    """discovery → outdir; gradebook → discovery, outdir; batch → all three and the pool."""
    mods = _modules()
    imports = {name: _top_level_imports(name, mods[name], set(mods)) for name in mods}
    assert "grader.workflows.batch" not in set().union(*(imports[m] for m in
                                                 ("grader.ingest.discovery", "grader.report.outdir", "grader.outputs.gradebook", "grader.engines.local_pool")))
    assert {"grader.ingest.discovery", "grader.report.outdir", "grader.outputs.gradebook", "grader.engines.local_pool"} <= imports["grader.workflows.batch"]
    assert "grader.outputs.gradebook" not in imports["grader.ingest.discovery"] | imports["grader.report.outdir"]


def test_the_sandbox_session_meets_its_protocol() -> None:
    """The session the worker gives out has every member the Session protocol names."""
    from grader.sandbox.session import Session
    from grader.sandbox.worker import SubmissionSession

    members = [n for n in ("call", "module_for", "load_error", "close") if not callable(getattr(SubmissionSession, n, None))]
    assert members == []
    assert set(Session.__annotations__) == {"kind", "load_report", "events", "enforced"}
