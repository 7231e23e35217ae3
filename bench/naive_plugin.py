"""The naive design, for comparison only: one pytest process per submission, student code
imported straight into the test process (no sandbox, no warm worker).

Used by ``bench/run.py`` as ``python -m pytest SUITES -p naive_plugin`` with
``NAIVE_SUBMISSION=<path>``. It provides the fixtures the suites expect (``student``, ``ref``,
``rng``, ``grading_seed``, ``answers``) the simplest way: exec the student's files and call
the functions directly, converting tensors to arrays as the real channel does.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
import yaml

from grader.grading.runner import load_reference, parse_answers
from grader.ingest.submission.load import load_submission
from grader.kit.asserts import ANSWER_KEY
from grader.sandbox.session import StudentRaised

ROOT = Path(__file__).resolve().parent.parent
SEED = int(os.environ.get("NAIVE_SEED", "1"))


def _plain(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().numpy()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


class _Module:
    def __init__(self, namespace: dict[str, Any] | None, problem: BaseException | None) -> None:
        self._ns, self._problem = namespace, problem

    def __getattr__(self, name: str) -> Any:
        if self._problem is not None:
            raise StudentRaised(type(self._problem).__name__, str(self._problem))
        func = (self._ns or {}).get(name)
        if func is None:
            raise StudentRaised("AttributeError", f"no function {name}")

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return _plain(func(*args, **kwargs))
            except Exception as exc:  # noqa: BLE001 - reported to the suite as the plugin does
                bases = [c.__name__ for c in type(exc).__mro__[1:]]
                raise StudentRaised(type(exc).__name__, str(exc), "", bases) from None

        return call


class _Student:
    def __init__(self, sub: Any) -> None:
        self._parts: dict[str, _Module] = {}
        spaces: dict[str, tuple[dict[str, Any] | None, BaseException | None]] = {}
        for module in sub.modules:
            ns: dict[str, Any] = {"__name__": module.name}
            problem = None
            try:
                for chunk in module.chunks:
                    exec(compile(chunk.code, module.filename, "exec"), ns)  # noqa: S102 - the naive design
            except Exception as exc:  # noqa: BLE001
                problem = exc
            spaces[module.name] = (ns, problem)
        for part in ("scaling", "softmax", "variance"):
            key = "notebook" if sub.kind == "notebook" else part
            ns, problem = spaces.get(key, (None, FileNotFoundError(f"{part}.py")))
            self._parts[part] = _Module(ns, problem)

    def __getattr__(self, part: str) -> _Module:
        return self._parts[part]


_SUB = load_submission(os.environ["NAIVE_SUBMISSION"])
_REF: list[Any] = []


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "part(id): rubric part")
    key = yaml.safe_load((ROOT / "solutions/chapter07/answers.yaml").read_text(encoding="utf-8")) or {}
    config.stash[ANSWER_KEY] = key


@pytest.fixture(scope="session")
def student() -> _Student:
    return _Student(_SUB)


@pytest.fixture(scope="session")
def ref() -> Any:
    if not _REF:
        _REF.append(load_reference(ROOT / "solutions/chapter07"))
    return _REF[0]


@pytest.fixture
def grading_seed() -> int:
    return SEED


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> np.random.Generator:
    digest = hashlib.sha256(f"{SEED}:{request.node.name}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


@pytest.fixture(scope="session")
def answers() -> dict[str, Any]:
    return parse_answers(_SUB.answers)[0]


