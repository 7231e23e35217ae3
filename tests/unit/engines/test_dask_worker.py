"""A Dask worker's side of the grader (grader/engines/dask_worker.py): the CPUs its grading processes
pin to, each held by a lock no other worker on the host holds."""

from __future__ import annotations

import os

import pytest


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs to tell claims apart")
def test_dask_workers_on_one_host_pin_to_cpus_no_other_holds(tmp_path):
    """Each Dask worker's grading processes pin only to CPUs it holds a lock on: a second worker
    on the host gets other CPUs, none when none is free, and a CPU is free again once let go."""
    from grader.engines.dask_worker import claim_cpus

    allowed = sorted(os.sched_getaffinity(0))
    folder = tmp_path / "cpus"
    first, held = claim_cpus(1, folder)
    second, held2 = claim_cpus(len(allowed) - 1, folder)
    assert len(first) == 1 and sorted(first + second) == allowed
    assert claim_cpus(1, folder) == ([], [])  # every CPU held: nothing pinned
    for fd in held:
        os.close(fd)
    again, held3 = claim_cpus(1, folder)
    assert again == first
    for fd in held2 + held3:
        os.close(fd)
    assert claim_cpus(len(allowed) + 1, folder) == ([], [])  # more than the host has
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    assert claim_cpus(1, tmp_path / "link") == ([], [])  # not a folder of our own
