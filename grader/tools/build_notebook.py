"""Build the chapter's notebook from the exercise files, so the two never drift apart.

The notebook gets one markdown cell per exercise file (its module docstring), one code cell
per exercise file (its functions), a single imports cell, and a raw cell holding the quiz.
The raw cell's first line is ``# answers.yaml``; that line is how a notebook submission
carries its quiz answers. The last cell is the check cell (:mod:`grader.notebook`): it runs
the public tests on the cells run so far; grading the notebook leaves it out.

Usage::

    python -m grader.tools.build_notebook            # rewrite exercises/chapter07/chapter07.ipynb
    python -m grader.tools.build_notebook --check    # exit 1 if the notebook is out of date

Cell ids are fixed strings, so building twice gives byte-identical files.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

import nbformat
from nbformat import NotebookNode

ROOT = Path(__file__).resolve().parents[2]
PARTS = ("scaling", "softmax", "variance")
ANSWERS_MARKER = "# answers.yaml"

_INTRO = """\
# 第7章 スケーリング: なぜ sqrt(d_k) で割るのか
# Chapter 7 -- Scaling: why divide by sqrt(d_k)

このノートブックには `scaling.py`, `softmax.py`, `variance.py` と同じ関数が入っています。
各関数の `raise NotImplementedError(...)` を自分のコードに置き換え、最後の確認問題の
セルに答えを書き込んでください。関数名と引数は変えないでください。

This notebook holds the same functions as `scaling.py`, `softmax.py` and `variance.py`.
Replace each `raise NotImplementedError(...)` with your own code, then write your answers in
the quiz cell at the end. Keep the function names and arguments as they are.

採点では、このノートブックのコードセルが上から順に実行されます。試しに関数を呼ぶセルを
追加しても構いませんが、時間のかかる処理は避けてください。

When graded, the code cells run from top to bottom. You may add cells that try your
functions out, but keep them quick.
"""

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
（部分だけなら `notebook.check("softmax")`、または `%grader softmax`）。関数を直したら、その
セルを実行してから、もう一度チェックしてください。最終的な採点では非公開テストも実行されます。

Run the next cell to check the cells you have run in this kernel with the public tests; the
result appears below it (one part: `notebook.check("softmax")`, or `%grader softmax`). After
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


def build(folder: Path, answers: Path | None, parts: tuple[str, ...] = PARTS, intro: str = _INTRO) -> NotebookNode:
    """Build the notebook for the exercise files in ``folder`` and the quiz in ``answers``.

    Args:
        folder: holds scaling.py, softmax.py and variance.py.
        answers: the quiz file whose text goes into the raw cell (None or missing: no quiz).
        parts: the code parts, ``<part>.py`` each, in notebook order.
        intro: the first markdown cell (an assignment's hooks give it as ``NOTEBOOK_INTRO``).

    Returns:
        a validated nbformat 4 notebook.
    """
    nb = nbformat.v4.new_notebook()
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
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
    cells.append(nbformat.v4.new_markdown_cell(_CHECK_MD, id="check-md"))
    cells.append(nbformat.v4.new_code_cell(CHECK_CELL, id="check"))
    nb.cells = cells
    nbformat.validate(nb)
    return nb


def render(nb: NotebookNode) -> str:
    """Serialise ``nb`` the way nbformat writes files, with a final newline."""
    return nbformat.writes(nb) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write (or with --check, compare) the exercise notebook; return the exit status."""
    parser = argparse.ArgumentParser(prog="python -m grader.tools.build_notebook")
    parser.add_argument("--folder", type=Path, default=ROOT / "exercises" / "chapter07")
    parser.add_argument("--out", type=Path, default=None, help="default: FOLDER/chapter07.ipynb")
    parser.add_argument("--check", action="store_true", help="exit 1 if OUT is out of date")
    parser.add_argument("--rubric", type=Path, default=None,
                        help="build the notebook of this rubric's assignment (its exercises, parts, intro)")
    args = parser.parse_args(argv)
    folder: Path = args.folder
    out: Path = args.out or folder / "chapter07.ipynb"
    parts, intro = PARTS, _INTRO
    if args.rubric is not None:
        from grader.assignment import assignment_of
        from grader.rubric import load_rubric

        a = assignment_of(load_rubric(args.rubric))
        folder = Path(a.rubric.exercises)
        out = args.out or folder / (a.notebook or f"{a.id}.ipynb")
        parts = tuple(p.id for p in a.code_parts)
        intro = str(getattr(a.hooks.module, "NOTEBOOK_INTRO", "") or f"# {a.rubric.title.ja}\n# {a.rubric.title.en}\n")
    text = render(build(folder, folder / "answers.yaml", parts, intro))
    if args.check:
        current = out.read_text(encoding="utf-8") if out.exists() else ""
        if current != text:
            print(f"{out}: out of date; run python -m grader.tools.build_notebook", file=sys.stderr)
            return 1
        return 0
    out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
