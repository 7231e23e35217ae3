"""``grader variants`` (grader/cli/variants.py): show each student's variant; refuse what cannot be proven."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from grader.cli.variants import variants_group
from grader.spec.rubric.load import load_rubric
from grader.spec.variants import SECRET_ENV, course_secret, frozen_path, issued_table, variant_for, write_frozen

from tests.helpers import grader_here, rubric_copy


def test_show_prints_each_students_variant_and_says_the_secret_was_made(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SECRET_ENV, str(tmp_path / "home" / "secret"))
    path = rubric_copy(tmp_path)
    rubric = load_rubric(path)
    assert rubric.variants is not None
    table = issued_table(rubric.variants, rubric.assignment)
    write_frozen(frozen_path(path, rubric.assignment), rubric.variants, table, rubric.assignment)
    result = grader_here("variants", "show", "s001", "s002", "--rubric", path, "--lang", "en")
    assert result.exit_code == 0, result.stderr
    assert "course secret" in result.stderr and "mode 600" in result.stderr
    secret = course_secret()
    lines = result.stdout.splitlines()
    assert [line.split("\t")[:2] for line in lines] == [
        [s, variant_for(table, secret, rubric.assignment, s).id] for s in ("s001", "s002")]
    assert "d_model=" in lines[0]


def test_show_without_a_frozen_table_says_to_run_the_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SECRET_ENV, str(tmp_path / "home" / "secret"))
    result = grader_here("variants", "show", "s001", "--rubric", rubric_copy(tmp_path), "--lang", "en")
    assert result.exit_code == 2 and "grader variants check" in result.stderr


def test_check_refuses_a_rubric_without_variants_naming_it(tmp_path: Path) -> None:
    path = rubric_copy(tmp_path, edit=lambda data: data.pop("variants"))
    result = grader_here("variants", "check", "--rubric", path, "--lang", "ja")
    assert result.exit_code == 2
    assert "変種がありません" in result.stderr and "course.yaml" in result.stderr


def test_a_secret_others_may_read_is_refused_by_the_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = tmp_path / "home" / "secret"
    monkeypatch.setenv(SECRET_ENV, str(secret))
    path = rubric_copy(tmp_path)
    rubric = load_rubric(path)
    assert rubric.variants is not None
    write_frozen(frozen_path(path, rubric.assignment), rubric.variants,
                 issued_table(rubric.variants, rubric.assignment), rubric.assignment)
    course_secret()
    os.chmod(secret, 0o640)
    result = grader_here("variants", "show", "s001", "--rubric", path, "--lang", "en")
    assert result.exit_code == 2 and "chmod 600" in result.stderr and result.stdout == ""


def test_the_group_holds_check_and_show() -> None:
    assert set(variants_group.commands) == {"check", "show"}
