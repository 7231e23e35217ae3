"""Which worker a level gets (grader/sandbox/spawn.py): ``worker_for`` picks the class; nothing is started."""

from __future__ import annotations

import pytest

from grader.sandbox.limits import Limits
from grader.sandbox.spawn import SpawnWorker, worker_for
from grader.sandbox.worker import Worker


def test_the_subprocess_level_is_a_spawn_worker_and_the_others_a_zygote_worker() -> None:
    assert type(worker_for("subprocess")) is SpawnWorker
    assert [type(worker_for(level)) for level in ("namespaces", "rlimits")] == [Worker, Worker]
    assert worker_for("subprocess").proc is None  # made, not started


def test_a_zygote_worker_refuses_the_subprocess_level() -> None:
    with pytest.raises(TypeError, match="SpawnWorker"):
        Worker(level="subprocess")


def test_worker_for_hands_every_option_on() -> None:
    limits = Limits(per_call_s=3.0)
    worker = worker_for("rlimits", limits=limits, threads=2, seccomp=False, hide=("/x",), warm_more=True)
    assert (worker.level, worker.limits, worker.threads, worker.seccomp, worker.hide, worker.warm_more) == (
        "rlimits", limits, 2, False, ("/x",), True)
    assert worker_for("namespaces").limits == Limits()  # the defaults when none are given
