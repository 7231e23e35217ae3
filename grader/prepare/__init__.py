"""Before the term: what course staff run to make and prove an assignment, not students.

==================  ==========================================================================
``scaffold``        ``grader new NAME``: rubric, stub, reference, tests and plug-in
``validate``        ``grader validate``: reference full marks, stubs zero, every mutant named
``release``         ``grader release``: the student repository
``gradescope_zip``  ``grader gradescope``: the autograder zip
``build_notebook``  ``python -m grader.prepare.build_notebook``: the notebook from the exercises
``expected``        ``python -m grader.prepare.expected``: the public suites' expected values
==================  ==========================================================================
"""
