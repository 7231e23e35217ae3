"""Nothing secret in what a student sees: the quiz key and the plot data, in every format.

The quiz key is the ``expected`` of a quiz test a student failed; the rubric's
``report.quiz_answers`` decides when it is shown (default ``after_due_date``: only in a report
whose quiz tests are released after the due date). Plot data goes whenever any part of a
hidden test is concealed. The last test grades a real submission whose every quiz answer is
wrong, as the chapter's rubric stands.
"""

from __future__ import annotations

import dataclasses
import shutil

import pytest
import yaml

from grader.report import SUFFIXES, render
from grader.report.model import CaseOutcome, GradeReport, PartScore, Status
from grader.spec.rubric.load import load_rubric
from grader.spec.rubric.model import HiddenDetail, QuizAnswers

from tests.helpers import ROOT, RUBRIC


KEY = "KEY-11.3137"


def _report(visibility: str) -> GradeReport:
    quiz = CaseOutcome(
        id="hidden/test_quiz.py::test_quiz_answer[divisor-4096-32]", part="quiz", status=Status.FAILED,
        max_score=1.0, visibility=visibility, suite="hidden",
        feedback={"en": "divisor-4096-32: the answer 64 is not correct.", "ja": "答え 64 は正しくありません。"},
        expected=f"{KEY} ± 0.02", actual="64")
    scaling = CaseOutcome(id="hidden/test_scaling.py::test_x", part="scaling", status=Status.FAILED,
                          max_score=1.0, visibility="hidden", suite="hidden", expected="8", actual="27.7")
    return GradeReport(
        assignment="chapter07", submission="s", score=0.0, max_score=2.0, tests=[quiz, scaling],
        parts=[PartScore("quiz", 0.0, 1.0), PartScore("scaling", 0.0, 1.0)], mistakes=[],
        sandbox={"level": "namespaces"}, errors=[], seed=1, graded_at="2026-01-01T00:00:00+00:00",
        plots={"variance": {"d_k": [1, 4], "student": [1.0, 4.0], "reference": [98765.4321, 4.0]}})


def _rubric(**report):
    rubric = load_rubric(RUBRIC)
    return dataclasses.replace(rubric, report=dataclasses.replace(rubric.report, **report))


def _shown(report: GradeReport, rubric, audience="student") -> dict[str, str]:
    return {fmt: render(report, fmt, rubric=rubric, audience=audience) for fmt in SUFFIXES}


@pytest.mark.parametrize("visibility", ["visible", "hidden", "after_published"])
def test_default_hides_the_key_unless_released_after_the_due_date(visibility):
    rubric = _rubric()
    assert rubric.report.quiz_answers == QuizAnswers.AFTER_DUE_DATE  # the chapter's rubric
    for fmt, text in _shown(_report(visibility), rubric).items():
        assert KEY not in text, fmt
        assert "the answer 64 is not correct" in text or fmt == "html" and "64" in text, fmt


def test_default_shows_the_key_in_a_report_released_after_the_due_date():
    shown = _shown(_report("after_due_date"), _rubric())
    assert all(KEY in text for fmt, text in shown.items() if fmt in ("yaml", "json", "junit")), shown


@pytest.mark.parametrize(("option", "visibility", "seen"), [
    ("never", "after_due_date", False), ("always", "visible", True), ("always", "hidden", True),
])
def test_the_option_decides(option, visibility, seen):
    shown = _shown(_report(visibility), _rubric(quiz_answers=QuizAnswers(option)))
    assert (KEY in shown["yaml"]) is seen
    assert (KEY in shown["json"]) is seen


def test_the_instructor_always_sees_the_key():
    shown = _shown(_report("visible"), _rubric(quiz_answers=QuizAnswers.NEVER), audience="instructor")
    assert all(KEY in text for fmt, text in shown.items() if fmt in ("yaml", "json", "junit"))


def test_the_chapter_rubric_states_the_option():
    assert "quiz_answers: after_due_date" in RUBRIC.read_text(encoding="utf-8")


@pytest.mark.parametrize("detail", [HiddenDetail.NONE, HiddenDetail.PASS_FAIL])
def test_plot_data_goes_when_hidden_tests_are_concealed(detail):
    shown = _shown(_report("hidden"), _rubric(hidden_tests=detail))
    for fmt, text in shown.items():
        assert "98765.4321" not in text, fmt
    if detail == HiddenDetail.NONE:
        assert "27.7" not in "".join(shown.values())


def test_plot_data_stays_when_nothing_is_concealed():
    shown = _shown(_report("hidden"), _rubric(hidden_tests=HiddenDetail.FULL))
    assert "98765.4321" in shown["yaml"]


@pytest.mark.slow
def test_a_student_with_every_quiz_answer_wrong_is_not_shown_the_key(tmp_path):
    from grader.grading.runner import grade
    from grader.ingest.submission.load import load_submission

    key = yaml.safe_load((ROOT / "solutions" / "chapter07" / "answers.yaml").read_text(encoding="utf-8"))
    folder = tmp_path / "wrong-quiz"
    shutil.copytree(ROOT / "examples" / "submissions" / "correct", folder)
    wrong = {}
    for qid, spec in key.items():
        wrong[qid] = {"answer": 99999 if spec["type"] == "numeric" else
                      ("a" if str(spec["answer"]).lower() != "a" else "b")}
    (folder / "answers.yaml").write_text(yaml.safe_dump(wrong), encoding="utf-8")
    rubric = load_rubric(RUBRIC)
    [report] = grade(rubric, [load_submission(folder)], seed=7)
    quiz = [t for t in report.tests if t.part == "quiz" and t.suite == "hidden"]
    assert len(quiz) == len(key) and all(t.status == Status.FAILED for t in quiz)
    assert any(t.expected for t in quiz)  # the instructor's record holds the key
    for fmt, text in _shown(report, rubric).items():
        shown = yaml.safe_load(text) if fmt in ("yaml", "json") else None
        if shown is not None:
            assert all("expected" not in t for t in shown["tests"] if t["part"] == "quiz"), fmt
        for t in quiz:
            assert f"expected: {t.expected}" not in text and f'"expected": "{t.expected}"' not in text, fmt
