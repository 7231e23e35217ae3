"""Tests for grader/prepare/variants.py: every variant proven before release, the table frozen,
a variant that breaks a correct style refused by name, and the table in the ledger."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from grader.prepare.variants import check_variants, describe_variant, variant_answers
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


# --------------------------------------------------------------------------- personal releases


def _scan(folder: Path, needles: set[str]) -> set[str]:
    """Which of ``needles`` some file under ``folder`` holds (text or bytes)."""
    found: set[str] = set()
    for path in folder.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            found |= {n for n in needles if n.encode("utf-8") in data}
    return found


def test_each_personal_release_holds_its_students_numbers_and_no_one_elses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from grader.prepare.variants import personal_releases
    from grader.spec.variants import PERSONAL_SUFFIX, SECRET_ENV, course_secret, variant_for, write_frozen

    monkeypatch.setenv(SECRET_ENV, str(tmp_path / "secret" / "course"))
    course = course_copy(tmp_path / "course", chapters=("chapter07",))
    rubric = load_rubric(course / "rubrics" / "chapter07.yaml")
    assert rubric.variants is not None
    table = issued_table(rubric.variants, "chapter07")
    write_frozen(frozen_path(Path(rubric.file), "chapter07"), rubric.variants, table, "chapter07")
    students = ["s001", "s002", "s003", "s004"]
    made = personal_releases(rubric, tmp_path / "releases", students)
    secret = course_secret()
    own = {s: variant_for(table, secret, "chapter07", s) for s in students}
    for student, folder in made.items():
        v = own[student]
        assert json.loads((folder / "rubrics" / f"chapter07{PERSONAL_SUFFIX}").read_text(encoding="utf-8")) == v.as_data()
        student_rubric = yaml.safe_load((folder / "rubrics" / "chapter07.yaml").read_text(encoding="utf-8"))
        assert "variants" not in student_rubric
        assert not (folder / "rubrics" / "chapter07.variants.json").exists()
        scaling = (folder / "exercises" / "chapter07" / "scaling.py").read_text(encoding="utf-8")
        assert scaling.startswith("# あなたの数値（変種 " + v.id) and f"d_model = {v.values['d_model']}" in scaling
        quiz = (folder / "exercises" / "chapter07" / "answers.yaml").read_text(encoding="utf-8")
        assert f"Your model has d_model = {v.values['d_model']} and {v.values['n_heads']} heads." in quiz
        assert "d_k = " not in quiz.split("\n\n", 1)[0]  # the header leaves the quiz's answer to the student
        notebook = json.loads((folder / "exercises" / "chapter07" / "chapter07.ipynb").read_text(encoding="utf-8"))
        constants = "".join(notebook["cells"][1]["source"])
        assert f"D_MODEL = {v.values['d_model']}" in constants and f"TEMPERATURE = {v.values['temperature']!r}" in constants
        others = {w.id for w in table if w != v} | {
            f"変種 {w.id}" for w in table if w != v}
        assert _scan(folder, others) == set()
        assert _scan(folder, {v.id}) == {v.id}
        load_rubric(folder / "rubrics" / "chapter07.yaml")  # the student's rubric loads on its own


@pytest.mark.slow
def test_a_students_own_check_grades_with_their_variant(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from grader.grading.runner import grade
    from grader.ingest.submission.load import load_submission
    from grader.prepare.variants import personal_releases
    from grader.spec.variants import SECRET_ENV, write_frozen

    monkeypatch.setenv(SECRET_ENV, str(tmp_path / "secret" / "course"))
    course = course_copy(tmp_path / "course", chapters=("chapter07",))
    rubric = load_rubric(course / "rubrics" / "chapter07.yaml")
    assert rubric.variants is not None
    table = issued_table(rubric.variants, "chapter07")
    write_frozen(frozen_path(Path(rubric.file), "chapter07"), rubric.variants, table, "chapter07")
    folder = personal_releases(rubric, tmp_path / "releases", ["s042"])["s042"]
    mine = load_rubric(folder / "rubrics" / "chapter07.yaml")
    [report] = grade(mine, [load_submission(folder / "exercises" / "chapter07")], suites=("public",), seed=1)
    own = json.loads((folder / "rubrics" / "chapter07.my-variant.json").read_text(encoding="utf-8"))
    assert report.variant == own


def test_chapter_8s_personal_quiz_asks_about_the_students_own_token_and_length(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from grader.prepare.variants import personal_releases
    from grader.spec.variants import SECRET_ENV, write_frozen

    monkeypatch.setenv(SECRET_ENV, str(tmp_path / "secret" / "course"))
    course = course_copy(tmp_path / "course", chapters=("chapter08",))
    rubric = load_rubric(course / "rubrics" / "chapter08.yaml")
    assert rubric.variants is not None
    write_frozen(frozen_path(Path(rubric.file), "chapter08"), rubric.variants,
                 issued_table(rubric.variants, "chapter08"), "chapter08")
    for student, folder in personal_releases(rubric, tmp_path / "releases", ["s1", "s2"]).items():
        own = json.loads((folder / "rubrics" / "chapter08.my-variant.json").read_text(encoding="utf-8"))["values"]
        q, n = own["query"], own["seq_len"]
        with_q = ", ".join(str(i) for i in range(q + 1))
        for text in ((folder / "exercises" / "chapter08" / "answers.yaml").read_text(encoding="utf-8"),
                     (folder / "exercises" / "chapter08" / "chapter08.ipynb").read_text(encoding="utf-8")):
            assert f"In a sequence of {n} tokens, how many positions may token {q}" in text, student
            assert f"c) {with_q} / {with_q}" in text
            assert "attend-count-token-3" in text  # the ids stay
