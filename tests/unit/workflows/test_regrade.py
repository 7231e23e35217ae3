"""``grader regrade``'s own decisions, without grading: which tests a pattern selects, and when a
report graded again says nothing new (then it is not written again)."""

from __future__ import annotations

import copy

from grader.grading.select import matcher
from grader.workflows.regrade import _same_results


REPORT = {
    "submission": "alice", "score": 3.0, "max_score": 4.0,
    "tests": [
        {"id": "hidden/test_scaling.py::test_head_dim[64]", "status": "passed", "score": 1.0, "duration_s": 0.01},
        {"id": "hidden/test_scaling.py::test_scale", "status": "failed", "score": 0.0, "duration_s": 0.02},
        {"id": "public/test_softmax.py::test_rows_sum_to_one", "status": "passed", "score": 2.0, "duration_s": 0.03},
    ],
}


def test_a_pattern_selects_test_ids_as_fnmatch_does_and_says_the_same_every_time():
    select = matcher(["hidden/test_scaling.py::*", "*rows_sum*"])
    ids = [t["id"] for t in REPORT["tests"]] + ["public/test_scaling.py::test_head_dim[64]"]
    assert [select(i) for i in ids] == [True, True, True, False]
    assert [select(i) for i in ids] == [True, True, True, False]  # asked again: the same answers
    exact = matcher(["hidden/test_scaling.py::test_head_dim[[]64[]]"])
    assert exact("hidden/test_scaling.py::test_head_dim[64]") and not exact("hidden/test_scaling.py::test_scale")
    # an id as the reports and the refusal's own example spell it, brackets and all, matches itself
    given = matcher(["public/test_scaling.py::test_head_dim[768-12]"])
    assert given("public/test_scaling.py::test_head_dim[768-12]")
    assert not given("public/test_scaling.py::test_head_dim[7]") and not given("public/test_scaling.py::test_head_dim[64-1]")


def test_only_the_tests_durations_may_differ_for_a_report_to_stay_as_it_was():
    again = copy.deepcopy(REPORT)
    for t in again["tests"]:
        t["duration_s"] *= 3
    assert _same_results(REPORT, again)
    assert _same_results(REPORT, {**REPORT, "tests": list(REPORT["tests"])})  # the very same test dicts

    moved = copy.deepcopy(again)
    moved["tests"][1].update(status="passed", score=1.0)
    assert not _same_results(REPORT, moved)
    rescored = {**copy.deepcopy(REPORT), "score": 4.0}
    assert not _same_results(REPORT, rescored)
    fewer = {**copy.deepcopy(REPORT), "tests": copy.deepcopy(REPORT["tests"][:2])}
    assert not _same_results(REPORT, fewer)
    noted = copy.deepcopy(REPORT)
    noted["tests"][0]["feedback"] = {"en": "now with feedback"}
    assert not _same_results(REPORT, noted)
    extra = {**copy.deepcopy(REPORT), "adjustment": {"points": 1}}
    assert not _same_results(REPORT, extra)
