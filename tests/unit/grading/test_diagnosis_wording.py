"""Diagnosis says what happened: a function that raised is not said to have returned wrong values,
and running out of memory names the limit."""

from __future__ import annotations

import shutil

import pytest

from grader.grading.runner import grade
from grader.ingest.submission.load import load_submission

from tests.helpers import ROOT


CORRECT = ROOT / "examples" / "submissions" / "correct"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory, rubric):
    folder = tmp_path_factory.mktemp("wording") / "taro"
    shutil.copytree(CORRECT, folder)
    scaling = (folder / "scaling.py").read_text(encoding="utf-8")
    good = "    return head_dim(d_model, n_heads) ** 0.5\n"
    assert good in scaling
    (folder / "scaling.py").write_text(scaling.replace(good, "    return head_dimension(d_model, n_heads) ** 0.5\n"),
                                       encoding="utf-8")
    softmax = (folder / "softmax.py").read_text(encoding="utf-8")
    good = "    return e / e.sum(dim=dim, keepdim=True)\n"
    assert good in softmax
    # a table far beyond any memory limit: Python raises MemoryError
    (folder / "softmax.py").write_text(softmax.replace(good, "    table = bytearray(1 << 44)\n" + good),
                                       encoding="utf-8")
    [graded] = grade(rubric, [load_submission(folder)], suites=("public",), seed=7)
    return graded


def test_a_function_that_raised_is_said_to_have_raised(report) -> None:
    [m] = [m for m in report.mistakes if m.part == "scaling" and m.id == "unrecognised"]
    assert "raised NameError" in m.message["en"] and "head_dimension" in m.message["en"]
    assert "returned values" not in m.message["en"]
    assert "NameError を送出しました" in m.message["ja"]


def test_memory_error_names_the_limit(report, rubric) -> None:
    limit = rubric.limits.memory_mb
    [m] = [m for m in report.mistakes if m.part == "softmax" and m.id == "unrecognised"]
    assert f"ran out of memory (limit {limit} MiB)" in m.message["en"]
    assert f"上限 {limit} MiB" in m.message["ja"]
    memory = [t for t in report.tests if t.part == "softmax" and "MemoryError" in t.feedback.get("en", "")]
    assert memory and all(f"limit {limit} MiB" in t.feedback["en"] for t in memory)
