"""The pytest plugin: ids, ordering, points and the outcome vocabulary, on a tiny suite."""

from __future__ import annotations

import dataclasses
import textwrap

import pytest

from grader.report.model import Status
from grader.spec.rubric.load import load_rubric
from grader.grading.runner import grade


pytestmark = pytest.mark.slow

SUITE = '''
import pytest
from grader.kit.asserts import assert_int, raises_student

pytestmark = pytest.mark.part("scaling")


@pytest.mark.parametrize("d_model, n_heads", [(768, 12), (512, 8)])
def test_head_dim(student, d_model, n_heads):
    """head_dim divides
    ja: head_dim は割り算
    """
    assert_int(student.scaling.head_dim(d_model, n_heads), d_model // n_heads, what="head_dim")


def test_slow(student):
    """a call that may hang"""
    student.scaling.slow()


def test_missing(student):
    """a function nobody wrote"""
    student.scaling.not_there()


def test_raises(student):
    """ValueError for zero heads"""
    with raises_student("ValueError"):
        student.scaling.head_dim(768, 0)
'''

RUBRIC = '''
schema: 1
assignment: tiny
title: {en: tiny, ja: 小さい}
exercises: ex
suites:
  public: {path: suite, visibility: visible}
parts:
  - {id: scaling, file: scaling.py, title: {en: Scaling, ja: スケーリング}}
points:
  default: 1
  rules:
    - {match: "public/test_tiny.py::test_head_dim[768-12]", points: 5}
limits: {per_call_s: 1, per_submission_s: 30}
report: {formats: [yaml], language: both, pass_mark: 50}
'''

GOOD = '''
def head_dim(d_model, n_heads):
    if n_heads <= 0:
        raise ValueError("n_heads must be positive")
    return d_model // n_heads

def slow():
    return 1
'''

HANGS = '''
import time

def head_dim(d_model, n_heads):
    return d_model // n_heads

def slow():
    time.sleep(60)
'''


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    base = tmp_path_factory.mktemp("tiny")
    (base / "suite").mkdir()
    (base / "ex").mkdir()
    (base / "suite" / "test_tiny.py").write_text(textwrap.dedent(SUITE), encoding="utf-8")
    (base / "rubric.yaml").write_text(RUBRIC, encoding="utf-8")
    subs = []
    from grader.ingest.submission.load import load_submission

    for name, code in (("good", GOOD), ("hangs", HANGS)):
        (base / name).mkdir()
        (base / name / "scaling.py").write_text(code, encoding="utf-8")
        subs.append(load_submission(base / name))
    rubric = load_rubric(base / "rubric.yaml")
    return grade(rubric, subs, suites=("public",), seed=1, diagnose=False)


def test_one_report_per_submission_in_order(tiny):
    assert [r.submission for r in tiny] == ["good", "hangs"]


def test_ids_carry_parameters_but_not_the_submission_index(tiny):
    ids = [t.id for t in tiny[0].tests]
    assert "public/test_tiny.py::test_head_dim[768-12]" in ids
    assert all("__sub" not in i for i in ids)
    assert [t.id for t in tiny[1].tests] == ids


def test_points_come_from_the_rubric_rules(tiny):
    points = {t.id: t.max_score for t in tiny[0].tests}
    assert points["public/test_tiny.py::test_head_dim[768-12]"] == 5
    assert points["public/test_tiny.py::test_head_dim[512-8]"] == 1


def test_titles_are_bilingual_from_the_docstring(tiny):
    t = next(t for t in tiny[0].tests if t.id.endswith("[768-12]"))
    assert t.title == {"en": "head_dim divides", "ja": "head_dim は割り算"}


def test_outcome_vocabulary(tiny):
    good = {t.id.split("::")[1]: t.status for t in tiny[0].tests}
    hangs = {t.id.split("::")[1]: t.status for t in tiny[1].tests}
    assert good["test_slow"] == Status.PASSED
    assert good["test_missing"] == Status.ERROR  # the function does not exist: could not run
    assert good["test_raises"] == Status.PASSED
    assert hangs["test_slow"] == Status.TIMEOUT
    assert hangs["test_raises"] == Status.FAILED  # returned instead of raising


def test_a_hang_costs_only_the_test_it_hit(tiny):
    hangs = tiny[1]
    others = [t for t in hangs.tests if "test_head_dim" in t.id]
    assert all(t.status == Status.PASSED for t in others)
    assert any("did not return" in e for e in hangs.errors)


def test_scores_sum_and_pass_mark(tiny):
    good = tiny[0]
    assert good.score == sum(t.score for t in good.tests)
    assert good.max_score == 5 + 1 + 1 + 1 + 1
    assert good.score == good.max_score - 1  # test_missing
    assert good.passed


FIXTURE_SUITE = '''
import pytest

pytestmark = pytest.mark.part("scaling")


@pytest.fixture(scope="module")
def seen():
    return []  # torn down after each submission: never holds another submission's value


@pytest.fixture
def heads(student):
    return student.scaling.head_dim(768, 12)


def test_through_a_suite_fixture(heads, seen):
    """a suite fixture that calls the student"""
    seen.append(heads)
    assert seen == [64]


def test_direct(student):
    """a test the plugin calls directly"""
    assert student.scaling.head_dim(512, 8) == 64
'''

WRONG = '''
def head_dim(d_model, n_heads):
    return d_model // n_heads + 1
'''


def _fixture_suite(base):
    (base / "suite").mkdir()
    (base / "ex").mkdir()
    (base / "suite" / "test_fixtures.py").write_text(FIXTURE_SUITE, encoding="utf-8")
    (base / "rubric.yaml").write_text(RUBRIC, encoding="utf-8")
    from grader.ingest.submission.load import load_submission

    subs = {}
    for name, code in (("good", GOOD), ("wrong", WRONG), ("good2", GOOD)):
        (base / name).mkdir()
        (base / name / "scaling.py").write_text(code, encoding="utf-8")
        subs[name] = load_submission(base / name)
    return load_rubric(base / "rubric.yaml"), subs


def _verdicts(report):
    return {t.id.split("::")[1]: t.status for t in report.tests}


def test_one_session_takes_more_submissions_as_it_runs(tmp_path):
    """A batch worker's session: later submissions arrive through ``more``, and suite
    fixtures (pytest's own protocol) start afresh for each of them."""
    rubric, subs = _fixture_suite(tmp_path)
    chunks = [[subs["wrong"]], [subs["good2"]]]
    asked = []

    def more():
        asked.append(len(chunks))
        return chunks.pop(0) if chunks else None

    got = []
    kept = grade(rubric, [subs["good"]], suites=("public",), seed=3, diagnose=False,
                 on_report=got.append, more=more)
    assert kept == []  # with ``more``, reports go to on_report only
    assert asked == [2, 1, 0]
    assert [r.submission for r in got] == ["good", "wrong", "good2"]
    alone = [grade(rubric, [subs[name]], suites=("public",), seed=3, diagnose=False)[0]
             for name in ("good", "wrong", "good2")]
    for together, single in zip(got, alone):
        assert _verdicts(together) == _verdicts(single)
        assert together.score == single.score
    assert set(_verdicts(got[0]).values()) == {Status.PASSED}
    assert set(_verdicts(got[1]).values()) == {Status.FAILED}
    assert set(_verdicts(got[2]).values()) == {Status.PASSED}  # nothing of "wrong" left over


def test_grader_new_names_every_optional_hook(tmp_path) -> None:
    """The hooks file `grader new` writes lists every optional hook the interface declares."""
    from grader.kit.hooks import OPTIONAL_HOOKS, AssignmentHooks
    from grader.prepare.scaffold import _HOOKS

    text = _HOOKS.format(name="chapter09")
    assert [h for h in OPTIONAL_HOOKS if h not in text] == []
    declared = {n for proto in AssignmentHooks.__mro__[1:] if proto.__module__ == "grader.kit.hooks"
                for n, v in vars(proto).items() if not n.startswith("_") and isinstance(v, property) or callable(v)
                and not n.startswith("_")}
    assert declared - {"RECOGNISERS"} == set(OPTIONAL_HOOKS)


# --------------------------------------------------------------------------- a student's own variant


@pytest.fixture(scope="module")
def with_variants(tmp_path_factory):
    """The reference and the sqrt-d-model example, graded as a student of d_model 512 with 8 heads."""
    from grader.ingest.submission.load import load_submission
    from grader.spec.variants import Variant
    from tests.helpers import ROOT

    rubric = load_rubric(ROOT / "rubrics" / "chapter07.yaml")
    own = Variant({"d_model": 512, "n_heads": 8, "dims": (2, 32, 512), "seq_len": 7, "temperature": 4.0, "d_k": 64})
    base = tmp_path_factory.mktemp("own")
    (base / "answers.yaml").write_text("head-dim-4096-32: 64\ndivisor-4096-32: 8\n", encoding="utf-8")
    from grader.grading.runner import reference_for
    from grader.prepare.variants import variant_answers

    key = dict(reference_for(rubric).answers_key)
    # the reference's quiz answers in this variant are the variant's own numbers
    ref = dataclasses.replace(load_submission(ROOT / "solutions" / "chapter07"),
                              answers=variant_answers(key, rubric.variants, own))
    wrong = load_submission(ROOT / "examples" / "submissions" / "sqrt-d-model")
    answers = load_submission(base)
    subs = [s.with_variant(own.as_data()) for s in (ref, wrong, answers)]
    return own, subs, grade(rubric, subs, seed=5)


def test_the_reference_earns_full_marks_in_a_variant_which_the_report_records(with_variants):
    own, subs, reports = with_variants
    assert reports[0].score == reports[0].max_score
    assert reports[0].variant == own.as_data()
    assert reports[0].to_dict()["variant"]["id"] == own.id
    assert subs[0].content_hash != subs[0].with_variant(None).content_hash or subs[0].variant is not None


def test_the_mistake_in_a_variant_quotes_the_students_own_sizes(with_variants):
    _, _, reports = with_variants
    [m] = [m for m in reports[1].mistakes if m.id == "sqrt-d-model"]
    assert (m.evidence["d_model"], m.evidence["n_heads"]) == (512, 8)
    assert "√512" in m.message["en"] and "512 / 8 = 64" in m.message["ja"]


def test_the_quiz_is_marked_with_the_students_own_numbers(with_variants):
    """64 and 8 are right for d_model 512 with 8 heads (and would be wrong for 4096 and 32)"""
    _, _, reports = with_variants
    quiz = {t.id.rsplit("[", 1)[-1].rstrip("]"): t.status for t in reports[2].tests if t.id.startswith("hidden/test_quiz")}
    assert quiz["head-dim-4096-32"] == Status.PASSED and quiz["divisor-4096-32"] == Status.PASSED
