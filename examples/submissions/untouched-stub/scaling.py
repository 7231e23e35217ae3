"""第7章 課題1: スケーリング -- 注意スコアを sqrt(d_k) で割る
Chapter 7, part 1: scaling -- dividing attention scores by sqrt(d_k)

自己注意では Query と Key の内積 q.k をそのまま softmax に渡さず、定数 sqrt(d_k) で
割ってから渡します。d_k は「1ヘッドあたり」の次元数です。GPT-2 small なら埋め込みの
768 次元を 12 ヘッドに分けるので d_k = 64、割る数は 8 です (sqrt(768) = 27.71 ではありません)。

Self-attention does not feed the dot products q.k straight into softmax: it first divides
them by the constant sqrt(d_k), where d_k is the dimension of ONE head. GPT-2 small splits its
768-wide embeddings into 12 heads, so d_k = 64 and the divisor is 8 (not sqrt(768) = 27.71).

各関数の ``raise NotImplementedError`` を自分のコードに置き換えてください。torch でも
numpy でも構いません。torch.Tensor, numpy.ndarray, Python の数値のどれを返しても採点できます。

Replace each ``raise NotImplementedError`` with your own code. Use torch or numpy as you
like; returning a torch.Tensor, a numpy.ndarray or a plain Python number is fine.

float とだけ書かれた戻り値 (scaling_factor, variance_table の sqrt_d_k) は、期待値との相対誤差
1e-6 以内なら正解です。float32 で計算した値 (torch.sqrt(torch.tensor(128.0)) など、有効数字
約 7 桁) でも構いません。テンソルは入力の dtype の精度で比べます。float64 の入力には float64 の
精度が必要なので、入力と同じ dtype で計算してください。

A returned number the contract types only as float (scaling_factor, variance_table's
sqrt_d_k) is right within a relative 1e-6 of the expected value, so computing it in float32
(torch.sqrt(torch.tensor(128.0)), about 7 significant digits) is fine. Tensors are compared at
the precision of their input's dtype: float64 inputs need float64 precision, so compute in the
input's dtype.
"""

import math

import torch


def head_dim(d_model: int, n_heads: int) -> int:
    """1ヘッドあたりの次元数 d_k = d_model / n_heads を返す。
    Return the per-head dimension d_k = d_model / n_heads.

    d_model が n_heads で割り切れないとき、またはどちらかが正の整数でないとき
    (0、負の数、2.0 のような float、True/False) は ValueError を送出してください。

    Raise ValueError when d_model is not divisible by n_heads, or when either argument is
    not a positive int (zero, negative, a float such as 2.0, or a bool).

    Args:
        d_model: 埋め込みの次元数 / width of the embeddings (GPT-2 small: 768).
        n_heads: ヘッド数 / number of attention heads (GPT-2 small: 12).

    Returns:
        d_k (int)。GPT-2 small: 768 / 12 = 64.

    Raises:
        ValueError: 上の条件のとき / in the cases above, e.g. head_dim(768, 10).

    Example::

        >>> head_dim(768, 12)
        64
        >>> head_dim(4096, 32)
        128
    """
    raise NotImplementedError("head_dim: まだ実装されていません / not implemented yet")


def scaling_factor(d_model: int, n_heads: int) -> float:
    """スコアを割る数 sqrt(d_k) を返す (d_k = d_model / n_heads)。
    Return sqrt(d_k), the number the scores are divided by (d_k = d_model / n_heads).

    d_model そのものの平方根ではない点に注意してください。
    Note: it is the square root of the per-head d_k, not of d_model.

    Args:
        d_model: 埋め込みの次元数 / width of the embeddings.
        n_heads: ヘッド数 / number of heads.

    Returns:
        sqrt(d_k) (float。相対誤差 1e-6 以内なら正解 / right within a relative 1e-6)。
        GPT-2 small: sqrt(64) = 8.0; d_model 4096, 32 heads: sqrt(128) = 11.3137...

    Raises:
        ValueError: head_dim と同じ条件 / in the same cases as head_dim.

    Example::

        >>> scaling_factor(768, 12)
        8.0
    """
    raise NotImplementedError("scaling_factor: まだ実装されていません / not implemented yet")


def scale_scores(scores: torch.Tensor, d_k: int) -> torch.Tensor:
    """すべてのスコアを sqrt(d_k) で割る。大小関係も符号も変わらない。
    Divide every score by sqrt(d_k); their order and their signs stay the same.

    Args:
        scores: 内積 q.k のスコア、任意の形 / raw scores, any shape.
        d_k: 1ヘッドあたりの次元数 / per-head dimension.

    Returns:
        scores / sqrt(d_k)。形と dtype は入力と同じ / same shape and dtype as scores.

    Example::

        d_k = 64 なら 8 で割るので、40 は 5 に、-24 は -3 になります。
        With d_k = 64 the divisor is 8: 40 becomes 5 and -24 becomes -3.

        >>> scale_scores(torch.tensor([40.0, -24.0]), 64)
        tensor([ 5., -3.])
    """
    raise NotImplementedError("scale_scores: まだ実装されていません / not implemented yet")


def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """スケーリング済みの注意スコア q k^T / sqrt(d_k) を返す。d_k は最後の軸の長さ。
    Return the scaled attention scores q k^T / sqrt(d_k), with d_k read from the last axis.

    Args:
        q: Query、形 (..., n_q, d_k) / queries, shape (..., n_q, d_k).
        k: Key、形 (..., n_k, d_k) / keys, shape (..., n_k, d_k).

    Returns:
        形 (..., n_q, n_k) のスコア / scores of shape (..., n_q, n_k).

    Example::

        q, k の形が (2, 5, 64) なら結果は (2, 5, 5) で、8 で割られています。
        For q and k of shape (2, 5, 64) the result is (2, 5, 5), divided by 8.
    """
    raise NotImplementedError("attention_scores: まだ実装されていません / not implemented yet")


def multihead_attention_scores(q: torch.Tensor, k: torch.Tensor, n_heads: int) -> torch.Tensor:
    """q と k を GPT-2 と同じ方法でヘッドに分け、ヘッドごとのスケーリング済みスコアを返す。
    Split q and k into heads the way GPT-2 does and return every head's scaled scores.

    ヘッドへの分割は ``x.view(batch, seq, n_heads, d_k).transpose(1, 2)`` です。
    割る数は分割後の sqrt(d_k) で、sqrt(d_model) ではありません。

    Heads are split with ``x.view(batch, seq, n_heads, d_k).transpose(1, 2)``. Divide by the
    per-head sqrt(d_k) after the split, not by sqrt(d_model).

    Args:
        q: Query、形 (batch, seq, d_model) / queries, shape (batch, seq, d_model).
        k: Key、形 (batch, seq, d_model) / keys, shape (batch, seq, d_model).
        n_heads: ヘッド数 / number of heads; d_k = d_model / n_heads.

    Returns:
        形 (batch, n_heads, seq, seq) のスコア / scores of shape (batch, n_heads, seq, seq).

    Example::

        GPT-2 small: q, k の形 (1, 10, 768)、n_heads = 12 -> 結果は (1, 12, 10, 10)、
        各ヘッドで 8 (= sqrt(64)) で割る。27.71 (= sqrt(768)) で割るのは誤りです。
        GPT-2 small: q, k of shape (1, 10, 768), n_heads = 12 -> result (1, 12, 10, 10),
        each head divided by 8 = sqrt(64). Dividing by 27.71 = sqrt(768) is the classic slip.
    """
    raise NotImplementedError(
        "multihead_attention_scores: まだ実装されていません / not implemented yet"
    )
