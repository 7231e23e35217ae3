"""How the batch parent reads its workers' replies: whole messages, however they are split,
in one pass over the bytes; a message over ``sinks.REPORT_MAX`` is dropped, not buffered."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import grader.engines.local_pool as batch


def _reader(tmp_path: Path):
    to_r, to_w = os.pipe()
    from_r, from_w = os.pipe()
    proc = batch.WorkerProcess(None, tmp_path / "log", adopt=(to_w, from_r))
    os.close(to_r)
    return proc, from_w


def _drain(proc, fd_w, payload: bytes):
    writer = threading.Thread(target=lambda: (os.write(fd_w, payload) if len(payload) < 4096
                                              else _write_all(fd_w, payload), os.close(fd_w)))
    writer.start()
    got = []
    while (msgs := proc.read_lines()) is not None:
        got += msgs
    writer.join()
    return got


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view[:65536]):]


def test_long_and_split_messages_arrive_whole(tmp_path):
    proc, w = _reader(tmp_path)
    big = {"op": "report", "index": 1, "report": {"output": "x" * 3_000_000}}
    payload = (json.dumps({"op": "ready"}) + "\n" + json.dumps(big) + "\n" + json.dumps({"op": "chunk_done"})
               + "\n").encode()
    got = _drain(proc, w, payload)
    assert [m["op"] for m in got] == ["ready", "report", "chunk_done"]
    assert got[1] == big
    proc.stop()


def test_a_message_over_the_cap_is_dropped_and_the_next_one_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(batch, "REPORT_MAX", 200_000)
    proc, w = _reader(tmp_path)
    payload = (json.dumps({"op": "report", "index": 1, "report": {"output": "y" * 1_000_000}}) + "\n"
               + json.dumps({"op": "report", "index": 2, "report": {}}) + "\n").encode()
    got = _drain(proc, w, payload)
    assert got == [{"op": "report", "index": 2, "report": {}}]
    assert sum(len(p) for p in proc.pending) <= 200_000 + 65536
    proc.stop()


def test_a_line_that_is_not_json_is_skipped(tmp_path):
    proc, w = _reader(tmp_path)
    got = _drain(proc, w, b'{"op": "ready"}\n{not json\n{"op": "chunk_done"}\n')
    assert [m["op"] for m in got] == ["ready", "chunk_done"]
    proc.stop()


def test_the_progress_bar_counts_the_class_not_the_corpus_graded_beside_it():
    """Reports of the validate corpus (graded beside the class for the item analysis) neither
    advance the bar nor enter its counts; the class's reports do."""
    from rich.console import Console

    from grader.engines.local_pool import Tally
    from grader.report.model import GradeReport

    def report(score: float) -> GradeReport:
        return GradeReport.from_dict({"assignment": "a", "submission": "s", "score": score, "max_score": 10, "passed": score >= 5,
                                      "tests": [], "errors": []})

    corpus = report(0)
    aside = {id(corpus)}
    tally = Tally(2, Console(file=open(os.devnull, "w")), False, aside=aside)
    tally.done(corpus)
    assert tally.bar.tasks[0].completed == 0 and tally.counts["below pass"] == 0
    tally.done(report(1))
    tally.done(report(9))
    assert tally.bar.tasks[0].completed == 2 and tally.counts["below pass"] == 1
