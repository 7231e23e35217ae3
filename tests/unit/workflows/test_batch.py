"""grader/workflows/batch.py in process: a report being written outlives Ctrl-C; a weak sandbox needs the flag."""

from __future__ import annotations

import os
import shutil
import signal
import time

import pytest

from tests.helpers import EXAMPLES, ROOT


def test_ctrl_c_during_a_write_waits_for_its_end_whatever_thread_it_reaches():
    """A report being written is finished before Ctrl-C stops the batch, also while another
    thread runs (the batch loads matplotlib in one while it grades): the kernel hands a signal
    the main thread blocks to that thread, and Python then raises in the main thread at once."""
    import threading

    from grader.workflows.batch import _whole

    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    hold = threading.Event()
    other = threading.Thread(target=hold.wait, daemon=True)
    other.start()
    steps = []
    try:
        with pytest.raises(KeyboardInterrupt):
            with _whole():
                os.kill(os.getpid(), signal.SIGINT)
                for step in range(5):  # the write goes on: bytecode runs, time passes
                    time.sleep(0.02)
                    steps.append(step)
        assert steps == [0, 1, 2, 3, 4]
        with _whole():  # and a block without Ctrl-C raises nothing
            steps.append(5)
    finally:
        hold.set()
        other.join()
        signal.signal(signal.SIGINT, old)
    assert steps[-1] == 5


def test_weak_sandbox_is_refused_without_the_flag(tmp_path, monkeypatch):
    """Without namespaces, batch stops with a usage error unless --allow-weak-sandbox."""
    from grader.errors import UsageError
    from grader.workflows.batch import run_batch
    from grader.spec.rubric.load import load_rubric
    from grader.sandbox import backends

    monkeypatch.setattr(backends, "namespaces_available", lambda: (False, "no bwrap here"))
    src = tmp_path / "src"
    shutil.copytree(EXAMPLES / "correct", src / "s00-correct")
    with pytest.raises(UsageError, match="allow-weak-sandbox"):
        run_batch(str(src), str(tmp_path / "out"), load_rubric(ROOT / "rubrics/chapter07.yaml"))
    assert not os.path.exists(tmp_path / "out" / "gradebook.csv")
