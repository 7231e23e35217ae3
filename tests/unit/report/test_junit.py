"""The JUnit writer (grader/report/junit.py): one suite per part with its score, each test a
testcase with its outcome, a grading error a testcase of its own."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from grader.report import junit, render

from tests.unit.report.test_writers import COMMENT, make_report


def test_each_part_is_a_suite_with_its_score_and_counts() -> None:
    root = ET.fromstring(junit.render(make_report(), lang="en"))
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert list(suites) == ["chapter07.scaling", "chapter07.softmax", "chapter07.variance", "chapter07.quiz"]
    scaling = suites["chapter07.scaling"]
    assert (scaling.get("tests"), scaling.get("failures"), scaling.get("errors")) == ("4", "2", "0")
    props = {p.get("name"): p.get("value") for p in scaling.iter("property")}
    assert (props["score"], props["max_score"]) == ("2", "4")
    softmax = suites["chapter07.softmax"]
    assert softmax.get("errors") == "2"  # an error and a timeout
    assert suites["chapter07.quiz"].find("testcase/skipped") is not None
    assert root.get("tests") == "8" and root.get("failures") == "2" and root.get("errors") == "2"


def test_a_grading_error_is_a_testcase_of_its_own_and_the_writer_is_the_formats() -> None:
    report = make_report(errors=["the worker crashed"], tests=[])
    root = ET.fromstring(junit.render(report))
    [error] = root.iter("error")
    assert error.get("type") == "grading" and "crashed" in error.get("message", "")
    assert junit.render(report) == render(report, "junit")


def test_a_reviewers_comments_are_a_suite_of_no_tests_in_both_languages() -> None:
    plain = ET.fromstring(junit.render(make_report(), lang="en"))
    assert not [s for s in plain.iter("testsuite") if s.get("name", "").endswith("review-comments")]
    hostile = dict(COMMENT, text=COMMENT["text"] + " \x1b[2J</system-out>")
    for lang, heading, where in (("en", "Comments on your code / コードへのコメント", "scaling.py, lines 2–3: "),
                                 ("ja", "コードへのコメント / Comments on your code", "scaling.py の 2〜3 行: ")):
        text = junit.render(make_report(comments=[hostile]), lang=lang)
        root = ET.fromstring(text)
        suite = root.find("testsuite[@name='chapter07.review-comments']")
        assert suite is not None and suite.get("tests") == "0" and suite.find("testcase") is None
        (prop,) = suite.iter("property")
        assert prop.get("name") == "comment:3" and prop.get("value", "").startswith(where)
        out = (suite.findtext("system-out") or "").split("\n")
        assert out[0] == heading and out[1] == "- " + prop.get("value", "") and out[2:] == [
            "    def f(x):", "        return x / 64"]
        assert "<b>why</b> 64?" in out[1] and "√d_k で割りましょう" in out[1] and "\x1b" not in text  # as text
        assert root.get("tests") == "8" and root.get("failures") == "2"  # the counts are the tests' own
    assert "</system-out>" in out[1] and text.count("</system-out>") == 1
