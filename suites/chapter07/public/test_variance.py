"""Public tests for variance.py: statistical checks with tolerances from the estimator's spread.

For q, k with i.i.d. N(0, 1) entries the sample variance of n dot products has relative
standard error sqrt((2 + 6/d_k) / n); every check allows 5 of those, so a correct solution
fails with probability below one in a million.
"""

from __future__ import annotations

import math

import pytest

from grader.kit import FLOAT32_CONSTANT_REL, assert_dict, assert_float, assert_list, describe_value, number_value, require

pytestmark = pytest.mark.part("variance")

N_SAMPLES = 1000
Z = 5.0


def _rel(d_k: int, n: int = N_SAMPLES) -> float:
    return Z * math.sqrt((2.0 + 6.0 / d_k) / n)


def _seed(rng) -> int:
    return int(rng.integers(0, 2**31 - 1))


@pytest.mark.parametrize("d_k", [4, 64])
def test_dot_product_variance_is_d_k(student, rng, d_k):
    """the variance of q.k is about d_k
    ja: q.k の分散がおよそ d_k になる
    """
    seed = _seed(rng)
    got = student.variance.dot_product_variance(d_k, N_SAMPLES, seed)
    assert_float(got, float(d_k), rel=_rel(d_k), abs=0.0, what=f"dot_product_variance({d_k}, {N_SAMPLES}, {seed})")


def test_scaled_variance_is_one(student, rng):
    """the variance of q.k / sqrt(d_k) is about 1
    ja: q.k / sqrt(d_k) の分散がおよそ 1 になる
    """
    seed = _seed(rng)
    got = student.variance.scaled_dot_product_variance(64, N_SAMPLES, seed)
    assert_float(got, 1.0, rel=_rel(64), abs=0.0, what=f"scaled_dot_product_variance(64, {N_SAMPLES}, {seed})")


def test_seed_controls_the_sample(student):
    """the same seed gives the same value and a different seed a different one
    ja: 同じ seed なら同じ値、異なる seed なら異なる値になる
    """
    what = "dot_product_variance(16, 1000, seed=1)"
    first = assert_float(student.variance.dot_product_variance(16, 1000, 1), 16.0, rel=0.5, what=what)
    second = assert_float(student.variance.dot_product_variance(16, 1000, 1), 16.0, rel=0.5, what=what)
    require(
        second == first,
        en=f"{what} returned {first!r} the first time and {second!r} the second; the same seed must give the same value.",
        ja=f"{what} は1回目に {first!r}、2回目に {second!r} を返しました。同じ seed からは同じ値になる必要があります。",
    )
    other = assert_float(student.variance.dot_product_variance(16, 1000, 2), 16.0, rel=0.5, what="dot_product_variance(16, 1000, seed=2)")
    require(
        other != first,
        en=f"dot_product_variance gave {first!r} for both seed=1 and seed=2; the seed must choose the sample.",
        ja=f"dot_product_variance は seed=1 と seed=2 で同じ {first!r} を返しました。seed によって標本が決まる必要があります。",
    )


def test_variance_table(student):
    """variance_table has one row per d_k in order, with the chapter's columns
    ja: variance_table は d_k ごとに順番どおり1行を持ち、章の表と同じ列がある
    """
    dims = [64, 4]
    what = f"variance_table({dims}, 1000, 0)"
    rows = assert_list(student.variance.variance_table(dims, 1000, 0), len(dims), what=what)
    for i, d_k in enumerate(dims):
        row = assert_dict(rows[i], ["d_k", "scaled_variance", "sqrt_d_k", "std", "variance"], what=f"{what}[{i}]")
        got = number_value(row["d_k"])
        # d_k is a number: 16.0 is 16. Only a value of another row is a matter of order.
        order = (" (rows follow the order of dims)", "（行は dims の順）") if got in dims else ("", "")
        require(
            got == d_k,
            en=f'{what}[{i}]["d_k"] is {describe_value(row["d_k"])}; expected {d_k}{order[0]}.',
            ja=f'{what}[{i}]["d_k"] は {describe_value(row["d_k"])} でした。{d_k} が必要です{order[1]}。',
        )
        assert_float(row["sqrt_d_k"], math.sqrt(d_k), rel=FLOAT32_CONSTANT_REL, what=f'{what}[{i}]["sqrt_d_k"]')
        variance = assert_float(row["variance"], float(d_k), rel=_rel(d_k, 1000), abs=0.0, what=f'{what}[{i}]["variance"]')
        # 2/n allows a std taken with another ddof than the variance.
        assert_float(row["std"], math.sqrt(variance), rel=2.0 / 1000, what=f'{what}[{i}]["std"]')
        assert_float(row["scaled_variance"], 1.0, rel=_rel(d_k, 1000), abs=0.0, what=f'{what}[{i}]["scaled_variance"]')
