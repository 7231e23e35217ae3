"""The rubric: one YAML file in, one frozen :class:`~grader.spec.rubric.model.Rubric` out.

=============  ===========================================================================
``model``      the dataclasses a rubric is read into: ``Rubric``, ``Part``, ``Suite``,
               ``ReportOptions``, ``LatePolicy``, ``Plugin`` ... and their enums
``load``       ``load_rubric``: the file, its YAML, each section read into its dataclass;
               ``check_parts``: every part's file and functions exist
``checks``     ``Reader``: the checks of single YAML values, and the words of their errors
=============  ===========================================================================

The public paths are ``grader.Rubric`` and ``grader.load_rubric``.
"""
