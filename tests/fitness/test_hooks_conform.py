"""mypy holds each chapter's hooks file to the hooks' types, through suites/hooks_conform.py.

The check file is written by ``grader new`` (:func:`grader.prepare.scaffold.write_hooks_check`)
and read by mypy (``make lint``): it must be up to date with the chapters, and a hooks file with
a wrong signature must fail it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from grader.kit.hooks import conformance_check
from grader.prepare.scaffold import HOOKS_CHECK, write_hooks_check

from tests.helpers import ROOT


def test_the_check_file_names_every_chapter_and_is_up_to_date(tmp_path: Path) -> None:
    chapters = sorted(p.parent.parent.name for p in (ROOT / "suites").glob("*/plugin/hooks.py"))
    assert chapters == ["chapter07", "chapter08"]
    shutil.copytree(ROOT / "suites", tmp_path / "suites", ignore=shutil.ignore_patterns("__pycache__"))
    written = write_hooks_check(tmp_path)
    assert written.read_text(encoding="utf-8") == (ROOT / HOOKS_CHECK).read_text(encoding="utf-8")
    for chapter in chapters:
        assert f"suites.{chapter}.plugin.hooks" in written.read_text(encoding="utf-8")


def test_the_check_names_only_the_hooks_a_file_defines(tmp_path: Path) -> None:
    hooks = tmp_path / "hooks.py"
    hooks.write_text("RECOGNISERS = {}\ndef figures(plots, languages):\n    return []\n", encoding="utf-8")
    text = conformance_check({"suites.x.plugin.hooks": str(hooks)})
    assert "hooks.HooksModule" in text and "hooks.HasFigures" in text
    assert "HasOracle" not in text and "HasPlotData" not in text


def test_a_wrong_hook_signature_fails_mypy(tmp_path: Path) -> None:
    """``figures(plots)`` without ``languages``: mypy says so at the check file's line."""
    plugin = tmp_path / "suites" / "chapter99" / "plugin"
    plugin.mkdir(parents=True)
    (plugin / "hooks.py").write_text(
        "from __future__ import annotations\n\n"
        "from grader.kit import Figure, Finding, Probe\n\n\n"
        "def _nothing(p: Probe) -> list[Finding]:\n    return []\n\n\n"
        "RECOGNISERS = {'f': _nothing}\n\n\n"
        "def figures(plots: dict[str, object]) -> list[Figure]:\n    return []\n", encoding="utf-8")
    check = write_hooks_check(tmp_path)
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--explicit-package-bases", "--follow-imports=silent",
         "--cache-dir", str(ROOT / ".mypy_cache"), str(check.relative_to(tmp_path)), "suites/chapter99/plugin"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
        env={"MYPYPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 1, run.stdout + run.stderr
    assert 'variable has type "HasFigures"' in run.stdout, run.stdout
    assert run.stdout.count("error:") == 1, run.stdout
