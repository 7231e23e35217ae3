"""The rubric: one YAML file in, one frozen ``Rubric`` out, checked once at the edge.

======  ===========================================================================================
model   The rubric as the grader holds it: ``Rubric``, ``Part``, ``Suite``, ``ReportOptions``, ``LatePolicy``,
        ``Plugin`` ..., one frozen dataclass per section of the file, and their enums.
load    ``load_rubric``: the file, its YAML (duplicate keys refused), each section read into its
        dataclass; ``check_parts``: every part's file and functions exist in the stubs or reference.
checks  ``Reader``: the checks of single YAML values, and the helpers that word their errors.
======  ===========================================================================================

The public paths are ``grader.Rubric`` and ``grader.load_rubric``.
"""
