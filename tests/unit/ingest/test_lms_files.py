"""LMS files read in process: names from any zip (no UTF-8 flag, cp932, Info-ZIP's Unicode field),
long names and colliding names, one rule choosing the assignment for every LMS shape, the resume
hint, and rubric errors named where they are made."""

from __future__ import annotations

import shutil
import subprocess
import sys
import unicodedata
import zipfile
from pathlib import Path

import pytest

from grader.ingest.discovery import find_submissions
from grader.ingest.lms import NAME_MAX_BYTES, member_name
from tests.helpers import ROOT, RUBRIC
from tests.lms_exports import (CORRECT, canvas_entry, moodle_prefix)


class _RawName(zipfile.ZipInfo):
    """A member whose name is these bytes, without the UTF-8 flag (as Windows Explorer and
    older tools write them)."""

    def __init__(self, raw: bytes) -> None:
        super().__init__(raw.decode("cp437"))
        self._raw = raw

    def _encodeFilenameFlags(self) -> tuple[bytes, int]:  # noqa: N802 - zipfile's own hook
        return self._raw, self.flag_bits & ~0x800


def _raw_zip(path: Path, members: dict[bytes, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for raw, data in members.items():
            zf.writestr(_RawName(raw), data)
    return path


def _moodle_members(full_name: str, pid: int, encoding: str) -> dict[bytes, bytes]:
    folder = f"{moodle_prefix(full_name, pid)}_assignsubmission_file_/"
    return {(folder + name).encode(encoding): data for name, data in CORRECT.items()}


def test_names_without_the_utf8_flag_are_read_as_the_platform_wrote_them(tmp_path):
    """Info-ZIP on Linux (raw UTF-8, no flag), Python without the flag, Japanese Windows (cp932):
    every name comes back as the student's; a name no encoding reads cleanly is flagged."""
    if shutil.which("zip") is None:
        pytest.fail("Info-ZIP's zip is needed to write the export as Linux tools do (apt-get install zip)")
    # Info-ZIP, run as an instructor re-zips a download folder on Linux
    tree = tmp_path / "tree"
    for name, pid in (("山田 太郎", 123458), ("Taro Yamada", 123462)):
        folder = tree / f"{moodle_prefix(name, pid)}_assignsubmission_file_"
        folder.mkdir(parents=True)
        for fname, data in CORRECT.items():
            (folder / fname).write_bytes(data)
    infozip = tmp_path / "infozip.zip"
    subprocess.run(["zip", "-qr", str(infozip), "."], cwd=tree, check=True, env={"LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"})
    with zipfile.ZipFile(infozip) as zf:
        assert not any(i.flag_bits & 0x800 for i in zf.infolist())  # the flag really is absent
        assert any("σ" in i.filename for i in zf.infolist())  # and zipfile alone garbles the name

    python_noflag = _raw_zip(tmp_path / "python.zip", _moodle_members("鈴木 花子", 123470, "utf-8"))
    windows = _raw_zip(tmp_path / "windows.zip", {**_moodle_members("佐藤 次郎", 123480, "cp932"),
                                                   **_moodle_members("ｶﾀｶﾅ", 123481, "shift_jis")})
    doubtful_raw = b"\x80\xa0\xfd_123490_assignsubmission_file_/"
    doubtful = _raw_zip(tmp_path / "doubtful.zip", {doubtful_raw + n.encode(): d for n, d in CORRECT.items()})

    names = {}
    for export in (infozip, python_noflag, windows, doubtful):
        found = find_submissions(export, tmp_path / export.stem)
        for f in found.found:
            names[f.student_id] = f
    assert names["123458"].name == "山田 太郎" and names["123462"].name == "Taro Yamada"
    assert names["123470"].name == "鈴木 花子"
    assert names["123480"].name == "佐藤 次郎"
    assert names["123480"].submission.name == "佐藤_次郎_123480"  # the report's name too
    assert any("read as cp932" in n for n in names["123480"].submission.notes)
    # half-width katakana, as cp932 and cp437 both read those bytes, is not trusted
    for sid in ("123481", "123490"):
        flags = dict(names[sid].flags)
        assert "doubtful_name" in flags, names[sid]
        assert any("check it by hand" in n for n in names[sid].submission.notes)
    assert not any(key == "doubtful_name" for f in names.values() if f.student_id in ("123458", "123480")
                   for key, _ in f.flags)


def test_member_name_prefers_the_flag_and_info_zips_unicode_field():
    flagged = zipfile.ZipInfo("山田.py")
    flagged.flag_bits |= 0x800
    assert member_name(flagged).name == "山田.py"
    raw = "山田.py".encode("cp932")
    info = zipfile.ZipInfo(raw.decode("cp437"))
    import binascii
    import struct

    utf8 = "山田.py".encode()
    info.extra = struct.pack("<HHB", 0x7075, 5 + len(utf8), 1) + struct.pack("<L", binascii.crc32(raw)) + utf8
    assert member_name(info).name == "山田.py" and member_name(info).encoding == "utf-8"


def test_a_long_named_moodle_folder_and_a_damaged_member_fail_nobody_else(tmp_path):
    """A full name longer than the file system allows is shortened keeping the participant id;
    a member that cannot be unpacked makes only its own entry fail, with the reason."""
    long_name = "寿限無寿限無五劫の擦り切れ海砂利水魚の" * 8  # ~480 bytes in UTF-8
    export = tmp_path / "CS101-Chapter 7-42.zip"
    with zipfile.ZipFile(export, "w", zipfile.ZIP_DEFLATED) as zf:
        for fname, data in CORRECT.items():
            zf.writestr(f"{moodle_prefix(long_name, 123500)}_assignsubmission_file_/{fname}", data)
            zf.writestr(f"{moodle_prefix('Taro Yamada', 123501)}_assignsubmission_file_/{fname}", data)
            zf.writestr(f"{moodle_prefix('Damaged Upload', 123502)}_assignsubmission_file_/{fname}", data)
    raw = bytearray(export.read_bytes())
    with zipfile.ZipFile(export) as zf:  # corrupt one member's compressed bytes (its CRC check fails)
        info = next(i for i in zf.infolist() if "Damaged" in i.filename)
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    raw[start:start + 8] = b"\xff" * 8
    export.write_bytes(bytes(raw))

    found = find_submissions(export, tmp_path / "s")
    by_id = {f.student_id: f for f in found.found}
    assert by_id["123500"].name == long_name  # the name as the LMS wrote it, whole
    assert len(by_id["123500"].submission.name.encode()) <= NAME_MAX_BYTES
    assert by_id["123500"].submission.name.endswith("_123500")
    assert "123501" in by_id
    [failed] = found.failed
    assert failed.student_id == "123502" and "could not be unpacked" in failed.why
    assert ("unreadable", {"why": failed.why.split(": ", 1)[1]}) in failed.who.flags


def test_grader_new_with_a_long_valid_name_says_so(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "grader", "new", "a" * 300, "--root", str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "at most 64 characters" in proc.stderr and "300" in proc.stderr
    assert "64 文字まで" in proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_colliding_entries_keep_their_own_names(tmp_path):
    """``Alice``, ``alice``, an existing ``alice-2``, and ``álice`` written NFC and NFD: no
    report is named after another entry, and the two ``álice`` are flagged, not merged."""
    src = tmp_path / "src"
    for name in ("Alice", "alice", "alice-2", unicodedata.normalize("NFC", "álice"),
                 unicodedata.normalize("NFD", "álice")):
        shutil.copytree(ROOT / "examples" / "submissions" / "correct", src / name)
    found = find_submissions(src, tmp_path / "s")
    rows = {f.entry: f for f in found.found}
    own = {f.entry for f in found.found}
    assert rows["Alice"].submission.name == "Alice" and rows["alice-2"].submission.name == "alice-2"
    assert rows["alice"].submission.name not in own  # never another entry's own name
    assert rows["alice"].student_id == "alice" and rows["alice-2"].student_id == "alice-2"
    names = [f.submission.name.casefold() for f in found.found]
    assert len(names) == len(set(names)) == 5
    alices = [f for f in found.found if f.student_id == "álice"]
    assert len(alices) == 2 and all(dict(f.flags).get("duplicate_id") for f in alices)


def test_one_rule_chooses_the_assignment_for_every_lms_shape(tmp_path):
    from grader.ingest.find_rubric import find_rubric

    course = tmp_path / "course"
    (course / "rubrics").mkdir(parents=True)
    for name in ("chapter07.yaml", "chapter08.yaml"):
        shutil.copyfile(ROOT / "rubrics" / name, course / "rubrics" / name)
    downloads = course / "downloads"
    downloads.mkdir()
    canvas = downloads / "cs101-chapter-7_submissions.zip"
    with zipfile.ZipFile(canvas, "w") as zf:
        for k, (fname, data) in enumerate(CORRECT.items()):
            zf.writestr(canvas_entry("Doe, Jane", 98765, 7000 + k, fname), data)
            zf.writestr(canvas_entry("Re, Upload", 66666, 8000 + k, fname.replace(".py", "-1.py")), data)
    moodle = downloads / "moodle.zip"
    with zipfile.ZipFile(moodle, "w") as zf:
        for fname, data in CORRECT.items():
            zf.writestr(f"{moodle_prefix('Jane Doe', 1)}_assignsubmission_file_/{fname}", data)
    for source in (canvas, moodle):
        assert find_rubric(cwd=course, submission=source).name == "chapter07.yaml", source
    assert find_rubric(cwd=course, assignment="chapter08").name == "chapter08.yaml"
    with pytest.raises(Exception, match="holds 2 rubrics"):
        find_rubric(cwd=course)


def test_the_resume_hint_repeats_the_options_given(tmp_path, monkeypatch):
    """After Ctrl-C, the hint is the command as typed (its --rubric included), plus --resume."""
    from click.testing import CliRunner

    from grader import cli

    from grader.workflows import batch

    from grader.engines import local_pool as pool

    monkeypatch.setattr(pool.WorkerProcess, "start_group", staticmethod(lambda *a, **k: []))
    monkeypatch.setattr(batch._Batch, "_grade", lambda self, *a, **k: (True, None))
    src = tmp_path / "src"
    shutil.copytree(ROOT / "examples" / "submissions" / "correct", src / "alice")
    out = tmp_path / "out"
    result = CliRunner().invoke(
        cli.main, ["batch", str(src), "--out", str(out), "--rubric", str(RUBRIC), "--seed", "4", "--no-progress",
                   "--allow-weak-sandbox"])
    said = " ".join(result.stderr.split())
    assert f"grader batch {src} --out {out} --rubric {RUBRIC} --seed 4" in said, said
    assert "--resume" in said and "--allow-weak-sandbox" in said


def _course(tmp_path: Path) -> Path:
    course = tmp_path / "course"
    for top in ("rubrics", "exercises", "solutions", "suites"):
        shutil.copytree(ROOT / top, course / top, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (course / "rubrics" / "chapter08.yaml").unlink()
    return course


@pytest.mark.parametrize(("wrong", "right", "key"), [
    ("file: scaling.py", "file: scalling.py", "parts[0].file"),
    ("functions: [head_dim,", "functions: [head_dims,", "parts[0].functions[0]"),
    ("hooks: ../suites/chapter07/plugin/hooks.py", "hooks: ../suites/chapter07/plugin/hook.py", "plugin.hooks"),
])
def test_a_misspelt_rubric_name_is_a_rubric_error_in_check_batch_and_validate(tmp_path, wrong, right, key):
    course = _course(tmp_path)
    rubric = course / "rubrics" / "chapter07.yaml"
    text = rubric.read_text(encoding="utf-8")
    assert wrong in text
    rubric.write_text(text.replace(wrong, right, 1), encoding="utf-8")
    for args in (["check", "exercises/chapter07"], ["batch", "exercises", "--out", "out"], ["validate"]):
        proc = subprocess.run([sys.executable, "-m", "grader", *args, "--rubric", "rubrics/chapter07.yaml"],
                              cwd=course, capture_output=True, text=True, timeout=300)
        said = " ".join(proc.stderr.split())
        assert proc.returncode == 2, (args, proc.stderr)
        assert key in said and "did you mean" in said, (args, said)
        assert str(tmp_path) not in proc.stderr  # no absolute path in any message
