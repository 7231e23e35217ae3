"""Grade what the student wrote: the .py files or the notebook, whichever changed from the handout."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import pytest
import yaml
from click.testing import CliRunner

from grader.cli import main
from grader.prepare.release import build_release
from grader.spec.rubric.load import load_rubric
from grader.ingest.submission.choice import Handout, choose_work, load_handout
from grader.ingest.submission.load import read_submission
from grader.prepare.build_notebook import build

from tests.helpers import EXAMPLES, ROOT


EXERCISES = ROOT / "exercises" / "chapter07"


@pytest.fixture(scope="module")
def handout() -> Handout:
    return Handout.of_folder(EXERCISES)


def _handed_out(tmp_path: Path) -> Path:
    folder = tmp_path / "chapter07"
    shutil.copytree(EXERCISES, folder)
    return folder


def _fill_notebook(folder: Path, source: Path) -> None:
    """The notebook as a student leaves it: the functions of ``source`` in its code cells."""
    nb = build(source, source / "answers.yaml")
    nbformat.write(nb, str(folder / "chapter07.ipynb"))


def _fill_py(folder: Path, source: Path) -> None:
    for name in ("scaling.py", "softmax.py", "variance.py", "answers.yaml"):
        shutil.copyfile(source / name, folder / name)


def test_only_the_notebook_changed_grades_the_notebook(tmp_path: Path, handout: Handout) -> None:
    folder = _handed_out(tmp_path)
    _fill_notebook(folder, EXAMPLES / "correct")
    choice = choose_work(folder, handout)
    assert (choice.graded, choice.notebook_changed, choice.py_changed) == ("notebook", True, ())
    sub = read_submission(folder, handout=handout)
    assert sub.kind == "notebook" and sub.modules[0].filename == "chapter07.ipynb"
    assert "answer:" in (sub.answers or "") and "b" in (sub.answers or "")


def test_only_the_py_files_changed_grades_them_silently(tmp_path: Path, handout: Handout) -> None:
    folder = _handed_out(tmp_path)
    (folder / "softmax.py").write_text((EXAMPLES / "correct" / "softmax.py").read_text())
    choice = choose_work(folder, handout)
    assert (choice.graded, choice.py_changed, choice.notebook_changed, choice.note) == (
        "py", ("softmax.py",), False, None)
    sub = read_submission(folder, handout=handout)
    assert sub.kind == "folder" and not sub.notes


def test_both_changed_grades_the_py_files_and_says_so(tmp_path: Path, handout: Handout) -> None:
    folder = _handed_out(tmp_path)
    _fill_notebook(folder, EXAMPLES / "sqrt-d-model")
    (folder / "scaling.py").write_text((EXAMPLES / "correct" / "scaling.py").read_text())
    choice = choose_work(folder, handout)
    assert (choice.graded, choice.py_changed, choice.notebook_changed) == ("py", ("scaling.py",), True)
    sub = read_submission(folder, handout=handout)
    assert sub.kind == "folder"
    assert any("graded the .py files" in n and "chapter07.ipynb" in n for n in sub.notes)


def test_neither_changed_grades_the_stubs_and_says_so(tmp_path: Path, handout: Handout) -> None:
    folder = _handed_out(tmp_path)
    choice = choose_work(folder, handout)
    assert (choice.graded, choice.py_changed, choice.notebook_changed) == ("py", (), False)
    assert choice.note and "neither" in choice.note


def test_jupyter_saving_outputs_and_metadata_is_not_a_change(tmp_path: Path, handout: Handout) -> None:
    """Running the untouched notebook and saving it (outputs, counts, CRLF, trailing spaces)."""
    folder = _handed_out(tmp_path)
    nb = nbformat.read(str(folder / "chapter07.ipynb"), as_version=4)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            cell.execution_count = i
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="hello\n")]
            cell.source = cell.source.replace("\n", "  \r\n") + "\n\n"
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(folder / "chapter07.ipynb"))
    assert choose_work(folder, handout).graded == "py"
    assert not choose_work(folder, handout).notebook_changed


def test_quiz_answered_in_the_other_form_is_kept(tmp_path: Path, handout: Handout) -> None:
    """Code in the .py files, quiz in the notebook's answers cell: both are graded."""
    folder = _handed_out(tmp_path)
    (folder / "scaling.py").write_text((EXAMPLES / "correct" / "scaling.py").read_text())
    nb = nbformat.read(str(folder / "chapter07.ipynb"), as_version=4)
    raw = next(c for c in nb.cells if c.cell_type == "raw")
    raw.source = raw.source.replace("gpt2-small-d-k:\n  answer:", "gpt2-small-d-k:\n  answer: b")
    nbformat.write(nb, str(folder / "chapter07.ipynb"))
    sub = read_submission(folder, handout=handout)
    assert sub.kind == "folder" and "answer: b" in (sub.answers or "")
    # code in the notebook, quiz in answers.yaml
    folder2 = _handed_out(tmp_path / "two")
    _fill_notebook(folder2, EXAMPLES / "correct")
    nb = nbformat.read(str(folder2 / "chapter07.ipynb"), as_version=4)
    stub_nb = nbformat.read(str(EXERCISES / "chapter07.ipynb"), as_version=4)
    nb.cells = [c for c in nb.cells if c.cell_type != "raw"] + [
        c for c in stub_nb.cells if c.cell_type == "raw"]
    nbformat.write(nb, str(folder2 / "chapter07.ipynb"))
    shutil.copyfile(EXAMPLES / "correct" / "answers.yaml", folder2 / "answers.yaml")
    sub = read_submission(folder2, handout=handout)
    assert sub.kind == "notebook"
    assert sub.answers == (EXAMPLES / "correct" / "answers.yaml").read_text()


def test_the_release_carries_the_handout_it_was_built_from(tmp_path: Path, handout: Handout) -> None:
    out = tmp_path / "release"
    build_release(load_rubric(ROOT / "rubrics" / "chapter07.yaml"), out)
    rubric = load_rubric(out / "rubrics" / "chapter07.yaml")
    assert load_handout(rubric) == handout
    data = json.loads((out / "rubrics" / "chapter07.handout.json").read_text())
    assert data["schema"] == 1 and set(data["files"]) == {
        "scaling.py", "softmax.py", "variance.py", "answers.yaml"}
    # the student's own edits in the release do not move what counts as handed out
    _fill_notebook(out / "exercises" / "chapter07", EXAMPLES / "correct")
    assert choose_work(out / "exercises" / "chapter07", load_handout(rubric)).graded == "notebook"


@pytest.mark.slow
@pytest.mark.parametrize("form", ["notebook", "py"])
def test_check_gives_a_notebook_only_or_py_only_student_their_real_score(
        tmp_path: Path, form: str) -> None:
    out = tmp_path / "release"
    build_release(load_rubric(ROOT / "rubrics" / "chapter07.yaml"), out)
    folder = out / "exercises" / "chapter07"
    (_fill_notebook if form == "notebook" else _fill_py)(folder, EXAMPLES / "correct")
    result = CliRunner().invoke(main, ["check", str(folder), "--format", "yaml", "--lang", "en"])
    assert result.exit_code == 0, result.output
    report = yaml.safe_load(result.stdout)
    assert report["score"] == report["max_score"] > 0
    graded_note = [n for n in report.get("notes", []) if n.startswith("graded chapter07.ipynb")]
    assert bool(graded_note) == (form == "notebook"), report.get("notes")
