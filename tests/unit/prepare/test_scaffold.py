"""``grader new`` (grader/prepare/scaffold.py): a new assignment's files, each in its place, and a
name that cannot name them refused before anything is written."""

from __future__ import annotations

import pytest

from grader.errors import UsageError
from grader.prepare.scaffold import NAME_MAX, scaffold


def test_a_new_assignment_has_every_file_of_the_course_layout(tmp_path) -> None:
    written = {p.as_posix() for p in scaffold(tmp_path, "chapter09")}
    assert {"rubrics/chapter09.yaml", "exercises/chapter09/part1.py", "solutions/chapter09/part1.py",
            "suites/chapter09/public/test_part1.py", "suites/chapter09/hidden/test_part1.py",
            "suites/chapter09/plugin/hooks.py", "suites/chapter09/plugin/mistakes.yaml",
            "exercises/chapter09/chapter09.ipynb"} <= written
    assert all((tmp_path / p).is_file() for p in written)
    assert "chapter09" in (tmp_path / "rubrics" / "chapter09.yaml").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["Chapter9", "9chapter", "chapter-9", "x" * (NAME_MAX + 1)])
def test_a_name_that_cannot_name_its_files_is_refused(tmp_path, name: str) -> None:
    with pytest.raises(UsageError):
        scaffold(tmp_path, name)
    assert list(tmp_path.iterdir()) == []


def test_an_assignment_that_exists_is_never_written_over(tmp_path) -> None:
    scaffold(tmp_path, "chapter09")
    before = (tmp_path / "solutions" / "chapter09" / "part1.py").read_text(encoding="utf-8")
    with pytest.raises(UsageError, match="chapter09"):
        scaffold(tmp_path, "chapter09")
    assert (tmp_path / "solutions" / "chapter09" / "part1.py").read_text(encoding="utf-8") == before
