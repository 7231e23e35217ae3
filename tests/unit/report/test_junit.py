"""The JUnit writer (grader/report/junit.py): one suite per part with its score, each test a
testcase with its outcome, a grading error a testcase of its own."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from grader.report import junit, render

from tests.unit.report.test_writers import make_report


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
