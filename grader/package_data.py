"""The files besides Python modules that the grader reads at run time: one list.

The project's ``setup.py`` and the release's ``pyproject.toml`` (written by
:func:`grader.prepare.release.build_release`) both install exactly these, so ``pip install .``
never leaves one out. ``tests/fitness/test_package_data.py`` checks that every non-Python file in the
package matches a pattern here, and that a built wheel of the project and of the release
holds each of them.

Patterns are setuptools ``package-data`` globs, relative to the ``grader/`` folder. This module
imports nothing, so ``setup.py`` can read it without importing the package.
"""

PATTERNS = (
    "*.ini",  # suite.ini: the pytest configuration of every graded run
    "*.yaml",  # mistakes.yaml: the mistake catalogue the diagnosis names
    "templates/*.j2",  # the HTML report and class summary templates
    "review/templates/*.j2",  # grader review: its pages
    "review/static/*",  # grader review: its one script and style sheet
)

#: The installed package's own folder, where the files above lie (``grader/``), found without
#: importing the package's front door.
PACKAGE_DIR = __import__("pathlib").Path(__file__).resolve().parent
