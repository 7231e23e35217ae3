"""Deprecated path: this module is :mod:`grader.spec.assignment` now (see :mod:`grader.moved`)."""

from grader.moved import forward

forward(__name__)
