"""The student-facing repository: stubs, notebook, public tests, the grader, CI.

:func:`build_release` copies only what students may have and writes what they need around it:

==============================  ==========================================================
exercises/<chapter>/            the stubs and the notebook, as handed out
suites/<chapter>/public/        the public tests and their expected values
rubrics/<chapter>.yaml          the rubric without ``reference`` and without the hidden suite
rubrics/<chapter>.handout.json  fingerprints of the stubs as handed out (what the student changed
                                is what ``grader check`` grades)
grader/                         the grader package (without the instructor-only tools)
pyproject.toml                  so that ``pip install .`` gives a working ``grader check``
README.md                       the student's two commands, in Japanese and English
.github/workflows/autograde.yml ``grader check`` on every push: JUnit, job summary, annotations
.gitlab-ci.yml                  the same for GitLab, with the JUnit report attached
==============================  ==========================================================

Never copied: the solutions, the hidden suites, the instructor tools that read the solutions.

Example::

    files = build_release(load_rubric("rubrics/chapter07.yaml"), "student-repo")
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import grader
from grader.errors import UsageError
from grader.submission import HANDOUT_SUFFIX, Handout

TORCH = "torch==2.13.0"
#: package folders students do not get (they read the solutions)
_INSTRUCTOR_ONLY = ("tools",)
_SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints", ".DS_Store")


def _under(path: Path, root: Path, what: str) -> Path:
    try:
        return path.resolve().relative_to(root)
    except ValueError:
        raise UsageError(f"{path}: the {what} must be inside the course repository {root}") from None


def student_rubric(text: str) -> str:
    """The rubric's text without ``reference`` and the hidden suite, comments kept.

    A removed key takes the comment block directly above it along.
    """
    lines = text.splitlines()
    drop: set[int] = set()

    def remove(i: int) -> None:
        drop.add(i)
        indent = len(lines[i]) - len(lines[i].lstrip())
        j = i - 1
        while j >= 0 and lines[j].lstrip().startswith("#") and len(lines[j]) - len(lines[j].lstrip()) == indent:
            drop.add(j)
            j -= 1

    for i, line in enumerate(lines):
        if (re.match(r"^reference\s*:", line) or re.match(r"^\s+hidden\s*:", line)
                or re.match(r"""^\s+-\s*\{?\s*match\s*:\s*["']?hidden/""", line)):
            remove(i)
    # A `rules:` left with no items would read as null: take it out too.
    for i, line in enumerate(lines):
        if re.match(r"^\s+rules\s*:\s*$", line):
            rest = [x for k, x in enumerate(lines[i + 1:], i + 1)
                    if k not in drop and x.strip() and not x.lstrip().startswith("#")]
            if not rest or not rest[0].lstrip().startswith("-"):
                remove(i)
    return "\n".join(line for i, line in enumerate(lines) if i not in drop) + "\n"


def build_release(rubric: Any, outdir: str | Path, *, force: bool = False) -> list[Path]:
    """Write the student repository for ``rubric`` into ``outdir``.

    Args:
        rubric: the instructor's loaded rubric.
        outdir: the folder to create; it must not exist or be empty (unless ``force``).
        force: replace an existing ``outdir``.

    Returns:
        Every file written, relative to ``outdir``.

    Raises:
        UsageError: ``outdir`` is not empty, or the rubric's folders lie outside its repository.
    """
    from grader.rubric import load_rubric

    out = Path(outdir)
    if out.exists() and any(out.iterdir()):
        if not force:
            raise UsageError(f"{out}: the folder is not empty; choose a new one or pass --force")
        shutil.rmtree(out)
    rubric_file = Path(rubric.file).resolve()
    root = rubric_file.parent.parent
    exercises = _under(Path(rubric.exercises), root, "exercises folder")
    public = _under(Path(rubric.suite("public").path), root, "public suite")
    rubric_rel = _under(rubric_file, root, "rubric")
    hidden = [Path(s.path).resolve() for s in rubric.suites if s.name != "public"]
    for folder in hidden + ([Path(rubric.reference).resolve()] if rubric.reference else []):
        if folder == root or any(p == folder or folder in p.parents for p in
                                 (root / exercises, root / public)):
            raise UsageError(f"{folder}: hidden material overlaps what students get; separate the folders")

    out.mkdir(parents=True, exist_ok=True)
    shutil.copytree(root / exercises, out / exercises, ignore=_SKIP)
    shutil.copytree(root / public, out / public, ignore=_SKIP)
    package = Path(grader.__file__).resolve().parent
    shutil.copytree(package, out / "grader", ignore=shutil.ignore_patterns(
        "__pycache__", "*.pyc", *_INSTRUCTOR_ONLY))
    (out / rubric_rel).parent.mkdir(parents=True, exist_ok=True)
    (out / rubric_rel).write_text(student_rubric(rubric_file.read_text(encoding="utf-8")), encoding="utf-8")
    load_rubric(out / rubric_rel)  # the student's rubric must load on its own
    handout = out / rubric_rel.with_name(rubric_rel.stem + HANDOUT_SUFFIX)
    handout.write_text(json.dumps(Handout.of_folder(root / exercises).to_dict(), indent=1) + "\n",
                       encoding="utf-8")

    context = {
        "assignment": rubric.assignment,
        "title_en": rubric.title.en,
        "title_ja": rubric.title.ja,
        "exercises": exercises.as_posix(),
        "rubric": rubric_rel.as_posix(),
        "torch": TORCH,
        "version": _version(),
    }
    for name, template in _FILES.items():
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(template.format(**context), encoding="utf-8")
    return sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("grader")
    except Exception:  # noqa: BLE001 - a source checkout without metadata
        return "0.0.0"


_PYPROJECT = """\
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "grader"
version = "{version}"
description = "Checks your {assignment} exercises with the public tests."
requires-python = ">=3.10"
dependencies = [
    "pytest>=8",
    "numpy>=1.26",
    "torch>=2.2,<=2.13.0",
    "nbformat>=5.9",
    "pyyaml>=6",
    "click>=8.1",
    "rich>=13",
    "jinja2>=3.1",
    "matplotlib>=3.8",
]

[project.scripts]
grader = "grader.cli:main"

[tool.setuptools.packages.find]
include = ["grader*"]

[tool.setuptools.package-data]
grader = ["*.ini", "templates/*.j2"]
"""

_README = """\
# {title_ja}

`{exercises}/` のファイル（`scaling.py`, `softmax.py`, `variance.py`, `answers.yaml`、
ノートブック）を完成させてください。手元で公開テストを実行して確認できます。

```
pip install {torch} && pip install .
grader check
```

`grader check` は `{exercises}` を公開テストで採点し、どのテストが通らなかったか、
よくある間違い（例：√d_model で割っている）を日本語と英語で示します。
`grader check --lang ja` で日本語のみ、`grader check -v` で詳しい表示になります。
push するたびに GitHub Actions（または GitLab CI）が同じチェックを実行し、結果を
ジョブの概要と、関数の行への注釈として表示します。
最終的な成績は、ここにない非公開テストも含めて採点されます。

# {title_en}

Complete the files in `{exercises}/` (`scaling.py`, `softmax.py`, `variance.py`,
`answers.yaml`, and the notebook). Check your work locally with the public tests:

```
pip install {torch} && pip install .
grader check
```

`grader check` grades `{exercises}` with the public tests and says which tests failed and
which common mistake it recognised (e.g. dividing by √d_model), in Japanese and English.
`grader check --lang en` shows English only; `grader check -v` shows more detail.
On every push, GitHub Actions (or GitLab CI) runs the same check and shows the result in the
job summary and as annotations on your functions. Your final grade also includes hidden tests
that are not in this repository.
"""

_WORKFLOW = """\
name: autograde

on:
  push:
  pull_request:
  workflow_dispatch:

permissions:
  contents: read

jobs:
  check:
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - name: Install the grader
        run: |
          python -m pip install --upgrade pip
          pip install {torch}
          pip install .
      # Prints the result, writes the job summary ($GITHUB_STEP_SUMMARY) and prints
      # ::error annotations that point at your functions.
      - name: grader check
        run: grader check {exercises} --rubric {rubric} --format junit --out grader-junit.xml
      - name: Upload the JUnit report
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: grader-junit
          path: grader-junit.xml
"""

_GITLAB = """\
autograde:
  image: python:3.12
  script:
    - python -m pip install --upgrade pip
    - pip install {torch}
    - pip install .
    - grader check {exercises} --rubric {rubric} --format junit --out grader-junit.xml
    - grader check {exercises} --rubric {rubric} --format markdown --out grader-summary.md
  artifacts:
    when: always
    paths:
      - grader-junit.xml
      - grader-summary.md
    reports:
      junit: grader-junit.xml
"""

_GITIGNORE = """\
__pycache__/
*.egg-info/
build/
.venv/
grader-junit.xml
grader-summary.md
.ipynb_checkpoints/
"""

_FILES = {
    "pyproject.toml": _PYPROJECT,
    "README.md": _README,
    ".github/workflows/autograde.yml": _WORKFLOW,
    ".gitlab-ci.yml": _GITLAB,
    ".gitignore": _GITIGNORE,
}
