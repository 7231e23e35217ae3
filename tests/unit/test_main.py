"""``python -m grader`` (grader/__main__.py) is the ``grader`` command. The public names of the
three front doors are checked in tests/fitness/test_public_api.py."""

from __future__ import annotations

import importlib.util
import sys

import pytest


def test_python_m_grader_is_the_grader_command(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m grader`` runs the ``grader`` command (here ``--version``)."""
    monkeypatch.setattr(sys, "argv", ["grader", "--version"])
    monkeypatch.delitem(sys.modules, "grader.__main__", raising=False)
    with pytest.raises(SystemExit) as done:
        import grader.__main__  # noqa: F401  (importing it runs the command, as python -m does)
    assert done.value.code == 0
    assert "version" in capsys.readouterr().out
    sys.modules.pop("grader.__main__", None)
    assert importlib.util.find_spec("grader.__main__") is not None
