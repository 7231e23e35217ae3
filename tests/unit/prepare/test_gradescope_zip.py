"""The Gradescope autograder zip (grader/prepare/gradescope_zip.py), built in process: the two
scripts Gradescope runs, executable, and the course with the grader package beside it."""

from __future__ import annotations

import stat
import zipfile

from grader.prepare.gradescope_zip import build_autograder, sandbox_note
from grader.spec.rubric.load import load_rubric

from tests.helpers import RUBRIC


def test_the_zip_holds_the_scripts_the_course_and_the_grader(tmp_path) -> None:
    target = build_autograder(load_rubric(RUBRIC), tmp_path / "gs")
    assert target == tmp_path / "gs" / "autograder.zip"
    with zipfile.ZipFile(target) as zf:
        names = set(zf.namelist())
        for script in ("setup.sh", "run_autograder"):
            assert stat.S_IMODE(zf.getinfo(script).external_attr >> 16) == 0o755, script
        run = zf.read("run_autograder").decode("utf-8")
    assert "rubrics/chapter07.yaml" in run
    assert {"rubrics/chapter07.yaml", "grader/__init__.py"} <= names
    assert any(n.startswith("suites/chapter07/hidden/") for n in names)
    assert not any("__pycache__" in n or n.endswith(".pyc") for n in names)


def test_the_note_says_which_sandbox_and_how_to_check_it() -> None:
    note = sandbox_note()
    assert note.startswith("sandbox on this machine: ") and "extra_data.sandbox" in note


def test_the_note_is_said_in_japanese_whole() -> None:
    """A Japanese session reads the same facts in Japanese, with no English sentence left in it."""
    from tests.conftest import _english_left

    note = sandbox_note("ja")
    assert note.startswith("このマシンのサンドボックス: ") and "extra_data.sandbox" in note
    assert "GRADER_SANDBOX=rlimits bash /autograder/run_autograder" in note
    assert [] == _english_left(note)


# --------------------------------------------------------------------------- per-student variants


def _with_table(tmp_path, monkeypatch):
    """A rubric copy with its issued table frozen beside it, and a course secret of the test's own."""
    from pathlib import Path

    from grader.spec.variants import SECRET_ENV, frozen_path, issued_table, write_frozen
    from tests.helpers import course_copy

    monkeypatch.setenv(SECRET_ENV, str(tmp_path / "home" / "secret"))
    path = course_copy(tmp_path / "course", chapters=("chapter07",)) / "rubrics" / "chapter07.yaml"
    rubric = load_rubric(path)
    table = issued_table(rubric.variants, rubric.assignment)
    write_frozen(frozen_path(Path(path), rubric.assignment), rubric.variants, table, rubric.assignment)
    return rubric


def test_with_variants_the_zip_carries_each_students_variant_and_never_the_secret(tmp_path, monkeypatch) -> None:
    import json

    from grader.prepare.variants import roster_variants
    from grader.spec.variants import course_secret

    rubric = _with_table(tmp_path, monkeypatch)
    variants = roster_variants(rubric, ["s001", "ｓ００２"])
    assert set(variants) == {"s001", "s002"}
    target = build_autograder(rubric, tmp_path / "gs", variants=variants)
    with zipfile.ZipFile(target) as zf:
        names = zf.namelist()
        roster = [n for n in names if n.endswith("chapter07.roster-variants.json")]
        assert len(roster) == 1 and json.loads(zf.read(roster[0])) == variants
        script = zf.read("run_autograder").decode()
        secret = course_secret()
        assert not any(secret in zf.read(n) for n in names)
    assert '--student "$SID"' in script and "submission_metadata.json" in script
    plain = build_autograder(load_rubric(RUBRIC), tmp_path / "plain")
    with zipfile.ZipFile(plain) as zf:
        assert "--student" not in zf.read("run_autograder").decode()
        assert not any(n.endswith(".roster-variants.json") for n in zf.namelist())


def test_a_student_missing_from_the_roster_is_refused_naming_the_fix(tmp_path, monkeypatch) -> None:
    import json
    from pathlib import Path

    import pytest

    from grader.spec.variants import ROSTER_SUFFIX, VariantError, student_variant

    rubric = _with_table(tmp_path, monkeypatch)
    roster = Path(rubric.file).parent / f"{rubric.assignment}{ROSTER_SUFFIX}"
    roster.write_text(json.dumps({"s001": {"values": {"d_model": 512}}}), encoding="utf-8")
    assert student_variant(Path(rubric.file), rubric.assignment, "s001")["values"] == {"d_model": 512}
    with pytest.raises(VariantError, match="--variants ROSTER"):
        student_variant(Path(rubric.file), rubric.assignment, "s999")
