"""Where grading runs: the processes that grade a batch's submissions, here or on a cluster.

============  ======================================================================================
batch_worker  One trusted grading process of ``grader batch`` (started as ``python -m grader.engines.batch_worker``).
dask          Stage 2 of ``grader batch`` on a Dask cluster: shards of submissions to warm workers elsewhere.
dask_worker   The worker side of ``grader batch --cluster``: a Dask worker plugin and the shard task.
local_pool    Stage 2 of ``grader batch`` on this machine: a pool of warm trusted worker processes.
warm_checker  A warm checker: one trusted grading process kept for many checks of one student's work.
============  ======================================================================================

Heavy (torch, pytest, Dask): the commands that need an engine import it when they run, not at start.
"""
