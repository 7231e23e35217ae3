"""Deprecated path: this module is :mod:`grader.kit.figures` now (see :mod:`grader.moved`)."""

from grader.moved import forward

forward(__name__)
