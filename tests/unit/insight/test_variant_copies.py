"""Tests for grader/insight/variant_copies.py: answers that fit another student's variant, not their own."""

from __future__ import annotations

import math

from grader.insight.variant_copies import numeric_answers, variant_copies
from grader.report.model import GradeReport
from grader.spec.rubric.load import load_rubric
from grader.spec.variants import Variant

from tests.helpers import ROOT

CH7 = load_rubric(ROOT / "rubrics" / "chapter07.yaml")
A = Variant({"d_model": 512, "n_heads": 8, "dims": (8, 32, 128), "seq_len": 6, "temperature": 2.0, "d_k": 64})
B = Variant({"d_model": 384, "n_heads": 4, "dims": (8, 32, 128), "seq_len": 6, "temperature": 2.0, "d_k": 96})
C = Variant({"d_model": 768, "n_heads": 4, "dims": (8, 32, 128), "seq_len": 5, "temperature": 0.5, "d_k": 192})


def report(name: str, variant: Variant) -> GradeReport:
    return GradeReport(assignment="chapter07", submission=name, score=0, max_score=1, tests=[], parts=[], mistakes=[],
                       sandbox={}, errors=[], seed=0, graded_at="", variant=variant.as_data())


def answers(d_k: float, divisor: float) -> str:
    return f"head-dim-4096-32:\n  answer: {d_k}\ndivisor-4096-32: {{answer: {divisor}}}\ngpt2-small-d-k: b\n"


def test_answers_worked_out_for_another_students_variant_name_both_and_the_values() -> None:
    entries = [("alice", report("alice", A), answers(64, 8)),            # her own: honest
               ("bob", report("bob", B), answers(64, 8.0)),              # alice's numbers, not his own (96)
               ("carol", report("carol", C), answers(192, 13.86))]       # her own
    [copy] = variant_copies(CH7, entries)
    assert (copy.copier, copy.source, copy.copier_variant, copy.source_variant) == ("bob", "alice", B.id, A.id)
    assert copy.values["head-dim-4096-32"] == (64.0, 64.0, 96.0)
    assert math.isclose(copy.values["divisor-4096-32"][2], math.sqrt(96))
    words = copy.evidence()
    assert "answers fit the variant of alice" in words and "not bob's own" in words and "alice's: 64" in words


def test_honest_and_merely_wrong_answers_are_never_flagged() -> None:
    entries = [("alice", report("alice", A), answers(64, 8)),
               ("bob", report("bob", B), answers(96, 9.8)),              # his own
               ("dave", report("dave", B), answers(64, 9.8)),            # one wrong answer that is alice's d_k: no
               ("erin", report("erin", C), answers(192, math.sqrt(768))),  # √d_model: a mistake, not a copy
               ("frank", report("frank", C), "head-dim-4096-32: 64\n")]   # one answer only: too little
    assert variant_copies(CH7, entries) == []


def test_numeric_answers_read_data_only() -> None:
    assert numeric_answers("a: {answer: '１２８'}\nb: 2.5\nc: {answer: b}\nd: !!python/object:os.system x\n") == {}
    assert numeric_answers("a: {answer: '１２８'}\nb: 2.5\nc: {answer: b}\n") == {"a": 128.0, "b": 2.5}
