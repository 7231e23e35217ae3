"""Choosing the sandbox level (grader/sandbox/level.py): the strongest the machine offers, a weak one
only when allowed and always with its warning, and never a weak one as a user who can read secrets."""

from __future__ import annotations

import os

import pytest

from grader.errors import SandboxRefused, UsageError
from grader.sandbox import backends, level


def test_namespaces_when_they_can_be_built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(backends, "namespaces_available", lambda: (True, ""))
    assert level.choose_level(allow_weak=False, prefer=None) == ("namespaces", "")
    assert level.weak_warning("namespaces") == ""


def test_rlimits_only_when_allowed_and_with_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(backends, "namespaces_available", lambda: (False, "no bwrap here"))
    monkeypatch.delenv("GRADER_SANDBOX", raising=False)
    chosen, warning = level.choose_level(allow_weak=True)
    assert chosen == "rlimits" and "no bwrap here" in warning
    with pytest.raises(UsageError, match="no bwrap here"):
        level.choose_level(allow_weak=False)
    with pytest.raises(UsageError):
        level.choose_level(prefer="namespaces")


def test_a_weak_level_asked_for_says_so_and_needs_the_flag() -> None:
    chosen, warning = level.choose_level(prefer="subprocess")
    assert chosen == "subprocess" and warning
    with pytest.raises(UsageError):
        level.choose_level(allow_weak=False, prefer="subprocess")
    with pytest.raises(UsageError, match="'bogus'"):
        level.choose_level(prefer="bogus")
    assert level.weak_warning("subprocess")


def test_the_environment_names_the_level(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADER_SANDBOX", " Subprocess ")
    assert level.choose_level()[0] == "subprocess"


def test_a_weak_level_as_a_user_who_can_read_a_secret_is_refused(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = tmp_path / "hidden"
    secret.write_text("", encoding="utf-8")
    level.require_other_user("namespaces", [secret])  # namespaces keep it out of reach
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(SandboxRefused, match=str(secret)):
        level.require_other_user("rlimits", [secret])
    level.require_other_user("rlimits", [tmp_path / "no-such-file"])
