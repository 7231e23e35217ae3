"""Tests for grader/prepare/variants.py: every variant proven before release, the table frozen,
a variant that breaks a correct style refused by name, and the table in the ledger."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from grader.prepare.variants import check_variants, describe_variant, record_in_ledger, variant_answers
from grader.report import ledger
from grader.spec.rubric.load import load_rubric
from grader.spec.variants import Variant, candidates, frozen_path, issued_table, load_frozen

from tests.helpers import ROOT, course_copy

CH7 = load_rubric(ROOT / "rubrics" / "chapter07.yaml")
OWN = Variant({"d_model": 384, "n_heads": 4, "dims": (8, 32, 128), "seq_len": 6, "temperature": 2.0, "d_k": 96})


def test_the_references_answers_in_a_variant_are_its_own_numbers() -> None:
    assert CH7.variants is not None
    answers = yaml.safe_load(variant_answers({"gpt2-small-d-k": {"type": "choice", "answer": "b"}}, CH7.variants, OWN))
    assert answers["head-dim-4096-32"] == {"answer": 96.0}
    assert answers["divisor-4096-32"]["answer"] == pytest.approx(96 ** 0.5)
    assert answers["gpt2-small-d-k"] == {"answer": "b"}
    assert describe_variant(OWN).startswith("d_model=384, n_heads=4, dims=[8, 32, 128]")


def test_the_issued_table_goes_into_the_ledger_once_and_the_chain_holds(tmp_path: Path) -> None:
    assert CH7.variants is not None
    table = issued_table(CH7.variants, "chapter07")
    out = tmp_path / "out"
    assert record_in_ledger(out, CH7, table, CH7.variants.fingerprint())
    assert not record_in_ledger(out, CH7, table, CH7.variants.fingerprint())  # the same table: no second line
    [entry] = ledger.read(out)
    assert entry.op == "variants" and entry.variants is not None
    assert entry.variants["assignment"] == "chapter07" and len(entry.variants["table"]) == len(table)
    assert ledger.verify(out) == 1


# --------------------------------------------------------------------------- the check, graded


def _course(tmp_path: Path, edit: Any) -> Path:
    """The chapter's course copied to tmp_path (once), its rubric's variants: edited."""
    course = tmp_path / "course"
    if not course.exists():
        course_copy(course, chapters=("chapter07",))
    path = course / "rubrics" / "chapter07.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    edit(data["variants"])
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


@pytest.mark.slow
def test_every_variant_is_proven_then_frozen_and_a_later_generator_changes_none(tmp_path: Path) -> None:
    def small(v: dict[str, Any]) -> None:
        v.update(issue=2, distinct={})

    path = _course(tmp_path, small)
    told: list[str] = []
    result = check_variants(load_rubric(path), seed=3, tell=told.append)
    assert result.ok and result.checked == 2 and result.failures == []
    assert result.gradings == 2 * 28  # the reference and the 27 styles, in each variant
    assert result.diagnoses >= 2 * 20  # every mutant, in each variant
    frozen = frozen_path(path, "chapter07")
    table, _ = load_frozen(frozen, "chapter07")
    assert table == result.table and told == []
    before = frozen.read_bytes()

    def edited(v: dict[str, Any]) -> None:  # the generator after release: other temperatures
        v.update(issue=2, distinct={})
        v["params"]["temperature"] = [0.25, 3.0]

    _course(tmp_path, edited)
    again = check_variants(load_rubric(path), seed=3, tell=told.append)
    assert again.ok and again.kept and again.table == table
    assert frozen.read_bytes() == before
    assert len(told) == 1 and "no student's variant changes" in told[0]


@pytest.mark.slow
def test_a_variant_that_breaks_a_correct_style_is_refused_naming_both(tmp_path: Path) -> None:
    def big_dims(v: dict[str, Any]) -> None:
        v.update(issue=2, distinct={})
        v["params"]["dims"] = [[2, 32, 512]]

    path = _course(tmp_path, big_dims)
    style = path.parent.parent / "suites" / "chapter07" / "correct" / "99-table-up-to-256"
    style.mkdir()
    reference = (ROOT / "solutions" / "chapter07" / "variance.py").read_text(encoding="utf-8")
    (style / "variance.py").write_text(reference + (
        "\n\n_table = variance_table\n\n\n"
        "def variance_table(dims, n_samples=10000, seed=0):\n"
        "    # right for the chapter's table, whose d_k stay at most 256\n"
        "    return _table([min(d, 256) for d in dims], n_samples, seed)\n"), encoding="utf-8")
    rubric = load_rubric(path)
    result = check_variants(rubric, seed=3)
    assert not result.ok and not frozen_path(path, "chapter07").exists()
    assert rubric.variants is not None
    ids = {v.id for v in candidates(rubric.variants, "chapter07")[:2]}
    assert {(f.variant, f.subject) for f in result.failures} == {(i, "style 99-table-up-to-256") for i in ids}
    assert all("dims=[2, 32, 512]" in f.values and "variance_table" in f.problem for f in result.failures)
