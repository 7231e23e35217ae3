"""Quiz answers as people type them: an IME's full-width letters, an unreadable file, form-only labels."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader.report.model import Status
from grader.grading.runner import grade, parse_answers
from grader.ingest.submission.load import load_submission

from tests.helpers import ROOT


CORRECT = ROOT / "examples" / "submissions" / "correct"
SEED = 20261201

pytestmark = pytest.mark.slow


def _student(tmp_path: Path, name: str, answers: str) -> Path:
    folder = tmp_path / name
    shutil.copytree(CORRECT, folder)
    (folder / "answers.yaml").write_text(answers, encoding="utf-8")
    return folder


# What a student using a Japanese IME leaves in answers.yaml: full-width letters and digits,
# an ideographic space after the letter, a full-width period and bracket.
IME = """\
head-dim-4096-32:
  answer: １２８
divisor-4096-32:
  answer: １１．３１
gpt2-small-d-k:
  answer: ｂ
no-scaling-effect:
  answer: "Ａ\u3000"
why-sqrt-d-k:
  answer: ｂ）
divide-by-d-k-effect:
  answer: "\u3000c"
scaling-ranking-sign:
  answer: （ｄ）
"""

# A tab where the stub has spaces: YAML cannot read the file at all.
TAB = CORRECT.joinpath("answers.yaml").read_text(encoding="utf-8").replace("  answer: b", "\tanswer: b", 1)


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory, rubric):
    tmp = tmp_path_factory.mktemp("quiz")
    subs = [load_submission(_student(tmp, "ime", IME)), load_submission(_student(tmp, "tab", TAB))]
    ime, tab = grade(rubric, subs, seed=SEED)
    return {"ime": ime, "tab": tab}


def _quiz(report, suite: str | None = None):
    return [t for t in report.tests if t.part == "quiz" and (suite is None or t.suite == suite)]


def test_full_width_answers_count_as_typed(reports) -> None:
    quiz = _quiz(reports["ime"])
    assert quiz and {t.suite for t in quiz} == {"public", "hidden"}
    assert [(t.id, t.feedback.get("en")) for t in quiz if t.status != Status.PASSED] == []


def test_nfkc_happens_once_where_answers_are_read() -> None:
    data, problem = parse_answers(IME)
    assert problem is None
    assert data["gpt2-small-d-k"]["answer"] == "b"
    assert data["head-dim-4096-32"]["answer"] == "128"
    assert data["no-scaling-effect"]["answer"] == "A "


def test_an_unreadable_answers_file_is_reported_by_every_quiz_test(reports) -> None:
    quiz = _quiz(reports["tab"])
    assert quiz and all(t.status == Status.FAILED for t in quiz)
    for t in quiz:
        assert "answers.yaml cannot be read" in t.feedback["en"], t.feedback
        assert "no answer yet" not in t.feedback["en"]
        assert "answers.yaml を読み込めない" in t.feedback["ja"], t.feedback
        assert "タブ" in t.feedback["ja"]  # the reason, in Japanese: a tab in the indentation
    # the code parts are graded as usual
    assert all(t.status == Status.PASSED for t in reports["tab"].tests if t.part != "quiz")
    assert any("answers.yaml is not valid YAML" in e for e in reports["tab"].errors)


def test_public_quiz_tests_say_they_check_the_form_only(reports) -> None:
    public = _quiz(reports["ime"], "public")
    assert public
    for t in public:
        assert "form only" in t.title["en"] and "形式のみ" in t.title["ja"]
    hidden = _quiz(reports["ime"], "hidden")
    assert hidden and not any("form only" in t.title["en"] for t in hidden)
