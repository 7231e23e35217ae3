"""The package's layers: every import points down the list below, and no module imports itself back.

Each module of ``grader/`` belongs to one layer (its subpackage, or the foundation's few modules).
A module may import from its own subpackage and from any layer below its own; the layers inside
one ``{a | b}`` pair are peers and never import each other. Every import counts: at the top of a
module, inside a function (imported lazily for weight) and under ``if TYPE_CHECKING`` (mypy reads
those, and a reader must follow them all the same). No ``_private`` name crosses a module.

docs/architecture.md explains each layer; each subpackage's ``__init__.py`` lists its modules.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path


PACKAGE = Path(__file__).resolve().parents[2] / "grader"

#: The old paths that forward to a moved module for one release (grader/moved.py's OLD_PATHS).
DEPRECATED = ("grader.testing", "grader.probing", "grader.plotting", "grader.quizsuite", "grader.hooks",
              "grader.assignment", "grader.tools")

#: Bottom first. A tuple is a set of peers: one height, no arrows between them.
LAYERS: list[tuple[str, ...]] = [
    ("grader.errors", "grader.sinks", "grader.safeyaml", "grader.install", "grader.package_data", "grader.i18n"),
    ("grader.sandbox",),
    ("grader.kit",),
    ("grader.spec",),
    ("grader.report",),
    ("grader.ingest",),
    ("grader.grading",),
    ("grader.insight",),
    ("grader.outputs", "grader.engines", "grader.lms"),
    ("grader.workflows", "grader.prepare"),
    ("grader.review",),
    ("grader.cli",),
    # The front doors: the paths students, scripts and chapter authors import, and the old paths
    # of moved modules, kept for one release (grader/moved.py).
    ("grader", "grader.__main__", "grader.notebook", "grader.moved", *DEPRECATED),
]

#: Layers whose modules may import each other: the foundation's modules are one floor, and the
#: front doors all stand on everything below.
ONE_FLOOR = {LAYERS[0], LAYERS[-1]}

#: Where an import goes against the order. Empty, and it stays so.
EXCEPTIONS: set[tuple[str, str]] = set()


@dataclass(frozen=True)
class Arrow:
    """One import: from a module to a module of the package, where it is, and what it names."""

    source: str
    target: str
    line: int
    kind: str  # "top", "function" or "typing"
    names: tuple[str, ...]


def modules(package: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its ``__init__.py``)."""
    mods = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        mods[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return mods


def arrows(name: str, path: Path, known: set[str]) -> list[Arrow]:
    """Every import of ``name`` that reaches a module of the package, of every kind."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parent = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: list[Arrow] = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        kind, up = "top", parent.get(node)
        while up is not None:
            if isinstance(up, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                kind = "function"
                break
            if isinstance(up, ast.If) and "TYPE_CHECKING" in ast.unparse(up.test):
                kind = "typing"
                break
            up = parent.get(up)
        targets: list[tuple[str, tuple[str, ...]]] = []
        if isinstance(node, ast.Import):
            targets = [(a.name, ()) for a in node.names]
        else:
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - (node.level - 1)] + ([base] if base else []))
            for a in node.names:
                full = f"{base}.{a.name}"
                targets.append((full, ()) if full in known else (base, (a.name,)))
        for target, names in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.append(Arrow(name, target, node.lineno, kind, names))
    return found


@functools.lru_cache(maxsize=4)
def graph(package: Path = PACKAGE) -> list[Arrow]:
    """Every import arrow of the package (read once per run: the checks below share it)."""
    mods = modules(package)
    return [a for name, path in sorted(mods.items()) for a in arrows(name, path, set(mods))]


def layer_of(module: str) -> tuple[int, str]:
    """The height of ``module`` and the layer's name (the longest listed prefix that holds it)."""
    best: tuple[int, str] | None = None
    for height, peers in enumerate(LAYERS):
        for layer in peers:
            if (module == layer or module.startswith(layer + ".")) and (best is None or len(layer) > len(best[1])):
                best = (height, layer)
    if best is None:
        raise AssertionError(f"{module} is in no layer: add it to LAYERS in {Path(__file__).name}")
    return best


def against_the_order(arrow: Arrow) -> bool:
    (low, source), (high, target) = layer_of(arrow.source), layer_of(arrow.target)
    if source == target:
        return False
    if low == high:
        return LAYERS[low] not in ONE_FLOOR
    return high > low


def cycle(edges: dict[str, set[str]]) -> list[str]:
    """One cycle of ``edges`` as a path, or [] (depth-first search with colours)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(node: str) -> list[str]:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := walk(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return []

    for node in sorted(edges):
        if node not in state and (found := walk(node)):
            return found
    return []


def _where(arrow: Arrow) -> str:
    return f"{arrow.source} ({arrow.kind}, line {arrow.line}) imports {arrow.target}"


def test_every_module_is_in_a_layer() -> None:
    assert [m for m in modules() if not any(m == l_ or m.startswith(l_ + ".") for p in LAYERS for layer in p for l_ in [layer])] == []


def test_every_import_points_down_the_layers() -> None:
    wrong = [_where(a) for a in graph() if against_the_order(a) and (a.source, a.target) not in EXCEPTIONS]
    assert wrong == []
    assert EXCEPTIONS == set()


def test_no_import_cycle_counting_every_import() -> None:
    edges: dict[str, set[str]] = {}
    for a in graph():
        edges.setdefault(a.source, set()).add(a.target)
    assert cycle(edges) == []


def test_no_private_name_crosses_a_module() -> None:
    crossing = [f"{_where(a)}: {n}" for a in graph() for n in a.names if n.startswith("_") and not n.startswith("__")]
    private_modules = [_where(a) for a in graph() if any(p.startswith("_") and not p.startswith("__")
                                                          for p in a.target.split("."))]
    assert crossing == []
    assert private_modules == []


def test_the_checks_can_fail(tmp_path: Path) -> None:
    """A planted package: a cycle, an upward import, a private name, each found."""
    root = tmp_path / "grader"
    (root / "spec").mkdir(parents=True)
    (root / "kit").mkdir()
    for f in ("__init__.py", "spec/__init__.py", "kit/__init__.py"):
        (root / f).write_text("")
    (root / "kit" / "a.py").write_text("def f():\n    from grader.spec.b import _hidden\n")
    (root / "spec" / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from grader.kit import a\n")
    found = graph(root)
    assert [(a.source, a.target, a.kind) for a in found] == [
        ("grader.kit.a", "grader.spec.b", "function"), ("grader.spec.b", "grader.kit.a", "typing")]
    assert [against_the_order(a) for a in found] == [True, False]
    assert found[0].names == ("_hidden",)
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert against_the_order(Arrow("grader.outputs.x", "grader.engines.y", 1, "top", ()))


def test_each_subpackage_lists_its_modules() -> None:
    """Each subpackage's ``__init__.py`` opens as its table of contents: a line for every module
    (the module's name first), and no line for a module that is not there."""
    wrong = []
    for init in sorted(PACKAGE.glob("*/__init__.py")):
        if init.parent.name == "tools":  # the old paths of grader/moved.py, for one release
            continue
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        listed = {line.split()[0] for line in doc.splitlines() if line.strip() and not line.startswith((" ", "="))}
        here = {p.stem for p in init.parent.glob("*.py") if p.name != "__init__.py"}
        here |= {p.parent.name for p in init.parent.glob("*/__init__.py")}
        wrong += [f"{init.parent.name}/: {name} is not in the table" for name in sorted(here - listed)]
    assert wrong == []
