"""Public tests for scaling.py, runnable without the reference solution.

Oracles: torch itself (``q @ k.T / math.sqrt(d_k)``) and the chapter's worked values stored in
``expected.json`` (regenerate with ``python -m grader.prepare.expected``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch

from grader.kit import (
    FLOAT32_CONSTANT_REL,
    assert_close,
    assert_float,
    assert_int,
    describe_call,
    randn,
    raises_student,
    tolerance,
)

pytestmark = pytest.mark.part("scaling")

EXPECTED = json.loads(Path(__file__).with_name("expected.json").read_text(encoding="utf-8"))


def _tol(expected: torch.Tensor) -> dict[str, float]:
    return tolerance(expected.dtype, max(float(expected.abs().max()), 1.0))


@pytest.mark.parametrize("case", EXPECTED["head_dim"], ids=lambda c: f"{c['d_model']}-{c['n_heads']}")
def test_head_dim(student, case):
    """head_dim gives the per-head dimension (GPT-2 small: 768 / 12 = 64)
    ja: head_dim が1ヘッドあたりの次元数を返す（GPT-2 small: 768 / 12 = 64）
    """
    got = student.scaling.head_dim(case["d_model"], case["n_heads"])
    assert_int(got, case["expected"], what=describe_call("head_dim", case["d_model"], case["n_heads"]))


@pytest.mark.parametrize(("d_model", "n_heads"), [(768, 0), (768, 10)], ids=["zero-heads", "not-divisible"])
def test_head_dim_rejects_bad_sizes(student, d_model, n_heads):
    """head_dim raises ValueError when d_model cannot be split into n_heads heads
    ja: d_model を n_heads 個のヘッドに分割できないとき head_dim が ValueError を送出する
    """
    with raises_student("ValueError", what=describe_call("head_dim", d_model, n_heads)) as call:
        call.returned = student.scaling.head_dim(d_model, n_heads)


@pytest.mark.parametrize(
    "case", EXPECTED["scaling_factor"][:2], ids=lambda c: f"{c['d_model']}-{c['n_heads']}"
)
def test_scaling_factor(student, case):
    """scaling_factor is sqrt(d_k): 8 for GPT-2 small, about 11.31 for 4096 / 32
    ja: scaling_factor は sqrt(d_k)。GPT-2 small では 8、4096 / 32 では約 11.31
    """
    got = student.scaling.scaling_factor(case["d_model"], case["n_heads"])
    assert_float(got, case["expected"], rel=FLOAT32_CONSTANT_REL, what=describe_call("scaling_factor", case["d_model"], case["n_heads"]))


def test_scale_scores_chapter_example(student):
    """scale_scores turns 40 and -24 into 5 and -3 at d_k = 64
    ja: d_k = 64 で scale_scores が 40 と -24 を 5 と -3 にする
    """
    case = EXPECTED["scale_scores"]
    x = torch.tensor(case["scores"])
    got = student.scaling.scale_scores(x, case["d_k"])
    want = torch.tensor(case["expected"])
    assert_close(got, want, **_tol(want), allow_scalar=True, what=describe_call("scale_scores", x, d_k=case["d_k"]))


@pytest.mark.parametrize("d_k", [1, 16, 256])
def test_scale_scores_random(student, rng, d_k):
    """scale_scores equals scores / math.sqrt(d_k) and keeps the shape
    ja: scale_scores が scores / math.sqrt(d_k) と一致し、形状を保つ
    """
    x = randn(rng, (2, 3, 5), scale=math.sqrt(d_k))
    got = student.scaling.scale_scores(x, d_k)
    want = x / math.sqrt(d_k)
    assert_close(got, want, **_tol(want), allow_scalar=True, what=describe_call("scale_scores", x, d_k=d_k))


def test_attention_scores(student, rng):
    """attention_scores equals q @ k^T / sqrt(d_k) with a batch axis
    ja: バッチ軸があっても attention_scores が q @ k^T / sqrt(d_k) と一致する
    """
    q, k = randn(rng, (2, 4, 16)), randn(rng, (2, 6, 16))
    got = student.scaling.attention_scores(q, k)
    want = q @ k.transpose(-2, -1) / math.sqrt(16)
    assert_close(got, want, **_tol(want), allow_scalar=True, what=describe_call("attention_scores", q, k))


def test_multihead_attention_scores_gpt2_small(student, rng):
    """multihead_attention_scores splits 768 features into 12 heads and divides by 8
    ja: multihead_attention_scores が 768 次元を 12 ヘッドに分割し 8 で割る
    """
    batch, seq, d_model, n_heads = 1, 3, 768, 12
    q, k = randn(rng, (batch, seq, d_model)), randn(rng, (batch, seq, d_model))
    d_k = d_model // n_heads
    qh = q.view(batch, seq, n_heads, d_k).transpose(1, 2)
    kh = k.view(batch, seq, n_heads, d_k).transpose(1, 2)
    want = qh @ kh.transpose(-2, -1) / math.sqrt(d_k)
    got = student.scaling.multihead_attention_scores(q, k, n_heads)
    assert_close(got, want, **_tol(want), allow_scalar=True, what=describe_call("multihead_attention_scores", q, k, n_heads=n_heads))
