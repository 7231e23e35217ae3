"""Hidden tests for answers.yaml: one test per question in the answer key.

The question ids come from the key the plugin loads (``config.stash[grader.testing.ANSWER_KEY]``
at collection, ``ref.answers_key`` at run time), so adding a question to the key adds a test.
Key entries look like ``{"type": "numeric", "answer": 128, "tolerance": 0}`` or
``{"type": "choice", "answer": "b"}``. Messages never state the right answer.
"""

from __future__ import annotations

import math
import pytest

from grader.testing import quiz_answer, quiz_letter, quiz_number, quiz_question_ids, require

pytestmark = pytest.mark.part("quiz")

NO_KEY = "no-answer-key"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "question_id" in metafunc.fixturenames:
        ids = quiz_question_ids(metafunc.config) or [NO_KEY]
        metafunc.parametrize("question_id", ids, ids=ids)


def test_quiz_answer(answers, ref, question_id):
    """the quiz answer is correct
    ja: 確認問題の答えが正しい
    """
    if question_id == NO_KEY:
        raise RuntimeError("the grader loaded no quiz answer key (config.stash[ANSWER_KEY] is empty)")
    spec = ref.answers_key[question_id]
    given = quiz_answer(answers, question_id)
    require(
        given is not None and given != "",
        en=f"{question_id}: no answer was given.",
        ja=f"{question_id}: 答えが書かれていません。",
        expected="an answer",
        actual="blank",
    )
    shown = repr(given) if type(given) in (str, int, float, bool) else type(given).__name__
    if spec["type"] == "numeric":
        number = quiz_number(given)
        require(
            number is not None and math.isfinite(number),
            en=f"{question_id}: the answer {shown} is not a number.",
            ja=f"{question_id}: 答え {shown} は数ではありません。",
            expected="a number",
            actual=shown,
        )
        answer = float(spec["answer"])
        tol = float(spec.get("tolerance", 0) or 0)
        require(
            abs(number - answer) <= tol,
            en=f"{question_id}: the answer {shown} is not correct.",
            ja=f"{question_id}: 答え {shown} は正しくありません。",
            expected=f"{answer:g} ± {tol:g}",
            actual=shown,
        )
    else:
        letter = quiz_letter(given)
        require(
            letter is not None,
            en=f"{question_id}: the answer {shown} is not one letter such as a, b, c or d.",
            ja=f"{question_id}: 答え {shown} は a, b, c, d のような記号1文字ではありません。",
            expected="one letter",
            actual=shown,
        )
        require(
            letter == str(spec["answer"]).strip().lower(),
            en=f"{question_id}: the answer {shown} is not correct.",
            ja=f"{question_id}: 答え {shown} は正しくありません。",
            expected=str(spec["answer"]),
            actual=shown,
        )
