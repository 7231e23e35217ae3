"""Plot data is bounded where it is kept: whatever a student's functions return.

The assignments' ``plot_data`` hooks call the student's functions through the sandbox session
and keep what comes back for the HTML report's figures. A function may return any shape and
size the wire carries (up to 64 MiB a reply): nested lists, dicts, strings, arrays of millions
of numbers. :func:`grader.grading.runner.plot_data` bounds what it keeps (:func:`grader.sinks.bound`),
so a report, in ``grade`` and ``batch`` alike, stays small; a note says what was left out.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader import sinks
from grader.report import render
from grader.spec.rubric.load import load_rubric
from grader.grading.runner import plot_data
from tests.helpers import ROOT
from tests.unit.report.test_writers import make_report


RUBRICS = {name: load_rubric(ROOT / "rubrics" / f"{name}.yaml") for name in ("chapter07", "chapter08")}
#: a report's plot data, as JSON, never exceeds this (sinks.PLOT_BYTES plus the containers' keys)
REPORT_PLOTS_MAX = sinks.PLOT_BYTES + 64 * 1024

_scalar = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
                    st.text(max_size=40), st.integers(1, 200_000).map(lambda n: "x" * n))
_nested = st.recursive(_scalar, lambda inner: st.one_of(
    st.lists(inner, max_size=30), st.dictionaries(st.text(max_size=8), inner, max_size=10)), max_leaves=60)


@st.composite
def _array(draw: Any) -> np.ndarray:
    """An array of any rank and dtype, up to 2 million values (16 MB): as the wire hands them over."""
    rank = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(0, 1500), min_size=rank, max_size=rank)))
    if math.prod(shape) > 2_000_000:
        shape = (2_000_000,)
    dtype = draw(st.sampled_from(["float32", "float64", "int64", "bool"]))
    return np.full(shape, draw(st.floats(-1e6, 1e6)), dtype=dtype) if dtype != "bool" else np.ones(shape, bool)


@st.composite
def _big_list(draw: Any) -> list[Any]:
    """A Python list as long as a reply may be (a million floats), or a list of long lists."""
    n = draw(st.integers(0, 1_000_000))
    if draw(st.booleans()):
        return [0.5] * n
    return [[1.0] * draw(st.integers(0, 3000)) for _ in range(draw(st.integers(0, 400)))]


RETURNS = st.one_of(_nested, _array(), _big_list(), st.just(RuntimeError("raised")))


class _Session:
    """Stands in for a SubmissionSession: each call returns the next drawn value (or raises it)."""

    def __init__(self, values: list[Any]) -> None:
        self.values = values
        self.calls = 0

    def call(self, part: str, func: str, args: list[Any], kwargs: dict[str, Any], **_: Any) -> Any:
        value = self.values[self.calls % len(self.values)]
        self.calls += 1
        if isinstance(value, BaseException):
            raise value
        return value


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                                 HealthCheck.large_base_example])
@given(chapter=st.sampled_from(sorted(RUBRICS)), values=st.lists(RETURNS, min_size=1, max_size=4))
def test_any_return_through_the_plot_hooks_keeps_the_report_small(chapter: str, values: list[Any]) -> None:
    session = _Session(values)
    plots, notes = plot_data(RUBRICS[chapter], session, None)
    assert session.calls > 0  # the hook did call the student's functions
    kept = json.dumps(plots)
    assert len(kept.encode()) <= REPORT_PLOTS_MAX
    report = make_report(plots=plots, notes=notes)
    for fmt in ("json", "yaml"):
        text = render(report, fmt, rubric=RUBRICS[chapter], audience="instructor")
        assert len(text.encode()) <= REPORT_PLOTS_MAX + 64 * 1024, fmt
    for note in notes:
        assert note.startswith("plot data left out (over the size limit): ")


def test_bound_leaves_out_whole_parts_and_names_them() -> None:
    kept, left_out = sinks.bound({"fine": [1.0, 2.0], "long": [0.0] * 5000, "deep": [[[[[[[1]]]]]]],
                                  "object": object(), "text": "y" * 5000})
    assert kept["fine"] == [1.0, 2.0] and kept["long"] is None and kept["object"] is None
    assert kept["deep"][0][0][0][0][0] is None  # below the depth limit
    assert len(kept["text"].encode()) <= 1024 and kept["text"].endswith("bytes]")
    assert set(left_out) == {"long", "deep[0][0][0][0][0]", "object"}
    many, left = sinks.bound({"s": [[0.25] * 1000 for _ in range(100)]})
    assert sum(x is not None for x in many["s"]) == sinks.PLOT_SCALARS // 1000 and len(left) == 100 - 16


