"""Golden reports: the whole YAML report of a few submissions, at a fixed seed.

Run ``pytest tests/journeys/test_golden.py --update-goldens`` after an intended change to rewrite them;
on a mismatch the actual report is saved beside the golden as ``<name>.actual.yaml``.
"""

from __future__ import annotations

import pytest
import yaml

from grader.grading.runner import grade
from grader.ingest.submission.load import load_submission


SEED = 1234
CASES = {
    "sqrt-d-model": "examples/submissions/sqrt-d-model",
    "divide-by-dk": "examples/submissions/divide-by-dk",
    "broken-softmax": "tests/fixtures/submissions/broken-softmax",
    "untouched-stub": "examples/submissions/untouched-stub",
}
# Fields that change from run to run or machine to machine, not with the grading.
VOLATILE = ("graded_at", "duration_s", "rubric_hash", "sandbox", "output")


def normalise(report: dict) -> dict:
    data = {k: v for k, v in report.items() if k not in VOLATILE}
    data["tests"] = [{k: v for k, v in t.items() if k != "duration_s"} for t in report["tests"]]
    return data


@pytest.fixture(scope="module")
def graded(root, rubric):
    subs = [load_submission(root / path) for path in CASES.values()]
    return dict(zip(CASES, grade(rubric, subs, seed=SEED)))


@pytest.mark.parametrize("name", list(CASES))
def test_report_matches_golden(graded, root, name, update_goldens):
    golden = root / "tests" / "golden" / f"{name}.yaml"
    actual = yaml.safe_dump(normalise(graded[name].to_dict()), allow_unicode=True, sort_keys=False, width=100)
    side = golden.with_suffix(".actual.yaml")
    if update_goldens or not golden.exists():
        golden.write_text(actual, encoding="utf-8")
        side.unlink(missing_ok=True)
        if not update_goldens:
            pytest.fail(f"{golden.name} did not exist; it has been written — review and commit it")
        return
    expected = golden.read_text(encoding="utf-8")
    if expected != actual:
        side.write_text(actual, encoding="utf-8")
    else:
        side.unlink(missing_ok=True)
    assert expected == actual, f"report differs from {golden.name}; see {side.name}"
