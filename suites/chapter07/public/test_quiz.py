"""Public tests for answers.yaml: every question is answered in the right form.

These tests do not know the answers; they only check that each answer is filled in and is a
number (numeric questions) or one of the offered letters (multiple choice). The question list
comes from ``expected.json``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from grader.testing import require

pytestmark = pytest.mark.part("quiz")

QUESTIONS = json.loads(Path(__file__).with_name("expected.json").read_text(encoding="utf-8"))["quiz"]


def _student_answer(answers: Any, question_id: str) -> Any:
    if type(answers) is not dict:
        return None
    entry = answers.get(question_id)
    return entry.get("answer") if type(entry) is dict else entry


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q["id"])
def test_answer_is_well_formed(answers, question):
    """the quiz answer is filled in and has the right form
    ja: 確認問題の答えが記入されていて、正しい形式になっている
    """
    qid = question["id"]
    given = _student_answer(answers, qid)
    require(
        given is not None and given != "",
        en=f'{qid}: no answer yet; write it after "answer:" in answers.yaml.',
        ja=f"{qid}: まだ答えがありません。answers.yaml の「answer:」の後に書いてください。",
        expected="an answer",
        actual="blank",
    )
    shown = repr(given) if type(given) in (str, int, float, bool) else type(given).__name__
    if question["type"] == "numeric":
        number: float | None = None
        if type(given) in (int, float):
            number = float(given)
        elif type(given) is str:
            try:
                number = float(given.strip())
            except ValueError:
                number = None
        require(
            number is not None and math.isfinite(number),
            en=f"{qid}: {shown} is not a number; write a number such as 2.5.",
            ja=f"{qid}: {shown} は数ではありません。2.5 のように数で書いてください。",
            expected="a number",
            actual=shown,
        )
    else:
        letters = question["choices"]
        letter = given.strip().lower().rstrip(").") if type(given) is str else None
        require(
            letter in letters,
            en=f"{qid}: {shown} is not one of the letters {', '.join(letters)}.",
            ja=f"{qid}: {shown} は選択肢の記号 {', '.join(letters)} のどれでもありません。",
            expected=" / ".join(letters),
            actual=shown,
        )
