"""Hidden tests for answers.yaml: one test per question in the answer key.

The question ids come from the key the plugin loads (``config.stash[grader.kit.asserts.ANSWER_KEY]``
at collection, ``ref.answers_key`` at run time), so adding a question to the key adds a test.
Key entries look like ``{"type": "numeric", "answer": 128, "tolerance": 0}`` or
``{"type": "choice", "answer": "b"}``. Messages never state the right answer.
"""

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
