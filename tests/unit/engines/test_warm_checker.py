"""What the warm checker (grader/engines/warm_checker.py) does in its trusted process: count the
tests a check does not run, and render the student's views as each check asks."""

from __future__ import annotations

from grader.engines import warm_checker
from grader.spec.rubric.load import load_rubric

from tests.helpers import RUBRIC
from tests.unit.report.test_writers import make_report


def test_the_hidden_tests_are_counted_per_part_never_run() -> None:
    rubric = load_rubric(RUBRIC)
    counts = warm_checker.hidden_counts(rubric, ("public",))
    assert counts is not None and set(counts) <= {p.id for p in rubric.parts} and sum(counts.values()) > 0
    assert warm_checker.hidden_counts(rubric, ("public", "hidden")) is None  # nothing else waits


def test_the_views_are_those_asked_for_and_nothing_else() -> None:
    rubric = load_rubric(RUBRIC)
    report = make_report()
    assert warm_checker.render_views(report, rubric, {"formats": []}) == {}
    assert set(warm_checker.render_views(report, rubric, {"formats": ["text", "pdf"], "lang": "en"})) == {"text"}
    both = warm_checker.render_views(report, rubric, {"lang": 7, "cells": "x"})  # wrong types: ignored
    assert set(both) == {"html", "text"}
