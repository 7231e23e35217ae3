"""``grader batch`` at the ``subprocess`` sandbox level, forced on Linux: refused without the flag,
graded and reported as weakened with it."""

from __future__ import annotations

import os
import subprocess
import sys

import yaml

from tests.helpers import ROOT


def test_batch_refuses_the_level_without_the_flag_and_reports_it_with_it(root, tmp_path):
    src = tmp_path / "src"
    (src / "alice").mkdir(parents=True)
    for f in (ROOT / "examples" / "submissions" / "correct").iterdir():
        (src / "alice" / f.name).write_bytes(f.read_bytes())
    env = {**os.environ, "GRADER_SANDBOX": "subprocess"}

    def batch(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "grader", "batch", str(src), "--out",
                               str(tmp_path / "out"), "--no-progress", "-j", "1", *args],
                              cwd=root, capture_output=True, text=True, timeout=300, env=env)

    refused = batch()
    assert refused.returncode == 2, refused.stderr
    assert "allow-weak-sandbox" in refused.stderr and "subprocess" in refused.stderr
    assert not (tmp_path / "out" / "gradebook.csv").exists()

    done = batch("--allow-weak-sandbox", "--lang", "en")
    assert done.returncode == 0, done.stderr
    assert "warning" in done.stderr and "one plain process per submission" in done.stderr
    [path] = (tmp_path / "out" / "reports").glob("*.yaml")
    report = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert report["sandbox"]["level"] == "subprocess"
    assert "weakened on request" in report["sandbox"]["warning"]
    assert report["score"] == report["max_score"] > 0
