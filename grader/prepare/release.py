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
from typing import TYPE_CHECKING


from grader.errors import UsageError
from grader.i18n.messages import said
from grader.install import TORCH, TORCH_CPU_INDEX, TORCH_CPU_INSTALL
from grader.package_data import PACKAGE_DIR, PATTERNS
from grader.ingest.submission.choice import HANDOUT_SUFFIX, Handout

if TYPE_CHECKING:
    from grader.spec.rubric.model import Rubric

#: package folders students do not get (they read the solutions)
_INSTRUCTOR_ONLY = ("tools",)
_SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints", ".DS_Store")


def _under(path: Path, root: Path, what: str) -> Path:
    try:
        return path.resolve().relative_to(root)
    except ValueError:
        raise UsageError(said("must_inside_course_repository_2", path=path, what=what, repo=root)) from None


def student_rubric(text: str) -> str:
    """The rubric's text without ``reference``, the hidden suite, the plug-in's mutants and
    fixtures (built from the reference) and the ``variants:`` section, comments kept; and
    ``report.fail_below_pass_mark: true``, so the student's CI fails until the pass mark is
    reached.

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
        if (re.match(r"^reference\s*:", line) or re.match(r"^\s+(hidden|mutants|fixtures)\s*:", line)
                or re.match(r"""^\s+-\s*\{?\s*match\s*:\s*["']?hidden/""", line)):
            remove(i)
    # A `rules:` left with no items would read as null: take it out too.
    for i, line in enumerate(lines):
        if re.match(r"^\s+rules\s*:\s*$", line):
            rest = [x for k, x in enumerate(lines[i + 1:], i + 1)
                    if k not in drop and x.strip() and not x.lstrip().startswith("#")]
            if not rest or not rest[0].lstrip().startswith("-"):
                remove(i)
    # The variants' pools (every other student's numbers) never reach a student: the whole section goes.
    for i, line in enumerate(lines):
        if re.match(r"^variants\s*:", line):
            remove(i)
            for k in range(i + 1, len(lines)):
                if lines[k].strip() and not lines[k].startswith((" ", "\t", "#")):
                    break
                drop.add(k)
    kept = [line for i, line in enumerate(lines) if i not in drop]
    return _fail_below_pass_mark("\n".join(kept).rstrip("\n") + "\n")


def _fail_below_pass_mark(text: str) -> str:
    """Set (or add) ``report.fail_below_pass_mark: true`` in a rubric's text."""
    switch = re.compile(r"^(\s+)fail_below_pass_mark\s*:.*$", re.M)
    if switch.search(text):
        return switch.sub(r"\1fail_below_pass_mark: true", text, count=1)
    section = re.search(r"^report\s*:\s*$", text, re.M)
    if section:
        return text[: section.end()] + "\n  fail_below_pass_mark: true" + text[section.end():]
    return text + "report:\n  fail_below_pass_mark: true\n"


def build_release(rubric: Rubric, outdir: str | Path, *, force: bool = False) -> list[Path]:
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
    from grader.spec.rubric.load import load_rubric

    out = Path(outdir)
    if out.exists() and any(out.iterdir()):
        if not force:
            raise UsageError(said("folder_empty_choose_new", path=out))
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
            raise UsageError(said("hidden_material_overlaps_what", path=folder))

    out.mkdir(parents=True, exist_ok=True)
    shutil.copytree(root / exercises, out / exercises, ignore=_SKIP)
    shutil.copytree(root / public, out / public, ignore=_SKIP)
    from grader.spec.assignment import assignment_of

    for path in assignment_of(rubric).plugin_paths(instructor=False):
        rel = _under(path, root, "assignment's plug-in")
        if any(h == path or h in path.parents or path in h.parents for h in hidden):
            raise UsageError(said("assignment_s_plug_overlaps", path=path))
        if path.is_dir():
            shutil.copytree(path, out / rel, ignore=_SKIP, dirs_exist_ok=True)
        else:
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, out / rel)
    package = PACKAGE_DIR
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
        "torch_cpu": TORCH_CPU_INSTALL,
        "py_files": ", ".join(f"`{p.file}`" for p in rubric.parts if p.file.endswith(".py")),
        "notebook": next((p.name for p in sorted((root / exercises).glob("*.ipynb"))), "notebook"),
        "torch_index": TORCH_CPU_INDEX,
        "version": _version(),
        "package_data": json.dumps(list(PATTERNS)),
        **_example(rubric),
        **_lang_lines(rubric),
        "assignment_readme": _assignment_readme(rubric),
    }
    for name, template in _FILES.items():
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(template.format(**context), encoding="utf-8")
    return sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())


def _example(rubric: Rubric) -> dict[str, str]:
    """A mistake to name in the README: the hooks' ``README_EXAMPLE``, else the catalogue's first."""
    from grader.spec.assignment import assignment_of

    a = assignment_of(rubric)
    example = a.hooks.readme_example
    if example is None or not {"en", "ja"} <= set(example):
        ids = a.mistake_ids()
        title = a.catalogue()[ids[0]].title if ids else {"en": "a stub left in place", "ja": "雛形のまま"}
        example = {"en": title["en"][:1].lower() + title["en"][1:], "ja": title["ja"]}
    return {"example_en": str(example["en"]), "example_ja": str(example["ja"])}


def _lang_lines(rubric: Rubric) -> dict[str, str]:
    """What the README says of the language ``grader check`` speaks: the rubric's first language
    (lang_of: no --lang, no $GRADER_LANG), and how to choose the other where the rubric has it."""
    names = {"ja": ("日本語", "Japanese"), "en": ("英語", "English")}
    langs = [str(x) for x in rubric.report.languages if str(x) in names] or ["en"]
    first, other = langs[0], next((x for x in langs[1:] if x != langs[0]), None)
    ja = f"表示は{names[first][0]}です。"
    if other is None:
        return {"lang_line_ja": ja + "`grader check -v` で詳しい表示になります。",
                "lang_line_en": f"Its output is in {names[first][1]}; `grader check -v` shows more detail."}
    return {"lang_line_ja": ja + f"`grader check --lang {other}`（または環境変数 `GRADER_LANG={other}`）で"
                                 f"{names[other][0]}の表示に、`grader check -v` で詳しい表示になります。",
            "lang_line_en": f"Its output is in {names[first][1]} unless you ask otherwise: `grader check --lang "
                            f"{other}` (or the environment variable `GRADER_LANG={other}`) shows {names[other][1]}; "
                            "`grader check -v` shows more detail."}


def _assignment_readme(rubric: Rubric) -> str:
    """The assignment's own README text (``plugin.readme``), as a section after the common text."""
    readme: Path | None = rubric.plugin.readme
    if readme is None:
        return ""
    return "\n" + readme.read_text(encoding="utf-8").strip() + "\n"


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
    "pytest>=8.4",
    "numpy>=1.26",
    "torch>=2.2,<=2.13.0",
    "nbformat>=5.9",
    "pyyaml>=6",
    "click>=8.1",
    "rich>=13",
    "jinja2>=3.1",
    "matplotlib>=3.8",
    "matplotlib-fontja>=1.1",
]

[project.scripts]
grader = "grader.cli:main"

[tool.setuptools.packages.find]
include = ["grader*"]

[tool.setuptools.package-data]
grader = {package_data}
"""

_README = """\
# {title_ja}

`{exercises}/` の関数を完成させ、`answers.yaml` に答えを書いてください。`.py` ファイル
（{py_files}）とノートブック `{notebook}` には同じ関数が入っています。どちらか一方で作業してください。

採点されるのは、配布時から書き換えた方です。ノートブックだけを書き換えたならノートブックを、
`.py` ファイルを書き換えたなら `.py` ファイルを採点します。両方を書き換えた場合は `.py`
ファイルを採点し、そのことをレポートに書きます。どちらも配布時のままなら、未実装として採点します。
確認問題の答えは、`answers.yaml` とノートブックの答えのセルのうち、書き込んだ方を使います。

## 手元で確認する

```sh
python -m venv .venv
. .venv/bin/activate
pip install {torch_cpu}
pip install .
grader check
```

Windows では 2 行目を `.venv\\Scripts\\activate` にします。3 行目は PyTorch の CPU 版を
入れます（GPU 版は数 GB あり、採点には使いません）。Colab など、torch 2.2〜2.13 が
すでに入っている環境では 1〜3 行目は不要で、`pip install .` は入っている torch をそのまま使います。

`grader check` は公開テストで採点し、どのテストが通らなかったか、よくある間違い
（例：{example_ja}）を、あなたの数値とともに示します。ノートブックのセルで
`!grader check` と実行しても同じです（このリポジトリの中ならどのフォルダからでも動きます）。
{lang_line_ja}

push するたびに GitHub Actions（または GitLab CI）が同じチェックを実行します。
得点が合格点に届かない間はジョブが失敗（赤）と表示されます。結果の表はジョブの概要に、
通らないテストのある関数には、その `def` の行に注釈が付きます（最大 10 個）。
最終的な成績は、ここにない非公開テストも含めて採点されます。

# {title_en}

Complete the functions in `{exercises}/` and write your answers in `answers.yaml`. The `.py`
files ({py_files}) and the notebook `{notebook}` hold the same functions: work in either.

What is graded is what you changed from the files as handed out: the notebook if only the
notebook changed, the `.py` files if they changed. If both changed, the `.py` files are graded
and the report says so; if neither did, the work is graded as not implemented yet. Quiz answers
come from whichever of `answers.yaml` and the notebook's answers cell you filled in.

## Check your work locally

```sh
python -m venv .venv
. .venv/bin/activate
pip install {torch_cpu}
pip install .
grader check
```

On Windows the second line is `.venv\\Scripts\\activate`. The third line installs the CPU
build of PyTorch (the GPU build is gigabytes and grading never uses it). Where torch 2.2 to
2.13 is already installed (Colab, for example), skip the first three lines: `pip install .`
keeps the torch you have.

`grader check` grades your work with the public tests and says which tests failed and which
common mistake it recognised (e.g. {example_en}), with your numbers. `!grader check`
in a notebook cell does the same (it works from any folder inside this repository).
{lang_line_en}

On every push, GitHub Actions (or GitLab CI) runs the same check. The job fails (red) while
the score is below the pass mark. The job summary holds the full table, and each function with
failing tests gets an annotation at its `def` line (at most 10). Your final grade also includes
hidden tests that are not in this repository.
{assignment_readme}"""

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
          cache: pip
          cache-dependency-path: pyproject.toml
      - name: Install the grader
        run: |
          python -m pip install --upgrade pip
          pip install {torch_cpu}
          pip install .
      # Grades what you changed from the handout: the .py files, or the notebook when only it
      # changed. Writes the job summary ($GITHUB_STEP_SUMMARY), the step outputs score,
      # max-score, passed and graded ($GITHUB_OUTPUT), and ::error annotations at the def line
      # of at most 10 functions. Fails the job while the score is below the pass mark.
      - name: grader check
        id: check
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
  variables:
    PIP_CACHE_DIR: "$CI_PROJECT_DIR/.cache/pip"
  cache:
    key:
      files:
        - pyproject.toml
    paths:
      - .cache/pip
  script:
    - python -m pip install --upgrade pip
    - pip install {torch_cpu}
    - pip install .
    # Grades what you changed from the handout, writes the report in every format into
    # grader-report/ (report.md, report.junit.xml, ...) and fails the job below the pass mark.
    - grader check {exercises} --rubric {rubric} --out-dir grader-report
  artifacts:
    when: always
    paths:
      - grader-report/
    reports:
      junit: grader-report/report.junit.xml
"""

_GITIGNORE = """\
__pycache__/
*.egg-info/
build/
.venv/
grader-junit.xml
grader-report/
.cache/
.ipynb_checkpoints/
"""

_FILES = {
    "pyproject.toml": _PYPROJECT,
    "README.md": _README,
    ".github/workflows/autograde.yml": _WORKFLOW,
    ".gitlab-ci.yml": _GITLAB,
    ".gitignore": _GITIGNORE,
}
