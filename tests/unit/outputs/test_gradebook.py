"""gradebook.csv's cells a report decides (grader/outputs/gradebook.py): lateness and the columns
that add up to the final score."""

from __future__ import annotations

import pytest
import yaml

from grader.outputs.gradebook import gradebook_rows, report_cells
from grader.ingest.discovery import Found
from grader.report.model import GradeReport
from grader.spec.rubric.load import load_rubric

from tests.helpers import GOLDEN, RUBRIC


@pytest.fixture
def rubric():
    return load_rubric(RUBRIC)


def _report(**changes) -> GradeReport:
    data = yaml.safe_load((GOLDEN / "divide-by-dk.yaml").read_text(encoding="utf-8"))
    data.update(changes)
    return GradeReport.from_dict(data)


TIMING = {"submitted": "2026-12-02T10:00:00+09:00", "due": "2026-12-01T23:59:00+09:00", "extension": ""}


@pytest.mark.parametrize(("student", "late", "wanted"), [
    # the policy took points off: late, whatever the LMS's flag said
    ({"id": "1", "late": False, "timing": TIMING}, {"score_before": 72.0, "score": 59.6, "penalty": 12.4, "days": 1},
     {"late": "yes", "late_penalty": 12.4, "extension": ""}),
    # measured from the times with an extension: on time, the extension shown, nothing taken off
    ({"id": "1", "late": True, "timing": {**TIMING, "due": "2026-12-02T23:59:00+09:00", "extension": "illness"}},
     None, {"late": "no", "late_penalty": "", "extension": "illness"}),
    # no time known, an extension: the LMS's flag set aside
    ({"id": "1", "late": True, "timing": {"submitted": "", "due": "2026-12-02T23:59:00+09:00", "extension": "flu"}},
     None, {"late": "no", "late_penalty": "", "extension": "flu"}),
    # the LMS's flag under a policy that takes nothing: late, and nothing taken
    ({"id": "1", "late": True}, {"score_before": 72.0, "score": 72.0, "penalty": 0.0},
     {"late": "yes", "late_penalty": "", "extension": ""}),
    # no policy, no times: the LMS's flag
    ({"id": "1", "late": True}, None, {"late": "yes", "late_penalty": "", "extension": ""}),
    ({"id": "1", "late": False}, None, {"late": "no", "late_penalty": "", "extension": ""}),
])
def test_late_is_yes_where_a_penalty_was_taken_and_an_extension_shows_where_it_applies(rubric, student, late, wanted):
    changes = {"student": student}
    if late:
        changes.update(late=late, score=late["score"])
    cells = report_cells(_report(**changes), rubric)
    assert {k: cells[k] for k in wanted} == wanted


def test_automatic_minus_the_penalty_plus_the_adjustment_is_the_final_score(rubric):
    """The automatic score is the tests' (before the late policy), so the penalty is not counted twice."""
    late = {"score_before": 72.0, "score": 59.6, "penalty": 12.4, "days": 1}
    adjustment = {"automatic_score": 59.6, "automatic_passed": False, "score": 65.6, "delta": 6.0,
                  "entries": [{"n": 1, "part": None, "points": 6.0, "set": None, "reason": "r", "by": "t", "at": "",
                               "against": 72.0, "now": 70.0, "status": "review", "delta": 6.0}]}
    report = _report(student={"id": "1", "late": False, "timing": TIMING}, late=late, score=65.6,
                     adjustment=adjustment)
    [row] = gradebook_rows([(Found(None, "1", "dk"), report, [])], rubric)
    auto, penalty, delta, final = (row.value(c) for c in ("automatic_score", "late_penalty", "adjustment", "score"))
    assert (auto, penalty, delta, final) == (72.0, 12.4, 6.0, 65.6)
    assert auto - penalty + delta == pytest.approx(final)
    assert row.value("late") == "yes" and row.value("needs_review") == "#1"
