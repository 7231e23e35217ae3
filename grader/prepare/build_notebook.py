"""Build an assignment's notebook from its exercise files, so the two never drift apart.

The notebook gets one markdown cell per exercise file (its module docstring), one code cell
per exercise file (its functions), a single imports cell, and a raw cell holding the quiz.
The raw cell's first line is ``# answers.yaml``; that line is how a notebook submission
carries its quiz answers. The last cell is the check cell (:mod:`grader.notebook`): it runs
the public tests on the cells run so far; grading the notebook leaves it out.

Usage::

    python -m grader.prepare.build_notebook            # rewrite the notebook of every rubric in rubrics/
    python -m grader.prepare.build_notebook --check    # exit 1 if one is out of date
    python -m grader.prepare.build_notebook --rubric rubrics/chapter08.yaml

The notebook of an assignment is ``plugin.notebook`` of its rubric, in its exercises folder;
its parts are the rubric's code parts; its first cell is its hooks' ``NOTEBOOK_INTRO``.

Cell ids are fixed strings, so building twice gives byte-identical files.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import nbformat
from nbformat import NotebookNode

if TYPE_CHECKING:
    from grader.spec.rubric.model import Rubric

ANSWERS_MARKER = "# answers.yaml"

_QUIZ = """\
## 確認問題 / Quiz

次の raw セルの `answer:` の後に答えを書いてください。数値の問題は数、選択問題は
a から d の記号一つです。1行目の `# answers.yaml` は消さないでください。

Write each answer after `answer:` in the raw cell below: a number for numeric questions,
one letter a to d for multiple choice. Keep its first line, `# answers.yaml`, as it is.
"""

_CHECK_MD = """\
## チェック / Check

次のセルを実行すると、このカーネルで実行したセルを公開テストで確かめ、結果をここに表示します
（部分だけなら `notebook.check("{part}")`、または `%grader {part}`）。関数を直したら、その
セルを実行してから、もう一度チェックしてください。最終的な採点では非公開テストも実行されます。

Run the next cell to check the cells you have run in this kernel with the public tests; the
result appears below it (one part: `notebook.check("{part}")`, or `%grader {part}`). After
changing a function, run its cell, then check again. Grading also runs hidden tests.
"""

CHECK_CELL = "from grader import notebook\nnotebook.check()"


def _split_module(source: str, filename: str) -> tuple[str, list[str], str]:
    """Return (docstring, import lines, everything from the first definition on)."""
    tree = ast.parse(source, filename=filename)
    doc = ast.get_docstring(tree) or ""
    lines = source.splitlines()
    imports: list[str] = []
    body_start = len(lines)
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            # A __future__ import is only legal at the top of a module; a later cell
            # would turn it into a SyntaxError.
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.extend(lines[node.lineno - 1 : node.end_lineno])
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            body_start = min(body_start, first - 1)
    return doc, imports, "\n".join(lines[body_start:]).rstrip() + "\n"


def _docstring_to_markdown(doc: str) -> str:
    title_ja, title_en, *rest = [*doc.splitlines(), "", ""]
    text = "\n".join(rest).strip().replace("``", "`")
    return f"## {title_ja}\n### {title_en}\n\n{text}\n"


def build(folder: Path, answers: Path | None, parts: tuple[str, ...] | None = None, intro: str = "") -> NotebookNode:
    """Build the notebook for the exercise files in ``folder`` and the quiz in ``answers``.

    Args:
        folder: holds the exercise files, ``<part>.py`` each.
        answers: the quiz file whose text goes into the raw cell (None or missing: no quiz).
        parts: the code parts, ``<part>.py`` each, in notebook order (default: the folder's
            ``.py`` files, by name).
        intro: the first markdown cell (an assignment's hooks give it as ``NOTEBOOK_INTRO``).

    Returns:
        a validated nbformat 4 notebook.
    """
    nb: NotebookNode = nbformat.v4.new_notebook()  # (nbformat's functions carry no annotations)
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    if parts is None:
        parts = tuple(sorted(p.stem for p in folder.glob("*.py")))
    cells = [nbformat.v4.new_markdown_cell(intro, id="intro")]
    imports: list[str] = []
    read: list[tuple[str, str, str]] = []
    for part in parts:
        path = folder / f"{part}.py"
        doc, part_imports, code = _split_module(path.read_text(encoding="utf-8"), str(path))
        imports.extend(line for line in part_imports if line not in imports)
        read.append((part, doc, code))
    cells.append(nbformat.v4.new_code_cell("\n".join(imports), id="imports"))
    for part, doc, code in read:
        cells.append(nbformat.v4.new_markdown_cell(_docstring_to_markdown(doc), id=f"{part}-md"))
        cells.append(nbformat.v4.new_code_cell(code.rstrip("\n"), id=f"{part}-code"))
    if answers is not None and answers.exists():  # an assignment without a quiz has no answers cell
        cells.append(nbformat.v4.new_markdown_cell(_QUIZ, id="quiz-md"))
        quiz = answers.read_text(encoding="utf-8").rstrip("\n")
        cells.append(nbformat.v4.new_raw_cell(f"{ANSWERS_MARKER}\n{quiz}", id="answers"))
    # The example part of the check cell's text: one from the middle of the list.
    cells.append(nbformat.v4.new_markdown_cell(_CHECK_MD.format(part=parts[len(parts) // 2] if parts else "part"),
                                               id="check-md"))
    cells.append(nbformat.v4.new_code_cell(CHECK_CELL, id="check"))
    nb.cells = cells
    nbformat.validate(nb)
    return nb


def render(nb: NotebookNode) -> str:
    """Serialise ``nb`` the way nbformat writes files, with a final newline."""
    text: str = nbformat.writes(nb)
    return text + "\n"


def for_rubric(rubric: Rubric) -> tuple[Path, str] | None:
    """The notebook file of ``rubric``'s assignment and its text as built now (None: no notebook)."""
    from grader.spec.assignment import assignment_of

    a = assignment_of(rubric)
    if not rubric.plugin.notebook:
        return None
    folder = Path(rubric.exercises)
    intro = a.hooks.notebook_intro or f"# {rubric.title.ja}\n# {rubric.title.en}\n"
    quiz = folder / a.quiz_file if a.quiz_file else None
    return folder / rubric.plugin.notebook, render(build(folder, quiz, tuple(p.id for p in a.code_parts), intro))


def main(argv: list[str] | None = None) -> int:
    """Write (or with --check, compare) the exercise notebooks; return the exit status."""
    from grader.ingest.find_rubric import find_rubrics
    from grader.spec.rubric.load import load_rubric

    parser = argparse.ArgumentParser(prog="python -m grader.prepare.build_notebook")
    parser.add_argument("--rubric", type=Path, action="append", default=None,
                        help="the rubric whose notebook to build (repeatable; default: every rubric)")
    parser.add_argument("--check", action="store_true", help="exit 1 if a notebook is out of date")
    args = parser.parse_args(argv)
    status = 0
    for path in args.rubric or find_rubrics():
        built = for_rubric(load_rubric(path))
        if built is None:
            continue
        out, text = built
        if args.check:
            current = out.read_text(encoding="utf-8") if out.exists() else ""
            if current != text:
                print(f"{out}: out of date; run python -m grader.prepare.build_notebook", file=sys.stderr)
                status = 1
            continue
        out.write_text(text, encoding="utf-8")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
