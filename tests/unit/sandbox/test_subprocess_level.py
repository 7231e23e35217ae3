"""The ``subprocess`` sandbox level (the Windows fallback), forced here on Linux.

Real processes throughout: one fresh interpreter per submission, talking over its stdin and
stdout. Only the level *choice* is checked with ``os.fork`` taken away; the grading itself
runs the same code path Windows would (no fork, no inherited pipes, no select on pipes).
The attacks graded at this level are in ``tests/journeys/test_attacks.py`` (``subprocess`` column).
"""

from __future__ import annotations

import os
import tempfile
import textwrap
from typing import Any

import pytest

from grader.errors import UsageError, WorkerCrashed
from grader.sandbox import backends, level
from grader.sandbox.limits import Limits
from grader.sandbox.spawn import SpawnWorker, worker_for
from grader.sandbox.session import StudentTimeout

from tests.helpers import ROOT, alive


pytestmark = pytest.mark.slow

# Room for a fresh interpreter's torch import on a busy machine; the one hang waits it once.
LIMITS = Limits(per_call_s=10, per_submission_s=120, memory_mb=1024, cpu_s=30, file_size_mb=16,
                    scratch_mb=32, output_kb=16, processes=1)


def sub(**files: str) -> dict[str, Any]:
    """A folder submission from {module name: source}."""
    return {"kind": "folder", "modules": [
        {"name": name, "filename": f"{name}.py",
         "chunks": [{"code": textwrap.dedent(code), "label": f"{name}.py", "first_line": 1}]}
        for name, code in files.items()]}


def _children() -> set[int]:
    """Live (non-zombie) processes whose parent is this test process."""
    out = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == os.getpid() and fields[0] != "Z":
            out.add(int(entry))
    return out


def _scratch_dirs() -> set[str]:
    return {e for e in os.listdir(tempfile.gettempdir()) if e.startswith("grader-spawn-")}


# --------------------------------------------------------------------------- choosing it


def test_without_fork_the_subprocess_level_is_chosen_with_a_warning(monkeypatch):
    monkeypatch.delenv("GRADER_SANDBOX", raising=False)
    monkeypatch.delattr(os, "fork")
    chosen, warning = level.choose_level(allow_weak=True)
    assert chosen == "subprocess"
    assert "fork" in warning and "no filesystem or network isolation" in warning
    assert level.weak_warning("subprocess") == warning
    with pytest.raises(UsageError, match="allow-weak-sandbox"):
        level.choose_level(allow_weak=False)  # what grader batch asks for without the flag
    with pytest.raises(UsageError, match="namespace"):
        level.choose_level(prefer="namespaces")
    assert level.choose_level(prefer="rlimits")[0] == "subprocess"  # rlimits forks too


def test_the_level_can_be_asked_for_anywhere_and_weak_levels_stay_refusable(monkeypatch):
    monkeypatch.setenv("GRADER_SANDBOX", "subprocess")
    chosen, warning = level.choose_level()
    assert chosen == "subprocess" and "on request" in warning
    with pytest.raises(UsageError, match="allow-weak-sandbox"):
        level.choose_level(allow_weak=False)
    monkeypatch.setenv("GRADER_SANDBOX", "rlimits")
    with pytest.raises(UsageError, match="allow-weak-sandbox"):
        level.choose_level(allow_weak=False)
    monkeypatch.setenv("GRADER_SANDBOX", "chroot")
    with pytest.raises(UsageError, match="unknown sandbox level"):
        level.choose_level()
    monkeypatch.delenv("GRADER_SANDBOX")
    assert level.choose_level(prefer="subprocess")[0] == "subprocess"
    assert isinstance(worker_for("subprocess"), SpawnWorker)  # (tests/unit/sandbox/test_spawn.py: the rest)


def test_the_environment_is_cleared_and_each_process_has_its_own_scratch(monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_should_never_travel")
    launch = backends.launch("subprocess", 8)
    try:
        assert launch.level == "subprocess"
        assert "GITHUB_TOKEN" not in launch.env and launch.env["HOME"] == launch.scratch
        assert launch.cleanup == [launch.scratch] and os.path.isdir(launch.scratch)
        assert "-I" in launch.argv
    finally:
        for path in launch.cleanup:
            os.rmdir(path)
    described = backends.describe("subprocess")
    assert "NOT isolated" in described["network"] and "NOT isolated" in described["filesystem"]


# --------------------------------------------------------------------------- the worker


def test_hangs_exits_prints_and_floods_cost_one_call_and_leave_nothing(monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_should_never_travel")
    code = """
        import os, sys

        def probe():
            print("hello from the student")
            os.write(1, b"raw bytes on fd 1\\n")
            fds = sorted(int(f) for f in os.listdir("/proc/self/fd"))
            return {"cwd": os.getcwd(), "token": os.environ.get("GITHUB_TOKEN"), "fds": fds,
                    "pid": os.getpid(), "files": sorted(os.listdir("."))}

        def hang():
            while True:
                pass

        def leave():
            os._exit(3)

        def flood():
            while True:
                print("x" * 100000)

        def add(a, b):
            return a + b
        """
    before_dirs, before_kids = _scratch_dirs(), _children()
    worker = SpawnWorker(level="subprocess", limits=LIMITS).start()
    pids, cwds = [], []
    try:
        session = worker.open(sub(a=code))
        seen = session.call("a", "probe", [], {})
        pids.append(seen["pid"])
        cwds.append(seen["cwd"])
        assert seen["token"] is None
        assert seen["files"] == ["a.py"]  # the submission's files, written into its scratch
        assert os.path.basename(os.path.dirname(seen["cwd"])).startswith("grader-spawn-")
        assert len(seen["fds"]) <= 6  # 0-2, the two frame copies, listdir's own: nothing inherited
        assert session.enforced["address_space_bytes"] > 0  # rlimits where the platform has them
        assert "not counted" in session.enforced["processes"]
        with pytest.raises(StudentTimeout, match="per-call limit"):
            session.call("a", "hang", [], {})
        assert not alive(pids[-1]) and not os.path.exists(cwds[-1])
        assert session.call("a", "add", [2, 3], {}) == 5  # a fresh process took over
        with pytest.raises(WorkerCrashed, match="exit status 3"):
            session.call("a", "leave", [], {})
        with pytest.raises(WorkerCrashed, match="printed more than"):
            session.call("a", "flood", [], {})
        again = session.call("a", "probe", [], {})
        assert again["pid"] != pids[0]
        pids.append(again["pid"])
        output = session.close()
        assert "hello from the student" in output and "raw bytes on fd 1" in output
        assert "more bytes of output dropped" in output
        assert len(output) < 4 * LIMITS.output_kb * 1024
        assert not any(alive(pid) for pid in pids)
        assert not os.path.exists(again["cwd"])

        # the next submission on the same worker is unaffected
        nxt = worker.open(sub(b="def f(x):\n    return x * 2\n"))
        assert nxt.call("b", "f", [21], {}) == 42
        assert nxt.close() == ""
    finally:
        worker.stop()
    assert _children() - before_kids == set()  # the spare went with the worker
    assert _scratch_dirs() - before_dirs == set()


def test_a_file_that_ends_the_process_at_import_costs_only_that_file():
    before = _children()
    worker = SpawnWorker(level="subprocess", limits=LIMITS)
    worker.prespawn = False  # one process at a time, as on a small machine
    with worker:
        session = worker.open(sub(a="import os\nos._exit(0)\n", b="def f():\n    return 'ok'\n"))
        assert session.call("b", "f", [], {}) == "ok"
        assert session.load_error("a")["type"] == "crash"
        session.close()
        assert _children() - before == set()  # no spare is kept without prespawn
    assert _children() - before == set()


# --------------------------------------------------------------------------- whole grading


def _key(report: Any) -> list[tuple[str, str, float]]:
    return [(t.id, t.status.value, t.score) for t in report.tests]


def test_the_correct_example_scores_the_same_as_at_the_strongest_level(rubric, monkeypatch):
    from grader.grading.runner import grade
    from grader.ingest.submission.load import load_submission

    monkeypatch.delenv("GRADER_SANDBOX", raising=False)
    before_dirs, before_kids = _scratch_dirs(), _children()
    correct = load_submission(ROOT / "examples" / "submissions" / "correct")
    stub = load_submission(ROOT / "examples" / "submissions" / "untouched-stub")
    strongest, _ = level.choose_level()  # namespaces wherever bubblewrap works, as here in CI
    [reference] = grade(rubric, [correct], seed=11, level=strongest)
    weak = grade(rubric, [correct, stub, correct], seed=11, level="subprocess")
    assert reference.score == reference.max_score > 0
    for report in (weak[0], weak[2]):
        assert _key(report) == _key(reference)
        assert (report.score, report.max_score) == (reference.score, reference.max_score)
    assert weak[1].score < weak[1].max_score
    sandbox = weak[0].sandbox
    assert sandbox["level"] == "subprocess"
    assert "weakened on request" in sandbox["warning"]
    assert sandbox["limits"]["per_call_s"] == rubric.limits.per_call_s
    assert "NOT isolated" in sandbox["isolation"]["network"]
    assert "wall clock and output" in sandbox["isolation"]["limits"]
    assert "address_space_bytes" in sandbox["enforced"]
    assert _children() - before_kids == set()
    assert _scratch_dirs() - before_dirs == set()


def test_a_process_that_cannot_start_fails_the_submission_with_its_reason(monkeypatch, tmp_path):
    broken = tmp_path / "zygote.py"
    broken.write_text("import sys\nsys.stderr.write('no torch on this machine\\n')\nsys.exit(1)\n")
    monkeypatch.setattr(backends, "ZYGOTE", broken)
    before = _children()
    worker = SpawnWorker(level="subprocess", limits=LIMITS)
    with pytest.raises(WorkerCrashed, match="no torch on this machine"):
        worker.start()
    session = worker.open(sub(a="def f():\n    return 1\n"))
    assert session.load_error("a")["type"] == "crash"
    assert "no torch on this machine" in session.events[-1]
    with pytest.raises(Exception, match="no torch on this machine"):
        session.call("a", "f", [], {})
    session.close()
    worker.stop()
    assert _children() - before == set()
