"""Quiz checks (grader/kit/quiz.py): the public one judges the form only, the hidden one the answer,
and neither message states the right answer."""

from __future__ import annotations

import pytest

from grader.kit.asserts import Mismatch
from grader.kit.quiz import check_answer, check_well_formed, questions

from tests.helpers import ROOT

QUESTIONS = {q["id"]: q for q in questions(ROOT / "suites" / "chapter07" / "public" / "expected.json")}
NUMERIC = next(q for q in QUESTIONS.values() if q["type"] == "numeric")
CHOICE = next(q for q in QUESTIONS.values() if q["type"] != "numeric")


def test_the_public_suite_lists_each_question_with_its_type() -> None:
    assert QUESTIONS and all(q["type"] in ("numeric", "choice") for q in QUESTIONS.values())
    assert all(q["choices"] for q in QUESTIONS.values() if q["type"] == "choice")


def test_a_well_formed_answer_passes_whatever_its_value() -> None:
    check_well_formed({NUMERIC["id"]: {"answer": " 123.5 "}}, NUMERIC)
    check_well_formed({CHOICE["id"]: f"({CHOICE['choices'][0].upper()})"}, CHOICE)


@pytest.mark.parametrize("given", [None, "", "twelve", float("inf")])
def test_a_numeric_answer_that_is_no_number_fails_naming_the_question(given) -> None:
    with pytest.raises(Mismatch) as failed:
        check_well_formed({NUMERIC["id"]: {"answer": given}}, NUMERIC)
    assert NUMERIC["id"] in str(failed.value)


def test_a_letter_not_among_the_choices_fails_listing_them() -> None:
    with pytest.raises(Mismatch) as failed:
        check_well_formed({CHOICE["id"]: "zz"}, CHOICE)
    assert all(letter in str(failed.value) for letter in CHOICE["choices"])


def test_the_hidden_check_compares_with_the_key_within_its_tolerance_and_never_says_it() -> None:
    key = {"n": {"type": "numeric", "answer": 11.3137, "tolerance": 0.01}, "c": {"type": "choice", "answer": "B"}}
    check_answer({"n": "11.31"}, key, "n")
    check_answer({"c": {"answer": "b)"}}, key, "c")
    for answers, qid in (({"n": 64}, "n"), ({"c": "a"}, "c")):
        with pytest.raises(Mismatch) as wrong:
            check_answer(answers, key, qid)
        assert "11.3137" not in str(wrong.value) and "'B'" not in str(wrong.value)
    with pytest.raises(RuntimeError, match="no question 'x'"):
        check_answer({}, key, "x")
