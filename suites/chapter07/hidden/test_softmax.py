"""Hidden tests for softmax.py: stable softmax, temperature, saturation, Jacobian, attention."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from grader.kit import (
    assert_array,
    assert_close,
    assert_dict,
    assert_float,
    describe_call,
    randn,
    raises_student,
    require,
    tolerance,
)

pytestmark = pytest.mark.part("softmax")

# Probabilities lie in [0, 1]: absolute tolerances need no magnitude factor.
P32 = {"rtol": 1e-4, "atol": 1e-6}


def _tol(expected: torch.Tensor) -> dict[str, float]:
    magnitude = float(expected.abs().max()) if expected.numel() else 1.0
    return tolerance(expected.dtype, max(magnitude, 1.0))


# --- softmax -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shape", "dim"),
    [((4, 6), -1), ((4, 6), 0), ((3, 4, 5), 1), ((3, 4, 5), -1)],
    ids=["2d-last", "2d-dim0", "3d-dim1", "3d-last"],
)
def test_softmax_matches_reference(student, ref, rng, shape, dim):
    """softmax normalises along the requested axis
    ja: softmax が指定された軸に沿って正規化する
    """
    x = randn(rng, shape, scale=3.0)
    got = student.softmax.softmax(x, dim=dim)
    want = ref.softmax.softmax(x, dim=dim)
    assert_close(got, want, **P32, allow_scalar=True, what=describe_call("softmax", x, dim=dim))


def test_softmax_is_a_distribution(student, rng):
    """softmax outputs are in [0, 1] and sum to 1 along the axis
    ja: softmax の出力は 0 以上 1 以下で、軸に沿った和が 1 になる
    """
    x = randn(rng, (5, 7), scale=4.0)
    what = describe_call("softmax", x, dim=-1)
    got = assert_array(student.softmax.softmax(x, dim=-1), shape=(5, 7), allow_scalar=True, what=what)
    require(
        bool(np.all((got >= 0.0) & (got <= 1.0))),
        en=f"{what} returned values outside [0, 1] (smallest {got.min():.6g}, largest {got.max():.6g}).",
        ja=f"{what} の戻り値に [0, 1] の範囲外の値があります（最小 {got.min():.6g}、最大 {got.max():.6g}）。",
    )
    assert_close(got.sum(axis=-1, dtype=np.float64), np.ones(5), rtol=0, atol=1e-5, allow_scalar=True, what=f"row sums of {what}")


def test_softmax_large_inputs(student, ref, rng):
    """softmax stays finite and right for scores of magnitude 1e4
    ja: 大きさ 1e4 のスコアでも softmax が有限で正しい値を返す
    """
    centres = torch.tensor([[1e4], [-1e4], [5e3], [0.0]])
    x = (centres + randn(rng, (4, 6), scale=2.0)).to(torch.float32)
    got = student.softmax.softmax(x, dim=-1)
    want = ref.softmax.softmax(x, dim=-1)
    # rtol 2e-3: a stable log-sum-exp formulation loses ~1 ulp of 1e4 (about 1e-3) in float32.
    assert_close(got, want, rtol=2e-3, atol=1e-6, allow_scalar=True, what=describe_call("softmax", x, dim=-1))


def _spread_rows(rng: np.random.Generator, n_rows: int, n: int = 6) -> torch.Tensor:
    """Rows of magnitude up to 1e4 whose entries lie far apart.

    Each row has its maximum away from the first column, two entries within a few units of it
    (so the answer is not one-hot) and the rest at least 1000 below it; the rows' maxima lie
    thousands apart. exp(x - mean), exp(x - x[0]) or exp(x - the global max) overflow or
    underflow here, where rows of nearly equal entries would hide it.
    """
    bands = [(-5e3, -1e3), (0.0, 3e3), (4e3, 7e3), (8e3, 1e4)]
    rows = []
    for i in range(n_rows):
        top = float(rng.uniform(*bands[i % len(bands)]))
        others = np.concatenate([top - rng.uniform(0.5, 4.0, size=2),
                                 rng.uniform(-1e4, top - 1e3, size=n - 3)])
        others = rng.permutation(others)
        at = 1 + (2 * i) % (n - 1)  # never column 0
        rows.append(np.insert(others, at, top))
    return torch.tensor(np.array(rows)[rng.permutation(n_rows)], dtype=torch.float32)


@pytest.mark.parametrize("dim", [-1, 0], ids=["last", "dim0"])
def test_softmax_large_spread(student, ref, rng, dim):
    """softmax stays finite and right when scores of magnitude 1e4 lie far apart
    ja: 大きさ 1e4 のスコアが大きく離れていても softmax が有限で正しい値を返す
    """
    x = _spread_rows(rng, 4)
    if dim == 0:
        x = x.T.contiguous()
    got = student.softmax.softmax(x, dim=dim)
    want = ref.softmax.softmax(x, dim=dim)
    assert_close(got, want, rtol=2e-3, atol=1e-6, allow_scalar=True, what=describe_call("softmax", x, dim=dim))


def test_softmax_masked_entries(student, ref, rng):
    """softmax gives exactly 0 to -inf (masked) entries and rows still sum to 1
    ja: softmax は -inf（マスク）の要素をちょうど 0 にし、各行の和は 1 のまま
    """
    n = 5
    x = randn(rng, (2, n, n), scale=3.0)
    mask = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1).expand(2, n, n)
    x = x.masked_fill(mask, float("-inf"))
    what = describe_call("softmax", x, dim=-1)
    got = student.softmax.softmax(x, dim=-1)
    want = ref.softmax.softmax(x, dim=-1)
    arr = assert_close(got, want, **P32, expected_zero_mask=mask, allow_scalar=True, what=what)
    assert_close(arr.sum(axis=-1, dtype=np.float64), np.ones((2, n)), rtol=0, atol=1e-5, allow_scalar=True, what=f"row sums of {what}")


# --- softmax_with_temperature -------------------------------------------------------------


def test_temperature_matches_reference(student, ref, rng, variant):
    """softmax_with_temperature divides the scores by the temperature
    ja: softmax_with_temperature がスコアを温度で割る
    """
    own = [(float(variant["temperature"]), -1)] if variant else []  # the student's own temperature first
    for temperature, dim in own + [(0.5, -1), (2.0, -1), (3.0, 0)]:
        x = randn(rng, (3, 6), scale=2.0)
        got = student.softmax.softmax_with_temperature(x, temperature, dim=dim)
        want = ref.softmax.softmax_with_temperature(x, temperature, dim=dim)
        assert_close(
            got, want, **P32, allow_scalar=True, what=describe_call("softmax_with_temperature", x, temperature, dim=dim)
        )


def test_temperature_sqrt_d_k_is_scaling(student, ref, rng):
    """temperature sqrt(d_k) gives the same result as softmax of scaled scores
    ja: 温度 sqrt(d_k) はスケーリングしたスコアの softmax と同じ結果になる
    """
    d_k = 64
    x = randn(rng, (4, 5), scale=8.0)
    got = student.softmax.softmax_with_temperature(x, math.sqrt(d_k))
    want = ref.softmax.softmax(ref.scaling.scale_scores(x, d_k))
    assert_close(got, want, **P32, allow_scalar=True, what=describe_call("softmax_with_temperature", x, math.sqrt(d_k)))


@pytest.mark.parametrize("temperature", [0.5, 1.0, 8.0])
def test_temperature_large_inputs(student, ref, rng, temperature):
    """softmax_with_temperature stays finite and right for scores of magnitude 1e4
    ja: 大きさ 1e4 のスコアでも softmax_with_temperature が有限で正しい値を返す
    """
    x = _spread_rows(rng, 3)
    got = student.softmax.softmax_with_temperature(x, temperature)
    want = ref.softmax.softmax_with_temperature(x, temperature)
    assert_close(got, want, rtol=2e-3, atol=1e-6, allow_scalar=True,
                 what=describe_call("softmax_with_temperature", x, temperature))


@pytest.mark.parametrize("temperature", [0.0, -1.0], ids=["zero", "negative"])
def test_temperature_rejects_non_positive(student, temperature):
    """softmax_with_temperature raises ValueError for a temperature <= 0
    ja: 温度が 0 以下のとき softmax_with_temperature が ValueError を送出する
    """
    x = torch.tensor([1.0, 2.0, 3.0])
    what = describe_call("softmax_with_temperature", x, temperature)
    with raises_student("ValueError", what=what) as call:
        call.returned = student.softmax.softmax_with_temperature(x, temperature)


# --- compare_saturation --------------------------------------------------------------------


def test_compare_saturation_chapter_example(student, ref):
    """compare_saturation reproduces the chapter's example (about 0.950 and 0.403)
    ja: compare_saturation が章の例（約 0.950 と 0.403）を再現する
    """
    scores = torch.tensor([12.0, 9.0, 6.0, 3.0])
    what = describe_call("compare_saturation", scores, d_k=64)
    got = assert_dict(student.softmax.compare_saturation(scores, 64), ["scaled", "unscaled"], what=what)
    want = ref.softmax.compare_saturation(scores, 64)
    for key in ("unscaled", "scaled"):
        assert_float(got[key], want[key], rel=1e-5, allow_array=False, what=f'{what}["{key}"]')


def test_compare_saturation_random_scores(student, ref, rng):
    """compare_saturation is right for random scores and dimensions
    ja: ランダムなスコアと次元数で compare_saturation が正しい
    """
    for _ in range(5):
        d_k = int(rng.choice([4, 16, 64, 256, 1024]))
        scores = randn(rng, (int(rng.integers(2, 11)),), scale=math.sqrt(d_k))
        what = describe_call("compare_saturation", scores, d_k=d_k)
        got = assert_dict(student.softmax.compare_saturation(scores, d_k), ["scaled", "unscaled"], what=what)
        want = ref.softmax.compare_saturation(scores, d_k)
        for key in ("unscaled", "scaled"):
            assert_float(got[key], want[key], rel=1e-5, allow_array=False, what=f'{what}["{key}"]')


# --- softmax_jacobian ----------------------------------------------------------------------


def test_jacobian_matches_reference(student, ref, rng):
    """softmax_jacobian returns diag(p) - p p^T
    ja: softmax_jacobian が diag(p) - p p^T を返す
    """
    for n in (2, 5, 8):
        p = ref.softmax.softmax(randn(rng, (n,), scale=2.0))
        got = student.softmax.softmax_jacobian(p)
        want = ref.softmax.softmax_jacobian(p)
        assert_close(got, want, **P32, allow_scalar=True, what=describe_call("softmax_jacobian", p))


def test_jacobian_properties(student, ref, rng):
    """the Jacobian is symmetric and each row sums to 0
    ja: ヤコビ行列は対称で、各行の和が 0 になる
    """
    p = ref.softmax.softmax(randn(rng, (6,), scale=2.0))
    what = describe_call("softmax_jacobian", p)
    jac = assert_array(student.softmax.softmax_jacobian(p), shape=(6, 6), allow_scalar=True, what=what)
    assert_close(jac.T, jac, rtol=0, atol=1e-7, allow_scalar=True, what=f"transpose of {what}")
    assert_close(jac.sum(axis=1, dtype=np.float64), np.zeros(6), rtol=0, atol=1e-6, allow_scalar=True, what=f"row sums of {what}")


def test_jacobian_vanishes_as_softmax_saturates(student, ref):
    """the Jacobian's norm shrinks toward 0 as the softmax saturates
    ja: softmax が飽和するにつれてヤコビ行列のノルムが 0 に近づく
    """
    scores = torch.tensor([12.0, 9.0, 6.0, 3.0])
    norms = []
    for factor in (1 / 8, 1 / 2, 1.0, 4.0):
        p = ref.softmax.softmax(scores * factor)
        what = describe_call("softmax_jacobian", p)
        jac = assert_close(student.softmax.softmax_jacobian(p), ref.softmax.softmax_jacobian(p), **P32, allow_scalar=True, what=what)
        norms.append(float(np.linalg.norm(jac.astype(np.float64))))
    shown = ", ".join(f"{n:.4g}" for n in norms)
    # Positive form: each norm strictly below the previous one, and the last one tiny.
    require(
        all(b < a for a, b in zip(norms, norms[1:])) and norms[-1] <= 1e-3,
        en=f"the norm of softmax_jacobian(p) should shrink toward 0 as p saturates; got {shown}.",
        ja=f"p が飽和するにつれて softmax_jacobian(p) のノルムは 0 に近づくはずですが、{shown} でした。",
        actual=shown,
    )


# --- attention -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lead", "n_q", "n_k", "d_k", "d_v", "dtype"),
    [
        ((), 5, 7, 8, 3, torch.float32),
        ((2,), 4, 6, 16, 5, torch.float32),
        ((2, 3), 4, 4, 8, 12, torch.float32),
        ((2, 2), 3, 5, 32, 10, torch.float64),
    ],
    ids=["2d", "batch", "batch-heads", "float64"],
)
def test_attention(student, ref, rng, lead, n_q, n_k, d_k, d_v, dtype):
    """attention equals softmax(q k^T / sqrt(d_k)) v and torch's scaled_dot_product_attention
    ja: attention が softmax(q k^T / sqrt(d_k)) v と torch の scaled_dot_product_attention に一致する
    """
    q = randn(rng, (*lead, n_q, d_k), dtype=dtype)
    k = randn(rng, (*lead, n_k, d_k), dtype=dtype)
    v = randn(rng, (*lead, n_k, d_v), dtype=dtype)
    what = describe_call("attention", q, k, v)
    got = student.softmax.attention(q, k, v)
    want = ref.softmax.attention(q, k, v)
    keep = "float64" if dtype == torch.float64 else None
    tol = _tol(want) if dtype == torch.float64 else {"rtol": 1e-4, "atol": 1e-5}
    assert_close(got, want, **tol, dtype=keep, allow_scalar=True, what=what)
    assert_close(got, F.scaled_dot_product_attention(q, k, v), **tol, allow_scalar=True, what=f"{what} vs scaled_dot_product_attention")


def test_attention_large_scores(student, ref, rng):
    """attention stays finite and right when the scaled scores reach thousands
    ja: スケーリング後のスコアが数千に達しても attention が有限で正しい値を返す
    """
    # float64, so that every correct order of operations agrees to the tolerance; exp still
    # overflows past 709 there, so an unstable softmax shows.
    q = randn(rng, (2, 4, 16), dtype=torch.float64, scale=50.0)
    k = randn(rng, (2, 6, 16), dtype=torch.float64, scale=50.0)
    v = randn(rng, (2, 6, 3), dtype=torch.float64)
    what = describe_call("attention", q, k, v)
    got = student.softmax.attention(q, k, v)
    want = ref.softmax.attention(q, k, v)
    assert_close(got, want, **_tol(want), allow_scalar=True, what=what)
