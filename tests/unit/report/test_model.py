"""The report model (grader/report/model.py): what a class's reports repeat is held once."""

from __future__ import annotations

import gc
import tracemalloc

from grader.report.model import CaseOutcome, GradeReport


def _report(name: str, feedback: str) -> dict:
    tests = [{"id": f"hidden/test_scaling.py::test_head_dim[{k}]", "part": "scaling", "status": "failed",
              "max_score": 1.0, "score": 0.0, "visibility": "hidden", "suite": "hidden",
              "title": {"en": f"head_dim splits d_model evenly, case {k}", "ja": f"head_dim が d_model を等分する（{k}）"},
              "feedback": {"en": feedback, "ja": feedback}, "duration_s": 0.0} for k in range(100)]
    return {"assignment": "chapter07", "submission": name, "score": 0.0, "max_score": 100.0, "tests": tests,
            "parts": [], "mistakes": [], "sandbox": {}, "errors": [], "seed": 1, "graded_at": ""}


def test_reports_read_in_one_process_share_their_tests_titles_and_stay_whole():
    """Two reports of one class hold one copy of each test's title (and id); each report still
    writes its own dict, equal to what was read, and a score of -0.0 stays -0.0."""
    a, b = GradeReport.from_dict(_report("a", "returned 3")), GradeReport.from_dict(_report("b", "returned 4"))
    assert all(x.title is y.title and x.id is y.id for x, y in zip(a.tests, b.tests))
    assert a.to_dict() == GradeReport.from_dict(a.to_dict()).to_dict()
    assert a.to_dict()["tests"][0] == _report("a", "returned 3")["tests"][0]
    assert a.to_dict()["tests"][0]["title"] is not a.tests[0].title  # a copy: changing it changes no other report
    minus = CaseOutcome.from_dict({"id": "t", "part": "p", "status": "passed", "max_score": 1.0, "score": -0.0})
    assert str(minus.score) == "-0.0"


def test_a_class_of_reports_costs_little_more_than_its_own_words():
    """Holding 200 reports of 100 tests each costs under 45 KiB a report (the titles, ids and
    points are shared; each keeps its own feedback): it was about 90 KiB here (137 KiB for a
    chapter-7 report, 46 KiB now), and a batch holds every report of the class until its summary."""
    GradeReport.from_dict(_report("warm", "x"))
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        held = [GradeReport.from_dict(_report(f"s{k}", f"returned {k}")) for k in range(200)]
        gc.collect()
        per = (tracemalloc.get_traced_memory()[0] - before) / len(held)
    finally:
        tracemalloc.stop()
    assert per < 45 * 1024, per
