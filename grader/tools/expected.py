"""Deprecated path: ``python -m grader.tools.expected`` is ``python -m grader.prepare.expected`` now."""

from grader.moved import forward, run_as_main

if __name__ == "__main__":
    run_as_main("grader.tools.expected")
else:
    forward(__name__)
