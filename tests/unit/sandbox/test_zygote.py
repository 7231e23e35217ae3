"""The zygote (grader/sandbox/zygote.py) runs inside the sandbox as a plain script beside ``wire.py``:
it imports nothing of the grader package, which is not visible there, and loads with ``wire`` alone."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import grader.sandbox

ZYGOTE = Path(grader.sandbox.__file__).with_name("zygote.py")


def test_the_zygote_imports_nothing_of_the_grader_package() -> None:
    """Nothing that runs: what mypy alone reads (``if TYPE_CHECKING:``) names the package's own
    ``wire`` and ``seccomp_noproc``, the same files."""
    tree = ast.parse(ZYGOTE.read_text(encoding="utf-8"))
    for_mypy = {id(n) for block in ast.walk(tree)
                if isinstance(block, ast.If) and isinstance(block.test, ast.Name) and block.test.id == "TYPE_CHECKING"
                for stmt in block.body for n in ast.walk(stmt)}
    names: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in for_mypy:
            continue
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add("." * node.level + node.module)
    assert "wire" in names
    assert sorted(n for n in names if n.split(".")[0] in ("grader", "") or n.startswith(".")) == []


def test_the_zygote_loads_beside_wire_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))  # it puts its own folder first
    kept = {name: sys.modules.pop(name) for name in ("wire", "grader.sandbox.zygote") if name in sys.modules}
    try:
        from grader.sandbox import zygote

        assert Path(zygote.wire.__file__) == ZYGOTE.with_name("wire.py")
        assert callable(zygote.main) and zygote.MAX_MESSAGE > 0
    finally:
        for name in ("wire", "grader.sandbox.zygote"):
            sys.modules.pop(name, None)
        sys.modules.update(kept)
