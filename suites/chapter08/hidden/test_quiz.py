"""Hidden tests for answers.yaml: one test per question of the answer key (never shown)."""

from __future__ import annotations

import pytest

from grader.kit import check_answer
from grader.kit import quiz_question_ids

pytestmark = pytest.mark.part("quiz")

NO_KEY = "no-answer-key"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "question_id" in metafunc.fixturenames:
        ids = quiz_question_ids(metafunc.config) or [NO_KEY]  # fails: the key is missing
        metafunc.parametrize("question_id", ids, ids=ids)


def test_quiz_answer(answers, answer_key, question_id):
    """the quiz answer is correct
    ja: 確認問題の答えが正しい
    """
    check_answer(answers, answer_key, question_id)
