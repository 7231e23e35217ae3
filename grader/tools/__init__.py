"""Deprecated path: the course tools are in :mod:`grader.prepare` now (see :mod:`grader.moved`)."""
