"""Hidden tests for variance.py: statistical checks of the dot-product variance experiment.

These tests never compare with the reference's random stream: a student may draw q and k in
any order, shape or library. Each estimate is checked against theory with a tolerance derived
from the estimator's own spread. For q, k with i.i.d. N(0, 1) entries, X = q.k has
Var X = d and E[X^4] = 3d^2 + 6d, so the sample variance of n draws has standard error
sqrt((2d^2 + 6d) / n), i.e. a relative standard error sqrt((2 + 6/d) / n). Scaling X by
1/sqrt(d) leaves the relative error unchanged. A correct solution fails a 5-SE check with
probability below 1e-6.
"""

from __future__ import annotations

import math

import pytest

from grader.kit import FLOAT32_CONSTANT_REL, assert_dict, assert_float, assert_list, describe_value, number_value, require

pytestmark = pytest.mark.part("variance")

N_SAMPLES = 1000
Z = 5.0  # standard errors allowed
#: Samples for the seed tests, which check determinism, not accuracy: at d_k = 16 the
#: relative standard error is sqrt(2.375 / 500) = 6.9 %, so their 50 % band is 7 SE wide.
N_SEED = 500


def _relative_se(d_k: int, n: int) -> float:
    return math.sqrt((2.0 + 6.0 / d_k) / n)


def _seeds(rng, count: int = 3) -> list[int]:
    return [int(s) for s in rng.choice(2**31 - 1, size=count, replace=False)]


def _check_estimates(name: str, values: dict[int, float], target: float, d_k: int, n: int) -> None:
    """Each estimate within Z SE of target, and their mean within Z SE / sqrt(len)."""
    __tracebackhide__ = True
    rse = _relative_se(d_k, n)
    for seed, v in values.items():
        assert_float(v, target, rel=Z * rse, abs=0.0, what=f"{name}({d_k}, {n}, seed={seed})")
    mean = sum(values.values()) / len(values)
    assert_float(
        mean,
        target,
        rel=Z * rse / math.sqrt(len(values)),
        abs=0.0,
        what=f"the mean of {name}({d_k}, {n}, seed) over seeds {list(values)}",
    )


@pytest.mark.parametrize("d_k", [1, 4, 16, 64])
def test_dot_product_variance_is_d_k(student, rng, d_k):
    """the variance of q.k is about d_k
    ja: q.k の分散がおよそ d_k になる
    """
    seeds = _seeds(rng)
    values = {seed: student.variance.dot_product_variance(d_k, N_SAMPLES, seed) for seed in seeds}
    _check_estimates("dot_product_variance", values, float(d_k), d_k, N_SAMPLES)


@pytest.mark.parametrize("d_k", [1, 16, 64])
def test_scaled_variance_is_one(student, rng, d_k):
    """the variance of q.k / sqrt(d_k) is about 1 whatever d_k is
    ja: q.k / sqrt(d_k) の分散は d_k によらずおよそ 1 になる
    """
    seeds = _seeds(rng)
    values = {seed: student.variance.scaled_dot_product_variance(d_k, N_SAMPLES, seed) for seed in seeds}
    _check_estimates("scaled_dot_product_variance", values, 1.0, d_k, N_SAMPLES)


def test_same_seed_same_value(student, rng):
    """the same seed gives exactly the same value
    ja: 同じ seed からはまったく同じ値が得られる
    """
    (seed,) = _seeds(rng, 1)
    for name in ("dot_product_variance", "scaled_dot_product_variance"):
        func = getattr(student.variance, name)
        what = f"{name}(16, {N_SEED}, seed={seed})"
        target = 16.0 if name == "dot_product_variance" else 1.0
        first = assert_float(func(16, N_SEED, seed), target, rel=0.5, what=what)
        second = assert_float(func(16, N_SEED, seed), target, rel=0.5, what=what)
        require(
            second == first,
            en=f"{what} returned {first!r} the first time and {second!r} the second; the same seed must "
            "give the same value (draw from a generator seeded with seed).",
            ja=f"{what} は1回目に {first!r}、2回目に {second!r} を返しました。同じ seed からは同じ値に"
            "なる必要があります（seed で初期化した乱数生成器から値を引いてください）。",
            expected=repr(first),
            actual=repr(second),
        )


def test_different_seeds_differ(student, rng):
    """different seeds give different values
    ja: 異なる seed からは異なる値が得られる
    """
    seed_a, seed_b = _seeds(rng, 2)
    for name in ("dot_product_variance", "scaled_dot_product_variance"):
        func = getattr(student.variance, name)
        target = 16.0 if name == "dot_product_variance" else 1.0
        a = assert_float(func(16, N_SEED, seed_a), target, rel=0.5, what=f"{name}(16, {N_SEED}, seed={seed_a})")
        b = assert_float(func(16, N_SEED, seed_b), target, rel=0.5, what=f"{name}(16, {N_SEED}, seed={seed_b})")
        require(
            a != b,
            en=f"{name} returned {a!r} for both seed={seed_a} and seed={seed_b}; the seed must choose the sample.",
            ja=f"{name} は seed={seed_a} と seed={seed_b} で同じ {a!r} を返しました。seed によって標本が決まる必要があります。",
            expected="different values",
            actual=repr(a),
        )


ROW_KEYS = ["d_k", "scaled_variance", "sqrt_d_k", "std", "variance"]


def _table(student, rng, dims: list[int], n: int) -> tuple[list[dict], str]:
    (seed,) = _seeds(rng, 1)
    what = f"variance_table({dims}, {n}, {seed})"
    rows = assert_list(student.variance.variance_table(dims, n, seed), len(dims), what=what)
    return [assert_dict(row, ROW_KEYS, what=f"{what}[{i}]") for i, row in enumerate(rows)], what


def test_variance_table_rows_in_order(student, rng):
    """variance_table has one row per d_k, in the order given, with exact d_k and sqrt(d_k)
    ja: variance_table は与えた順に d_k ごとに1行を持ち、d_k と sqrt(d_k) が正確
    """
    dims = [16, 1, 64, 4]
    rows, what = _table(student, rng, dims, 500)
    for i, (row, d_k) in enumerate(zip(rows, dims)):
        got = number_value(row["d_k"])
        # d_k is a number: 16.0 is 16. Only a value of another row is a matter of order.
        order = (" (rows follow the order of dims)", "（行は dims の順）") if got in dims else ("", "")
        require(
            got == d_k,
            en=f'{what}[{i}]["d_k"] is {describe_value(row["d_k"])}; expected {d_k}{order[0]}.',
            ja=f'{what}[{i}]["d_k"] は {describe_value(row["d_k"])} でした。{d_k} が必要です{order[1]}。',
            expected=str(d_k),
            actual=describe_value(row["d_k"]),
        )
        assert_float(row["sqrt_d_k"], math.sqrt(d_k), rel=FLOAT32_CONSTANT_REL, what=f'{what}[{i}]["sqrt_d_k"]')


def test_variance_table_columns_consistent(student, rng):
    """variance_table's std is the square root of its variance
    ja: variance_table の std はその variance の平方根になっている
    """
    dims, n = [4, 64], 500
    rows, what = _table(student, rng, dims, n)
    for i, row in enumerate(rows):
        variance = assert_float(row["variance"], dims[i], rel=0.5, what=f'{what}[{i}]["variance"]')
        # 2/n leaves room for a std taken with another ddof than the variance: sqrt(n/(n-1)) - 1 < 1/n.
        assert_float(row["std"], math.sqrt(variance), rel=2.0 / n, what=f'{what}[{i}]["std"]')


def test_variance_table_values(student, rng, variant):
    """variance_table measures variance about d_k and scaled variance about 1
    ja: variance_table の分散はおよそ d_k、スケーリング後の分散はおよそ 1 になる
    """
    dims = [int(d) for d in variant["dims"]] if variant else [1, 16, 64]  # the student's own experiment
    n = N_SAMPLES
    rows, what = _table(student, rng, dims, n)
    for i, (row, d_k) in enumerate(zip(rows, dims)):
        rel = Z * _relative_se(d_k, n)
        assert_float(row["variance"], float(d_k), rel=rel, abs=0.0, what=f'{what}[{i}]["variance"]')
        assert_float(row["scaled_variance"], 1.0, rel=rel, abs=0.0, what=f'{what}[{i}]["scaled_variance"]')
