"""第8章 課題: 因果マスク -- 未来のトークンを見ないようにする
Chapter 8: the causal mask -- keeping every token from seeing the future

GPT-2 は文章を左から右へ一語ずつ予測します。位置 i のトークンが参照してよいのは
位置 0, 1, ..., i (自分自身とそれより前) だけです。そこで softmax の前に、j > i の
スコアをすべて -inf に置き換えます。e^(-inf) = 0 なので、その確率はちょうど 0 になります。

GPT-2 predicts text left to right, one token at a time. The token at position i may use
positions 0, 1, ..., i only (itself and what came before). So before the softmax every score
with j > i is replaced by -inf; since e^(-inf) = 0, its probability is exactly 0.

第7章の事実はそのまま使います: GPT-2 small では d_k = 64 なので、スコアは 8 で割ります。

Chapter 7 still holds: in GPT-2 small d_k = 64, so the scores are divided by 8.

自分の実装を確かめるには future_leak を使ってください。正しい因果注意なら 0.0 です。

To check your own work, use future_leak: it is 0.0 for a correct causal attention.
"""

import math

import torch


def causal_mask(seq_len: int) -> torch.Tensor:
    """因果マスク: 位置 i から位置 j を参照してよいところ (j <= i) が True の bool 行列。
    Return the causal mask: a bool matrix that is True where position i may attend to j (j <= i).

    対角線を含む下三角が True、対角線より上が False です。

    The lower triangle, diagonal included, is True; everything above the diagonal is False.

    Args:
        seq_len: 系列の長さ (正の int) / the sequence length (a positive int).

    Returns:
        形 (seq_len, seq_len)、dtype torch.bool のテンソル /
        a tensor of shape (seq_len, seq_len) and dtype torch.bool.

    Raises:
        ValueError: seq_len が正の int でないとき / when seq_len is not a positive int.

    Example::

        >>> causal_mask(3)
        tensor([[ True, False, False],
                [ True,  True, False],
                [ True,  True,  True]])
    """
    raise NotImplementedError("causal_mask: まだ実装されていません / not implemented yet")


def apply_causal_mask(scores: torch.Tensor) -> torch.Tensor:
    """スコアの j > i の要素を -inf に置き換えた新しいテンソルを返す。
    Return a new tensor: scores with every entry j > i replaced by -inf.

    それ以外の要素は変えません。引数の scores そのものは書き換えないでください
    (呼び出し側がまだ使うかもしれません)。

    The other entries are unchanged. Do not modify scores itself: the caller may still need it.

    Args:
        scores: 形 (..., n, n) のスコア。前の軸はバッチやヘッド /
            scores of shape (..., n, n); leading axes are batch and heads.

    Returns:
        scores と同じ形・dtype のテンソル / a tensor with the shape and dtype of scores.

    Example::

        >>> apply_causal_mask(torch.ones(2, 2))
        tensor([[1., -inf],
                [1., 1.]])
    """
    raise NotImplementedError("apply_causal_mask: まだ実装されていません / not implemented yet")


def masked_softmax(scores: torch.Tensor) -> torch.Tensor:
    """因果マスクをかけてから、最後の軸で softmax を取る。
    Apply the causal mask, then take the softmax over the last axis.

    各行の和は 1、j > i の要素はちょうど 0、0 行目は必ず [1, 0, ..., 0] になります。
    大きさ 1e4 のスコアでも inf や nan を出さないこと (第7章の softmax を思い出してください)。

    Every row sums to 1, entries with j > i are exactly 0, and row 0 is always [1, 0, ..., 0].
    Stay finite for scores of magnitude 1e4 (remember chapter 7's softmax).

    ヒント: マスクは softmax の「前」にかけます。後からかけると行の和が 1 でなくなります。
    Hint: mask before the softmax, not after; masking afterwards leaves rows that no longer
    sum to 1.

    Args:
        scores: 形 (..., n, n) のスコア / scores of shape (..., n, n).

    Returns:
        scores と同じ形の確率 / probabilities with the shape of scores.
    """
    raise NotImplementedError("masked_softmax: まだ実装されていません / not implemented yet")


def causal_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """因果注意 softmax(mask(q k^T / sqrt(d_k))) v を計算する。
    Compute causal attention: softmax(mask(q k^T / sqrt(d_k))) v.

    d_k は q の最後の軸の長さです。結果は
    torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True) と一致します。

    d_k is the length of q's last axis. The result agrees with
    torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True).

    Args:
        q: 形 (..., n, d_k) / shape (..., n, d_k).
        k: 形 (..., n, d_k) / shape (..., n, d_k).
        v: 形 (..., n, d_v) / shape (..., n, d_v).

    Returns:
        形 (..., n, d_v) の出力 / the output, shape (..., n, d_v).
    """
    raise NotImplementedError("causal_attention: まだ実装されていません / not implemented yet")


def future_leak(attn_weights: torch.Tensor) -> float:
    """注意の重みが未来にどれだけ漏れているか: 自分より後ろの位置への重みの合計の、全行での最大値。
    Return how much attention leaks into the future: the largest total weight any row gives to
    the positions after itself.

    正しい因果注意なら 0.0 です。自分の masked_softmax の結果を渡して確かめてください。

    It is 0.0 for a correct causal attention. Pass it your masked_softmax's output to check it.

    Args:
        attn_weights: 形 (..., n, n) の重み / weights of shape (..., n, n).

    Returns:
        float。例えば softmax を全体にかけた (マスクなしの) 重みでは 0 より大きくなります /
        a float; for unmasked softmax weights, for example, it is above 0.

    Example::

        >>> future_leak(torch.tensor([[1.0, 0.0], [0.5, 0.5]]))
        0.0
        >>> future_leak(torch.tensor([[0.5, 0.5], [0.5, 0.5]]))
        0.5
    """
    raise NotImplementedError("future_leak: まだ実装されていません / not implemented yet")
