"""An in-process stand-in for a worker session, for fast diagnosis tests.

It loads a submission's files in this process and answers ``call`` like
``SubmissionSession.call``: arguments and results go through :mod:`grader.wire`, so the
diagnosis sees exactly the plain data it would get from the sandbox.
"""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any

from grader import wire
from grader.sandbox.worker import StudentUnavailable
from grader.testing import StudentRaised

PARTS = ("scaling", "softmax", "variance")


class InProcessSession:
    """``call(part, func, args, kwargs)`` on modules built from source text."""

    kind = "folder"

    def __init__(self, sources: dict[str, str]) -> None:
        self.modules: dict[str, types.ModuleType] = {}
        self.calls = 0
        for part, code in sources.items():
            module = types.ModuleType(f"_inprocess_{part}")
            exec(compile(code, f"{part}.py", "exec"), module.__dict__)  # noqa: S102 - test fixtures only
            self.modules[part] = module

    @classmethod
    def from_folder(cls, folder: Path, **replace: str) -> "InProcessSession":
        sources = {p: (folder / f"{p}.py").read_text(encoding="utf-8") for p in PARTS
                   if (folder / f"{p}.py").exists()}
        sources.update(replace)
        return cls(sources)

    def module_for(self, part: str) -> dict[str, Any] | None:
        return {"name": part, "filename": f"{part}.py"} if part in self.modules else None

    def call(self, part: str, func: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        self.calls += 1
        module = self.modules.get(part)
        if module is None or not callable(getattr(module, func, None)):
            raise StudentUnavailable(f"no {func}() in {part}.py", f"{part}.py", 0)
        args = wire.decode(wire.encode(list(args)), tensors=True)
        kwargs = wire.decode(wire.encode(dict(kwargs)), tensors=True)
        try:
            value = getattr(module, func)(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - what the student raised, described
            bases = [c.__name__ for c in type(exc).__mro__[1:]]
            raise StudentRaised(type(exc).__name__, str(exc), f"{part}.py", bases) from None
        return wire.decode(wire.encode(value))
