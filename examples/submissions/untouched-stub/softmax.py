"""第7章 課題2: softmax と飽和 -- スケーリングしないと何が起きるか
Chapter 7, part 2: softmax and saturation -- what goes wrong without scaling

softmax は指数関数 e^x を使うので、入力が大きいと出力が一つの要素に集中します (飽和)。
スコア [10, 8, 6] の softmax は最大値が約 0.867 ですが、8 で割った [1.25, 1.0, 0.75] では
約 0.419 です。飽和した softmax は勾配がほぼ 0 になり、学習が止まります。

Softmax uses the exponential e^x, so large inputs pile almost all of the probability onto one
entry (saturation). The scores [10, 8, 6] give a largest probability of about 0.867; divided by
8, as [1.25, 1.0, 0.75], they give about 0.419. A saturated softmax has a near-zero gradient,
so training stalls.

大きな入力 (1e4 程度) でも inf や nan を出さないこと、-inf (マスクされた位置) の確率が
ちょうど 0 になることが求められます。

Your softmax must stay finite for inputs around 1e4 and give exactly 0 to -inf entries
(masked positions).
"""

import math

import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """軸 dim に沿った softmax exp(x) / sum(exp(x)) を、オーバーフローせずに計算する。
    Return the softmax exp(x) / sum(exp(x)) along dim, computed without overflow.

    ヒント: e^1000 は float で表せません。分子と分母に同じ数を掛けても値は変わりません。
    Hint: e^1000 does not fit in a float, but multiplying the numerator and the denominator by
    the same number does not change the result.

    Args:
        x: スコア、任意の形 (float32 / float64) / scores, any shape (float32 or float64).
        dim: 正規化する軸 / the axis to normalise over.

    Returns:
        x と同じ形・dtype の確率。dim 方向の和が 1 /
        probabilities with x's shape and dtype, summing to 1 along dim.

    Example::

        >>> softmax(torch.tensor([10.0, 8.0, 6.0]))
        tensor([0.8668, 0.1173, 0.0159])
        >>> softmax(torch.tensor([1.0, float("-inf"), 1.0]))
        tensor([0.5000, 0.0000, 0.5000])
    """
    raise NotImplementedError("softmax: まだ実装されていません / not implemented yet")


def softmax_with_temperature(x: torch.Tensor, temperature: float, dim: int = -1) -> torch.Tensor:
    """温度付き softmax: softmax(x / temperature) を返す。
    Return the softmax with a temperature: softmax(x / temperature).

    温度が大きいほど分布はなだらかになります。temperature = sqrt(d_k) とすれば
    スケーリング済み softmax と一致します (スケーリングは「固定された温度」)。

    A higher temperature flattens the distribution. With temperature = sqrt(d_k) this is the
    scaled softmax: scaling is a fixed temperature.

    Args:
        x: スコア、任意の形 / scores, any shape.
        temperature: 正の数 / a positive number.
        dim: 正規化する軸 / the axis to normalise over.

    Returns:
        x と同じ形・dtype の確率 / probabilities with x's shape and dtype.

    Raises:
        ValueError: temperature <= 0 のとき / when temperature <= 0.

    Example::

        softmax_with_temperature(scores, 8.0) == softmax(scores / 8)  (d_k = 64)
    """
    raise NotImplementedError(
        "softmax_with_temperature: まだ実装されていません / not implemented yet"
    )


def compare_saturation(scores: torch.Tensor, d_k: int) -> dict:
    """1次元のスコアについて、スケーリングなし・ありの softmax の最大確率を比べる。
    For 1-D scores, compare the largest softmax probability without and with scaling.

    Args:
        scores: 1次元のスコア / 1-D raw scores.
        d_k: 1ヘッドあたりの次元数 / per-head dimension.

    Returns:
        {"unscaled": max(softmax(scores)), "scaled": max(softmax(scores / sqrt(d_k)))}
        値は Python の float / both values are Python floats.

    Example::

        章の例 [12, 9, 6, 3]、d_k = 64 では unscaled は約 0.950、scaled は約 0.403。
        The chapter's example [12, 9, 6, 3] with d_k = 64 gives unscaled ~ 0.950 and
        scaled ~ 0.403.
    """
    raise NotImplementedError("compare_saturation: まだ実装されていません / not implemented yet")


def softmax_jacobian(p: torch.Tensor) -> torch.Tensor:
    """softmax の出力 p におけるヤコビ行列 J = diag(p) - p p^T を返す。
    Return the Jacobian of softmax at its output p: J = diag(p) - p p^T.

    J[i, j] = p_i (1[i == j] - p_j)。p が飽和する (一つが 1 に、他が 0 に近づく) と
    J の成分はすべて 0 に近づきます。これが勾配消失です。

    J[i, j] = p_i (1[i == j] - p_j). As p saturates (one entry near 1, the others near 0) every
    entry of J approaches 0: this is the vanishing gradient.

    Args:
        p: 1次元の確率ベクトル、形 (n,) / a 1-D probability vector, shape (n,).

    Returns:
        形 (n, n) の行列 J / the matrix J, shape (n, n).

    Example::

        >>> softmax_jacobian(torch.tensor([0.5, 0.5]))
        tensor([[ 0.2500, -0.2500],
                [-0.2500,  0.2500]])
    """
    raise NotImplementedError("softmax_jacobian: まだ実装されていません / not implemented yet")


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """注意の出力 softmax(q k^T / sqrt(d_k)) v を返す (softmax は最後の軸)。
    Return the attention output softmax(q k^T / sqrt(d_k)) v (softmax over the last axis).

    torch.nn.functional.scaled_dot_product_attention と同じ値になるはずです。
    It must agree with torch.nn.functional.scaled_dot_product_attention.

    Args:
        q: 形 (..., n_q, d_k) / shape (..., n_q, d_k).
        k: 形 (..., n_k, d_k) / shape (..., n_k, d_k).
        v: 形 (..., n_k, d_v) / shape (..., n_k, d_v).

    Returns:
        形 (..., n_q, d_v) / shape (..., n_q, d_v).

    Example::

        q, k, v がすべて (1, 12, 10, 64) なら結果も (1, 12, 10, 64)。
        With q, k and v all of shape (1, 12, 10, 64) the result is (1, 12, 10, 64).
    """
    raise NotImplementedError("attention: まだ実装されていません / not implemented yet")
