"""Public tests for answers.yaml: every question is answered in the right form (form only).

These tests do not know the answers; they only check that each answer is filled in and is a
number (numeric questions) or one of the offered letters (multiple choice). Their titles say
so, so that 7/7 here is not read as 7 correct answers: correctness is graded by the hidden
tests. The question list comes from ``expected.json``.
"""

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
