"""Public tests for answers.yaml: every question is answered, as a number or one of its letters
(the form only; the hidden tests grade correctness)."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.kit import check_well_formed, questions

pytestmark = pytest.mark.part("quiz")

QUESTIONS = questions(Path(__file__).with_name("expected.json"))


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q["id"])
def test_answer_is_well_formed(answers, question):
    """form only, not correctness: the quiz answer is filled in and has the right form
    ja: 形式のみの確認（正誤は最終採点で判定）: 確認問題の答えが記入されていて、正しい形式になっている
    """
    check_well_formed(answers, question)
