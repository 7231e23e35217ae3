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


# --------------------------------------------------------------------------- experiment results

import torch  # noqa: E402
import yaml  # noqa: E402

from grader.insight.variant_copies import experiment_table  # noqa: E402

POOLS = [(4, 16, 64), (8, 32, 128), (16, 64, 256), (2, 32, 512)]


def with_dims(variant: Variant, dims: tuple[int, ...]) -> Variant:
    return Variant({**variant.values, "dims": dims})


def measured(dims: tuple[int, ...], n: int, seed: int) -> list[dict[str, float]]:
    """The variance table as an honest run measures it: n dot products of N(0, 1) vectors per row."""
    gen = torch.Generator().manual_seed(seed)
    rows = []
    for d in dims:
        dots = (torch.randn(n, d, generator=gen, dtype=torch.float64) * torch.randn(n, d, generator=gen, dtype=torch.float64)).sum(1)
        var = float(dots.var())
        rows.append({"d_k": d, "variance": var, "std": math.sqrt(var), "sqrt_d_k": math.sqrt(d),
                     "scaled_variance": float((dots / math.sqrt(d)).var())})
    return rows


def quiz_with_table(variant: Variant, table: object) -> str:
    d_k = float(str(variant.values["d_k"]))
    return yaml.safe_dump({"head-dim-4096-32": {"answer": d_k}, "divisor-4096-32": {"answer": round(math.sqrt(d_k), 3)},
                           "variance-table": table}, sort_keys=False)


def test_a_copied_experiment_table_names_both_students_and_the_values_that_match() -> None:
    alice, bob, carol = with_dims(A, POOLS[0]), with_dims(B, POOLS[1]), with_dims(C, POOLS[2])
    alices = measured(POOLS[0], 10000, 7)
    entries = [("alice", report("alice", alice), quiz_with_table(alice, alices)),
               ("bob", report("bob", bob), quiz_with_table(bob, alices)),  # his own quiz answers, alice's table
               ("carol", report("carol", carol), quiz_with_table(carol, measured(POOLS[2], 10000, 9)))]
    [copy] = variant_copies(CH7, entries)
    assert (copy.kind, copy.copier, copy.source, copy.copier_variant, copy.source_variant) == (
        "experiment", "bob", "alice", bob.id, alice.id)
    assert copy.same_as_source
    assert [(o, m) for _, o, m in copy.values.values()] == [(4.0, 8.0), (16.0, 32.0), (64.0, 128.0)]
    assert [a for a, _, _ in copy.values.values()] == [row["variance"] for row in alices]
    en, ja = copy.evidence().split(" / ", 1)
    assert "experiment results fit the variant of alice" in en and "not bob's own" in en
    assert "d_k = 4, 16, 64 (alice's dimensions; own: 8, 32, 128)" in en and "the very same table as alice's" in en
    assert "alice の変種" in ja and "本人の次元: 8, 32, 128" in ja and "まったく同じ" in ja


def test_a_retyped_table_with_its_d_k_is_named_and_one_without_only_when_its_numbers_are_the_same() -> None:
    alice, dave = with_dims(A, POOLS[3]), with_dims(B, POOLS[0])
    rows = measured(POOLS[3], 10000, 3)
    retyped = {r["d_k"]: round(r["variance"], 1) for r in rows}  # rounded, as {d_k: variance}
    entries = [("alice", report("alice", alice), quiz_with_table(alice, rows)),
               ("dave", report("dave", dave), quiz_with_table(dave, retyped)),
               ("hana", report("hana", dave), quiz_with_table(dave, {"answer": [r["variance"] for r in rows]})),
               ("ian", report("ian", dave), quiz_with_table(dave, list(retyped.values())))]  # numbers alone, retyped
    copies = {c.copier: c for c in variant_copies(CH7, entries)}
    assert sorted(copies) == ["dave", "hana"]
    assert (copies["dave"].source, copies["dave"].same_as_source) == ("alice", False)
    assert [a for a, _, _ in copies["dave"].values.values()] == list(retyped.values())
    assert (copies["hana"].source, copies["hana"].same_as_source) == ("alice", True)


def test_honest_noisy_tables_are_never_flagged_whatever_their_seed_samples_or_form() -> None:
    """Forty honest students over every pool of dimensions, measured with 1000 or 10000 samples a
    row (at d_k = 2 and n = 1000 the relative standard error is 7 %) and handed in as rows, as
    {d_k: variance} or as the bare variances: none fits another's experiment and not their own."""
    entries = []
    for i in range(40):
        dims = POOLS[i % 4]
        v = with_dims([A, B, C][i % 3], dims)
        rows = measured(dims, 1000 if i % 2 else 10000, 100 + i)
        table: object = [rows, {r["d_k"]: r["variance"] for r in rows}, [r["variance"] for r in rows]][i % 3]
        entries.append((f"s{i}", report(f"s{i}", v), quiz_with_table(v, table)))
    assert variant_copies(CH7, entries) == []


def test_a_wrong_experiment_fits_no_variant_and_is_no_evidence() -> None:
    alice, erin = with_dims(A, POOLS[1]), with_dims(B, POOLS[0])
    stds = [{"d_k": d, "variance": math.sqrt(d)} for d in POOLS[0]]  # her own d_k, the std recorded
    # q.q instead of q.k measures about 2 d_k: her 4, 16, 64 come out near alice's 8, 32, 128
    doubled = [r["variance"] * 2.0 for r in measured(POOLS[0], 10000, 5)]
    entries = [("alice", report("alice", alice), quiz_with_table(alice, measured(POOLS[1], 10000, 1))),
               ("erin", report("erin", erin), quiz_with_table(erin, stds)),
               ("frank", report("frank", erin), quiz_with_table(erin, dict(zip(POOLS[0], doubled)))),
               ("gina", report("gina", erin), quiz_with_table(erin, doubled)),  # the numbers alone
               ("hugo", report("hugo", erin), quiz_with_table(erin, [8.0]))]  # one row: too little
    assert variant_copies(CH7, entries) == []


def test_experiment_table_reads_data_only_and_refuses_what_is_not_a_table() -> None:
    assert experiment_table("variance-table: [{d_k: '８', variance: 7.9}, {d_k: 32, variance: 31}]\n") == [(8.0, 7.9), (32.0, 31.0)]
    assert experiment_table("variance-table: {answer: [7.9, 31]}\n") == [(None, 7.9), (None, 31.0)]
    assert experiment_table("variance-table: {8: 7.9, 32: .nan}\n") is None
    assert experiment_table("variance-table: [{d_k: 8}, {d_k: 32, variance: 31}]\n") is None
    assert experiment_table("variance-table: !!python/object:os.system x\n") is None
    assert experiment_table("variance-table: [7.9]\n") is None
    assert experiment_table("- 1\n- 2\n") is None and experiment_table(None) is None
