"""Public tests for softmax.py, runnable without the reference solution.

Oracles: ``torch.nn.functional`` (softmax, scaled_dot_product_attention), torch autograd for
the Jacobian, and the chapter's worked values in ``expected.json``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from grader.kit import (
    assert_close,
    assert_dict,
    assert_float,
    describe_call,
    randn,
    raises_student,
)

pytestmark = pytest.mark.part("softmax")

EXPECTED = json.loads(Path(__file__).with_name("expected.json").read_text(encoding="utf-8"))
P32 = {"rtol": 1e-4, "atol": 1e-6}


def test_softmax_chapter_example(student):
    """softmax([10, 8, 6]) is about [0.867, 0.117, 0.016]
    ja: softmax([10, 8, 6]) がおよそ [0.867, 0.117, 0.016] になる
    """
    case = EXPECTED["softmax"]
    x = torch.tensor(case["x"])
    assert_close(student.softmax.softmax(x), case["expected"], **P32, allow_scalar=True, what=describe_call("softmax", x))


@pytest.mark.parametrize("dim", [-1, 0])
def test_softmax_matches_torch(student, rng, dim):
    """softmax agrees with torch.nn.functional.softmax along the given axis
    ja: 指定した軸で softmax が torch.nn.functional.softmax と一致する
    """
    x = randn(rng, (4, 6), scale=3.0)
    got = student.softmax.softmax(x, dim=dim)
    assert_close(got, F.softmax(x, dim=dim), **P32, allow_scalar=True, what=describe_call("softmax", x, dim=dim))


def test_softmax_large_inputs(student):
    """softmax stays finite for scores of magnitude 1e4
    ja: 大きさ 1e4 のスコアでも softmax が有限の値を返す
    """
    x = torch.tensor([[1e4, 9999.0, 9990.0], [-1e4, -9999.5, -1e4 + 3.0]])
    got = student.softmax.softmax(x, dim=-1)
    # rtol 2e-3: a log-sum-exp formulation loses about 1e-3 at this magnitude in float32.
    assert_close(got, F.softmax(x, dim=-1), rtol=2e-3, atol=1e-6, allow_scalar=True, what=describe_call("softmax", x, dim=-1))


def test_softmax_masked_entries(student, rng):
    """softmax gives exactly 0 to -inf (masked) entries
    ja: softmax は -inf（マスク）の要素をちょうど 0 にする
    """
    n = 4
    mask = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
    x = randn(rng, (n, n)).masked_fill(mask, float("-inf"))
    got = student.softmax.softmax(x, dim=-1)
    assert_close(got, F.softmax(x, dim=-1), **P32, expected_zero_mask=mask, allow_scalar=True, what=describe_call("softmax", x, dim=-1))


def test_temperature(student, rng):
    """softmax_with_temperature equals softmax(x / T)
    ja: softmax_with_temperature が softmax(x / T) と一致する
    """
    x = randn(rng, (3, 5), scale=4.0)
    for temperature in (0.5, math.sqrt(64)):
        got = student.softmax.softmax_with_temperature(x, temperature)
        want = F.softmax(x / temperature, dim=-1)
        assert_close(got, want, **P32, allow_scalar=True, what=describe_call("softmax_with_temperature", x, temperature))


def test_temperature_rejects_zero(student):
    """softmax_with_temperature raises ValueError for temperature 0
    ja: 温度 0 のとき softmax_with_temperature が ValueError を送出する
    """
    x = torch.tensor([1.0, 2.0, 3.0])
    with raises_student("ValueError", what=describe_call("softmax_with_temperature", x, 0.0)) as call:
        call.returned = student.softmax.softmax_with_temperature(x, 0.0)


def test_compare_saturation_chapter_example(student):
    """compare_saturation gives about 0.950 unscaled and 0.403 scaled for [12, 9, 6, 3]
    ja: [12, 9, 6, 3] で compare_saturation がスケーリングなし約 0.950、ありで約 0.403 を返す
    """
    case = EXPECTED["compare_saturation"]
    scores = torch.tensor(case["scores"])
    what = describe_call("compare_saturation", scores, d_k=case["d_k"])
    got = assert_dict(student.softmax.compare_saturation(scores, case["d_k"]), ["scaled", "unscaled"], what=what)
    for key in ("unscaled", "scaled"):
        assert_float(got[key], case["expected"][key], rel=1e-5, allow_array=False, what=f'{what}["{key}"]')


def test_jacobian_matches_autograd(student, rng):
    """softmax_jacobian(p) equals the Jacobian torch autograd computes
    ja: softmax_jacobian(p) が torch の自動微分によるヤコビ行列と一致する
    """
    case = EXPECTED["softmax_jacobian"]
    p = torch.tensor(case["p"])
    assert_close(student.softmax.softmax_jacobian(p), case["expected"], **P32, allow_scalar=True, what=describe_call("softmax_jacobian", p))
    x = randn(rng, (5,), dtype=torch.float64)
    p = F.softmax(x, dim=0)
    want = torch.autograd.functional.jacobian(lambda t: F.softmax(t, dim=0), x)
    assert_close(student.softmax.softmax_jacobian(p), want, **P32, allow_scalar=True, what=describe_call("softmax_jacobian", p))


def test_attention_matches_sdpa(student, rng):
    """attention agrees with torch's scaled_dot_product_attention (d_v differs from d_k)
    ja: attention が torch の scaled_dot_product_attention と一致する（d_v は d_k と異なる）
    """
    q, k, v = randn(rng, (2, 4, 8)), randn(rng, (2, 6, 8)), randn(rng, (2, 6, 3))
    got = student.softmax.attention(q, k, v)
    want = F.scaled_dot_product_attention(q, k, v)
    assert_close(got, want, rtol=1e-4, atol=1e-5, allow_scalar=True, what=describe_call("attention", q, k, v))
