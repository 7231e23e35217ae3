"""Quiz checks any assignment's suites call: the answer is well formed (public), and right (hidden).

A quiz is ``answers.yaml`` mapping question ids to ``{answer: ...}`` (or to the bare answer). The
public check knows only each question's id and type (``numeric`` or ``choice`` with its
letters, from the public suite's ``expected.json``); the hidden check reads the answer key. No
message ever states the right answer. Answers are read as people type them (NFKC: full-width
letters and digits, ideographic spaces; ``b)``, ``(b)``), and an answers file that cannot be
read fails every check saying so (:func:`grader.kit.asserts.quiz_answer`). The public check is
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
from collections.abc import Mapping
from pathlib import Path
from typing import TypedDict, cast

from grader.i18n.messages import in_both
from grader.kit.asserts import quiz_answer, quiz_letter, quiz_number, require

__all__ = ["check_answer", "check_well_formed", "questions"]


class _QuestionId(TypedDict):
    id: str
    type: str


class Question(_QuestionId, total=False):
    """One question of the public quiz: ``numeric``, or ``choice`` among ``choices`` (letters)."""

    choices: list[str]


def questions(expected_file: Path) -> list[Question]:
    """The ``quiz`` list of a public suite's ``expected.json`` (which ``grader.prepare.expected`` writes)."""
    quiz: list[Question] = json.loads(expected_file.read_text(encoding="utf-8"))["quiz"]
    return list(quiz)


def _number(value: object) -> float:
    """``float(value)`` of a number in the answer key (a TypeError for what is not one)."""
    if isinstance(value, (int, float, str)):
        return float(value)
    raise TypeError(f"not a number: {type(value).__name__}")


def check_well_formed(answers: object, question: Question) -> None:
    """Fail unless the answer to ``question`` is filled in and is a number or one of its letters."""
    __tracebackhide__ = True
    qid = question["id"]
    given = quiz_answer(answers, qid)
    require(
        given is not None and given != "",
        **in_both("quiz_no_answer_yet", question=qid),
        expected="an answer",
        actual="blank",
    )
    shown = repr(given) if type(given) in (str, int, float, bool) else type(given).__name__
    if question["type"] == "numeric":
        number = quiz_number(given)
        require(
            number is not None and math.isfinite(number),
            **in_both("quiz_write_a_number", question=qid, answer=shown),
            expected="a number",
            actual=shown,
        )
    else:
        letters = question["choices"]
        letter = quiz_letter(given)
        require(
            letter in letters,
            **in_both("quiz_not_a_choice", question=qid, answer=shown, letters=", ".join(letters)),
            expected=" / ".join(letters),
            actual=shown,
        )


def check_answer(answers: object, key: Mapping[str, Mapping[str, object]], question_id: str) -> None:
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
        **in_both("quiz_no_answer", question=question_id),
        expected="an answer",
        actual="blank",
    )
    shown = repr(given) if type(given) in (str, int, float, bool) else type(given).__name__
    if spec["type"] == "numeric":
        number = quiz_number(given)
        require(
            number is not None and math.isfinite(number),
            **in_both("quiz_not_a_number", question=question_id, answer=shown),
            expected="a number",
            actual=shown,
        )
        answer = _number(spec["answer"])
        tol = _number(spec.get("tolerance", 0) or 0)
        require(
            abs(cast(float, number) - answer) <= tol,  # (a number: required just above)
            **in_both("quiz_not_correct", question=question_id, answer=shown),
            expected=f"{answer:g} ± {tol:g}",
            actual=shown,
        )
    else:
        letter = quiz_letter(given)
        require(
            letter is not None,
            **in_both("quiz_not_one_letter", question=question_id, answer=shown),
            expected="one letter",
            actual=shown,
        )
        require(
            letter == str(spec["answer"]).strip().lower(),
            **in_both("quiz_not_correct", question=question_id, answer=shown),
            expected=str(spec["answer"]),
            actual=shown,
        )
