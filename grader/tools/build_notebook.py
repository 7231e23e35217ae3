"""Deprecated path: ``python -m grader.tools.build_notebook`` is ``python -m grader.prepare.build_notebook`` now."""

from grader.moved import forward, run_as_main

if __name__ == "__main__":
    run_as_main("grader.tools.build_notebook")
else:
    forward(__name__)
