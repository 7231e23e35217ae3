"""`grader check --watch`, run as a student runs it: a real process, real saves, Ctrl-C.

No timing is asserted (generous deadlines only); bench/notebook_latency.py measures it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.ctrl_c import DUMPING_ENV, ctrl_c
from tests.helpers import EXAMPLES, ROOT, alive, children, descendants


class _Output:
    """The watcher's stdout, read without blocking as it grows."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.text = ""
        assert proc.stdout is not None
        os.set_blocking(proc.stdout.fileno(), False)

    def drain(self) -> str:
        """What arrived since the last read (also added to ``text``)."""
        assert self.proc.stdout is not None
        try:
            chunk = (self.proc.stdout.read() or b"").decode("utf-8", "replace")
        except ValueError:  # closed
            return ""
        self.text += chunk
        return chunk

    def wait_for(self, needle: str, start: int = 0, timeout: float = 300) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc.stdout is not None
            chunk = self.drain()
            at = self.text.find(needle, start)
            if at >= 0:
                return at
            if self.proc.poll() is not None and not chunk:
                break
            time.sleep(0.1)
        raise AssertionError(f"{needle!r} never appeared; output so far:\n{self.text[-3000:]}")


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads the process tree from /proc")
def test_watch_rechecks_on_save_prints_only_changes_and_stops_cleanly(tmp_path: Path) -> None:
    work = tmp_path / "my_work"
    shutil.copytree(EXAMPLES / "sqrt-d-model", work)
    env = {**{k: v for k, v in os.environ.items() if k != "GRADER_LANG"}, **DUMPING_ENV}
    proc = subprocess.Popen(
        [sys.executable, "-m", "grader", "check", "--watch", str(work), "--lang", "en",
         "--rubric", str(ROOT / "rubrics" / "chapter07.yaml")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=tmp_path,
    )
    out = _Output(proc)
    try:
        first = out.wait_for("Watching")
        assert "[sqrt-d-model]" in out.text[:first] and "27.71" in out.text[:first]
        helpers = descendants(proc.pid)
        checker = children(proc.pid)
        assert checker, "the watcher keeps a warm checker process"

        # The student fixes scaling.py and saves it.
        (work / "scaling.py").write_text((EXAMPLES / "correct" / "scaling.py").read_text(encoding="utf-8"),
                                         encoding="utf-8")
        at = out.wait_for("scaling.py saved", first)
        end = out.wait_for("score: 32 → 35 / 35", at)
        changed = out.text[at:end]
        assert "mistake fixed [sqrt-d-model]" in changed
        assert "now passes" in changed
        # Only what changed: tests that passed before and still pass are not listed again.
        assert "softmax" not in changed.lower()
        assert children(proc.pid) == checker, "the same checker answered (no new start)"

        # A save that breaks a function shows as newly failing.
        broken = (EXAMPLES / "correct" / "softmax.py").read_text(encoding="utf-8").replace(
            "def softmax(", "def softmax_renamed(", 1)
        (work / "softmax.py").write_text(broken, encoding="utf-8")
        at2 = out.wait_for("softmax.py saved", end)
        out.wait_for("no longer passes", at2)
    finally:
        code = ctrl_c(proc, out.drain)
    assert code == 0, out.text[-2000:]
    assert "Traceback" not in out.text
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(alive(p) for p in helpers):
        time.sleep(0.2)
    assert not [p for p in helpers if alive(p)], "the checker or its sandbox outlived Ctrl-C"


def test_watch_refuses_report_files(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "grader", "check", "--watch", str(EXAMPLES / "correct"),
         "--rubric", str(ROOT / "rubrics" / "chapter07.yaml"), "--out", str(tmp_path / "r.yaml")],
        capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 2
    assert "--watch" in run.stderr and not (tmp_path / "r.yaml").exists()


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_watch_on_a_terminal_shows_a_hostile_file_name_as_text(tmp_path: Path) -> None:
    """A file saved under a name made of terminal escapes, bidi overrides and rich markup is
    printed by ``--watch`` on a real (pseudo-)terminal as visible escapes, never acted on."""
    work = tmp_path / "my_work"
    shutil.copytree(EXAMPLES / "correct", work)
    master, slave = os.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("GRADER_LANG", "NO_COLOR")}
    env.update(TERM="xterm-256color", COLUMNS="400", FORCE_COLOR="1", **DUMPING_ENV)
    proc = subprocess.Popen(
        [sys.executable, "-m", "grader", "check", "--watch", str(work), "--lang", "en",
         "--rubric", str(ROOT / "rubrics" / "chapter07.yaml")],
        stdin=slave, stdout=slave, stderr=slave, env=env, cwd=tmp_path, start_new_session=True,
    )
    os.close(slave)
    os.set_blocking(master, False)
    seen = b""

    def read() -> bytes | None:
        """What the terminal shows since the last read; None once it closed."""
        nonlocal seen
        try:
            chunk = os.read(master, 65536)
        except BlockingIOError:
            chunk = b""
        except OSError:  # the terminal closed: the watcher has ended
            return None
        seen += chunk
        return chunk

    def drain() -> str:
        chunk = read()
        return (chunk or b"").decode("utf-8", "replace")

    def wait_for(needle: bytes, start: int = 0, timeout: float = 300) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            chunk = read()
            if chunk is None:
                break
            at = seen.find(needle, start)
            if at >= 0:
                return at
            if not chunk:
                time.sleep(0.1)
        raise AssertionError(f"{needle!r} never appeared; output so far:\n{seen[-3000:]!r}")

    # an OSC title change + a bell, a cursor move, rich markup, a right-to-left override
    hostile = "x\x1b]0;pwned\x07\x1b[2J[bold red]boom[blink]\u202etxt.py"
    try:
        first = wait_for(b"Watching")
        (work / hostile).write_text("VALUE = 1\n", encoding="utf-8")
        at = wait_for(b"saved: checked again", first)
    finally:
        try:
            ctrl_c(proc, drain, group=True)  # Ctrl-C on the terminal: stops the warm checker too
        finally:
            os.close(master)
    line = seen[seen.rfind(b"\n", 0, at) + 1:at].decode("utf-8", "replace")
    # the name shows as text: escapes made visible, markup literal, no override
    assert "x\\x1b]0;pwned\\x07\\x1b[2J[bold red]boom[blink]\\u202etxt.py" in line, line
    # and nothing of it reached the terminal raw (rich's own colour codes are ESC [ ... m only)
    assert b"\x1b]" not in seen and b"\x07" not in seen and b"\x1b[2J" not in seen
    assert "\u202e".encode() not in seen
    assert b"pwned" in seen  # (the control: the name was printed)


#: The score line of the check's table, as the student reads it ("32 / 35").
TABLE_SCORE = re.compile(r"Score\s*│\s*([\d.]+ / [\d.]+)")


def _wide_english_env() -> dict[str, str]:
    """The environment without a language of its own, and wide enough for the table on one line."""
    return {**{k: v for k, v in os.environ.items() if k != "GRADER_LANG"}, "COLUMNS": "200", **DUMPING_ENV}


def _checked_score(work: Path) -> str:
    """``grader check``'s score for ``work``, from its table."""
    run = subprocess.run(
        [sys.executable, "-m", "grader", "check", str(work), "--lang", "en",
         "--rubric", str(ROOT / "rubrics" / "chapter07.yaml")],
        capture_output=True, text=True, timeout=300, cwd=work.parent, env=_wide_english_env(),
    )
    found = TABLE_SCORE.search(run.stdout)
    assert found, run.stdout[-3000:] + run.stderr[-2000:]
    return found.group(1)


def test_watch_grades_the_work_check_grades_notebook_py_or_both(tmp_path: Path) -> None:
    """``grader check --watch`` reads the work as ``grader check`` does: in the handed-out folder,
    a student who filled in only the notebook is checked on the notebook (not the untouched .py
    stubs), one who edited .py files on those, and one who touched both on the .py files."""
    import nbformat

    from grader.prepare.build_notebook import build

    work = tmp_path / "chapter07"
    shutil.copytree(ROOT / "exercises" / "chapter07", work)
    handed_out = (work / "chapter07.ipynb").read_bytes()
    nbformat.write(build(EXAMPLES / "correct", EXAMPLES / "correct" / "answers.yaml"), str(work / "chapter07.ipynb"))
    expected = {"notebook only": _checked_score(work)}
    assert expected["notebook only"] == "35 / 35", "the notebook is graded, not the stubs"

    proc = subprocess.Popen(
        [sys.executable, "-m", "grader", "check", "--watch", str(work), "--lang", "en",
         "--rubric", str(ROOT / "rubrics" / "chapter07.yaml")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=_wide_english_env(), cwd=tmp_path,
    )
    out = _Output(proc)
    watched: dict[str, str] = {}
    try:
        first = out.wait_for("Watching")
        found = TABLE_SCORE.search(out.text[:first])
        assert found, out.text[:first]
        watched["notebook only"] = found.group(1)
        at = first
        saves = (  # then edits scaling.py (the sqrt(d_model) mistake): both changed, the .py files graded
            ("both", lambda: (work / "scaling.py").write_text(
                (EXAMPLES / "sqrt-d-model" / "scaling.py").read_text(encoding="utf-8"), encoding="utf-8")),
            # and puts the notebook back as handed out: only the .py files changed
            ("py only", lambda: (work / "chapter07.ipynb").write_bytes(handed_out)),
        )
        for state, save in saves:
            save()
            at = out.wait_for(" saved", at)
            end = out.wait_for(" / 35", at)
            line = out.text[at:out.text.index("\n", end)]
            score = re.search(r"(?:→ |score )([\d.]+ / [\d.]+)", line)
            assert score, line
            watched[state] = score.group(1)
            expected[state] = _checked_score(work)
            at = end
    finally:
        ctrl_c(proc, out.drain)
    assert watched == expected, out.text[-3000:]
    assert watched["both"] != watched["notebook only"]
