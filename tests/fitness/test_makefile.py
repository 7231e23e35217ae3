"""`make demo` needs nothing it does not use, and an apt that fails is a note, not a stop.

Make runs the project's real Makefile with a PATH that holds the shell tools but no bubblewrap,
no chromium and no Japanese font, and an ``apt-get`` that fails the way a held lock makes it fail.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import ROOT


MAKE = shutil.which("make")

pytestmark = pytest.mark.skipif(MAKE is None, reason="needs make")

_FAILING_APT = """#!/bin/sh
echo "$*" >> "$APT_LOG"
[ "$1" = update ] && exit 0
echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (apt-get)" >&2
exit 100
"""


def _bare_path(tmp: Path) -> dict[str, str]:
    """An environment whose PATH has the tools the recipes use, none of the packages they
    install, and a failing apt-get."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    for tool in ("sh", "id", "grep", "cat"):
        found = shutil.which(tool)
        assert found, tool
        (bin_dir / tool).symlink_to(found)
    apt = bin_dir / "apt-get"
    apt.write_text(_FAILING_APT, encoding="utf-8")
    apt.chmod(0o755)
    return {**os.environ, "PATH": str(bin_dir), "APT_LOG": str(tmp / "apt.log")}


def _make(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    assert MAKE is not None
    return subprocess.run([MAKE, "--no-print-directory", "-C", str(ROOT), *args], env=env, text=True,
                          capture_output=True, timeout=120)


def test_the_demo_asks_for_no_browser() -> None:
    """What `make demo` would run names no browser or font; `make test` still gets them."""
    env = {**os.environ}
    demo = _make("-n", "-W", "pyproject.toml", "demo", env=env)
    assert demo.returncode == 0, demo.stderr
    assert "bubblewrap" in demo.stdout and "grader batch examples/submissions" in demo.stdout
    assert "chromium" not in demo.stdout and "fonts-" not in demo.stdout
    test = _make("-n", "test", env=env)
    assert "chromium" in test.stdout and "fonts-ipafont-gothic" in test.stdout


def test_an_apt_failure_is_a_note_and_make_goes_on(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("the recipes call apt only as root")
    env = _bare_path(tmp_path)
    for target, packages, why in (("system-deps", " bubblewrap", "the full sandbox"),
                                  ("browser-deps", " chromium fonts-ipafont-gothic zip openssl", "the browser tests")):
        run = _make(target, env=env)
        assert run.returncode == 0, (target, run.stdout, run.stderr)
        assert f"installing:{packages}" in run.stdout
        assert f"note: apt could not install{packages}; going on without" in run.stdout
        assert why in run.stdout
    # apt was really asked, and only for what was missing.
    asked = (tmp_path / "apt.log").read_text(encoding="utf-8").splitlines()
    assert [x.split()[0] for x in asked] == ["update", "install", "update", "install"]
    assert asked[1].split()[-1:] == ["bubblewrap"] and asked[3].split()[-4:] == ["chromium", "fonts-ipafont-gothic", "zip", "openssl"]
