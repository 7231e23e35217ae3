"""Package data from the one list in grader/package_data.py (``grader release`` uses it too).

Everything else about the package is in pyproject.toml.
"""

import runpy
from pathlib import Path

from setuptools import setup

_PATTERNS = runpy.run_path(str(Path(__file__).parent / "grader" / "package_data.py"))["PATTERNS"]

setup(package_data={"grader": list(_PATTERNS)})
