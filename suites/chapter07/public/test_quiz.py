"""Public tests for answers.yaml: every question is answered in the right form (form only).

These tests do not know the answers; they only check that each answer is filled in and is a
number (numeric questions) or one of the offered letters (multiple choice). Their titles say
so, so that 7/7 here is not read as 7 correct answers: correctness is graded by the hidden
tests. The question list comes from ``expected.json``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from grader.testing import quiz_answer, quiz_letter, quiz_number, require

pytestmark = pytest.mark.part("quiz")

QUESTIONS = json.loads(Path(__file__).with_name("expected.json").read_text(encoding="utf-8"))["quiz"]


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q["id"])
def test_answer_is_well_formed(answers, question):
    """form only, not correctness: the quiz answer is filled in and has the right form
    ja: 形式のみの確認（正誤は最終採点で判定）: 確認問題の答えが記入されていて、正しい形式になっている
    """
    qid = question["id"]
    given = quiz_answer(answers, qid)
    require(
        given is not None and given != "",
        en=f'{qid}: no answer yet; write it after "answer:" in answers.yaml.',
        ja=f"{qid}: まだ答えがありません。answers.yaml の「answer:」の後に書いてください。",
        expected="an answer",
        actual="blank",
    )
    shown = repr(given) if type(given) in (str, int, float, bool) else type(given).__name__
    if question["type"] == "numeric":
        number = quiz_number(given)
        require(
            number is not None and math.isfinite(number),
            en=f"{qid}: {shown} is not a number; write a number such as 2.5.",
            ja=f"{qid}: {shown} は数ではありません。2.5 のように数で書いてください。",
            expected="a number",
            actual=shown,
        )
    else:
        letters = question["choices"]
        letter = quiz_letter(given)
        require(
            letter in letters,
            en=f"{qid}: {shown} is not one of the letters {', '.join(letters)}.",
            ja=f"{qid}: {shown} は選択肢の記号 {', '.join(letters)} のどれでもありません。",
            expected=" / ".join(letters),
            actual=shown,
        )
