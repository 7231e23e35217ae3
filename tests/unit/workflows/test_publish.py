"""``grader publish`` in process (grader/workflows/publish.py): the publication recorded, then every
student view written again, showing the hidden tests' details the rubric kept back until then."""

from __future__ import annotations

import dataclasses
import shutil
from datetime import datetime, timezone

import pytest

from grader.errors import UsageError
from grader.report.outdir import read_published
from grader.spec.rubric.load import load_rubric
from grader.workflows.publish import publish

from tests.helpers import GOLDEN, RUBRIC


def test_publish_records_who_and_when_and_writes_every_view_again(tmp_path) -> None:
    base = load_rubric(RUBRIC)
    rubric = dataclasses.replace(base, report=dataclasses.replace(base.report, formats=("yaml", "json", "markdown")))
    out = tmp_path / "out"
    (out / "reports").mkdir(parents=True)
    for name in ("divide-by-dk", "sqrt-d-model"):
        shutil.copyfile(GOLDEN / f"{name}.yaml", out / "reports" / f"{name}.yaml")
    at = datetime(2026, 12, 24, 9, 0, tzinfo=timezone.utc)
    written = publish(out, rubric, by="tanaka", lang="en", at=at)
    record = read_published(out)
    assert record is not None and record["by"] == "tanaka" and datetime.fromisoformat(record["at"]) == at
    assert {p.name for p in written} == {f"{n}.{s}" for n in ("divide-by-dk", "sqrt-d-model") for s in ("json", "md")}
    assert all(p.is_file() for p in written)


def test_publish_of_a_folder_without_a_batch_is_a_usage_error(tmp_path) -> None:
    with pytest.raises(UsageError):
        publish(tmp_path, load_rubric(RUBRIC))
    assert read_published(tmp_path) is None
