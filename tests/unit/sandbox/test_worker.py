"""The sandbox's own promises, checked one by one through the worker (see docs/security.md).

Attacks as whole submissions are in ``tests/journeys/test_attacks.py``; here each limit and each piece of
isolation is exercised directly, with arguments the test derives (real host paths, a port
it listens on) passed into the student's function.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from grader.errors import UsageError, WorkerCrashed
from grader.sandbox import backends, seccomp_noproc
from grader.sandbox.limits import Limits
from grader.sandbox.session import StudentTimeout, StudentUnavailable
from grader.sandbox.worker import Worker
from grader.sandbox.session import StudentRaised

from tests.helpers import ROOT, descendants, zygote_pid


LINUX = sys.platform.startswith("linux")
# Ample wall-clock room: these tests are about isolation, not speed, and must pass on a busy
# machine. The tests about time limits set their own.
LIMITS = Limits(per_call_s=60, per_submission_s=300, memory_mb=1024, cpu_s=60, file_size_mb=16,
                    scratch_mb=32, output_kb=16, processes=1)


def namespaces() -> None:
    ok, why = backends.namespaces_available()
    if not ok:
        if os.environ.get("CI"):
            pytest.fail(f"CI must be able to build the namespace sandbox: {why}")
        pytest.skip(why)


def sub(**files: str) -> dict[str, Any]:
    """A folder submission from {module name: source}."""
    return {"kind": "folder", "modules": [
        {"name": name, "filename": f"{name}.py",
         "chunks": [{"code": textwrap.dedent(code), "label": f"{name}.py", "first_line": 1}]}
        for name, code in files.items()]}


def call(worker: Worker, code: str, func: str = "f", *args: Any, limits: Limits | None = None) -> Any:
    session = worker.open(sub(a=code), limits)
    try:
        return session.call("a", func, list(args), {})
    finally:
        session.close()


@pytest.fixture(scope="module")
def ns_worker():
    namespaces()
    with Worker(level="namespaces", limits=LIMITS) as worker:
        yield worker


@pytest.fixture(scope="module")
def rl_worker():
    if not LINUX:
        pytest.skip("the rlimits worker forks; these checks are for POSIX")
    with Worker(level="rlimits", limits=LIMITS) as worker:
        yield worker


@pytest.fixture(params=["namespaces", "rlimits"])
def worker(request):
    return request.getfixturevalue("ns_worker" if request.param == "namespaces" else "rl_worker")


# --------------------------------------------------------------------------- choosing a level


def test_weak_mode_is_refused_unless_allowed(monkeypatch):
    from grader.grading import runner

    monkeypatch.setattr(backends, "namespaces_available", lambda: (False, "bwrap is not installed"))
    with pytest.raises(UsageError, match="allow-weak-sandbox"):
        runner.choose_level(allow_weak=False)
    with pytest.raises(UsageError, match="bwrap is not installed"):
        runner.choose_level(prefer="namespaces")
    level, warning = runner.choose_level(allow_weak=True)
    assert level == "rlimits" and "weak sandbox" in warning and "bwrap is not installed" in warning


def test_namespaces_are_chosen_where_they_work():
    from grader.grading import runner

    namespaces()
    assert runner.choose_level(allow_weak=False) == ("namespaces", "")


def test_a_weak_report_says_so_and_states_its_limits(tmp_path):
    from grader.spec.rubric.load import load_rubric
    from grader.grading.runner import grade
    from grader.ingest.submission.load import load_submission

    rubric = load_rubric(ROOT / "rubrics" / "chapter07.yaml")
    [report] = grade(rubric, [load_submission(ROOT / "examples" / "submissions" / "correct")],
                     suites=("public",), seed=3, level="rlimits")
    assert report.sandbox["level"] == "rlimits"
    assert "weak" in report.sandbox["warning"] or "rlimits" in report.sandbox["warning"]
    assert report.sandbox["limits"]["memory_mb"] == rubric.limits.memory_mb
    assert "NOT isolated" in report.sandbox["isolation"]["network"]
    assert "address_space_bytes" in report.sandbox["enforced"]


# --------------------------------------------------------------------------- the bwrap command


def test_bwrap_command_isolates_everything():
    argv = backends.bwrap_argv("bwrap", 64)
    text = " ".join(argv)
    for flag in ("--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop ALL",
                 "--die-with-parent", "--new-session", "--as-pid-1", "--clearenv",
                 "--remount-ro / ", "--remount-ro /dev"):
        assert flag in text + " ", flag
    assert argv[argv.index("--tmpfs", argv.index("--size")) + 1] == backends.sandbox_scratch()
    assert argv[argv.index("--size") + 1] == str(64 * 1024 * 1024)
    for secret in ("suites", "solutions", "rubrics"):
        assert str(ROOT / secret) not in argv  # never bound


def test_paths_to_hide_inside_a_bound_folder_are_covered():
    inside = os.path.join(sys.prefix, "lib")
    argv = backends.bwrap_argv("bwrap", 8, hide=[inside, "/nowhere/at/all"])
    assert ["--tmpfs", os.path.realpath(inside)] == argv[argv.index(os.path.realpath(inside)) - 1:][:2]
    assert "/nowhere/at/all" not in argv


def test_the_rlimits_environment_is_built_from_scratch(monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_should_never_travel")
    launch = backends.launch("rlimits", 8)
    try:
        assert "GITHUB_TOKEN" not in launch.env
        assert set(launch.env) <= {"PATH", "HOME", "TMPDIR", "LANG", "OMP_NUM_THREADS",
                                   "MKL_NUM_THREADS", "PYTHONDONTWRITEBYTECODE", "SYSTEMROOT",
                                   "GLIBC_TUNABLES"}
    finally:
        for path in launch.cleanup:
            os.rmdir(path)


# --------------------------------------------------------------------------- seccomp


@pytest.mark.parametrize("arch", sorted(seccomp_noproc.NR))
def test_the_filter_program_is_well_formed(arch):
    prog = seccomp_noproc.build_filter(arch)
    assert len(prog) < 4096
    for i, (code, jt, jf, _k) in enumerate(prog):
        if code & 0x07 == 0x05:  # a jump stays inside the program
            assert i + 1 + max(jt, jf) < len(prog)
    assert prog[-1] == (0x06, 0, 0, seccomp_noproc.SECCOMP_RET_ALLOW)


FILTER_CHECK = r"""
import json, multiprocessing, os, subprocess, sys, threading
sys.path.insert(0, sys.argv[1])
import torch
torch.set_num_threads(2)
import seccomp_noproc
out = {"install": seccomp_noproc.install()}
a = torch.randn(512, 512)
out["matmul"] = float((a @ a).sum()) == float((a @ a).sum())
box = []
t = threading.Thread(target=lambda: box.append(float(torch.softmax(a, -1).sum())))
t.start(); t.join()
out["thread"] = len(box) == 1
def attempt(fn):
    try:
        return "ran: %r" % (fn(),)
    except OSError as exc:
        return type(exc).__name__
out["fork"] = attempt(os.fork)
out["subprocess"] = attempt(lambda: subprocess.run(["true"]))
out["system"] = os.system("true")
out["multiprocessing"] = attempt(lambda: multiprocessing.Process(target=print).start())
out["posix_spawn"] = attempt(lambda: os.posix_spawn("/bin/true", ["true"], {}))
print(json.dumps(out))
"""


@pytest.mark.skipif(not LINUX, reason="seccomp is Linux only")
def test_the_filter_allows_threads_and_refuses_processes():
    import json

    if seccomp_noproc.machine() not in seccomp_noproc.NR:
        assert seccomp_noproc.install()["installed"] is False
        pytest.skip("no filter for this architecture")
    here = str(Path(seccomp_noproc.__file__).parent)
    done = subprocess.run([sys.executable, "-c", FILTER_CHECK, here], capture_output=True, timeout=120, check=True)
    out = json.loads(done.stdout.decode().strip().splitlines()[-1])
    assert out["install"]["installed"] is True
    assert out["matmul"] and out["thread"]
    assert out["fork"] == out["subprocess"] == out["multiprocessing"] == out["posix_spawn"] == "PermissionError"
    assert out["system"] != 0


def test_a_child_reports_the_filter_in_force(worker):
    session = worker.open(sub(a="def f():\n    return 1\n"))
    session.close()
    assert "seccomp filter" in session.enforced["processes"]


def test_without_the_filter_the_zygote_stops_a_child_that_starts_a_process():
    namespaces()
    code = """
        import os, time
        def f():
            if os.fork() == 0:
                os.setsid()
                time.sleep(3600)
            time.sleep(30)  # the watcher ends the child long before this returns
            return 1
        def g():
            return 2
    """
    with Worker(level="namespaces", limits=LIMITS, seccomp=False) as worker:
        session = worker.open(sub(a=code))
        assert "watched" in session.enforced["processes"]
        with pytest.raises(WorkerCrashed, match="started another process"):
            session.call("a", "f", [], {})
        assert session.call("a", "g", [], {}) == 2  # a fresh child for the next call
        session.close()
        assert worker.healthy()


# --------------------------------------------------------------------------- isolation


def test_hidden_material_and_the_project_are_absent_inside(ns_worker):
    code = """
        import os
        def f(paths):
            return {p: os.path.exists(p) for p in paths}
    """
    paths = [str(ROOT / name) for name in ("suites", "solutions", "rubrics", "grader", "tests")]
    paths += [str(ROOT / "suites" / "chapter07" / "hidden" / "test_variance.py"),
              str(ROOT / "solutions" / "chapter07" / "scaling.py")]
    assert all(os.path.exists(p) for p in paths)  # they are there, outside
    assert call(ns_worker, code, "f", paths) == {p: False for p in paths}


def test_only_the_scratch_space_is_writable(ns_worker):
    code = """
        import os
        def f():
            ok, todo = [], ["/"]
            while todo:
                d = todo.pop()
                try:
                    entries = list(os.scandir(d))
                    fd = os.open(os.path.join(d, ".probe"), os.O_CREAT | os.O_WRONLY, 0o600)
                    os.close(fd)
                    os.unlink(os.path.join(d, ".probe"))
                    ok.append(d)
                except OSError:
                    pass
                else:
                    pass
                try:
                    todo += [e.path for e in os.scandir(d) if e.is_dir(follow_symlinks=False)
                             and e.path not in ("/proc", "/sys")]
                except OSError:
                    pass
            return sorted(ok)
    """
    writable = call(ns_worker, code)
    scratch = backends.sandbox_scratch()
    assert all(p == scratch or p.startswith(scratch + "/") or p == "/dev/shm" for p in writable), writable


def test_the_environment_is_cleared(worker):
    code = """
        import os
        def f():
            try:
                with open("/proc/1/environ", "rb") as fh:
                    init = fh.read().decode("utf-8", "replace")
            except OSError as exc:
                init = type(exc).__name__
            return [dict(os.environ), init]
    """
    env, init = call(worker, code)
    assert "GITHUB_TOKEN" not in env
    if worker.level == "namespaces":  # pid 1 is the zygote: non-dumpable, its environ unreadable
        assert init == "PermissionError"
    assert set(env) <= {"PATH", "HOME", "TMPDIR", "LANG", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                        "OPENBLAS_NUM_THREADS", "PYTHONDONTWRITEBYTECODE", "PWD", "GLIBC_TUNABLES"}


def test_a_token_in_the_graders_environment_never_reaches_a_fresh_worker(monkeypatch):
    namespaces()
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_not_for_students")
    code = """
        import os
        def f():
            found = []
            for pid in [p for p in os.listdir("/proc") if p.isdigit()] + ["self"]:
                try:
                    with open(f"/proc/{pid}/environ", "rb") as fh:
                        found.append(fh.read().decode("utf-8", "replace"))
                except OSError:
                    pass
            return "\\n".join(found) + repr(dict(os.environ))
    """
    with Worker(level="namespaces", limits=LIMITS) as worker:
        assert "ghp_not_for_students" not in call(worker, code)


def test_no_network_inside(ns_worker):
    code = """
        import socket
        def f(port):
            out = {}
            for host in ("127.0.0.1", "1.1.1.1"):
                try:
                    socket.create_connection((host, port), timeout=2).close()
                    out[host] = "connected"
                except OSError as exc:
                    out[host] = type(exc).__name__
            out["interfaces"] = [n for _, n in socket.if_nameindex()]
            return out
    """
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        socket.create_connection(("127.0.0.1", port), timeout=2).close()  # it does listen
        out = call(ns_worker, code, "f", port)
    assert out["127.0.0.1"] != "connected" and out["1.1.1.1"] != "connected"
    assert out["interfaces"] == ["lo"]


# --------------------------------------------------------------------------- limits


def test_memory_bombs_fail_in_the_students_own_call(worker):
    code = """
        import torch
        def big():
            return len(bytearray(50 * 2**30))
        def huge():
            return float(torch.ones(2**33).sum())
        def fine():
            return float(torch.ones(2**20).sum())
    """
    session = worker.open(sub(a=code))
    with pytest.raises(StudentRaised, match="MemoryError"):
        session.call("a", "big", [], {})
    with pytest.raises(StudentRaised, match="can't allocate memory"):
        session.call("a", "huge", [], {})
    assert session.call("a", "fine", [], {}) == 2**20
    session.close()
    assert session.enforced["address_space_bytes"] == worker.info["vmsize_kb"] * 1024 + LIMITS.memory_mb * 2**20


def test_wall_clock_per_call_and_per_submission(worker):
    code = """
        import time
        def nap(s):
            time.sleep(s)
            return s
        def doze(s):
            time.sleep(s)
            return s
    """
    limits = Limits(per_call_s=1, per_submission_s=3, memory_mb=1024, cpu_s=20, output_kb=16)
    session = worker.open(sub(a=code), limits)
    with pytest.raises(StudentTimeout, match="per-call") as hung:
        session.call("a", "nap", [60], {})
    # Once hung, nap fails at once with the same message: no second wait of per_call_s.
    t0 = time.monotonic()
    with pytest.raises(StudentTimeout) as again:
        session.call("a", "nap", [0.1], {})
    assert time.monotonic() - t0 < limits.per_call_s
    assert str(again.value) == str(hung.value)
    # The hang is not charged to the submission: doze still has the whole 3 s budget.
    assert session.excused_s >= limits.per_call_s
    assert session.call("a", "doze", [0.1], {}) == 0.1
    with pytest.raises(StudentTimeout):
        for _ in range(5):  # 0.1 + 4 x 0.9 s > 3 s, however fast the machine
            session.call("a", "doze", [0.9], {})
    with pytest.raises(StudentTimeout, match="used up"):
        session.call("a", "doze", [0], {})
    assert sum("did not return" in e for e in session.events) == 2
    session.close()


def test_a_function_that_keeps_crashing_fails_at_once(worker):
    code = """
        import os
        def boom():
            os._exit(3)
        def fine():
            return 5
    """
    session = worker.open(sub(a=code))
    messages = []
    for _ in range(2):
        with pytest.raises(WorkerCrashed) as crashed:
            session.call("a", "boom", [], {})
        messages.append(str(crashed.value))
        assert session.call("a", "fine", [], {}) == 5
    spawned = session.excused_s
    with pytest.raises(WorkerCrashed) as third:
        session.call("a", "boom", [], {})
    assert str(third.value) == messages[-1]
    assert session.excused_s == spawned  # no call, no restart: nothing new to excuse
    assert len(session.events) == 2
    assert session.call("a", "fine", [], {}) == 5
    session.close()


def test_cpu_limit_ends_a_spinning_child(worker):
    code = """
        import signal
        def spin():
            signal.signal(signal.SIGXCPU, signal.SIG_IGN)
            while True:
                pass
    """
    limits = Limits(per_call_s=120, per_submission_s=240, memory_mb=1024, cpu_s=1, output_kb=16)
    session = worker.open(sub(a=code), limits)
    # The CPU limit, not the wall clock, ends it: a crash naming the signal, not a timeout.
    with pytest.raises(WorkerCrashed, match="SIGKILL|SIGXCPU"):
        session.call("a", "spin", [], {})
    session.close()


def test_file_size_and_scratch_size(worker):
    code = """
        import os
        def big():
            with open("big.bin", "wb") as fh:
                fh.write(b"x" * (17 * 2**20))
        def many():
            n = 0
            while True:
                with open(f"f{n}", "wb") as fh:
                    fh.write(b"x" * 2**20)
                n += 1
    """
    session = worker.open(sub(a=code))
    with pytest.raises(StudentRaised, match="File too large"):
        session.call("a", "big", [], {})
    if worker.level == "namespaces":
        with pytest.raises(StudentRaised, match="No space left"):
            session.call("a", "many", [], {})
    session.close()


def test_an_output_flood_is_stopped_and_reported(worker):
    code = """
        def flood():
            while True:
                print("y" * 65536)
        def ok():
            print("fine")
            return 1
    """
    session = worker.open(sub(a=code))
    # Stopped for its output (a crash saying so), long before the per-call limit would.
    with pytest.raises(WorkerCrashed, match="printed more than"):
        session.call("a", "flood", [], {})
    assert session.call("a", "ok", [], {}) == 1
    output = session.close()
    assert len(output) < 2 * LIMITS.output_kb * 1024
    assert "more bytes of output dropped" in output
    assert any("printed more than" in e for e in session.events)


def test_a_file_that_ends_the_child_at_import_costs_only_that_file(worker):
    session = worker.open(sub(a="import os\nos._exit(3)\n", b="def g():\n    return 7\n"))
    assert session.call("b", "g", [], {}) == 7
    with pytest.raises(StudentUnavailable, match="a.py"):
        session.call("a", "g", [], {})
    session.close()


def test_giant_return_values_are_refused_in_the_child(worker):
    code = """
        import numpy as np
        def big():
            return np.ones(40 * 2**20, dtype=np.float32)
        def frame_like():
            return b"\\x00\\x00\\x00\\x10{\\"id\\": 1, \\"ok\\": true}"
    """
    session = worker.open(sub(a=code))
    got = session.call("a", "big", [], {})
    assert type(got).__name__ == "Opaque" and "unsendable" in got.type_name
    assert type(session.call("a", "frame_like", [], {})).__name__ == "Opaque"
    session.close()


# --------------------------------------------------------------------------- processes and health


def test_fork_safety_big_matmul_with_two_threads():
    namespaces()
    code = """
        import torch
        def f():
            a = torch.randn(2048, 2048)
            return [torch.get_num_threads(), float((a @ a).sum()) == float((a @ a).sum())]
    """
    with Worker(level="namespaces", limits=LIMITS, threads=2) as worker:
        for _ in range(2):  # the second child forks from a zygote whose first child ran a pool
            assert call(worker, code) == [2, True]  # a hang would be a timeout after per_call_s


def _zygote_of(worker: Worker) -> int:
    return zygote_pid(worker)


def test_a_non_daemon_thread_does_not_keep_the_child_alive():
    namespaces()
    code = """
        import threading, time
        def f():
            threading.Thread(target=lambda: time.sleep(3600), daemon=False).start()
            return 1
    """
    with Worker(level="namespaces", limits=LIMITS, seccomp=False) as worker:
        assert call(worker, code) == 1

        assert descendants(_zygote_of(worker)) == set()


def test_a_killed_zygote_is_replaced_and_the_next_submission_graded_as_alone():
    namespaces()
    from grader.spec.rubric.load import load_rubric
    from grader.grading.runner import grade
    from grader.ingest.submission.load import load_submission

    rubric = load_rubric(ROOT / "rubrics" / "chapter07.yaml")
    clean = load_submission(ROOT / "examples" / "submissions" / "correct")
    [alone] = grade(rubric, [clean], suites=("hidden",), seed=11)
    worker = Worker(level="namespaces", limits=rubric.limits)
    zygotes: list[int] = []

    def kill_zygote(report):
        zygotes.append(_zygote_of(worker))
        if len(zygotes) == 1:
            os.kill(zygotes[0], signal.SIGKILL)

    worker.start()
    try:
        reports = grade(rubric, [clean, clean, clean], suites=("hidden",), seed=11, worker=worker,
                        on_report=kill_zygote)
    finally:
        worker.stop()
    assert zygotes[0] != zygotes[1] == zygotes[2]  # one new zygote, then it stayed
    key = [(t.id, t.status, t.score) for t in alone.tests]
    for report in reports:
        assert [(t.id, t.status, t.score) for t in report.tests] == key
        assert report.errors == []


def test_an_unclean_zygote_is_restarted_before_the_next_submission():
    namespaces()
    with Worker(level="namespaces", limits=LIMITS) as worker:
        assert call(worker, "def f():\n    return 1\n") == 1
        worker._after_close({"op": "closed", "clean": False})  # as if the wipe had failed
        assert not worker.healthy()
        assert call(worker, "def f():\n    return 2\n") == 2
        assert worker.restarts == 1 and worker.healthy()


def test_scratch_is_wiped_even_when_the_student_locks_it(worker):
    code = """
        import os
        def leave():
            os.makedirs("../locked/inner")
            open("../locked/inner/x", "w").close()
            os.chmod("../locked/inner", 0)
            os.chmod("../locked", 0)
            os.symlink("/", "../to_root")
            return sorted(os.listdir(".."))
        def look():
            return sorted(os.listdir(".."))
    """
    assert call(worker, code, "leave") == ["locked", "submission", "to_root"]
    assert call(worker, code, "look") == ["submission"]
    assert worker.healthy()


def test_stale_requests_never_reach_the_next_child(worker):
    """An ``end`` queued for a child that already died must not end the next one."""
    code = """
        import os, threading, time
        def die_later():
            threading.Thread(target=lambda: (time.sleep(0.3), os._exit(9))).start()
            return 1
        def g():
            return 2
    """
    session = worker.open(sub(a=code))
    assert session.call("a", "die_later", [], {}) == 1
    time.sleep(1)
    session.close()  # writes "end" after the child has gone
    again = worker.open(sub(a=code))
    assert again.call("a", "g", [], {}) == 2
    again.close()


def test_scratch_moves_when_python_lives_under_tmp(monkeypatch):
    """A checkout under /tmp must not be hidden by the scratch tmpfs mounted over /tmp."""
    under_tmp = os.path.join("/tmp", "checkout", ".venv")  # a virtualenv in a checkout under /tmp
    monkeypatch.setattr(backends, "_python_roots", lambda: ["/usr/local", under_tmp])
    assert backends.sandbox_scratch() == "/scratch"
    argv = backends.bwrap_argv("bwrap", 8)
    assert argv[argv.index("--tmpfs", argv.index("--size")) + 1] == "/scratch"
    assert argv[argv.index("HOME") + 1] == "/scratch"
    monkeypatch.setattr(backends, "_python_roots", lambda: ["/usr/local", "/opt/venv"])
    assert backends.sandbox_scratch() == "/tmp"


def test_restarting_a_worker_leaks_no_file_descriptor():
    """Each restart gives the old sandbox's pipes back (a long batch restarts after crashes)."""
    if not Path("/proc/self/fd").is_dir():
        pytest.skip("needs /proc/self/fd")
    namespaces()
    with Worker(level="namespaces", limits=LIMITS) as worker:
        before = len(os.listdir("/proc/self/fd"))
        for _ in range(3):
            worker.restart()
        deadline = time.monotonic() + 5
        while len(os.listdir("/proc/self/fd")) > before and time.monotonic() < deadline:
            time.sleep(0.05)  # the output thread closes its end once the old sandbox is gone
        assert len(os.listdir("/proc/self/fd")) == before


def test_a_batch_zygote_warms_what_a_single_check_does_not():
    """``warm_more`` (batch workers) imports what ``torch.broadcast_shapes`` needs before
    forking; a plain worker (``grader check``) starts without it."""
    namespaces()
    probe = "import sys\ndef f():\n    return 'sympy' in sys.modules\n"
    with Worker(level="namespaces", limits=LIMITS, warm_more=True) as batch:
        assert call(batch, probe) is True
    with Worker(level="namespaces", limits=LIMITS) as single:
        assert call(single, probe) is False


def test_the_zygote_heap_lies_in_huge_pages_where_the_kernel_offers_them():
    """glibc is asked for transparent huge pages and can see whether the kernel has them."""
    from grader.sandbox.worker import _children

    namespaces()
    offered = "[never]" not in (Path(backends.THP_SYSFS) / "enabled").read_text()
    with Worker(level="namespaces", limits=LIMITS) as worker:
        huge = [int(line.split()[1]) for p in _children(worker.proc.pid)
                for line in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines()
                if line.startswith("AnonHugePages:")]
        assert huge, "the zygote was not found"
        assert (max(huge) > 0) == offered


def test_children_of_a_zygote_that_imported_without_the_collector_have_it_on():
    """The zygote imports with the collector off (a faster import), then turns it back on
    before forking: a student's reference cycles are still collected."""
    namespaces()
    probe = "import gc\ndef f():\n    return [gc.isenabled(), gc.get_freeze_count() > 1000]\n"
    with Worker(level="namespaces", limits=LIMITS, warm_more=True) as worker:
        assert call(worker, probe) == [True, True]
