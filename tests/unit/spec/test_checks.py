"""The checks a rubric's values pass (grader/spec/rubric/checks.py): each returns the value as the
rubric needs it, or an error that names the file, the key path and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.errors import RubricError
from grader.spec.rubric.checks import Reader, describe, join

READER = Reader("rubrics/r.yaml", Path("rubrics").absolute())


def test_a_number_that_is_no_number_names_the_digits_meant() -> None:
    assert READER.number(3, "points.default", low=0, low_open=True, example=1) == 3.0
    with pytest.raises(RubricError) as bad:
        READER.number("10pt", "points.default", low=0, low_open=True, example=1)
    said = str(bad.value)
    assert "rubrics/r.yaml" in said and "points.default" in said and "write default: 10" in said


def test_an_unknown_key_is_answered_with_the_nearest_one() -> None:
    with pytest.raises(RubricError, match="did you mean 'points'"):
        READER.mapping({"pionts": 1}, "parts[0]", ("id", "points"), "id: scaling")
    with pytest.raises(RubricError, match="required key is missing"):
        READER.require({}, "id", "parts[0]", "id: scaling")


def test_choices_booleans_and_strings_take_only_what_they_say() -> None:
    assert READER.choice("full", "report.hidden_tests", ("full", "none")) == "full"
    with pytest.raises(RubricError, match="did you mean 'none'"):
        READER.choice("nnoe", "report.hidden_tests", ("full", "none"))
    assert READER.boolean(False, "report.fail_below_pass_mark") is False
    with pytest.raises(RubricError, match="true or false"):
        READER.boolean("no", "report.fail_below_pass_mark")
    with pytest.raises(RubricError, match="non-empty string"):
        READER.string("  ", "assignment", "chapter07")
    assert join("parts[0]", "file") == "parts[0].file" and "a str" in describe("10s")
