"""Tests for grader/ingest/submission/ (model, load, notebook, trees): real folders, notebooks and zips built in tmp_path."""

from __future__ import annotations

import dataclasses
import json
import os
import stat
import zipfile
from collections.abc import Mapping
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_raw_cell

from grader.spec.assignment import assignment_of
from grader.errors import SubmissionError
from grader.spec.rubric.load import load_rubric
from grader.ingest.submission.model import Chunk, Module, ReadLimits, Submission
from grader.ingest.submission.notebook import _neutralise_ipython
from grader.ingest.submission.load import read_submission as _load_submission

from tests.helpers import ROOT, TESTS


FIXTURES = TESTS / "fixtures" / "loader"
#: The files chapter 7's rubric declares: these tests read chapter-7 submissions.
PART_FILES = assignment_of(load_rubric(ROOT / "rubrics" / "chapter07.yaml")).part_files


def load_submission(path: str | Path, **kwargs: object) -> Submission:
    return _load_submission(path, parts=PART_FILES, **kwargs)  # type: ignore[arg-type]

SCALING = (
    "import math\n\ndef scaling_factor(d_model, n_heads):\n"
    "    return math.sqrt(d_model // n_heads)\n"
)
SOFTMAX = "import torch\n\ndef softmax(x, dim=-1):\n    return torch.softmax(x, dim)\n"
VARIANCE = "def dot_product_variance(d_k, n_samples=10000, seed=0):\n    return float(d_k)\n"
ANSWERS = "gpt2_small_d_k: 64\nwhy_sqrt: b\n"
FILES = {
    "scaling.py": SCALING,
    "softmax.py": SOFTMAX,
    "variance.py": VARIANCE,
    "answers.yaml": ANSWERS,
}


def write_tree(root: Path, files: Mapping[str, str | bytes]) -> Path:
    for name, content in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    return root


def write_zip(path: Path, files: Mapping[str, str | bytes]) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return path


def write_notebook(path: Path, cells: list[nbformat.NotebookNode]) -> Path:
    nbformat.write(new_notebook(cells=cells), str(path))
    return path


def notebook_text(cells: list[nbformat.NotebookNode]) -> str:
    text: str = nbformat.writes(new_notebook(cells=cells))
    return text


# --- folders ------------------------------------------------------------------------------


def test_folder_reads_each_part_as_one_chunk_and_the_answers(tmp_path: Path) -> None:
    """Each .py file becomes a Module with one Chunk labelled by its file name."""
    folder = write_tree(tmp_path / "alice", FILES)

    sub = load_submission(folder)

    assert ("alice", "folder", "folder") == (sub.name, sub.origin, sub.kind)
    assert folder == sub.path
    assert ["scaling", "softmax", "variance"] == [m.name for m in sub.modules]
    assert (Chunk(code=SOFTMAX, label="softmax.py", first_line=1),) == sub.modules[1].chunks
    assert "softmax.py" == sub.modules[1].filename
    assert ANSWERS == sub.answers
    assert () == sub.notes
    assert sub.modules[0] is sub.part_module("scaling")
    assert sub.part_module("quiz") is None


def test_folder_with_missing_files_has_only_the_modules_present(tmp_path: Path) -> None:
    """A missing file simply has no Module, and no quiz means answers is None."""
    folder = write_tree(tmp_path / "bob", {"softmax.py": SOFTMAX})

    sub = load_submission(folder)

    assert ["softmax"] == [m.name for m in sub.modules]
    assert sub.part_module("scaling") is None
    assert sub.answers is None
    assert () == sub.notes


def test_wrapped_folder_is_read_one_level_down(tmp_path: Path) -> None:
    """An LMS export wraps the work in one subfolder; junk next to it does not count."""
    folder = tmp_path / "carol_12345"
    write_tree(folder / "chapter07", FILES)
    write_tree(folder, {".DS_Store": b"\0", "__MACOSX/._x": b"\0", "README.txt": "hi"})

    sub = load_submission(folder)

    assert "carol_12345" == sub.name
    assert ["scaling", "softmax", "variance"] == [m.name for m in sub.modules]
    assert ANSWERS == sub.answers


def test_folder_with_py_files_is_not_unwrapped(tmp_path: Path) -> None:
    """Only a folder with no .py of its own is treated as a wrapper."""
    folder = write_tree(tmp_path / "dan", {"scaling.py": SCALING, "old/softmax.py": SOFTMAX})

    sub = load_submission(folder)

    assert ["scaling"] == [m.name for m in sub.modules]


def test_source_is_decoded_like_python_does(tmp_path: Path) -> None:
    """BOM stripped, CRLF normalised, a coding cookie honoured."""
    folder = write_tree(
        tmp_path / "enc",
        {
            "scaling.py": b"\xef\xbb\xbfx = '\xc3\xa9'\r\ny = 2\r\n",
            "softmax.py": "# -*- coding: latin-1 -*-\ns = '\xe9'\n".encode("latin-1"),
        },
    )

    sub = load_submission(folder)

    assert "x = '\u00e9'\ny = 2\n" == sub.modules[0].chunks[0].code
    assert "# -*- coding: latin-1 -*-\ns = '\u00e9'\n" == sub.modules[1].chunks[0].code
    assert () == sub.notes


def test_undecodable_bytes_are_replaced_with_a_note(tmp_path: Path) -> None:
    """Bytes that are not UTF-8 do not stop grading; the student is told."""
    folder = write_tree(tmp_path / "bad", {"variance.py": b"x = '\xff\xfe'\n"})

    sub = load_submission(folder)

    assert "x = '\ufffd\ufffd'\n" == sub.modules[0].chunks[0].code
    assert any("variance.py is not valid UTF-8" in note for note in sub.notes)


def test_file_over_the_cap_is_skipped_with_a_note(tmp_path: Path) -> None:
    """A file over max_file_bytes is not read; the note gives its size and the limit."""
    folder = write_tree(tmp_path / "big", {"scaling.py": "x = 1\n" * 400, "softmax.py": SOFTMAX})

    sub = load_submission(folder, limits=ReadLimits(max_file_bytes=1000))

    assert ["softmax"] == [m.name for m in sub.modules]
    assert any(note.startswith("skipped scaling.py: it is") for note in sub.notes)


def test_default_file_cap_is_one_mebibyte(tmp_path: Path) -> None:
    """The default cap skips a .py file just over 1 MiB."""
    folder = write_tree(tmp_path / "huge", {"scaling.py": "#" * (1024 * 1024 + 1)})

    sub = load_submission(folder)

    assert () == sub.modules
    assert any("over the 1 MiB limit" in note for note in sub.notes)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_symlinked_file_is_never_followed(tmp_path: Path) -> None:
    """A link could point at the reference solution; it is skipped, not read."""
    secret = write_tree(tmp_path / "solutions", {"scaling.py": "REFERENCE = True\n"})
    folder = tmp_path / "eve"
    folder.mkdir()
    try:
        os.symlink(secret / "scaling.py", folder / "scaling.py")
    except OSError:
        pytest.skip("cannot create symbolic links here")

    sub = load_submission(folder)

    assert () == sub.modules
    assert any("skipped scaling.py: it is a symbolic link" in note for note in sub.notes)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_symlinked_notebook_is_never_followed(tmp_path: Path) -> None:
    """The notebook branch refuses links too."""
    secret = write_notebook(tmp_path / "reference.ipynb", [new_code_cell("REFERENCE = 1")])
    folder = tmp_path / "eve"
    folder.mkdir()
    try:
        os.symlink(secret, folder / "chapter07.ipynb")
    except OSError:
        pytest.skip("cannot create symbolic links here")

    sub = load_submission(folder)

    assert ((), "folder") == (sub.modules, sub.kind)
    assert "skipped chapter07.ipynb: it is a symbolic link, not a file" == sub.notes[0]


def test_misnamed_files_get_a_note_with_the_nearest_name(tmp_path: Path) -> None:
    """No expected file found: still a Submission, with the .py files listed and a rename hint."""
    folder = write_tree(tmp_path / "frank", {"Scaling.py": SCALING, "helpers.py": "x = 1\n"})

    sub = load_submission(folder)

    assert () == sub.modules
    assert "folder" == sub.kind
    expected = (
        "found none of scaling.py, softmax.py, variance.py; .py files present: Scaling.py,"
        " helpers.py; rename Scaling.py to scaling.py?"
    )
    assert (expected,) == sub.notes


def test_partly_misnamed_files_get_a_note(tmp_path: Path) -> None:
    """One file right and one misnamed: the note names the missing file and the fix."""
    folder = write_tree(tmp_path / "gina", {"scaling.py": SCALING, "variance (1).py": VARIANCE})

    sub = load_submission(folder)

    assert ["scaling"] == [m.name for m in sub.modules]
    expected = (
        "found no softmax.py or variance.py; .py files present: variance (1).py;"
        " rename variance (1).py to variance.py?"
    )
    assert (expected,) == sub.notes


def test_empty_folder_is_a_submission_without_modules(tmp_path: Path) -> None:
    """An empty folder scores zero rather than failing the batch."""
    (tmp_path / "empty").mkdir()

    sub = load_submission(tmp_path / "empty")

    assert ((), None) == (sub.modules, sub.answers)
    expected = "found none of scaling.py, softmax.py, variance.py, and no other .py files"
    assert (expected,) == sub.notes


def test_folder_with_only_a_notebook_is_graded_as_that_notebook(tmp_path: Path) -> None:
    """origin says where it was found, kind what the worker loads."""
    folder = tmp_path / "hana"
    folder.mkdir()
    write_notebook(folder / "chapter07.ipynb", [new_code_cell(SCALING)])

    sub = load_submission(folder)

    assert ("hana", "folder", "notebook") == (sub.name, sub.origin, sub.kind)
    assert "chapter07.ipynb" == sub.modules[0].filename


def test_folder_with_py_files_and_a_notebook_grades_the_py_files(tmp_path: Path) -> None:
    """The handed-out folder holds both; the .py files win and the note says so."""
    folder = write_tree(tmp_path / "ivan", FILES)
    write_notebook(folder / "chapter07.ipynb", [new_code_cell(SCALING)])

    sub = load_submission(folder)

    assert "folder" == sub.kind
    assert any(note.startswith("ignored chapter07.ipynb") for note in sub.notes)


def test_loading_never_runs_student_code(tmp_path: Path) -> None:
    """Reading a submission must not import or execute it."""
    marker = tmp_path / "ran"
    code = f"open({str(marker)!r}, 'w').close()\nraise SystemExit(3)\n"
    folder = write_tree(tmp_path / "mallory", dict.fromkeys(PART_FILES.values(), code))
    write_notebook(tmp_path / "mallory.ipynb", [new_code_cell(code)])

    load_submission(folder)
    load_submission(tmp_path / "mallory.ipynb")

    assert not marker.exists()


# --- notebooks ----------------------------------------------------------------------------


MAGIC_CELL = """%matplotlib inline
import math
files = !ls -la
if True:
    !echo hi
    listing = %sx ls
math.sqrt?
??math
get_ipython().run_line_magic('load_ext', 'autoreload')
doc = '''
% of heads
!not a command
'''
def head_dim(d_model, n_heads):
    return d_model // n_heads
"""


def test_notebook_cells_become_chunks_labelled_as_jupyter_numbers_them(tmp_path: Path) -> None:
    """Cell numbers count every cell; markdown and empty cells give no chunk."""
    path = write_notebook(
        tmp_path / "chapter07.ipynb",
        [
            new_markdown_cell("# Chapter 7"),
            new_code_cell(SCALING),
            new_code_cell("   \n"),
            new_code_cell(SOFTMAX),
        ],
    )

    sub = load_submission(path)

    assert ("chapter07", "notebook", "notebook") == (sub.name, sub.origin, sub.kind)
    (module,) = sub.modules
    assert ("notebook", "chapter07.ipynb") == (module.name, module.filename)
    labels = [c.label for c in module.chunks]
    assert ["chapter07.ipynb, cell 2", "chapter07.ipynb, cell 4"] == labels
    assert [SCALING, SOFTMAX] == [c.code for c in module.chunks]
    assert module is sub.part_module("variance") is sub.part_module("scaling")
    assert sub.part_module("quiz") is None


def test_magics_are_neutralised_keeping_line_numbers(tmp_path: Path) -> None:
    """Magics, shell lines, help lines and get_ipython() become blank lines (pass inside a
    block); the rest is untouched."""
    path = write_notebook(tmp_path / "nb.ipynb", [new_code_cell(MAGIC_CELL)])

    code = load_submission(path).modules[0].chunks[0].code

    compile(code, "nb.ipynb, cell 1", "exec")
    before, after = MAGIC_CELL.split("\n"), code.split("\n")
    assert len(before) == len(after)
    replaced = [
        n for n, (old, new) in enumerate(zip(before, after, strict=True), start=1) if old != new
    ]
    assert [1, 3, 5, 6, 7, 8, 9] == replaced
    assert "    pass" == after[4]
    assert after[10:16] == before[10:16]  # a "%" inside a string is data, not a magic


def test_neutralised_lines_are_listed_in_a_note(tmp_path: Path) -> None:
    """Students learn which IPython lines the grader did not run."""
    path = write_notebook(tmp_path / "nb.ipynb", [new_code_cell("%pip install torch\nx = 1")])

    sub = load_submission(path)

    expected = (
        "nb.ipynb: IPython magics and shell commands are not run when grading:"
        " cell 1: line 1: %pip install torch"
    )
    assert (expected,) == sub.notes


def test_assigned_shell_output_keeps_its_indentation() -> None:
    """`x = !ls` inside a block becomes pass at the same depth, so the block still parses."""
    code, removed = _neutralise_ipython("def f():\n    x = !ls\n    y = %env HOME\nf()\n")

    assert "def f():\n    pass\n    pass\nf()\n" == code
    assert ["line 2: x = !ls", "line 3: y = %env HOME"] == removed


def test_backslash_continued_shell_line_is_neutralised_whole() -> None:
    """A shell command continued with a backslash is replaced on every line it spans."""
    code, _ = _neutralise_ipython("!pip install \\\n    numpy\nx = 1")

    assert "\n\nx = 1" == code


def test_indented_cell_is_dedented_like_ipython_does() -> None:
    """IPython strips the first line's indentation from the whole cell."""
    code, _ = _neutralise_ipython("    %time x = 1\n    y = 2\n")

    assert "\ny = 2\n" == code


def test_time_cell_magic_keeps_its_python_body(tmp_path: Path) -> None:
    """%%time runs its body in the notebook's namespace, so the functions it defines count."""
    cell = "%%time\ndef head_dim(d_model, n_heads):\n    return d_model // n_heads\n"
    path = write_notebook(tmp_path / "nb.ipynb", [new_code_cell(cell)])

    code = load_submission(path).modules[0].chunks[0].code

    assert "\n" + cell.split("\n", 1)[1] == code
    compile(code, "cell", "exec")


@pytest.mark.parametrize("magic", ["%%time", "%%capture", "%matplotlib inline", "!pip install numpy",
                                   "files = !ls"])
def test_a_future_import_below_a_magic_is_still_the_cells_first_statement(magic: str) -> None:
    """IPython runs a cell whose first line is a magic and whose next is ``from __future__
    import annotations``; so must the grader: nothing it puts in the magic's place is a statement."""
    cell = f"{magic}\nfrom __future__ import annotations\n\ndef head_dim(d_model: int, n_heads: int) -> int:\n" \
           "    return d_model // n_heads\n"

    code, removed = _neutralise_ipython(cell)

    if magic in ("%%time", "%%capture"):
        namespace: dict[str, object] = {}
        exec(compile(code, "cell", "exec", dont_inherit=True), namespace)  # noqa: S102 - our own text
        assert namespace["head_dim"](768, 12) == 64  # type: ignore[operator]
    else:
        compile(code, "cell", "exec", dont_inherit=True)
    assert code.count("\n") == cell.count("\n") and removed


@pytest.mark.parametrize("magic", ["%%bash", "%%timeit -n 1", "%%writefile out.py"])
def test_other_cell_magics_skip_the_whole_cell(magic: str) -> None:
    """A cell magic whose body is not notebook Python becomes pass lines, same line count."""
    cell = f"{magic}\necho hi\n    ls -la\n"

    code, removed = _neutralise_ipython(cell)

    assert "pass\npass\npass\n" == code
    assert [f"{magic.split(maxsplit=1)[0]} cell"] == removed


def test_answers_raw_cell_is_the_quiz(tmp_path: Path) -> None:
    """A raw cell starting with '# answers.yaml' carries the quiz, all of its text."""
    answers = "# answers.yaml\ngpt2_small_d_k: 64\n"
    path = write_notebook(
        tmp_path / "nb.ipynb",
        [new_raw_cell("not the quiz"), new_code_cell(SCALING), new_raw_cell(answers)],
    )

    sub = load_submission(path)

    assert answers == sub.answers
    assert 1 == len(sub.modules[0].chunks)


def test_notebook_saved_by_jupyter_is_read() -> None:
    """A v4.4 notebook as Jupyter writes it: source as line lists, outputs, no cell ids."""
    sub = load_submission(FIXTURES / "saved_by_jupyter.ipynb")

    chunks = sub.modules[0].chunks
    assert ["saved_by_jupyter.ipynb, cell 2", "saved_by_jupyter.ipynb, cell 3"] == [
        c.label for c in chunks
    ]
    assert "\nimport math" == chunks[0].code
    assert "# answers.yaml\ngpt2_small_d_k: 64\n" == sub.answers


def test_second_answers_cell_is_ignored_with_a_note(tmp_path: Path) -> None:
    """Two answers cells are ambiguous: the first one is the quiz and the student is told."""
    path = write_notebook(
        tmp_path / "nb.ipynb",
        [new_raw_cell("# answers.yaml\nq: 1\n"), new_raw_cell("# answers.yaml\nq: 2\n")],
    )

    sub = load_submission(path)

    assert "# answers.yaml\nq: 1\n" == sub.answers
    assert ("nb.ipynb: cell 2 is a second answers cell; used the first",) == sub.notes


def test_notebook_over_the_cap_is_refused_with_the_fix(tmp_path: Path) -> None:
    """A notebook bloated by outputs names its size and how to shrink it."""
    path = write_notebook(tmp_path / "fat.ipynb", [new_code_cell("x = 1\n" * 200)])

    with pytest.raises(SubmissionError, match=r"fat\.ipynb: the notebook is .*clear its outputs"):
        load_submission(path, limits=ReadLimits(max_notebook_bytes=500))


def test_broken_notebook_names_the_file_and_the_fix(tmp_path: Path) -> None:
    """A notebook that is not JSON cannot be graded at all."""
    path = tmp_path / "broken.ipynb"
    path.write_text('{"cells": [', encoding="utf-8")

    expected = r"broken\.ipynb: cannot read the notebook .*save it again"
    with pytest.raises(SubmissionError, match=expected):
        load_submission(path)


# --- zips ---------------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["", "alice_123/"])
def test_zip_of_a_folder_with_or_without_a_wrapping_folder(tmp_path: Path, prefix: str) -> None:
    """Both layouts give the same modules, answers and hash as the folder itself."""
    folder = write_tree(tmp_path / "alice", FILES)
    archive = write_zip(tmp_path / "alice.zip", {prefix + k: v for k, v in FILES.items()})

    from_zip, from_folder = load_submission(archive), load_submission(folder)

    assert ("alice", "zip", "folder") == (from_zip.name, from_zip.origin, from_zip.kind)
    assert from_folder.modules == from_zip.modules
    assert ANSWERS == from_zip.answers
    assert from_folder.content_hash == from_zip.content_hash


def test_content_hash_follows_the_content_not_the_names(tmp_path: Path) -> None:
    """Renaming a notebook keeps the hash; changing one character changes it."""
    cells = [new_code_cell(SCALING), new_raw_cell("# answers.yaml\nq: 1\n")]
    first = load_submission(write_notebook(tmp_path / "a.ipynb", cells))
    renamed = load_submission(write_notebook(tmp_path / "b.ipynb", cells))
    edited = load_submission(
        write_notebook(tmp_path / "c.ipynb", [cells[0], new_raw_cell("# answers.yaml\nq: 2\n")])
    )

    assert first.content_hash == renamed.content_hash
    assert first.content_hash != edited.content_hash
    assert 64 == len(first.content_hash)


def test_zip_junk_is_ignored_with_a_note(tmp_path: Path) -> None:
    """__MACOSX/, ._ files, .DS_Store and __pycache__ never count, even as a wrapping folder."""
    archive = write_zip(
        tmp_path / "mac.zip",
        {
            "hw07/scaling.py": SCALING,
            "__MACOSX/hw07/._scaling.py": b"\0\x05\x16\x07",
            "hw07/._softmax.py": b"\0",
            "hw07/.DS_Store": b"\0",
            "hw07/__pycache__/scaling.cpython-311.pyc": b"\0",
        },
    )

    sub = load_submission(archive)

    assert ["scaling"] == [m.name for m in sub.modules]
    assert ("ignored .DS_Store, ._* files, __MACOSX/, __pycache__/ in the zip",) == sub.notes


@pytest.mark.parametrize(
    "name",
    [
        "../scaling.py",
        "hw07/../../scaling.py",
        "/etc/scaling.py",
        "C:/scaling.py",
        "..\\..\\scaling.py",
    ],
)
def test_zip_slip_entry_names_are_refused(tmp_path: Path, name: str) -> None:
    """An entry that points outside the zip refuses the whole zip; nothing is written."""
    archive = write_zip(tmp_path / "evil.zip", {"softmax.py": SOFTMAX, name: SCALING})
    before = sorted(p.name for p in tmp_path.rglob("*"))

    with pytest.raises(SubmissionError, match=r"evil\.zip: refused: .*points outside the zip"):
        load_submission(archive)
    assert before == sorted(p.name for p in tmp_path.rglob("*"))


def test_zip_bomb_over_the_default_size_cap_is_refused(tmp_path: Path) -> None:
    """21 MiB of zeros packs into a few KiB but unpacks over the 20 MiB default."""
    archive = write_zip(tmp_path / "bomb.zip", {"scaling.py": b"\0" * (21 * 1024 * 1024)})
    assert archive.stat().st_size < 100_000

    with pytest.raises(SubmissionError, match=r"bomb\.zip: the zip unpacks to 21 MiB"):
        load_submission(archive)


def test_zip_file_over_the_size_cap_is_refused_before_opening(tmp_path: Path) -> None:
    """A large zip on disk is refused without reading its directory."""
    archive = write_zip(tmp_path / "big.zip", {"data.bin": os.urandom(4096)})

    with pytest.raises(
        SubmissionError, match=r"big\.zip: the zip is 4(\.\d)? KiB, over the 1 KiB limit"
    ):
        load_submission(archive, limits=ReadLimits(max_zip_bytes=1024))


def test_zip_member_count_is_capped(tmp_path: Path) -> None:
    """Too many entries is refused before any of them is read."""
    archive = write_zip(tmp_path / "many.zip", {f"f{i}.txt": "x" for i in range(11)})

    with pytest.raises(SubmissionError, match=r"holds 11 entries, over the limit of 10"):
        load_submission(archive, limits=ReadLimits(max_zip_members=10))


def test_zip_with_a_notebook(tmp_path: Path) -> None:
    """A zip holding one notebook (here wrapped in a folder) is graded as that notebook."""
    nb = notebook_text([new_code_cell(SCALING), new_raw_cell("# answers.yaml\nq: 1\n")])
    archive = write_zip(tmp_path / "bob.zip", {"bob/chapter07.ipynb": nb})

    sub = load_submission(archive)

    assert ("bob", "zip", "notebook") == (sub.name, sub.origin, sub.kind)
    assert "chapter07.ipynb, cell 1" == sub.modules[0].chunks[0].label
    assert "# answers.yaml\nq: 1\n" == sub.answers


def test_zip_with_several_notebooks_prefers_chapter07(tmp_path: Path) -> None:
    """The notebook named for the chapter wins over a bigger scratch notebook."""
    big = notebook_text([new_code_cell("x = 1\n" * 200)])
    archive = write_zip(
        tmp_path / "two.zip",
        {"scratch.ipynb": big, "Chapter07_answers.ipynb": notebook_text([new_code_cell(SCALING)])},
    )

    sub = load_submission(archive)

    assert "Chapter07_answers.ipynb" == sub.modules[0].filename
    expected = (
        "zip held 2 notebooks (Chapter07_answers.ipynb, scratch.ipynb);"
        " graded Chapter07_answers.ipynb"
    )
    assert (expected,) == sub.notes


def test_zip_with_several_unnamed_notebooks_takes_the_largest(tmp_path: Path) -> None:
    """Without a chapter07 name, the largest notebook is graded."""
    archive = write_zip(
        tmp_path / "two.zip",
        {
            "a.ipynb": notebook_text([new_code_cell("x = 1")]),
            "b.ipynb": notebook_text([new_code_cell(SCALING + SOFTMAX)]),
        },
    )

    assert "b.ipynb" == load_submission(archive).modules[0].filename


def test_zip_inside_a_zip_is_refused(tmp_path: Path) -> None:
    """A zip of a zip gets a message saying to zip the folder directly."""
    inner = write_zip(tmp_path / "inner.zip", FILES).read_bytes()
    archive = write_zip(tmp_path / "outer.zip", {"inner.zip": inner})

    with pytest.raises(SubmissionError, match=r"outer\.zip: holds another zip \(inner\.zip\)"):
        load_submission(archive)


def test_symlink_entry_in_a_zip_is_skipped(tmp_path: Path) -> None:
    """A zipped symbolic link is never treated as the file it names."""
    archive = tmp_path / "link.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        info = zipfile.ZipInfo("scaling.py")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(info, "../../solutions/chapter07/scaling.py")
        zf.writestr("softmax.py", SOFTMAX)

    sub = load_submission(archive)

    assert ["softmax"] == [m.name for m in sub.modules]
    assert any("skipped scaling.py: it is a symbolic link" in note for note in sub.notes)


def test_file_that_is_not_a_zip_is_refused(tmp_path: Path) -> None:
    """A .zip that is not a zip archive names the file and the fix."""
    path = tmp_path / "fake.zip"
    path.write_bytes(b"not a zip at all")

    expected = r"fake\.zip: not a readable zip file .*create the zip again"
    with pytest.raises(SubmissionError, match=expected):
        load_submission(path)


# --- paths that are not submissions --------------------------------------------------------


@pytest.mark.parametrize("name", ["missing", "notes.txt", "scaling.py"])
def test_path_that_is_not_a_submission(tmp_path: Path, name: str) -> None:
    """A missing path or an unknown kind of file is a SubmissionError naming it."""
    path = tmp_path / name
    if name != "missing":
        path.write_text("x = 1\n", encoding="utf-8")

    with pytest.raises(SubmissionError) as info:
        load_submission(path)

    assert str(info.value).startswith(
        f"{path}: not a submission: expected a folder with scaling.py/softmax.py/variance.py,"
        " a .ipynb notebook or a .zip of either"
    )


def test_names_are_made_safe_for_file_names(tmp_path: Path) -> None:
    """Characters outside [A-Za-z0-9._-] become _, so reports can be named after it."""
    path = write_zip(tmp_path / "\u5c71\u7530 taro (late).zip", {"scaling.py": SCALING})

    assert "___taro__late_" == load_submission(path).name


# --- plain data ---------------------------------------------------------------------------


def test_module_to_dict_is_plain_json_data_and_round_trips(tmp_path: Path) -> None:
    """What crosses the sandbox boundary is only str, int, list and dict."""
    sub = load_submission(write_tree(tmp_path / "alice", FILES))

    for module in sub.modules:
        data = module.to_dict()
        assert data == json.loads(json.dumps(data))
        assert module == Module.from_dict(json.loads(json.dumps(data)))
    assert {
        "name": "softmax",
        "filename": "softmax.py",
        "chunks": [{"code": SOFTMAX, "label": "softmax.py", "first_line": 1}],
    } == sub.modules[1].to_dict()


def test_submission_is_frozen(tmp_path: Path) -> None:
    """Loaded submissions are values: nothing downstream can change what is graded."""
    sub = load_submission(write_tree(tmp_path / "alice", FILES))

    with pytest.raises(dataclasses.FrozenInstanceError):
        sub.answers = "tampered"  # type: ignore[misc]
    assert isinstance(sub, Submission)


def test_every_read_limit_has_help_text() -> None:
    """Docs and --help can list the limits."""
    assert all(f.metadata.get("help") for f in dataclasses.fields(ReadLimits))


def test_without_declared_parts_every_py_file_is_a_part(tmp_path: Path) -> None:
    """No assignment named: each .py file is a part named by its stem, and none is missing."""
    folder = write_tree(tmp_path / "ivan", {"masking.py": "def f():\n    return 1\n", "notes.txt": "x"})
    sub = _load_submission(folder)
    assert ["masking"] == [m.name for m in sub.modules]
    assert ("masking",) == sub.code_parts
    assert () == sub.notes
    declared = _load_submission(folder, parts={"masking": "masking.py"})
    assert declared.content_hash == sub.content_hash
    other = _load_submission(folder, parts={"part1": "part1.py"})
    assert () == other.modules
    assert "found none of part1.py; .py files present: masking.py" == other.notes[0]


CHECK_CELL = "from grader import notebook\nnotebook.check()"


@pytest.mark.parametrize("cell", [CHECK_CELL, "%grader softmax", "# check again\nfrom grader import notebook\n"
                                  "notebook.check(\n    'softmax', lang='en')\n", "!grader check", "%load_ext grader\n"])
def test_a_check_cell_is_not_the_students_work(tmp_path: Path, cell: str) -> None:
    """The check cell the handed-out notebook holds (and the grader's magic) is neither graded
    nor counted among the cells, and no note calls it a magic the grader did not run."""
    from grader.ingest.submission.notebook import is_check_cell, notebook_submission

    assert is_check_cell(cell)
    path = write_notebook(tmp_path / "nb.ipynb", [new_code_cell(SCALING), new_code_cell(cell), new_code_cell(SOFTMAX)])
    sub = load_submission(path)
    assert [c.label for c in sub.modules[0].chunks] == ["nb.ipynb, cell 1", "nb.ipynb, cell 3"]
    assert sub.notes == ()
    # the kernel's history (grader.notebook.check): earlier runs of the check are not answers either
    ran = notebook_submission("nb", [("In [1]", SCALING), ("In [2]", cell), ("In [3]", SOFTMAX), ("In [4]", cell)])
    assert [c.label for c in ran.modules[0].chunks] == ["In [1]", "In [3]"]
    assert ran.notes == ()


@pytest.mark.parametrize("cell", ["from grader import notebook\nnotebook.check()\nx = 1",
                                  "%matplotlib inline\nnotebook.check()", "def check():\n    return 1",
                                  "check()", "# only a comment"])
def test_a_cell_with_work_of_its_own_is_kept(cell: str) -> None:
    from grader.ingest.submission.notebook import is_check_cell, notebook_submission

    assert not is_check_cell(cell)
    assert len(notebook_submission("nb", [("In [1]", cell)]).modules[0].chunks) == 1
