"""Public tests for masking.py, runnable without the reference solution.

Oracles: ``torch.tril`` for the mask, ``torch.nn.functional.scaled_dot_product_attention`` with
``is_causal=True`` for attention, and properties every causal softmax has (rows sum to 1, the
future gets exactly 0, row 0 is [1, 0, ..., 0]).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from grader.kit import (
    assert_array,
    assert_close,
    assert_float,
    describe_call,
    randn,
    raises_student,
    require,
)

pytestmark = pytest.mark.part("masking")

P32 = {"rtol": 1e-4, "atol": 1e-6}


def _future(n: int) -> np.ndarray:
    """True where j > i: the positions a token must not see."""
    return np.triu(np.ones((n, n), dtype=bool), k=1)


def test_causal_mask_small(student):
    """causal_mask(4) is the lower triangle with the diagonal
    ja: causal_mask(4) が対角線を含む下三角になる
    """
    what = describe_call("causal_mask", 4)
    got = assert_array(student.masking.causal_mask(4), shape=(4, 4), dtype_kind="b", what=what)
    want = ~_future(4)
    wrong = np.argwhere(got != want)
    require(
        wrong.size == 0,
        en=f"{what} differs from the lower triangle at (i, j) = {tuple(wrong[0]) if wrong.size else ''}: "
        "True must mean that position i may attend to position j, which holds for j <= i.",
        ja=f"{what} が下三角と (i, j) = {tuple(wrong[0]) if wrong.size else ''} で異なります。"
        "True は「位置 i が位置 j を参照してよい」という意味で、j <= i のときに成り立ちます。",
    )


def test_causal_mask_rejects_zero(student):
    """causal_mask(0) raises ValueError
    ja: causal_mask(0) が ValueError を送出する
    """
    with raises_student("ValueError", what="causal_mask(0)") as call:
        call.returned = student.masking.causal_mask(0)


def test_apply_causal_mask(student, rng):
    """apply_causal_mask puts -inf above the diagonal and keeps the rest
    ja: apply_causal_mask が対角線より上を -inf にし、残りを変えない
    """
    x = randn(rng, (5, 5), scale=2.0)
    what = describe_call("apply_causal_mask", x)
    got = assert_array(student.masking.apply_causal_mask(x), shape=(5, 5), finite=False, what=what)
    future = _future(5)
    require(
        bool(np.all(np.isneginf(got[future]))),
        en=f"{what}: the entries with j > i must be -inf; got {got[future][:3].tolist()} (first three).",
        ja=f"{what}: j > i の要素は -inf にします。実際は {got[future][:3].tolist()}（最初の3つ）でした。",
    )
    assert_close(got[~future], x.numpy()[~future], rtol=0, atol=0, what=f"the kept entries of {what}")


def test_masked_softmax_rows(student, rng):
    """masked_softmax rows sum to 1, the future is exactly 0 and row 0 is [1, 0, ...]
    ja: masked_softmax の各行の和が 1、未来はちょうど 0、0 行目が [1, 0, ...] になる
    """
    x = randn(rng, (6, 6), scale=3.0)
    what = describe_call("masked_softmax", x)
    got = assert_array(student.masking.masked_softmax(x), shape=(6, 6), what=what)
    future = _future(6)
    require(
        bool(np.all(got[future] == 0.0)),
        en=f"{what}: weights on later positions must be exactly 0; the largest is {got[future].max():.4g}.",
        ja=f"{what}: 後ろの位置への重みはちょうど 0 にします。最大で {got[future].max():.4g} ありました。",
    )
    assert_close(got.sum(axis=-1), np.ones(6), rtol=0, atol=1e-5, what=f"row sums of {what}")
    assert_close(got[0], np.eye(6)[0], rtol=0, atol=1e-6, what=f"row 0 of {what}")


def test_masked_softmax_matches_torch(student, rng):
    """masked_softmax agrees with torch's softmax of the masked scores
    ja: masked_softmax がマスク済みスコアに対する torch の softmax と一致する
    """
    x = randn(rng, (2, 5, 5), scale=2.0)
    want = F.softmax(x.masked_fill(torch.from_numpy(_future(5)), float("-inf")), dim=-1)
    assert_close(student.masking.masked_softmax(x), want, **P32, what=describe_call("masked_softmax", x))


def test_masked_softmax_large_scores(student):
    """masked_softmax stays finite for scores of magnitude 1e4
    ja: 大きさ 1e4 のスコアでも masked_softmax が有限の値を返す
    """
    x = torch.tensor([[1e4, -1e4, 5e3], [9999.0, 1e4, -1e4], [-1e4, 1e4, 9990.0]])
    want = F.softmax(x.masked_fill(torch.from_numpy(_future(3)), float("-inf")), dim=-1)
    assert_close(student.masking.masked_softmax(x), want, rtol=2e-3, atol=1e-6,
                 what=describe_call("masked_softmax", x))


@pytest.mark.parametrize("shape", [(4, 8), (2, 3, 6, 8)], ids=["one-head", "batch-heads"])
def test_causal_attention_matches_sdpa(student, rng, shape):
    """causal_attention agrees with scaled_dot_product_attention(is_causal=True)
    ja: causal_attention が scaled_dot_product_attention(is_causal=True) と一致する
    """
    q, k, v = (randn(rng, shape) for _ in range(3))
    want = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert_close(student.masking.causal_attention(q, k, v), want, rtol=1e-4, atol=1e-5,
                 what=describe_call("causal_attention", q, k, v))


def test_future_leak(student, rng):
    """future_leak is 0 for causal weights and the largest future row sum otherwise
    ja: future_leak が因果的な重みでは 0、そうでなければ未来への重みの行和の最大値になる
    """
    causal = torch.tensor([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.2, 0.3, 0.5]])
    assert_float(student.masking.future_leak(causal), 0.0, rel=0, abs=1e-7,
                 what=describe_call("future_leak", causal))
    leaky = F.softmax(randn(rng, (4, 4)), dim=-1)
    want = float(leaky.masked_fill(~torch.from_numpy(_future(4)), 0.0).sum(dim=-1).max())
    assert_float(student.masking.future_leak(leaky), want, rel=1e-5, abs=1e-6,
                 what=describe_call("future_leak", leaky))
