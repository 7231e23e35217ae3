"""The Gradescope writer (grader/report/gradescope.py): results.json as plain data, every test with
its visibility, the score said first, a grading failure a visible entry."""

from __future__ import annotations

import json
import re

from grader.report import gradescope, render

from tests.unit.report.test_writers import COMMENT, make_report


def test_results_are_plain_data_with_each_tests_visibility() -> None:
    report = make_report()
    data = gradescope.results(report, lang="en")
    assert json.loads(json.dumps(data)) == data
    assert data["score"] == report.score and data["extra_data"]["max_score"] == report.max_score
    assert [t["number"] for t in data["tests"]] == [str(i) for i in range(1, len(report.tests) + 1)]
    assert {t["visibility"] for t in data["tests"]} == {"visible", "hidden", "after_due_date"}
    assert data["output"].startswith("**Score / 得点: 4 / 8.5**")  # the languages of the report, the asked one first
    assert "sqrt-d-model" in data["output"]


def test_a_grading_failure_is_a_visible_entry_and_render_is_its_json() -> None:
    report = make_report(errors=["the worker crashed"])
    last = gradescope.results(report)["tests"][-1]
    assert last["visibility"] == "visible" and "crashed" in last["output"] and last["max_score"] == 0.0
    assert json.loads(gradescope.render(report)) == gradescope.results(report)
    assert gradescope.render(report) == render(report, "gradescope")


def test_a_reviewers_comments_close_the_output_in_both_languages_as_text() -> None:
    bare = gradescope.results(make_report(), lang="en")
    assert "Comments on your code" not in bare["output"] and "コードへのコメント" not in bare["output"]
    report = make_report(comments=[COMMENT])
    for lang, heading, where in (("en", "### Comments on your code / コードへのコメント", "scaling.py, lines 2–3: "),
                                 ("ja", "### コードへのコメント / Comments on your code", "scaling.py の 2〜3 行: ")):
        out = gradescope.results(report, lang=lang)["output"]
        assert out.endswith("\n".join([heading, "", out.split("\n")[-3], "    - def f(x):", "    - return x / 64"]))
        said = out.split("\n")[-3]
        assert said.startswith("- " + where) and "√d_k で割りましょう" in said and "tanaka" in said
        assert "\\<b>why\\</b>" in said and "[x\\](javascript" in said  # shown, never markup:
        assert not re.search(r"(?<!\\)[<\]]", said)  # no < or ] unescaped
    assert out.index("sqrt-d-model") < out.index("コードへのコメント")  # after the score, the parts and the mistakes
    assert json.loads(render(report, "gradescope", lang="ja"))["output"] == out
