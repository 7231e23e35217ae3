"""Ctrl-C to a long-running ``grader`` process the way a terminal sends it, for the tests.

A terminal keeps reading what a program prints while it stops; so does :func:`ctrl_c`, so a
process that prints on its way out never blocks on a full pipe the test stopped reading. A
process that has not ended by the deadline fails the test with what it was doing: each
thread's kernel wait and, when the process was started with :data:`DUMPING_ENV` in its
environment, each thread's Python stack (``faulthandler`` prints them on SIGABRT).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

#: Environment entries that make a Python process print every thread's stack on SIGABRT.
DUMPING_ENV = {"PYTHONFAULTHANDLER": "1"}


def _threads(pid: int) -> str:
    """One line per thread of ``pid`` and of each of its children: name, state, kernel wait."""
    rows = []
    for task in sorted(Path(f"/proc/{pid}/task").glob("*")):
        try:
            status = dict(line.split(":\t", 1) for line in (task / "status").read_text().splitlines()
                          if ":\t" in line)
            wchan = (task / "wchan").read_text()
        except OSError:
            continue
        rows.append(f"  {pid}/{task.name} {status.get('Name', '?')}: {status.get('State', '?')}, "
                    f"waits in {wchan or '-'}, SigBlk {status.get('SigBlk', '?')}, "
                    f"SigIgn {status.get('SigIgn', '?')}")
    try:
        kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        kids = []
    return "\n".join(rows + [_threads(int(k)) for k in kids])


def ctrl_c(proc: subprocess.Popen[bytes], drain: Callable[[], str], *, group: bool = False,
           timeout: float = 180) -> int:
    """SIGINT to ``proc`` (to its process group with ``group``, as a terminal does), then its exit code.

    ``drain()`` reads whatever the process printed since the last call (and returns it); it is
    called until the process ends. Past ``timeout`` the test fails with the process's threads
    and stacks, and the process is killed.
    """
    if group:
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGINT)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        drain()
        code = proc.poll()
        if code is not None:
            drain()
            return code
        time.sleep(0.1)
    threads = _threads(proc.pid)
    proc.send_signal(signal.SIGABRT)  # faulthandler, where enabled, prints every thread's stack
    time.sleep(3)
    stacks = drain()
    try:
        if group:
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except ProcessLookupError:
        pass
    proc.wait()
    raise AssertionError(f"the process did not end {timeout:.0f} s after Ctrl-C; its threads:\n{threads}\n"
                         f"what it printed last (stacks on SIGABRT):\n{stacks[-6000:]}")
