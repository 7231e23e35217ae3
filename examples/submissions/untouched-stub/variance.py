"""第7章 課題3: 分散 -- なぜ d_k ではなく sqrt(d_k) なのか
Chapter 7, part 3: variance -- why sqrt(d_k) and not d_k

q と k の各成分が平均 0、分散 1 の独立な乱数なら、積 q_i k_i の分散は 1、それを d_k 個
足した内積 q.k の分散は d_k、標準偏差は sqrt(d_k) です。sqrt(d_k) で割ると分散は
d_k / d_k = 1 に戻ります。d_k で割ると分散は 1 / d_k になり、小さくなりすぎます。
ここではこの理論を乱数で確かめます。

If every entry of q and k is an independent random number with mean 0 and variance 1, each
product q_i k_i has variance 1, so the dot product q.k (a sum of d_k of them) has variance d_k
and standard deviation sqrt(d_k). Dividing by sqrt(d_k) brings the variance back to
d_k / d_k = 1; dividing by d_k would shrink it to 1 / d_k. Here you check this with random
numbers.

乱数は引数 seed で初期化した生成器から引いてください (例: torch.Generator().manual_seed(seed)
や numpy.random.default_rng(seed))。同じ seed なら同じ値、異なる seed なら異なる値になります。

Draw from a generator seeded with the argument seed (for example
torch.Generator().manual_seed(seed) or numpy.random.default_rng(seed)): the same seed must
give the same value, and different seeds different values.
"""

import math

import torch


def dot_product_variance(d_k: int, n_samples: int = 10000, seed: int = 0) -> float:
    """成分が N(0, 1) の q, k を n_samples 組引き、内積 q.k の標本分散を返す。
    Draw n_samples pairs q, k with N(0, 1) entries and return the sample variance of q.k.

    Args:
        d_k: q, k の長さ / length of q and k.
        n_samples: (q, k) の組の数 / number of (q, k) pairs.
        seed: 乱数生成器の seed / seed of the random generator.

    Returns:
        内積の標本分散 (float)。d_k に近い値 / the sample variance (a float), close to d_k.

    Example::

        d_k = 64 なら約 64 (標準偏差は約 8)。
        For d_k = 64 you should get about 64 (a standard deviation of about 8).
    """
    raise NotImplementedError("dot_product_variance: まだ実装されていません / not implemented yet")


def scaled_dot_product_variance(d_k: int, n_samples: int = 10000, seed: int = 0) -> float:
    """dot_product_variance と同じ実験で、各内積を sqrt(d_k) で割ってから分散を求める。
    The same experiment as dot_product_variance, dividing each dot product by sqrt(d_k) first.

    Args:
        d_k: q, k の長さ / length of q and k.
        n_samples: (q, k) の組の数 / number of (q, k) pairs.
        seed: 乱数生成器の seed / seed of the random generator.

    Returns:
        スケーリング後の標本分散 (float)。d_k によらず 1 に近い /
        the sample variance after scaling (a float), close to 1 for every d_k.

    Example::

        d_k = 64 でも 1024 でも約 1.0。
        About 1.0 for d_k = 64 and for d_k = 1024 alike.
    """
    raise NotImplementedError(
        "scaled_dot_product_variance: まだ実装されていません / not implemented yet"
    )


def variance_table(dims: list[int], n_samples: int = 10000, seed: int = 0) -> list[dict]:
    """章の表を実測で作る: dims の各 d_k について1行、dims と同じ順に並べる。
    Measure the chapter's table: one row per d_k in dims, in the same order.

    Args:
        dims: d_k のリスト / the d_k values, e.g. [64, 128, 256, 1024].
        n_samples: 1行あたりの (q, k) の組の数 / number of (q, k) pairs per row.
        seed: 乱数生成器の seed / seed of the random generator.

    Returns:
        各行は辞書 / each row is a dict
        {"d_k": int, "variance": 内積の分散 / variance of q.k,
         "std": その平方根 / its square root,
         "sqrt_d_k": sqrt(d_k) (相対誤差 1e-6 以内 / within a relative 1e-6),
         "scaled_variance": sqrt(d_k) で割った後の分散 / variance after dividing by sqrt(d_k)}

    Example::

        d_k = 64 の行は variance 約 64、std 約 8、sqrt_d_k 8.0、scaled_variance 約 1。
        d_k = 1024 の行は variance 約 1024、std 約 32、sqrt_d_k 32.0、scaled_variance 約 1。
        The row for d_k = 64: variance ~ 64, std ~ 8, sqrt_d_k 8.0, scaled_variance ~ 1.
        The row for d_k = 1024: variance ~ 1024, std ~ 32, sqrt_d_k 32.0, scaled_variance ~ 1.
    """
    raise NotImplementedError("variance_table: まだ実装されていません / not implemented yet")
