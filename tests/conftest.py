"""Shared fixtures and options for the project's own tests."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-goldens", action="store_true", default=False,
                     help="Rewrite tests/golden/* from the current output instead of comparing.")


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def rubric():
    from grader.rubric import load_rubric

    return load_rubric(ROOT / "rubrics" / "chapter07.yaml")


@pytest.fixture(scope="session")
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))


@pytest.fixture(scope="session", autouse=True)
def worker_python() -> Iterator[None]:
    """Run as root, the rlimits and subprocess levels refuse to grade where the unprivileged user
    nobody cannot read this interpreter (a Python under a root-only home): their workers then
    get one every user can read (``GRADER_WORKER_PYTHON``), with this one's packages."""
    if os.name != "posix" or os.geteuid() != 0 or os.environ.get("GRADER_WORKER_PYTHON"):
        yield
        return
    from tests.public_python import public_python

    base = Path(tempfile.mkdtemp(prefix="grader-worker-python-"))
    os.chmod(base, 0o755)
    try:
        python = public_python(base)
        if python is not None and python != sys.executable:
            os.environ["GRADER_WORKER_PYTHON"] = python
        yield
    finally:
        os.environ.pop("GRADER_WORKER_PYTHON", None)
        shutil.rmtree(base, ignore_errors=True)


def _english_left(text: str) -> list[str]:
    """The grader's own English sentences (fixed parts of three words or more) found in ``text``:
    a Japanese page must show each of them in Japanese. Student text cannot trip it up unless
    it quotes the grader word for word."""
    import re
    import string

    from grader import messages
    from grader.report import _text

    fixed: set[str] = set()
    english = [*messages.table(), *(w["en"] for w in _text.LABELS.values())]
    for sentence in english:
        for literal, *_ in string.Formatter().parse(sentence):
            chunk = " ".join(literal.split())
            if len(chunk.split()) >= 3 and re.search(r"[a-z]{3,} [a-z]{3,}", chunk):
                fixed.add(chunk)
    flat = " ".join(text.replace("\\", "").split())
    return sorted(chunk for chunk in fixed if chunk in flat)


@pytest.fixture(scope="session")
def english_left():
    """``english_left(text) -> [English sentence fragments of the grader's found in text]``."""
    return _english_left
