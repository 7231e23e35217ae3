"""The two levels of a submission on disk or in a zip (grader/ingest/submission/trees.py): listed
and read with a cap, never through a link, a zip refused when it breaks a cap or holds a name twice."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from grader.errors import SubmissionError
from grader.ingest.submission.model import ReadLimits
from grader.ingest.submission.trees import FolderTree, ZipTree


def test_a_folder_lists_its_files_and_folders_and_a_link_as_a_problem(tmp_path: Path) -> None:
    (tmp_path / "work" / "inner").mkdir(parents=True)
    (tmp_path / "work" / "scaling.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "work" / "__pycache__").mkdir()
    (tmp_path / "secret.py").write_text("KEY = 1\n", encoding="utf-8")
    (tmp_path / "work" / "softmax.py").symlink_to(tmp_path / "secret.py")
    tree = FolderTree(tmp_path / "work")
    try:
        files, folders = tree.listdir("")
        assert folders == ["inner"]  # the cache folder is not the student's work
        assert tree.read(files["scaling.py"], 100) == b"x = 1\n"
        assert files["softmax.py"].problem and files["softmax.py"].size == 0  # a link is never followed
        assert tree.read(files["scaling.py"], 2) == b"x ="  # the cap and one byte more, to tell it was over
    finally:
        tree.close()


def _zip(members: dict[str, bytes]) -> zipfile.ZipFile:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return zipfile.ZipFile(io.BytesIO(buf.getvalue()))


def test_a_zip_lists_two_levels_and_notes_the_junk_it_ignores() -> None:
    tree = ZipTree(_zip({"chapter07/scaling.py": b"y = 2\n", "__MACOSX/._scaling.py": b"junk"}),
                   Path("alice.zip"), ReadLimits())
    files, folders = tree.listdir("")
    assert files == {} and folders == ["chapter07"]
    inner, _ = tree.listdir("chapter07")
    assert tree.read(inner["scaling.py"], 100) == b"y = 2\n"
    assert tree.describe(inner["scaling.py"]) == "alice.zip: chapter07/scaling.py"
    assert getattr(tree, "notes", ())


def test_a_zip_over_a_cap_or_with_a_name_twice_is_refused() -> None:
    with pytest.raises(SubmissionError):
        ZipTree(_zip({f"f{i}.py": b"" for i in range(3)}), Path("many.zip"), ReadLimits(max_zip_members=2))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf, pytest.warns(UserWarning, match="Duplicate name"):
        zf.writestr("scaling.py", b"a")
        zf.writestr("scaling.py", b"b")  # zipfile warns, and writes both
    with pytest.raises(SubmissionError):
        ZipTree(zipfile.ZipFile(io.BytesIO(buf.getvalue())), Path("twice.zip"), ReadLimits())
