"""Before the term: course staff's tools that make and prove an assignment (``python -m grader.prepare.<name>``).

==============  ====================================================================================
build_notebook  Build an assignment's notebook from its exercise files, so the two never drift apart.
expected        Write the public suites' fixed expected values from the reference solutions.
gradescope_zip  The Gradescope autograder: ``autograder.zip`` with ``setup.sh`` and ``run_autograder``.
release         The student-facing repository: stubs, notebook, public tests, the grader, CI.
scaffold        ``grader new NAME``: a new assignment that ``grader validate`` passes before anyone edits it.
validate        ``grader validate``: prove the assignment before it is handed out.
variants        ``grader variants check``: prove every per-student variant, then freeze the issued table.
==============  ====================================================================================
"""
