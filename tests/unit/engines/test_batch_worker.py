"""One trusted grading process of a batch (grader/engines/batch_worker.py), as its parent reads it:
JSON lines only, a fault said in one ``fatal`` line."""

from __future__ import annotations

import io
import json

import pytest

from grader.engines import batch_worker
from grader.sandbox.worker import Worker

from tests.helpers import RUBRIC


def test_a_sandbox_that_does_not_start_is_one_fatal_line_to_the_parent(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: Worker, wait: bool = True) -> None:
        raise OSError("no bwrap here")

    monkeypatch.setattr(Worker, "start", refuse)
    out = io.StringIO()
    assert batch_worker._serve({"rubric": str(RUBRIC), "level": "namespaces"}, out, io.StringIO(), []) == 1
    [line] = out.getvalue().splitlines()
    message = json.loads(line)
    assert message["op"] == "fatal" and "no bwrap here" in message["message"]


def test_a_message_is_one_line_of_utf8_whatever_it_holds() -> None:
    out = io.StringIO()
    batch_worker._send(out, {"op": "report", "text": "a\nb \udcff 日本"})
    [line] = out.getvalue().splitlines()
    line.encode("utf-8")  # a lone surrogate cannot reach the parent's decoder
    assert json.loads(line)["text"].startswith("a\nb ") and "日本" in line
