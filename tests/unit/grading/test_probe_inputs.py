"""Chapter 7's probes (its plug-in's hooks) where the plausible wrong formulas differ from the right one and each other.

A wrong formula that agrees with the right one at every probe input goes unrecognised; these
tests compute each formula at the probe inputs themselves (not through a submission), so a
later change of the inputs cannot quietly bring two of them together again. The mutants
prove the same from the other side: each is named with its id and the numbers observed.
"""

from __future__ import annotations

import itertools
import math

import pytest
import torch

from grader.grading import diagnosis as engine
from grader.spec.assignment import assignment_of
from grader.spec.rubric.load import load_rubric
from grader.grading.runner import reference_for
from grader.prepare.validate import load_mutants

from tests.helpers import ROOT


REFERENCE = ROOT / "solutions" / "chapter07"
CH7 = load_rubric(ROOT / "rubrics" / "chapter07.yaml")
#: chapter 7's probes (its plug-in's hooks module)
diagnosis = assignment_of(CH7).hooks.module

#: divisors a student may use for √d_k: (what it is, value at d_k)
DIVISORS = {
    "sqrt": math.sqrt,
    "isqrt": lambda d: float(math.isqrt(d)),
    "round": lambda d: float(round(math.sqrt(d))),
    "d_k": float,
    "one": lambda d: 1.0,
    "reciprocal": lambda d: 1 / math.sqrt(d),
}


def _apart(a: float, b: float, rel: float = 2e-3) -> bool:
    return abs(a - b) > rel * max(abs(a), abs(b))


def test_the_divisor_probes_separate_every_divisor_from_the_right_one():
    """at some probed d_k every wrong divisor differs from √d_k; the rounded ones at a non-square"""
    for name, f in DIVISORS.items():
        if name == "sqrt":
            continue
        assert any(_apart(f(d), math.sqrt(d)) for d in diagnosis._DIVISOR_D_K), name
    non_squares = [d for d in diagnosis._DIVISOR_D_K if math.isqrt(d) ** 2 != d]
    assert set(non_squares) >= {48, 128, 200}
    assert all(math.isqrt(d) == d ** 0.5 for d in diagnosis._DIVISOR_D_K[:2])  # the chapter's 64 and 16
    # 48 tells math.isqrt (6) from round (7) as well as from √48 = 6.93.
    assert len({math.isqrt(48), round(math.sqrt(48)), math.sqrt(48)}) == 3
    assert [d for _, _, _, d in diagnosis._AS_CONFIGS] == list(diagnosis._DIVISOR_D_K)


def test_scaling_factor_probes_have_non_square_head_sizes():
    """the scaling_factor probes include d_k = 48, 128 and 200, from several d_model / n_heads pairs"""
    head_sizes = {d // h for d, h in diagnosis._SF_CASES}
    assert head_sizes >= {64, 48, 128, 200}
    assert len({h for _, h in diagnosis._SF_CASES}) >= 3


@pytest.mark.parametrize("config", diagnosis._MH_CONFIGS, ids=lambda c: "-".join(map(str, c)))
def test_head_layouts_differ_at_every_multihead_probe(config):
    """GPT-2's split and the three wrong ones give four different score tensors, none a multiple of another"""
    b, s, d, h = config
    q, k = diagnosis._randn(1, b, s, d), diagnosis._randn(2, b, s, d)
    layouts = ["gpt2", *(name for name, _ in diagnosis._WRONG_SPLITS)]
    assert "transpose-reshape" in layouts
    raw = {name: diagnosis._mh_raw(q, k, h, name) for name in layouts}
    for x, y in itertools.combinations(layouts, 2):
        assert diagnosis._ratio(raw[x], raw[y]) is None, (x, y)


def test_the_operator_mixups_differ_from_the_right_one_and_each_other():
    """each worded mix-up differs from diag(p) − p pᵀ and the other; no fit describes it"""
    p = diagnosis._JACOBIAN_P.double()
    right = torch.diag(p) - torch.outer(p, p)
    forms = diagnosis._operator_mixups(diagnosis._JACOBIAN_P)
    assert any("inner product" in shown["en"] for shown, _ in forms)
    values = [("right", right), *((shown["en"], v) for shown, v in forms)]
    for (a, x), (b, y) in itertools.combinations(values, 2):
        assert not torch.allclose(x, y, rtol=1e-3, atol=1e-4), (a, b)
    for _, value in forms:
        assert diagnosis._measured_form(value.numpy(), p.numpy()) is None


@pytest.mark.parametrize(("make", "shown"), [
    (lambda p: torch.diag(p), "p_i on the diagonal and 0 off it"),
    (lambda p: -torch.outer(p, p), "−p_i² on the diagonal and −p_i p_j off it"),
    (lambda p: torch.diag(p) + torch.outer(p, p), "p_i + p_i² on the diagonal and p_i p_j off it"),
    (lambda p: torch.diag(p - p * p), "p_i − p_i² on the diagonal and 0 off it"),
    (lambda p: 2 * (torch.diag(p) - torch.outer(p, p)), "2 p_i − 2 p_i² on the diagonal and −2 p_i p_j off it"),
])
def test_a_wrong_jacobian_is_described_from_its_numbers(make, shown):
    """the fit reads back what the matrix holds, whatever the form"""
    p = diagnosis._JACOBIAN_P.double()
    form = diagnosis._measured_form(make(p).numpy(), p.numpy())
    assert form is not None and form["en"] == f"a matrix with {shown}"


UNSTABLE = {
    "exp(x)": lambda x, dim: x,
    "exp(x - mean)": lambda x, dim: x - x.mean(dim=dim, keepdim=True),
    "exp(x - x[0])": lambda x, dim: x - x.narrow(dim, 0, 1),
    "exp(x - global max)": lambda x, dim: x - x.max(),
}


@pytest.mark.parametrize("shift", list(UNSTABLE), ids=list(UNSTABLE))
def test_large_softmax_probes_break_every_unstable_form(shift):
    """on the spread rows each unstable shift gives inf or nan in float32; the stable one does not"""
    for x, dim in ((diagnosis._SPREAD, -1), (diagnosis._SPREAD.T.contiguous(), 0)):
        e = torch.exp(UNSTABLE[shift](x, dim))
        assert not torch.isfinite(e / e.sum(dim=dim, keepdim=True)).all(), dim
        assert torch.isfinite(torch.softmax(x, dim=dim)).all()
    assert float(diagnosis._SPREAD.abs().max()) == 1e4


def test_the_nearly_constant_large_rows_miss_the_mean_shift():
    """why the spread rows exist: on _BIG's rows exp(x - mean) stays finite"""
    x = diagnosis._BIG
    e = torch.exp(x - x.mean(dim=-1, keepdim=True))
    assert torch.isfinite(e / e.sum(dim=-1, keepdim=True)).all()


# --------------------------------------------------------------------------- the new mutants


EXPECTED = {
    # mutant: (first function named, evidence that must be there)
    "wrong-divisor/isqrt-divisor": ("scale_scores", {"divisor": 6.0, "d_k": 48, "expected_divisor": 6.9282}),
    "jacobian-wrong/inner-product": ("softmax_jacobian", {"form": "inner product"}),
    "jacobian-wrong/off-diagonal-only": ("softmax_jacobian", {"form": "0 on the diagonal and −p_i p_j off it",
                                                              "diagonal_entry": 0.0}),
    "jacobian-wrong/autograd-at-logits": ("softmax_jacobian", {"variant": "measured", "expected_entry": -0.023307}),
    "softmax-not-normalized/one-plus-sum": ("softmax", {"sums": "0.6259"}),
    "head-split-order/transpose-then-reshape": ("multihead_attention_scores", {"layout": "transpose(1, 2)"}),
    "softmax-overflow/temperature-exp-directly": ("softmax_with_temperature", {"magnitude": 1e4}),
    "softmax-overflow/mean-subtracted": ("softmax", {"magnitude": 1e4}),
}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_new_mutants_are_named_with_the_numbers_observed(name):
    """each mutant is named by its contract id, against the function that is wrong, with its numbers"""
    from tests.unit.grading.test_diagnosis import InProcessSession, Run

    a = assignment_of(CH7)
    mutant = next(m for m in load_mutants(a.mutants, tuple(a.part_files.values())) if m.name == name)
    reference = reference_for(CH7)
    part = mutant.file.removesuffix(".py")
    session = InProcessSession.from_folder(REFERENCE, **{part: mutant.source(REFERENCE)})
    found = engine.diagnose(Run(), session, reference, CH7, parts=list(a.all_functions))
    assert [m.id for m in found] == [mutant.id]
    function, evidence = EXPECTED[name]
    assert found[0].evidence["functions"][0] == function
    for key, want in evidence.items():
        got = found[0].evidence[key]
        if isinstance(want, str):
            shown = got["en"] if isinstance(got, dict) else str(got)
            assert want in shown, (key, got)
        else:
            assert got == pytest.approx(want, rel=1e-4), key
    for lang in ("en", "ja"):
        assert found[0].message[lang]
    if name == "wrong-divisor/isqrt-divisor":
        assert "6" in found[0].message["en"] and "6.928" in found[0].message["en"]
