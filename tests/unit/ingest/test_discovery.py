"""Discovery (grader/ingest/discovery.py): folders, notebooks and zips found in SOURCE; the ids LMS exports carry."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.i18n.messages import said
from grader.ingest.discovery import find_submissions, student_id_of

from tests.helpers import EXAMPLES, FIXTURES


def _zip_folder(folder: Path, archive: zipfile.ZipFile, prefix: str) -> None:
    for f in sorted(folder.iterdir()):
        if f.is_file():
            archive.write(f, f"{prefix}{f.name}")


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ("Taro Yamada_12345_assignsubmission_file_", "12345"),
        ("Hanako Sato_777_assignsubmission_onlinetext_", "777"),
        ("yamadataro_12345_67890_chapter07.zip", "12345"),
        ("yamadataro_LATE_12345_67890_chapter07.ipynb", "12345"),
        ("alice.zip", "alice"),
        ("bob", "bob"),
    ],
)
def test_student_id_comes_from_the_lms_naming(entry, expected):
    """Moodle and Canvas entry names carry the student id; other names are their own id."""
    assert expected == student_id_of(entry)


def test_folder_discovery_finds_folders_notebooks_zips_and_lists_the_rest(tmp_path):
    """Folders, notebooks and zips are found; OS junk is skipped and named; anything else is listed."""
    src = tmp_path / "src"
    src.mkdir()
    shutil.copytree(EXAMPLES / "correct", src / "alice")
    shutil.copyfile(EXAMPLES / "notebook-student.ipynb", src / "bob.ipynb")
    shutil.copyfile(FIXTURES / "correct-zip.zip", src / "carol.zip")
    (src / ".DS_Store").write_bytes(b"\0\0\0\1Bud1")
    (src / "__MACOSX").mkdir()
    (src / "__MACOSX" / "._alice").write_bytes(b"junk")
    (src / "notes.txt").write_text("hello")
    (src / "empty").mkdir()
    (src / "bad.zip").write_bytes(b"not a zip")
    found = find_submissions(src, tmp_path / "out" / ".sources")
    assert ["alice", "bob", "carol"] == [f.submission.name for f in found.found]
    assert ["folder", "notebook", "zip"] == [f.submission.origin for f in found.found]
    listed = sorted(entry for entry, _ in found.unrecognised)
    assert [".DS_Store", "__MACOSX", "empty", "notes.txt"] == listed
    assert [".DS_Store", "__MACOSX"] == found.junk
    # a zip that cannot be read is a submission that failed: it gets an error report
    assert [("bad", "bad", "bad.zip")] == [f[:3] for f in found.failed]
    assert "not a readable zip file" in found.failed[0][3]


def test_moodle_export_zip_takes_ids_from_the_names(tmp_path):
    """A Moodle export: one folder per student, id from the folder name, __MACOSX skipped and named."""
    export = tmp_path / "moodle.zip"
    with zipfile.ZipFile(export, "w") as zf:
        _zip_folder(EXAMPLES / "correct", zf, "Taro Yamada_12345_assignsubmission_file_/")
        _zip_folder(EXAMPLES / "divide-by-dk", zf, "Hanako Sato_23456_assignsubmission_file_/")
        zf.writestr("__MACOSX/Taro Yamada_12345_assignsubmission_file_/._scaling.py", b"junk")
        zf.writestr("Jiro Suzuki_34567_assignsubmission_file_/report.pdf", b"%PDF")
    found = find_submissions(export, tmp_path / "out" / ".sources")
    ids = {f.student_id: f.submission.name for f in found.found}
    assert {"12345": "Taro_Yamada_12345", "23456": "Hanako_Sato_23456"} == ids
    assert {"Taro Yamada", "Hanako Sato"} == {f.name for f in found.found}
    assert ["Jiro Suzuki_34567_assignsubmission_file_", "__MACOSX"] == [e for e, _ in found.unrecognised]
    assert ["__MACOSX"] == found.junk


def test_canvas_export_zip_handles_zips_notebooks_and_flattened_files(tmp_path):
    """A Canvas export: student zips and notebooks, and loose files regrouped per student."""
    export = tmp_path / "canvas.zip"
    with zipfile.ZipFile(export, "w") as zf:
        zf.write(FIXTURES / "correct-zip.zip", "yamadataro_12345_67890_chapter07.zip")
        zf.write(EXAMPLES / "notebook-student.ipynb", "satohanako_23456_67891_chapter07.ipynb")
        for f in ("scaling.py", "softmax.py", "variance.py", "answers.yaml"):
            zf.write(EXAMPLES / "correct" / f, f"suzukiichiro_34567_6789{len(f)}_{f}")
        zf.writestr(".DS_Store", b"junk")
    found = find_submissions(export, tmp_path / "out" / ".sources")
    by_id = {f.student_id: f.submission for f in found.found}
    assert {"12345", "23456", "34567"} == set(by_id)
    assert "notebook" == by_id["23456"].kind
    assert 3 == len(by_id["34567"].modules)
    assert by_id["34567"].answers is not None
    assert [(".DS_Store", said("system_file"))] == found.unrecognised


def test_a_participant_whose_name_starts_with_a_dot_is_graded_and_only_system_junk_is_skipped(tmp_path):
    """Moodle participants named ``.Mika`` and ``._Aki`` and a plain folder ``.alice`` are students
    like any other; a ``._x`` file (AppleDouble), ``.git`` and ``Thumbs.db`` are skipped, and each
    skipped one is named."""
    from tests.lms_exports import CORRECT, moodle_prefix

    export = tmp_path / "moodle.zip"
    with zipfile.ZipFile(export, "w") as zf:
        for fname, data in CORRECT.items():
            zf.writestr(f"{moodle_prefix('.Mika', 111)}_assignsubmission_file_/{fname}", data)
            zf.writestr(f"{moodle_prefix('Ren', 222)}_assignsubmission_file_/{fname}", data)
            zf.writestr(f"{moodle_prefix('._Aki', 333)}_assignsubmission_file_/{fname}", data)
        zf.writestr(f"{moodle_prefix('Ren', 222)}_assignsubmission_file_/.DS_Store", b"\0")
        zf.writestr(f"{moodle_prefix('Ren', 222)}_assignsubmission_file_/.notes.txt", b"mine")
        zf.writestr("._Ren_222_assignsubmission_file_", b"\0\5\26\7")
        zf.writestr(".git/HEAD", b"ref: refs/heads/main\n")
        zf.writestr("Thumbs.db", b"\0")
    found = find_submissions(export, tmp_path / "s1")
    assert {"111": ".Mika", "222": "Ren", "333": ". Aki"} == {f.student_id: f.name for f in found.found}
    assert [] == found.failed and [] == found.skipped
    assert ["._Ren_222_assignsubmission_file_", ".git", "Thumbs.db"] == found.junk
    assert {e for e, _ in found.unrecognised} == set(found.junk)

    src = tmp_path / "src"
    shutil.copytree(EXAMPLES / "correct", src / ".alice")
    shutil.copytree(EXAMPLES / "correct", src / "alice")
    (src / ".ipynb_checkpoints").mkdir()
    found = find_submissions(src, tmp_path / "s2")
    rows = {f.entry: f.submission.name for f in found.found}
    # the folder named exactly like the row's label is that row; the dotted one is kept apart
    assert rows == {"alice": "alice", ".alice": "alice-2"}
    assert [".ipynb_checkpoints"] == found.junk


def test_the_record_grader_pull_keeps_in_the_folder_is_passed_by_and_a_student_named_so_is_not(tmp_path):
    """``grader pull --from canvas`` writes SRC_DIR/.pull (canvas.json, submitted.csv): a batch of
    SRC_DIR grades the students beside it, and neither grades nor names the record; a student's own
    folder called ``.pull`` (no canvas.json in it) is graded like any other."""
    from grader.ingest.discovery import PULL_DIR
    from grader.workflows.pull_canvas import STATE_DIR

    assert STATE_DIR == PULL_DIR
    src = tmp_path / "src"
    shutil.copytree(EXAMPLES / "correct", src / "ada_3101_5100_scaling")
    (src / PULL_DIR).mkdir()
    (src / PULL_DIR / "canvas.json").write_text('{"target": {}, "students": {}}\n', encoding="utf-8")
    (src / PULL_DIR / "submitted.csv").write_text("student,submitted\n3101,2026-12-01T10:00:00Z\n", encoding="utf-8")
    found = find_submissions(src, tmp_path / "s1")
    assert [f.entry for f in found.found] == ["ada_3101_5100_scaling"]
    assert found.junk == [] and found.skipped == [] and found.failed == []
    (src / PULL_DIR / "canvas.json").unlink()
    (src / PULL_DIR / "submitted.csv").unlink()
    shutil.copytree(EXAMPLES / "correct", src / PULL_DIR, dirs_exist_ok=True)
    found = find_submissions(src, tmp_path / "s2")
    assert sorted(f.entry for f in found.found) == [PULL_DIR, "ada_3101_5100_scaling"]


def test_of_two_names_alike_but_for_unicode_normalisation_the_byte_identical_one_is_the_row(tmp_path):
    """``José`` written NFC and NFD (a macOS zip): both graded, and the row labelled ``José`` is the
    entry whose name is ``José`` byte for byte, whichever order the file system lists them in."""
    import unicodedata

    nfc, nfd = unicodedata.normalize("NFC", "José"), unicodedata.normalize("NFD", "José")
    for first, second, where in ((nfc, nfd, "a"), (nfd, nfc, "b")):
        src = tmp_path / where
        shutil.copytree(EXAMPLES / "correct", src / first)
        shutil.copytree(EXAMPLES / "divide-by-dk", src / second)
        found = find_submissions(src, tmp_path / f"s-{where}")
        by_label = {f.submission.name: f.submission.path.name for f in found.found}
        assert set(by_label) == {"José", "José-2"}
        assert by_label["José"].encode() == "José".encode() == nfc.encode()
        assert by_label["José-2"] == nfd


# --------------------------------------------------------------------------- property: nobody missing

_NAME_CHARS = st.sampled_from(list("aAz09 -_.~'()") + ["\u00e9", "\u30ac", "\u304c", "\u3099", "\u0301", "山",
                                                      "\x01", "\x1b", "\x7f", "\u202e", "\u3000"])
_NAMES = st.one_of(st.text(_NAME_CHARS, min_size=1, max_size=24),
                   st.sampled_from([".alice", "._alice", "..a", ".DS_Store", "__MACOSX", ".git", "Thumbs.db",
                                    "desktop.ini", ".ipynb_checkpoints", "ガクセイ", "José"]),
                   st.text(_NAME_CHARS, min_size=60, max_size=90).map(lambda t: t * 3))


def _every_entry_is_a_row(found, made: int) -> None:
    rows = len(found.found) + len(found.skipped) + len(found.failed) + len(found.junk)
    assert rows == made, (made, [f.entry for f in found.found], found.unrecognised, [f.entry for f in found.failed])
    labels = [f.submission.name.casefold() for f in found.found] + [f.name.casefold() for f in found.failed]
    assert len(labels) == len(set(labels))


@settings(max_examples=25, deadline=None)
@given(names=st.lists(_NAMES, min_size=1, max_size=6), twins=st.booleans())
def test_no_participant_folder_name_loses_a_student_or_gives_away_a_label(names, twins):
    """Over folder names (a leading dot, NFC/NFD twins, control characters, very long, Japanese,
    the known system names): discovery never fails, every entry is a row (graded, listed, failed
    or a named system file), no two rows share a label, and a folder named byte for byte as a
    row's label is that row. The same names as Moodle participants: every participant is a row."""
    import tempfile
    import unicodedata

    from grader.ingest.discovery import JUNK
    from grader.ingest.lms import disk_name
    from tests.lms_exports import CORRECT, moodle_prefix

    wanted = list(dict.fromkeys(names + ([unicodedata.normalize("NFD", n) for n in names] if twins else [])))
    on_disk = [n for n in wanted if n not in (".", "..") and len(n.encode()) <= 255]
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        for name in on_disk:
            shutil.copytree(EXAMPLES / "correct", src / name)
        found = find_submissions(src, Path(tmp) / "s1")
        _every_entry_is_a_row(found, len(on_disk))
        assert set(found.junk) <= JUNK
        for f in found.found:
            mine = f.submission.path.name
            if disk_name(mine, "") == mine and mine in on_disk:  # its own name is a label: it has it
                assert f.submission.name == mine, (mine, f.submission.name)

        export = Path(tmp) / "moodle.zip"
        with zipfile.ZipFile(export, "w") as zf:
            for pid, name in enumerate(wanted, start=1000):
                for fname, data in CORRECT.items():
                    zf.writestr(f"{moodle_prefix(name, pid)}_assignsubmission_file_/{fname}", data)
        found = find_submissions(export, Path(tmp) / "s2")
        rows = {f.student_id for f in found.found} | {s.student_id for s in found.skipped} | {
            f.student_id for f in found.failed}
        assert rows == {str(pid) for pid in range(1000, 1000 + len(wanted))}, (rows, found.unrecognised)
        assert found.junk == []
