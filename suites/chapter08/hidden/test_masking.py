"""Hidden tests for masking.py: the mask, its application, the masked softmax, causal attention.

The oracle for attention is ``torch.nn.functional.scaled_dot_product_attention(...,
is_causal=True)``; the reference solution answers the rest. Sizes run from 1 to 64, with batch
and head axes, in float32 and float64, and scores up to magnitude 1e4.
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
    tolerance,
)

pytestmark = pytest.mark.part("masking")

SIZES = [1, 2, 3, 7, 16, 64]
DTYPES = [torch.float32, torch.float64]
SHAPES = [(5,), (2, 5), (2, 3, 5)]  # leading axes: none, batch, batch and heads


def _above(n: int) -> np.ndarray:
    return np.triu(np.ones((n, n), dtype=bool), k=1)


def _weights_tol(dtype: torch.dtype) -> dict[str, float]:
    return {"rtol": 1e-10, "atol": 1e-12} if dtype == torch.float64 else {"rtol": 1e-4, "atol": 1e-6}


# --- causal_mask ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", SIZES)
def test_causal_mask_matches_reference(student, ref, n):
    """causal_mask(n) is the lower triangle with the diagonal, as bools
    ja: causal_mask(n) が対角線を含む下三角の bool 行列になる
    """
    what = describe_call("causal_mask", n)
    got = assert_array(student.masking.causal_mask(n), shape=(n, n), dtype_kind="b", what=what)
    want = ref.masking.causal_mask(n).numpy()
    bad = np.argwhere(got != want)
    require(
        bad.size == 0,
        en=f"{what} is wrong at (i, j) = {tuple(int(v) for v in bad[0]) if bad.size else ''}: position i may "
        "attend to j exactly when j <= i.",
        ja=f"{what} が (i, j) = {tuple(int(v) for v in bad[0]) if bad.size else ''} で誤っています。"
        "位置 i が位置 j を参照できるのは j <= i のときだけです。",
    )


@pytest.mark.parametrize("bad", [0, -3, 2.5, "4"], ids=["zero", "negative", "float", "str"])
def test_causal_mask_rejects_bad_lengths(student, bad):
    """causal_mask raises ValueError for a length that is not a positive int
    ja: 正の int でない長さには causal_mask が ValueError を送出する
    """
    what = describe_call("causal_mask", bad)
    with raises_student("ValueError" if isinstance(bad, int) else ("ValueError", "TypeError"), what=what) as call:
        call.returned = student.masking.causal_mask(bad)


# --- apply_causal_mask ---------------------------------------------------------------------


@pytest.mark.parametrize("lead", SHAPES, ids=["2d", "batch", "batch-heads"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_apply_causal_mask(student, ref, rng, lead, dtype):
    """apply_causal_mask writes -inf above the diagonal and keeps every other score
    ja: apply_causal_mask が対角線より上に -inf を書き込み、他のスコアはそのまま残す
    """
    n = lead[-1]
    x = randn(rng, (*lead, n), dtype=dtype, scale=3.0)
    what = describe_call("apply_causal_mask", x)
    got = assert_array(student.masking.apply_causal_mask(x), shape=tuple(x.shape), finite=False, what=what)
    future = np.broadcast_to(_above(n), got.shape)
    require(
        bool(np.all(np.isneginf(got[future]))),
        en=f"{what}: every entry with j > i must be -inf; the first ones were {got[future][:3].tolist()}.",
        ja=f"{what}: j > i の要素はすべて -inf にします。最初のいくつかは {got[future][:3].tolist()} でした。",
    )
    want = ref.masking.apply_causal_mask(x).numpy()
    assert_close(got[~future], want[~future], rtol=0, atol=0, what=f"the entries j <= i of {what}")


#: The leading axes of each layout a variant may give the scores (the structural choice).
_LAYOUTS = {"rows": (), "batched": (2,), "heads": (2, 3)}


def _scores_shape(variant, default: tuple[int, ...]) -> tuple[int, ...]:
    """The student's own layout and sequence length when they have a variant, else ``default``."""
    if not variant:
        return default
    n = int(variant["seq_len"])
    return (*_LAYOUTS[str(variant["layout"])], n, n)


def test_apply_causal_mask_leaves_input(student, rng, variant):
    """apply_causal_mask does not change the caller's scores
    ja: apply_causal_mask が呼び出し側のスコアを書き換えない
    """
    x = randn(rng, _scores_shape(variant, (3, 4, 4)))
    what = describe_call("apply_causal_mask", x)
    _, after = student.masking.apply_causal_mask.args_after(x)
    assert_close(after[0], x, rtol=0, atol=0, what=f"the scores passed to {what}, after the call")


def test_masked_softmax_leaves_input(student, rng, variant):
    """masked_softmax does not change the caller's scores
    ja: masked_softmax が呼び出し側のスコアを書き換えない
    """
    x = randn(rng, _scores_shape(variant, (2, 5, 5)))
    what = describe_call("masked_softmax", x)
    _, after = student.masking.masked_softmax.args_after(x)
    assert_close(after[0], x, rtol=0, atol=0, what=f"the scores passed to {what}, after the call")


# --- masked_softmax ------------------------------------------------------------------------


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_masked_softmax_matches_reference(student, ref, rng, n, dtype):
    """masked_softmax equals the reference for every size
    ja: どの長さでも masked_softmax が模範解答と一致する
    """
    x = randn(rng, (2, n, n), dtype=dtype, scale=2.0)
    assert_close(student.masking.masked_softmax(x), ref.masking.masked_softmax(x), **_weights_tol(dtype),
                 what=describe_call("masked_softmax", x))


@pytest.mark.parametrize("n", [2, 5, 16])
def test_masked_softmax_is_causal_distribution(student, rng, n):
    """masked_softmax gives exactly 0 to the future, rows sum to 1, row 0 is [1, 0, ...]
    ja: masked_softmax が未来にちょうど 0 を与え、各行の和が 1、0 行目が [1, 0, ...] になる
    """
    x = randn(rng, (3, n, n), scale=4.0)
    what = describe_call("masked_softmax", x)
    got = assert_array(student.masking.masked_softmax(x), shape=(3, n, n), what=what)
    future = np.broadcast_to(_above(n), got.shape)
    require(
        bool(np.all(got[future] == 0.0)),
        en=f"{what}: the weight on later positions must be exactly 0; the largest is {got[future].max():.4g}.",
        ja=f"{what}: 後ろの位置への重みはちょうど 0 にします。最大で {got[future].max():.4g} ありました。",
    )
    assert_close(got.sum(axis=-1), np.ones((3, n)), rtol=0, atol=1e-5, what=f"row sums of {what}")
    assert_close(got[:, 0, :], np.broadcast_to(np.eye(n)[0], (3, n)), rtol=0, atol=1e-6, what=f"row 0 of {what}")


@pytest.mark.parametrize("scale", [1e2, 1e3, 1e4], ids=["1e2", "1e3", "1e4"])
def test_masked_softmax_large_scores(student, ref, rng, scale):
    """masked_softmax stays finite and right for scores up to magnitude 1e4
    ja: 大きさ 1e4 までのスコアで masked_softmax が有限かつ正しい
    """
    x = randn(rng, (4, 6, 6), scale=1.0) * scale
    # rtol 2e-3: a stable formulation loses about one float32 ulp of 1e4 (about 1e-3).
    assert_close(student.masking.masked_softmax(x), ref.masking.masked_softmax(x), rtol=2e-3, atol=1e-6,
                 what=describe_call("masked_softmax", x))


# --- causal_attention ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shape", "d_v"),
    [((1, 4), 4), ((7, 8), 3), ((2, 16, 64), 64), ((2, 12, 10, 64), 64), ((3, 2, 33, 5), 9)],
    ids=["n1", "n7", "batch", "gpt2-heads", "odd"],
)
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_causal_attention_matches_sdpa(student, rng, shape, d_v, dtype):
    """causal_attention agrees with scaled_dot_product_attention(is_causal=True)
    ja: causal_attention が scaled_dot_product_attention(is_causal=True) と一致する
    """
    q, k = randn(rng, shape, dtype=dtype), randn(rng, shape, dtype=dtype)
    v = randn(rng, (*shape[:-1], d_v), dtype=dtype)
    want = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    tol = tolerance(dtype, 1.0) if dtype == torch.float64 else {"rtol": 1e-4, "atol": 1e-5}
    assert_close(student.masking.causal_attention(q, k, v), want, **tol,
                 what=describe_call("causal_attention", q, k, v))


def test_causal_attention_large_scores(student, rng, variant):
    """causal_attention stays finite when q·k reaches about 1e4
    ja: q·k が 1e4 程度になっても causal_attention が有限の値を返す
    """
    lead, n, d_k = (2,), 6, 16
    if variant:  # the student's own layout, sequence length and head width
        lead, n, d_k = _LAYOUTS[str(variant["layout"])], int(variant["seq_len"]), int(variant["d_k"])
    q, k = randn(rng, (*lead, n, d_k), scale=25.0), randn(rng, (*lead, n, d_k), scale=25.0)
    v = randn(rng, (*lead, n, 4))
    want = F.scaled_dot_product_attention(q.double(), k.double(), v.double(), is_causal=True)
    assert_close(student.masking.causal_attention(q, k, v), want, rtol=2e-3, atol=1e-4,
                 what=describe_call("causal_attention", q, k, v))


# --- future_leak ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 4, 9])
def test_future_leak_matches_reference(student, ref, rng, n):
    """future_leak gives the largest total weight on later positions
    ja: future_leak が後ろの位置への重みの合計の最大値を返す
    """
    w = F.softmax(randn(rng, (2, n, n), scale=2.0), dim=-1)
    assert_float(student.masking.future_leak(w), ref.masking.future_leak(w), rel=1e-5, abs=1e-7,
                 what=describe_call("future_leak", w))


def test_future_leak_zero_for_causal(student, ref, rng):
    """future_leak is 0 for the reference's causal weights
    ja: 模範解答の因果的な重みでは future_leak が 0 になる
    """
    w = ref.masking.masked_softmax(randn(rng, (3, 8, 8)))
    assert_float(student.masking.future_leak(w), 0.0, rel=0, abs=1e-7, what=describe_call("future_leak", w))
