"""``grader check --watch`` notices a save (grader/cli/watch.py): what a submission may be read
from, by modification time and size, one folder deep, without hidden and cache folders."""

from __future__ import annotations

import os

from grader.cli.watch import snapshot


def test_a_save_changes_the_snapshot_and_an_unwatched_file_does_not(tmp_path) -> None:
    work = tmp_path / "work"
    (work / "wrapped").mkdir(parents=True)
    (work / "scaling.py").write_text("x = 1\n", encoding="utf-8")
    (work / "wrapped" / "softmax.py").write_text("y = 2\n", encoding="utf-8")
    for hidden in (".git", "__pycache__"):
        (work / hidden).mkdir()
        (work / hidden / "a.py").write_text("", encoding="utf-8")
    (work / "notes.txt").write_text("", encoding="utf-8")
    before = snapshot(work)
    assert sorted(os.path.relpath(p, work) for p in before) == ["scaling.py", os.path.join("wrapped", "softmax.py")]
    (work / "notes.txt").write_text("more", encoding="utf-8")
    assert snapshot(work) == before
    (work / "scaling.py").write_text("x = 10\n", encoding="utf-8")
    assert snapshot(work) != before


def test_a_notebook_is_watched_as_itself_and_a_missing_one_is_empty(tmp_path) -> None:
    notebook = tmp_path / "chapter07.ipynb"
    assert snapshot(notebook) == {}
    notebook.write_text("{}", encoding="utf-8")
    assert list(snapshot(notebook)) == [str(notebook)]
