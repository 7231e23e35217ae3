"""Tests for grader/spec/variants.py: the rubric's variants:, the course secret, the table, the draw."""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from grader.errors import RubricError
from grader.spec.rubric.load import load_rubric
from grader.spec.variants import (
    SECRET_ENV,
    Variant,
    VariantError,
    candidates,
    course_secret,
    evaluate,
    frozen_path,
    issued_table,
    load_frozen,
    pick,
    read_variants,
    table_hash,
    variant_for,
    write_frozen,
)

from tests.helpers import ROOT, rubric_copy


def _fail(path: str, problem: str, fix: str = "") -> RubricError:
    return RubricError("rubrics/r.yaml", path, problem, fix)


SPEC: dict[str, Any] = {
    "params": {"d_model": [256, 384, 512, 768], "n_heads": [4, 8, 12], "temperature": [0.5, 2.0]},
    "integer_ratios": {"d_k": ["d_model", "n_heads"]},
    "distinct": {"d_k": 4},
    "issue": 12,
    "quiz": {"divisor": {"answer": "sqrt(d_model / n_heads)", "tolerance": 0.02}},
}


def test_chapter_rubrics_declare_variants_with_several_d_k() -> None:
    for chapter in ("chapter07", "chapter08"):
        rubric = load_rubric(ROOT / "rubrics" / f"{chapter}.yaml")
        assert rubric.variants is not None
        assert rubric.variants.issue >= 24
        table = issued_table(rubric.variants, rubric.assignment)
        assert len(table) == rubric.variants.issue
        assert len({v.id for v in table}) == len(table)
    ch7 = load_rubric(ROOT / "rubrics" / "chapter07.yaml")
    assert ch7.variants is not None
    d_ks = {v.values["d_k"] for v in issued_table(ch7.variants, "chapter07")}
    assert len(d_ks) >= 4


def test_every_candidate_keeps_d_k_an_integer_of_its_own_sizes() -> None:
    spec = read_variants(SPEC, _fail)
    found = candidates(spec, "chapter07")
    # 256/12 and 512/12 are not integers: 4*3*2 - 2*2 = 20 candidates
    assert len(found) == 20
    for v in found:
        assert v.values["d_model"] == v.values["d_k"] * v.values["n_heads"]  # type: ignore[operator]


def test_the_quiz_key_is_computed_from_the_variant() -> None:
    spec = read_variants(SPEC, _fail)
    v = Variant({"d_model": 512, "n_heads": 8, "temperature": 2.0, "d_k": 64})
    assert v.quiz_key(spec) == {"divisor": {"type": "numeric", "answer": 8.0, "tolerance": 0.02}}


@pytest.mark.parametrize(
    ("edit", "path", "words"),
    [
        (lambda s: s.update(params=[]), "variants.params", "at least one parameter"),
        (lambda s: s["params"].update(n_heads=[4, 4]), "variants.params.n_heads[1]", "in the pool twice"),
        (lambda s: s["params"].update(n_heads=[]), "variants.params.n_heads", "non-empty list"),
        (lambda s: s["params"].update(n_heads=[True]), "variants.params.n_heads[0]", "a number, a word"),
        (lambda s: s.update(integer_ratios={"d_k": ["d_model", "heads"]}), "variants.integer_ratios.d_k", "two parameters"),
        (lambda s: s.update(distinct={"d_v": 2}), "variants.distinct.d_v", "neither a parameter nor a ratio"),
        (lambda s: s.update(issue=0), "variants.issue", "whole number >= 1"),
        (lambda s: s.update(seeds=3), "variants", "has no key"),
        (lambda s: s["quiz"].update(x={"answer": "__import__('os')"}), "variants.quiz.x.answer", "not a formula"),
        (lambda s: s["quiz"].update(x={"answer": "d_v * 2"}), "variants.quiz.x.answer", "uses d_v"),
        (lambda s: s["quiz"].update(x={"answer": "d_k", "tolerance": -1}), "variants.quiz.x.tolerance", ">= 0"),
    ],
)
def test_a_wrong_section_names_the_key_and_the_fix(edit: Any, path: str, words: str) -> None:
    spec = json.loads(json.dumps(SPEC))
    edit(spec)
    with pytest.raises(RubricError) as err:
        read_variants(spec, _fail)
    assert err.value.yaml_path == path
    assert words in err.value.problem
    assert err.value.fix


def test_a_rubric_file_with_a_wrong_variants_section_names_the_file(tmp_path: Path) -> None:
    path = rubric_copy(tmp_path, variants={"params": {"d_model": "768"}})
    with pytest.raises(RubricError) as err:
        load_rubric(path)
    assert str(path) in str(err.value) and "variants.params.d_model" in str(err.value)


def test_too_few_candidates_or_distinct_values_are_refused() -> None:
    spec = read_variants({**SPEC, "issue": 21}, _fail)
    with pytest.raises(VariantError, match="only 20 variants"):
        issued_table(spec, "chapter07")
    spec = read_variants({**SPEC, "distinct": {"d_k": 9}}, _fail)
    with pytest.raises(VariantError, match="distinct values of d_k"):
        issued_table(spec, "chapter07")


def test_only_proven_candidates_are_issued() -> None:
    spec = read_variants({**SPEC, "issue": 10}, _fail)
    table = issued_table(spec, "chapter07", proven=lambda v: v.values["temperature"] == 2.0)
    assert len(table) == 10 and all(v.values["temperature"] == 2.0 for v in table)


def test_formulas_compute_only_arithmetic() -> None:
    assert evaluate("sqrt(d_model / n_heads)", {"d_model": 768, "n_heads": 12}) == 8.0
    assert math.isclose(evaluate("2 ** -0.5 * x", {"x": 2}), math.sqrt(2))
    for bad in ("x.__class__", "open('f')", "[1][0]", "1 / 0", "10 ** 100", "lambda: 1"):
        with pytest.raises(VariantError):
            evaluate(bad, {"x": 1})


# --------------------------------------------------------------------------- the secret


@pytest.fixture
def secret_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "home" / "grader-secret"
    monkeypatch.setenv(SECRET_ENV, str(path))
    return path


def test_the_secret_is_made_on_first_use_mode_600_and_said(secret_file: Path) -> None:
    told: list[str] = []
    first = course_secret(tell=told.append)
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600
    assert len(told) == 1 and str(secret_file) in told[0] and "keep a copy" in told[0]
    assert course_secret(tell=told.append) == first
    assert len(told) == 1  # made once, said once


def test_a_secret_others_may_read_is_refused(secret_file: Path) -> None:
    course_secret()
    os.chmod(secret_file, 0o644)
    with pytest.raises(VariantError, match="chmod 600"):
        course_secret()


def test_a_secret_inside_the_course_repository_or_an_output_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    course = tmp_path / "course"
    (course / ".git").mkdir(parents=True)
    (course / "rubrics").mkdir()
    monkeypatch.setenv(SECRET_ENV, str(course / "secret"))
    with pytest.raises(VariantError, match="inside") as err:
        course_secret(course=course / "rubrics")
    assert SECRET_ENV in str(err.value)
    assert not (course / "secret").exists()
    out = tmp_path / "out"
    monkeypatch.setenv(SECRET_ENV, str(out / "secret"))
    with pytest.raises(VariantError, match="inside"):
        course_secret(outdirs=(out,))


def test_the_same_student_always_gets_the_same_variant_and_students_spread() -> None:
    spec = read_variants(SPEC, _fail)
    table = issued_table(spec, "chapter07")
    secret = b"s" * 32
    got = [variant_for(table, secret, "chapter07", f"s{n:03d}") for n in range(200)]
    assert got[7] == variant_for(table, secret, "chapter07", "s007")
    assert variant_for(table, secret, "chapter07", "ｓ００７") == got[7]  # NFKC: full-width is the same id
    assert len({v.id for v in got}) == len(table)  # 200 students reach every issued variant
    other = [pick(b"t" * 32, "chapter07", f"s{n:03d}", len(table)) for n in range(200)]
    assert other != [table.index(v) for v in got]  # another secret, another draw
    with pytest.raises(VariantError):
        pick(secret, "chapter07", "  ", len(table))


# --------------------------------------------------------------------------- the frozen table


def test_the_frozen_table_survives_a_changed_generator_and_refuses_an_edit(tmp_path: Path) -> None:
    spec = read_variants(SPEC, _fail)
    table = issued_table(spec, "chapter07")
    path = frozen_path(tmp_path / "chapter07.yaml", "chapter07")
    write_frozen(path, spec, table, "chapter07")
    changed = read_variants({**SPEC, "params": {**SPEC["params"], "temperature": [0.25, 3.0]}}, _fail)
    assert changed.fingerprint() != spec.fingerprint()
    again, generator = load_frozen(path, "chapter07")
    assert again == table and generator == spec.fingerprint()
    assert table_hash(again) == json.loads(path.read_text(encoding="utf-8"))["hash"]
    data = json.loads(path.read_text(encoding="utf-8"))
    data["variants"][0]["values"]["temperature"] = 9.0
    data["variants"][0]["id"] = Variant.from_data({"values": data["variants"][0]["values"]}).id
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(VariantError, match="edited"):
        load_frozen(path, "chapter07")
    with pytest.raises(VariantError, match="grader variants check"):
        load_frozen(tmp_path / "none.variants.json", "chapter07")
