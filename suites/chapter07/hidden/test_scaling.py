"""Hidden tests for scaling.py: d_k, the divisor sqrt(d_k), and scaled attention scores.

Every expected value is computed here from the reference (``ref``) or from torch itself, on
inputs drawn from ``rng``; nothing random is shared with the student's process.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from grader.kit import (
    FLOAT32_CONSTANT_REL,
    assert_array,
    assert_close,
    assert_float,
    assert_int,
    describe_call,
    randn,
    raises_student,
    require,
    tolerance,
)

pytestmark = pytest.mark.part("scaling")


def _tol(expected: torch.Tensor) -> dict[str, float]:
    magnitude = float(expected.abs().max()) if expected.numel() else 1.0
    return tolerance(expected.dtype, max(magnitude, 1.0))


# --- head_dim ------------------------------------------------------------------------------


@pytest.mark.parametrize(("d_model", "n_heads"), [(768, 12), (4096, 32), (512, 8)])
def test_head_dim_known_models(student, ref, d_model, n_heads):
    """head_dim gives the per-head dimension of a known model
    ja: head_dim が既知のモデルの1ヘッドあたりの次元数を返す
    """
    got = student.scaling.head_dim(d_model, n_heads)
    assert_int(got, ref.scaling.head_dim(d_model, n_heads), what=describe_call("head_dim", d_model, n_heads))


def _own_pair(variant) -> list[tuple[int, int]]:
    """The student's own (d_model, n_heads) when they have a variant: checked first."""
    return [(int(variant["d_model"]), int(variant["n_heads"]))] if variant else []


def test_head_dim_random_pairs(student, ref, rng, variant):
    """head_dim is right for random divisible (d_model, n_heads) pairs
    ja: ランダムな割り切れる (d_model, n_heads) の組で head_dim が正しい
    """
    for d_model, n_heads in _own_pair(variant) + [(0, 0)] * 8:
        if not n_heads:
            n_heads = int(rng.integers(1, 65))
            d_model = n_heads * int(rng.integers(1, 257))
        got = student.scaling.head_dim(d_model, n_heads)
        assert_int(got, ref.scaling.head_dim(d_model, n_heads), what=describe_call("head_dim", d_model, n_heads))


@pytest.mark.parametrize(
    ("d_model", "n_heads"),
    [(768, 0), (768, -12), (768, 10), (-768, 12)],
    ids=["zero-heads", "negative-heads", "not-divisible", "negative-d_model"],
)
def test_head_dim_rejects_bad_sizes(student, d_model, n_heads):
    """head_dim raises ValueError for sizes that cannot be split into heads
    ja: ヘッドに分割できないサイズでは head_dim が ValueError を送出する
    """
    with raises_student("ValueError", what=describe_call("head_dim", d_model, n_heads)) as call:
        call.returned = student.scaling.head_dim(d_model, n_heads)


# A bool is not tested: the contract says "not a positive int", and in Python True is an int,
# so a head_dim that checks isinstance(n_heads, int) is as right as one that refuses bools.
@pytest.mark.parametrize(
    ("d_model", "n_heads"),
    [(768.0, 12)],
    ids=["float-d_model"],
)
def test_head_dim_rejects_non_int(student, d_model, n_heads):
    """head_dim raises ValueError when a size is a float rather than an int
    ja: サイズが int でなく float のとき head_dim が ValueError を送出する
    """
    with raises_student("ValueError", what=describe_call("head_dim", d_model, n_heads)) as call:
        call.returned = student.scaling.head_dim(d_model, n_heads)


# --- scaling_factor ------------------------------------------------------------------------


@pytest.mark.parametrize(("d_model", "n_heads"), [(768, 12), (4096, 32), (512, 8)])
def test_scaling_factor_known_models(student, ref, d_model, n_heads):
    """scaling_factor is sqrt(d_k) for a known model
    ja: 既知のモデルで scaling_factor が sqrt(d_k) になる
    """
    got = student.scaling.scaling_factor(d_model, n_heads)
    assert_float(
        got,
        ref.scaling.scaling_factor(d_model, n_heads),
        rel=FLOAT32_CONSTANT_REL,
        what=describe_call("scaling_factor", d_model, n_heads),
    )


def test_scaling_factor_random_pairs(student, ref, rng, variant):
    """scaling_factor is sqrt(d_model / n_heads) for random pairs
    ja: ランダムな組で scaling_factor が sqrt(d_model / n_heads) になる
    """
    for d_model, n_heads in _own_pair(variant) + [(0, 0)] * 8:
        if not n_heads:
            n_heads = int(rng.integers(1, 65))
            d_model = n_heads * int(rng.integers(1, 257))
        got = student.scaling.scaling_factor(d_model, n_heads)
        assert_float(
            got,
            ref.scaling.scaling_factor(d_model, n_heads),
            rel=FLOAT32_CONSTANT_REL,
            what=describe_call("scaling_factor", d_model, n_heads),
        )


# --- scale_scores --------------------------------------------------------------------------


def test_scale_scores_chapter_example(student, ref):
    """scale_scores turns 40 and -24 into 5 and -3 at d_k = 64
    ja: d_k = 64 で scale_scores が 40 と -24 を 5 と -3 にする
    """
    x = torch.tensor([40.0, -24.0, 10.0, 8.0, 6.0])
    got = student.scaling.scale_scores(x, 64)
    want = ref.scaling.scale_scores(x, 64)
    assert_close(got, want, **_tol(want), allow_scalar=True, what=describe_call("scale_scores", x, d_k=64))


@pytest.mark.parametrize("d_k", [1, 256])
def test_scale_scores_edge_d_k(student, ref, rng, d_k):
    """scale_scores is right at the smallest and a large d_k
    ja: 最小の d_k と大きな d_k で scale_scores が正しい
    """
    x = randn(rng, (6, 7), scale=math.sqrt(d_k))
    got = student.scaling.scale_scores(x, d_k)
    want = ref.scaling.scale_scores(x, d_k)
    assert_close(got, want, **_tol(want), allow_scalar=True, what=describe_call("scale_scores", x, d_k=d_k))


@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
def test_scale_scores_any_shape(student, ref, rng, ndim):
    """scale_scores keeps the shape and divides by sqrt(d_k) for random d_k
    ja: ランダムな d_k で scale_scores が形状を保ち sqrt(d_k) で割る
    """
    for _ in range(3):
        d_k = int(rng.integers(1, 257))
        shape = tuple(int(n) for n in rng.integers(1, 6, size=ndim))
        x = randn(rng, shape, scale=math.sqrt(d_k))
        got = student.scaling.scale_scores(x, d_k)
        want = ref.scaling.scale_scores(x, d_k)
        assert_close(got, want, **_tol(want), allow_scalar=True, what=describe_call("scale_scores", x, d_k=d_k))


def test_scale_scores_large_magnitudes(student, ref, rng):
    """scale_scores is exact enough for scores up to 1e4
    ja: 1e4 までの大きなスコアでも scale_scores が十分正確
    """
    x = randn(rng, (4, 9), scale=3e3).clamp(-1e4, 1e4)
    x[0, 0], x[1, 1] = 1e4, -1e4
    got = student.scaling.scale_scores(x, 64)
    want = ref.scaling.scale_scores(x, 64)
    assert_close(got, want, **_tol(want), allow_scalar=True, what=describe_call("scale_scores", x, d_k=64))


def test_scale_scores_float64(student, ref, rng):
    """scale_scores keeps float64 input in float64 with full precision
    ja: float64 の入力では scale_scores が float64 のまま完全な精度を保つ
    """
    x = randn(rng, (3, 5, 5), dtype=torch.float64, scale=8.0)
    got = student.scaling.scale_scores(x, 128)
    want = ref.scaling.scale_scores(x, 128)
    assert_close(got, want, **_tol(want), dtype="float64", allow_scalar=True, what=describe_call("scale_scores", x, d_k=128))


def test_scale_scores_keeps_order_and_sign(student, rng):
    """scale_scores keeps the ranking and the sign of every score
    ja: scale_scores はスコアの大小関係と符号を変えない
    """
    values = (np.arange(-20, 20) * 3.7 + 0.5)[rng.permutation(40)]
    x = torch.tensor(values.reshape(5, 8), dtype=torch.float32)
    what = describe_call("scale_scores", x, d_k=64)
    got = assert_array(student.scaling.scale_scores(x, 64), shape=(5, 8), allow_scalar=True, what=what)
    src = x.numpy()
    require(
        bool(np.all(np.sign(got) == np.sign(src))),
        en=f"{what} changed the sign of some scores; dividing by a positive number keeps every sign.",
        ja=f"{what} で一部のスコアの符号が変わりました。正の数で割っても符号は変わりません。",
    )
    # Values are well separated, so the rankings have no ties.
    require(
        bool(np.all(np.argsort(got, axis=-1) == np.argsort(src, axis=-1))),
        en=f"{what} changed the ranking of the scores within a row; scaling must keep the order.",
        ja=f"{what} で行内のスコアの大小関係が変わりました。スケーリングは順序を保つはずです。",
    )


# --- attention_scores ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "lead",
    [(), (2,), (2, 3)],
    ids=["no-batch", "batch", "batch-heads"],
)
def test_attention_scores_shapes(student, ref, rng, lead):
    """attention_scores returns q k^T / sqrt(d_k) with any leading batch axes
    ja: 先頭にバッチ軸があっても attention_scores が q k^T / sqrt(d_k) を返す
    """
    d_k = int(rng.choice([3, 16, 64]))  # not 1: dividing by d_k and by sqrt(d_k) agree there
    q = randn(rng, (*lead, 4, d_k))
    k = randn(rng, (*lead, 5, d_k))
    got = student.scaling.attention_scores(q, k)
    want = ref.scaling.attention_scores(q, k)
    assert_close(got, want, **_tol(want), allow_scalar=True, what=describe_call("attention_scores", q, k))


def test_attention_scores_float64(student, ref, rng):
    """attention_scores keeps float64 precision
    ja: attention_scores が float64 の精度を保つ
    """
    q = randn(rng, (2, 3, 32), dtype=torch.float64)
    k = randn(rng, (2, 6, 32), dtype=torch.float64)
    got = student.scaling.attention_scores(q, k)
    want = ref.scaling.attention_scores(q, k)
    assert_close(got, want, **_tol(want), dtype="float64", allow_scalar=True, what=describe_call("attention_scores", q, k))


# --- multihead_attention_scores ------------------------------------------------------------


@pytest.mark.parametrize(
    ("batch", "seq", "d_model", "n_heads"),
    [(1, 3, 768, 12), (1, 3, 4096, 32), (1, 3, 512, 8), (2, 5, 64, 4)],
    ids=["768-12", "4096-32", "512-8", "64-4"],
)
def test_multihead_attention_scores(student, ref, rng, batch, seq, d_model, n_heads):
    """multihead_attention_scores splits heads GPT-2 style and divides by sqrt(d_k)
    ja: multihead_attention_scores が GPT-2 と同じ方法でヘッドを分割し sqrt(d_k) で割る
    """
    q = randn(rng, (batch, seq, d_model))
    k = randn(rng, (batch, seq, d_model))
    got = student.scaling.multihead_attention_scores(q, k, n_heads)
    want = ref.scaling.multihead_attention_scores(q, k, n_heads)
    assert_close(got, want, **_tol(want), allow_scalar=True, what=describe_call("multihead_attention_scores", q, k, n_heads=n_heads))


def test_multihead_heads_are_feature_slices(student, rng, variant):
    """each head h uses features h*d_k to (h+1)*d_k of every token
    ja: ヘッド h は各トークンの特徴量 h*d_k から (h+1)*d_k までを使う
    """
    batch, seq, n_heads, d_k = 2, 4, 3, 4
    if variant:  # the student's own model and sequence length
        seq, n_heads, d_k = int(variant["seq_len"]), int(variant["n_heads"]), int(variant["d_k"])
    q = randn(rng, (batch, seq, n_heads * d_k))
    k = randn(rng, (batch, seq, n_heads * d_k))
    # Oracle written with slices instead of a reshape, so a wrong view/transpose cannot agree.
    want = torch.stack(
        [
            q[..., h * d_k : (h + 1) * d_k] @ k[..., h * d_k : (h + 1) * d_k].transpose(-2, -1)
            for h in range(n_heads)
        ],
        dim=1,
    ) / math.sqrt(d_k)
    got = student.scaling.multihead_attention_scores(q, k, n_heads)
    assert_close(got, want, **_tol(want), allow_scalar=True, what=describe_call("multihead_attention_scores", q, k, n_heads=n_heads))
