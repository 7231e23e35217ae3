"""``grader new NAME``: a new assignment that ``grader validate`` passes before anyone edits it.

It writes, next to the existing chapters (the course's top folders stay the same):

=========================================  =================================================
``rubrics/NAME.yaml``                      the rubric: one part, the plug-in's paths
``exercises/NAME/``                        the stub (``part1.py``) and its notebook
``solutions/NAME/``                        the reference
``suites/NAME/public/``, ``hidden/``       one public and one hidden test
``suites/NAME/plugin/``                    ``hooks.py`` (one recogniser) and an empty catalogue
``suites/NAME/mutants/``                   the mutants the framework's own ids need
                                           (``not-implemented``, ``float32-precision``)
=========================================  =================================================

The example function (``double``) is there to be replaced: rename the part, write the stub,
the reference and the tests, then add each mistake to the catalogue with a recogniser in
``hooks.py`` and a mutant, and run ``grader validate --rubric rubrics/NAME.yaml``.

Example::

    written = scaffold(Path("."), "chapter09")   # the files, relative to the course folder
"""

from __future__ import annotations

import re
from pathlib import Path

from grader.errors import UsageError
from grader.i18n.messages import said

__all__ = ["HOOKS_CHECK", "scaffold", "write_hooks_check"]

_NAME = re.compile(r"[a-z][a-z0-9_]*")

_RUBRIC = """\
# Rubric for {name} (written by `grader new`; edit freely, then run `grader validate`).
# {name} の採点基準（`grader new` が作成。自由に編集し、`grader validate` で確認してください）。
#
# Every path is relative to this file's folder (rubrics/).
# パスはすべて、このファイルがあるフォルダ（rubrics/）からの相対パスです。
schema: 1
assignment: {name}
title: {{en: "{name}", ja: "{name}"}}
exercises: ../exercises/{name}
reference: ../solutions/{name}
suites:
  public: {{path: ../suites/{name}/public, visibility: visible}}
  hidden: {{path: ../suites/{name}/hidden, visibility: hidden}}
# One part per submitted file; functions: what it defines, in the order the diagnosis probes them.
# 提出ファイルごとに一つの小問。functions: そのファイルが定義する関数（診断はこの順に調べます）。
parts:
  - id: part1
    file: part1.py
    title: {{en: "Part 1", ja: "小問 1"}}
    functions: [double]
# This assignment's own pieces, outside the grader package.
# この課題固有の部品（グレーダー本体の外）。
plugin:
  hooks: ../suites/{name}/plugin/hooks.py
  catalogue: ../suites/{name}/plugin/mistakes.yaml
  mutants: ../suites/{name}/mutants
  notebook: {name}.ipynb
"""

_STUB = '''\
"""{name}, 小問 1 / part 1 (雛形 / stub: replace this text with the assignment's)

学生向けの説明をここに書きます (日本語)。
Write the explanation for students here (English).
"""

import torch


def double(x: torch.Tensor) -> torch.Tensor:
    """x の各要素を 2 倍にして返す。
    Return x with every entry doubled.

    Args:
        x: 任意の形のテンソル / a tensor of any shape.

    Returns:
        x と同じ形のテンソル / a tensor with x's shape.
    """
    raise NotImplementedError("double: まだ実装されていません / not implemented yet")
'''

_SOLUTION = '''\
"""Reference solution for {name} (instructors only; never shipped)."""

import torch


def double(x: torch.Tensor) -> torch.Tensor:
    """x with every entry doubled."""
    return x * 2
'''

_PUBLIC = '''\
"""Public tests for part1.py (torch is the oracle; no reference here)."""

import pytest

from grader.kit import assert_close, describe_call, randn

pytestmark = pytest.mark.part("part1")


def test_double(student, rng):
    """double doubles every entry
    ja: double がすべての要素を 2 倍にする
    """
    x = randn(rng, (3, 4))
    assert_close(student.part1.double(x), x * 2, rtol=1e-6, atol=1e-6, what=describe_call("double", x))
'''

_HIDDEN = '''\
"""Hidden tests for part1.py (the reference answers)."""

import pytest
import torch

from grader.kit import assert_close, describe_call, randn

pytestmark = pytest.mark.part("part1")


def test_double_matches_reference(student, ref, rng):
    """double matches the reference in float64 with a batch axis
    ja: バッチ軸付きの float64 で double が模範解答と一致する
    """
    x = randn(rng, (2, 3, 5), dtype=torch.float64)
    assert_close(student.part1.double(x), ref.part1.double(x), rtol=1e-12, atol=1e-12,
                 what=describe_call("double", x))
'''

_HOOKS = '''\
"""{name}'s plug-in: the probes that recognise the catalogue's mistakes (see grader.kit).

Add one recogniser per function. It calls the student's function on probe inputs and returns
a Finding per mistake it recognises (ids from mistakes.yaml, evidence = the student's numbers).
"""

from __future__ import annotations

import torch

from grader.kit import Finding, Probe, close, describe_call, seeded_randn as randn, unrecognised


def _double(p: Probe) -> list[Finding]:
    x = randn(1, 3, 4)
    got = p("double", x)
    if close(got, p.expect("part1", "double", x)):
        return []
    return unrecognised("double", call=describe_call("double", x))


RECOGNISERS = {{"double": _double}}

#: The right answers without the reference (``grader check`` on a student's machine).
ORACLE = {{"double": lambda x: x.double() * 2}}

# Optional hooks (grader.kit.AssignmentHooks gives each one's type; define those you need):
#   def quiz_findings(answers): ...      mistakes a quiz answer shows -> list[Finding]
#   def plot_data(session, reference): ...   the student's values for the figures -> dict
#   def figures(plots, languages): ...   PNG figures drawn from plot_data -> list[Figure]
#   def expected_values(reference): ...  the public suite's expected.json -> dict
#   NOTEBOOK_INTRO = "..."               the handed-out notebook's first cell
#   README_EXAMPLE = {{"en": "...", "ja": "..."}}   the mistake the student README names
#   def personal_handout(name, text, values): ...   a handed-out file with one student's numbers -> str
'''

_CATALOGUE = """\
# The catalogue of known mistakes for {name} (schema 1); see grader/spec/catalogue.py for the format.
# {name} で検出できる典型的な誤りの一覧です。形式は grader/spec/catalogue.py を見てください。
# not-implemented and unrecognised come from the framework (grader/framework.yaml).
schema: 1
mistakes: {{}}
"""

_MUTANT = '''\
# mistake: not-implemented
# file: part1.py
# mutant: double left as the stub

def double(x):
    raise NotImplementedError("double: not implemented yet")
'''


_MUTANT_FLOAT32 = '''\
# mistake: float32-precision
# file: part1.py
# mutant: double computes in float32 and casts back to the input's dtype: right for float32
# input, only float32-precise for float64 (the hidden test's)

import torch


def double(x):
    return (2 * x.to(torch.float32)).to(x.dtype)
'''


#: The longest assignment name: it names folders and files, far under any file system's limit.
NAME_MAX = 64


def scaffold(root: Path, name: str) -> list[Path]:
    """Write a new assignment called ``name`` under the course folder ``root``.

    Returns:
        The files written, relative to ``root``.

    Raises:
        UsageError: ``name`` is not a lower-case identifier, or one of its files exists.
    """
    if not _NAME.fullmatch(name):
        raise UsageError(said("assignment_name_lower_case", name=f"{name!r}"))
    if len(name) > NAME_MAX:  # it names files (rubrics/NAME.yaml, suites/NAME/...) and a Python package
        raise UsageError(said("assignment_name_most_characters", name=f"{name[:20]}…", max=NAME_MAX, n=len(name)))
    files = {
        f"rubrics/{name}.yaml": _RUBRIC,
        f"exercises/{name}/part1.py": _STUB,
        f"solutions/{name}/part1.py": _SOLUTION,
        f"suites/{name}/public/__init__.py": f'"""{name} public tests."""\n',
        f"suites/{name}/public/test_part1.py": _PUBLIC,
        f"suites/{name}/hidden/__init__.py": f'"""{name} hidden tests."""\n',
        f"suites/{name}/hidden/test_part1.py": _HIDDEN,
        f"suites/{name}/plugin/hooks.py": _HOOKS,
        f"suites/{name}/plugin/mistakes.yaml": _CATALOGUE,
        f"suites/{name}/mutants/not-implemented/stub.py": _MUTANT,
        f"suites/{name}/mutants/float32-precision/in-float32.py": _MUTANT_FLOAT32,
    }
    taken = [rel for rel in files if (root / rel).exists()] + [
        f"{top}/{name}/" for top in ("exercises", "solutions", "suites") if (root / top / name).exists()
    ]
    if taken:
        raise UsageError(said("exists_already_pick_another", name=name, files=', '.join(sorted(set(taken))[:3])))
    written = []
    for rel, template in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(template.format(name=name) if "{name}" in template else template, encoding="utf-8")
        written.append(Path(rel))
    from grader.prepare.build_notebook import build, render

    notebook = root / "exercises" / name / f"{name}.ipynb"
    intro = f"# {name}\n\nノートブック版の雛形です。/ The notebook version of the stub.\n"
    notebook.write_text(render(build(notebook.parent, None, ("part1",), intro)), encoding="utf-8")
    written.append(notebook.relative_to(root))
    write_hooks_check(root)
    written.append(Path(HOOKS_CHECK))
    return written


#: The file mypy reads to hold every chapter's hooks file to the hooks' types, beside the suites.
HOOKS_CHECK = "suites/hooks_conform.py"


def write_hooks_check(root: Path) -> Path:
    """Write ``suites/hooks_conform.py`` for every ``suites/*/plugin/hooks.py`` under ``root``
    (:func:`grader.kit.hooks.conformance_check`); add ``suites/*/plugin`` and this file to mypy's
    ``files`` to have a wrong hook signature fail the type check."""
    from grader.kit.hooks import conformance_check

    modules = {".".join(f.relative_to(root).with_suffix("").parts): str(f)
               for f in sorted((root / "suites").glob("*/plugin/hooks.py"))}
    path = root / HOOKS_CHECK
    path.write_text(conformance_check(modules), encoding="utf-8")
    return path
