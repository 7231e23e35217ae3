"""Quiz checks any assignment's suites call: the answer is well formed (public), and right (hidden).

A quiz is ``answers.yaml`` mapping question ids to ``{answer: ...}`` (or to the bare answer). The
public check knows only each question's id and type (``numeric`` or ``choice`` with its
letters, from the public suite's ``expected.json``); the hidden check reads the answer key. No
message ever states the right answer. Answers are read as people type them (NFKC: full-width
letters and digits, ideographic spaces; ``b)``, ``(b)``), and an answers file that cannot be
read fails every check saying so (:func:`grader.testing.quiz_answer`). The public check is
about form only: its test's title should say so, so that a full score there is not read as
correct answers.

Example (a public suite's ``test_quiz.py``)::

    QUESTIONS = questions(Path(__file__).with_name("expected.json"))

    @pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q["id"])
    def test_answer_is_well_formed(answers, question):
        check_well_formed(answers, question)
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, cast

from grader.testing import quiz_answer, quiz_letter, quiz_number, require

__all__ = ["check_answer", "check_well_formed", "questions"]


def questions(expected_file: Path) -> list[dict[str, Any]]:
    """The ``quiz`` list of a public suite's ``expected.json``: ``[{"id", "type", "choices"?}]``."""
    return list(json.loads(expected_file.read_text(encoding="utf-8"))["quiz"])


def check_well_formed(answers: Any, question: dict[str, Any]) -> None:
    """Fail unless the answer to ``question`` is filled in and is a number or one of its letters."""
    __tracebackhide__ = True
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


def check_answer(answers: Any, key: dict[str, Any], question_id: str) -> None:
    """Fail unless the answer to ``question_id`` matches the answer key's entry.

    Raises:
        RuntimeError: the key has no such question (the grader loaded no answer key).
    """
    __tracebackhide__ = True
    if question_id not in (key or {}):
        raise RuntimeError(f"the answer key has no question {question_id!r}")
    spec = key[question_id]
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
            abs(cast(float, number) - answer) <= tol,  # (a number: required just above)
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
