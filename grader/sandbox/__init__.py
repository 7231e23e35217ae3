"""The trust boundary: where student code runs, and the only ways in and out of it.

==============  ====================================================================================
backends        How a worker process starts: in Linux namespaces (bubblewrap), with rlimits only, or as a user
child           One submission in a child of the worker: load its files, call its functions, end it.
level           Which sandbox this machine gives, decided before torch is imported
limits          What one submission may use: the rubric's ``limits:``, applied by the sandbox.
seccomp_noproc  A seccomp-BPF filter that forbids starting processes (threads stay allowed).
session         What the trusted side may ask of one submission loaded in the sandbox.
spawn           The ``subprocess`` level: one fresh interpreter per submission, and the worker for a level.
uids            The user ids student code runs as, where the grader is root and no namespace separates users.
wire            Plain data across the sandbox boundary.
worker          The trusted side of the channel: start a zygote, open submissions, call functions.
zygote          The untrusted side: a warm process that forks one child per submission.
==============  ====================================================================================

``zygote.py``, ``wire.py`` and ``seccomp_noproc.py`` also run inside the sandbox as plain scripts, where
the package is not importable: they import nothing of the grader when they run (mypy reads the
zygote's ``wire`` and ``seccomp_noproc`` as the package's own modules, under ``TYPE_CHECKING``).
"""
