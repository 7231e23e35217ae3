"""Tests for grader/kit/asserts.py: the assertions suites use on values from the worker."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from grader.kit import asserts as testing
from grader.kit.asserts import (
    ANSWER_KEY,
    Mismatch,
    assert_array,
    assert_close,
    assert_dict,
    assert_float,
    assert_int,
    assert_list,
    describe_call,
    quiz_question_ids,
    randn,
    raises_student,
    require,
    tolerance,
)
from grader.sandbox.session import StudentRaised


def bilingual(exc: pytest.ExceptionInfo[Mismatch]) -> tuple[str, str]:
    err = exc.value
    assert set(err.rationale) == {"en", "ja"}
    assert str(err) == err.rationale["en"]
    return err.rationale["en"], err.rationale["ja"]


# --- NaN and inf never pass -------------------------------------------------------------------


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_assert_close_rejects_non_finite(bad):
    actual = np.array([1.0, bad, 3.0], dtype=np.float32)
    with pytest.raises(Mismatch) as exc:
        assert_close(actual, [1.0, 2.0, 3.0], rtol=1.0, atol=1e9, what="f(x)")
    en, ja = bilingual(exc)
    assert "non-finite" in en and "(1,)" in en
    assert "有限でない" in ja


def test_assert_close_rejects_nan_even_without_finite_check_order():
    # NaN against a NaN expectation must not pass either.
    with pytest.raises(Mismatch):
        assert_close(np.array([np.nan]), np.array([np.nan]), rtol=1.0, atol=1.0)


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_assert_float_rejects_non_finite(bad):
    with pytest.raises(Mismatch):
        assert_float(bad, 1.0, rel=1e9, abs=1e9)


def test_require_is_positive_form():
    nan = float("nan")
    with pytest.raises(Mismatch):
        require(nan <= 1.0, en="e", ja="j")
    require(np.float64(0.5) <= 1.0, en="e", ja="j")  # a numpy bool is fine
    with pytest.raises(Mismatch):
        require(np.array([True, True]), en="e", ja="j")  # not a single bool: a test bug


# --- type strictness --------------------------------------------------------------------------


class Anything(float):
    def __eq__(self, other):
        return True

    def __le__(self, other):
        return True

    __hash__ = float.__hash__


class LyingArray(np.ndarray):
    def __array_ufunc__(self, *args, **kwargs):
        return True


def test_object_equal_to_everything_is_rejected():
    with pytest.raises(Mismatch) as exc:
        assert_float(Anything(0.0), 8.0)
    en, ja = bilingual(exc)
    assert "Anything" in en and "Anything" in ja
    with pytest.raises(Mismatch):
        assert_int(Anything(64.0), 64)


def test_ndarray_subclass_is_rejected():
    lying = np.zeros(3).view(LyingArray)
    with pytest.raises(Mismatch) as exc:
        assert_close(lying, np.zeros(3), rtol=1e-6, atol=1e-6, what="f(x)")
    en, _ = bilingual(exc)
    assert "subclass" in en
    with pytest.raises(Mismatch):
        assert_array(np.ma.masked_array([1.0, 2.0]))


def test_object_and_integer_arrays_are_rejected():
    with pytest.raises(Mismatch) as exc:
        assert_array(np.array([1.0, 2.0], dtype=object), what="f(x)")
    en, ja = bilingual(exc)
    assert "object" in en and "object" in ja
    with pytest.raises(Mismatch):
        assert_array(np.array([1, 2]))
    assert assert_array(np.array([1, 2]), dtype_kind="i").dtype.kind == "i"


def test_scalars_and_lists_only_when_allowed():
    with pytest.raises(Mismatch):
        assert_array([1.0, 2.0])
    arr = assert_array([[1.0, 2], [3, 4.5]], allow_scalar=True, shape=(2, 2))
    assert type(arr) is np.ndarray and arr.dtype == np.float64
    with pytest.raises(Mismatch):
        assert_array([1.0, True], allow_scalar=True)  # bool is not a number here
    with pytest.raises(Mismatch):
        assert_array([[1.0], [2.0, 3.0]], allow_scalar=True)  # ragged
    assert assert_close(2.0, 2.0, rtol=0, atol=0, allow_scalar=True).shape == ()
    with pytest.raises(Mismatch):
        assert_close(2.0, [2.0], rtol=0, atol=0, allow_scalar=True)  # shape () is not (1,)


def test_assert_float_types():
    assert assert_float(8, 8.0) == 8.0
    assert assert_float(np.array(8.0, dtype=np.float32), 8.0) == 8.0
    assert assert_float(np.array([8.0]), 8.0) == 8.0
    with pytest.raises(Mismatch):
        assert_float(True, 1.0)
    with pytest.raises(Mismatch) as exc:
        assert_float(np.array(8.0), 8.0, allow_array=False, what="g()")
    en, ja = bilingual(exc)
    assert ".item()" in en and ".item()" in ja
    with pytest.raises(Mismatch):
        assert_float(np.array([8.0, 8.0]), 8.0)
    with pytest.raises(Mismatch):
        assert_float("8.0", 8.0)


def test_assert_float_value_and_tolerance():
    assert_float(11.3137, math.sqrt(128), rel=1e-4)
    with pytest.raises(Mismatch) as exc:
        assert_float(27.71, 8.0, what="scaling_factor(768, 12)")
    en, ja = bilingual(exc)
    assert "27.71" in en and "27.71" in ja and "scaling_factor(768, 12)" in ja
    assert exc.value.expected == "8.0" and exc.value.actual == "27.71"


def test_assert_int():
    assert assert_int(64, 64) == 64
    with pytest.raises(Mismatch) as exc:
        assert_int(64.0, 64, what="head_dim(768, 12)")
    assert exc.value.help is not None and "//" in exc.value.help["en"] and "//" in exc.value.help["ja"]
    with pytest.raises(Mismatch):
        assert_int(True, 1)
    with pytest.raises(Mismatch) as exc:
        assert_int(63, 64)
    assert "63" in bilingual(exc)[1]


# --- shape, dtype and value messages ------------------------------------------------------------


def test_wrong_shape_message_in_both_languages():
    with pytest.raises(Mismatch) as exc:
        assert_close(np.zeros((1, 12, 3, 3), np.float32), torch.zeros(1, 3, 12, 3), rtol=0, atol=0, what="mha(q, k)")
    en, ja = bilingual(exc)
    assert "(1, 12, 3, 3)" in en and "(1, 3, 12, 3)" in en and "shape" in en
    assert "(1, 12, 3, 3)" in ja and "形状" in ja and "mha(q, k)" in ja


def test_wrong_dtype_message_in_both_languages():
    with pytest.raises(Mismatch) as exc:
        assert_close(np.zeros(3, np.float32), torch.zeros(3, dtype=torch.float64), rtol=0, atol=0, dtype="float64")
    en, ja = bilingual(exc)
    assert "float32" in en and "float64" in en
    assert "float32" in ja and "float64" in ja


def test_assert_close_reports_worst_index():
    expected = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    actual = expected.numpy().copy()
    actual[2, 1] += 0.5
    actual[0, 3] += 0.01
    with pytest.raises(Mismatch) as exc:
        assert_close(actual, expected, rtol=1e-6, atol=1e-6, what="f(x)")
    en, ja = bilingual(exc)
    assert "(2, 1)" in en and "2 of 12" in en and "9.5" in en
    assert "(2, 1)" in ja and "12 個中 2 個" in ja
    assert exc.value.expected == "9.0" and exc.value.actual == "9.5"


def test_assert_close_passes_within_tolerance_and_returns_array():
    expected = torch.tensor([1.0, -2.0, 1e4])
    actual = expected.numpy() * (1 + 1e-6)
    assert assert_close(actual, expected, **tolerance(torch.float32)) is actual


def test_expected_zero_mask():
    mask = np.array([[False, True], [False, False]])
    assert_close(np.array([[1.0, 0.0], [0.5, 0.5]]), [[1.0, 0.0], [0.5, 0.5]], rtol=0, atol=1e-6, expected_zero_mask=mask)
    with pytest.raises(Mismatch) as exc:
        assert_close(np.array([[1.0, 1e-9], [0.5, 0.5]]), [[1.0, 0.0], [0.5, 0.5]], rtol=0, atol=1e-6, expected_zero_mask=mask)
    en, ja = bilingual(exc)
    assert "exactly 0" in en and "(0, 1)" in en and "ちょうど 0" in ja


def test_assert_dict_and_list():
    assert assert_dict({"scaled": 0.4, "unscaled": 0.95}, ["unscaled", "scaled"]) == {"scaled": 0.4, "unscaled": 0.95}
    with pytest.raises(Mismatch) as exc:
        assert_dict({"scaled": 0.4, "max": 0.95}, ["unscaled", "scaled"])
    en, ja = bilingual(exc)
    assert "unscaled" in en and "max" in en and "unscaled" in ja
    with pytest.raises(Mismatch):
        assert_dict([("scaled", 0.4)], ["scaled"])
    assert assert_list([1, 2], 2) == [1, 2]
    with pytest.raises(Mismatch):
        assert_list((1, 2), 2)
    with pytest.raises(Mismatch):
        assert_list([1], 2)


# --- raises_student ---------------------------------------------------------------------------


def test_raises_student_passes_on_the_named_type():
    with raises_student("ValueError") as call:
        raise StudentRaised("ValueError", "n_heads must be positive", "scaling.py:12")
    assert call.raised is not None and call.raised.where == "scaling.py:12"


def test_raises_student_accepts_a_subclass_by_base_name():
    with raises_student("ValueError"):
        raise StudentRaised("HeadError", "bad", "", ["ValueError", "Exception", "BaseException", "object"])


def test_raises_student_wrong_type():
    with pytest.raises(Mismatch) as exc:
        with raises_student("ValueError", what="head_dim(768, 0)"):
            raise StudentRaised("ZeroDivisionError", "integer division or modulo by zero", "scaling.py:3")
    en, ja = bilingual(exc)
    assert "ZeroDivisionError" in en and "head_dim(768, 0)" in en
    assert "ZeroDivisionError" in ja


def test_raises_student_when_the_call_returns():
    with pytest.raises(Mismatch) as exc:
        with raises_student("ValueError", what="head_dim(768, 10)") as call:
            call.returned = 76.8
    en, ja = bilingual(exc)
    assert "returned 76.8" in en and "76.8" in ja
    assert exc.value.expected == "ValueError"


def test_raises_student_lets_other_errors_through():
    with pytest.raises(KeyError):
        with raises_student("ValueError"):
            raise KeyError("not a student error")


# --- inputs and descriptions ------------------------------------------------------------------


def test_randn_is_reproducible_and_typed():
    a = randn(np.random.default_rng(5), (2, 3))
    b = randn(np.random.default_rng(5), (2, 3))
    assert a.dtype == torch.float32 and a.shape == (2, 3) and torch.equal(a, b)
    c = randn(np.random.default_rng(5), 4, dtype=torch.float64, scale=100.0)
    assert c.dtype == torch.float64 and float(c.abs().max()) > 1.0


def test_describe_call():
    x = torch.zeros(4, 8)
    assert describe_call("scale_scores", x, d_k=64) == "scale_scores(float32[4, 8], d_k=64)"
    assert describe_call("scale_scores", scores=x, d_k=64) == "scale_scores(scores: float32[4, 8], d_k=64)"
    assert describe_call("head_dim", 768, 12) == "head_dim(768, 12)"
    assert describe_call(len, [1.0, 2]) == "len([1.0, 2])"
    assert describe_call("head_dim", 768.0, True) == "head_dim(768.0, True)"


def test_mismatch_fields_are_plain_data():
    err = Mismatch("8", "27.71", {"en": "divide by 8", "ja": "8 で割る"}, {"en": "h", "ja": "ヒント"})
    assert isinstance(err, AssertionError)
    assert (err.expected, err.actual, str(err), err.help) == ("8", "27.71", "divide by 8", {"en": "h", "ja": "ヒント"})


def test_student_raised_fields():
    exc = StudentRaised("ValueError", "bad", "scaling.py:7", ["Exception"])
    assert (exc.type_name, exc.message, exc.where, exc.bases) == ("ValueError", "bad", "scaling.py:7", ("Exception",))
    assert "ValueError: bad" in str(exc) and "scaling.py:7" in str(exc)


def test_quiz_question_ids():
    config = SimpleNamespace(stash=pytest.Stash())
    assert quiz_question_ids(config) == []
    config.stash[ANSWER_KEY] = {"head-dim-4096-32": {"type": "numeric", "answer": 128}}
    assert quiz_question_ids(config) == ["head-dim-4096-32"]


def test_tolerance_per_dtype():
    assert tolerance(torch.float64)["rtol"] < tolerance(torch.float32)["rtol"]
    assert tolerance("float32", 100.0)["atol"] == pytest.approx(100 * tolerance("float32")["atol"])


@pytest.mark.parametrize("name", [n for n in testing.__all__ if n.startswith("assert_")] + ["require"])
def test_helpers_hide_their_traceback(name):
    assert "__tracebackhide__" in getattr(testing, name).__code__.co_varnames


def test_raises_student_hides_its_traceback():
    assert "__tracebackhide__" in raises_student.__wrapped__.__code__.co_varnames


def test_exported_members():
    public = {n for n in vars(testing) if not n.startswith("_")} - {
        "annotations", "contextlib", "math", "np", "pytest", "torch", "Any", "Iterator", "Sequence",
        "dataclass", "field",
    }
    assert set(testing.__all__) == public


def _float64_scores(seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    q, k = torch.randn(2, 3, 32, generator=g, dtype=torch.float64), torch.randn(2, 6, 32, generator=g, dtype=torch.float64)
    return q @ k.transpose(-2, -1), q @ k.transpose(-2, -1) / math.sqrt(32)


def test_a_float32_constant_at_float64_precision_passes_with_a_note():
    from grader.i18n.messages import translate

    raw, want = _float64_scores()
    got = (raw * torch.rsqrt(torch.tensor(32.0))).numpy()  # 1/√32 rounded to float32
    tol = testing.tolerance(torch.float64, float(want.abs().max()))
    assert not np.allclose(got, want.numpy(), rtol=tol["rtol"], atol=tol["atol"])  # the plain check fails
    testing.take_notes()
    testing.assert_close(got, want, **tol, dtype="float64", what="attention_scores(q, k)")
    (note,) = testing.take_notes()
    assert note.startswith("attention_scores(q, k) agrees with the float64 result only to a relative ")
    assert "float32" in note and translate(note, "ja") != note and "float32 に丸められています" in translate(note, "ja")
    assert testing.take_notes() == []  # taken once


@pytest.mark.parametrize("how", ["float32-arithmetic", "factor-1e-5", "one-entry-off"])
def test_float64_precision_still_refuses_anything_but_one_rounded_constant(how):
    raw, want = _float64_scores(1)
    if how == "float32-arithmetic":  # computed in float32 and cast back: errors differ per entry
        g = torch.Generator().manual_seed(1)
        q, k = torch.randn(2, 3, 32, generator=g, dtype=torch.float64), torch.randn(2, 6, 32, generator=g, dtype=torch.float64)
        got = ((q.float() @ k.float().transpose(-2, -1)) / math.sqrt(32)).double().numpy()
    elif how == "factor-1e-5":
        got = (want * (1 + 1e-5)).numpy()
    else:
        got = want.clone().numpy()
        got[0, 0, 0] *= 1 + 1e-7
    tol = testing.tolerance(torch.float64, float(want.abs().max()))
    testing.take_notes()
    with pytest.raises(testing.Mismatch) as caught:
        testing.assert_close(got, want, **tol, dtype="float64", what="attention_scores(q, k)")
    assert testing.take_notes() == []
    # float32 arithmetic is told as that; a factor of 1 + 1e-5 is more than float32's rounding
    said_float32 = caught.value.actual.startswith(testing.FLOAT32_PRECISION)
    assert said_float32 == (how != "factor-1e-5"), caught.value.rationale["en"]


def test_a_float32_test_gains_no_constant_allowance():
    want = torch.ones(4, dtype=torch.float64)
    with pytest.raises(testing.Mismatch):
        testing.assert_close((want * (1 + 5e-5)).numpy(), want, rtol=2e-5, atol=0.0)
    assert testing.take_notes() == []


@pytest.mark.parametrize(("value", "number"), [
    (16, 16.0), (16.0, 16.0), (np.array(16.0), 16.0), (np.array([16], dtype=np.int64), 16.0),
    (True, None), ("16", None), (None, None), (np.zeros(2), None), ([16], None),
])
def test_number_value_compares_numbers_by_value(value, number):
    assert testing.number_value(value) == number


def test_a_value_that_could_not_come_back_is_described_by_its_type_and_why_in_both_languages():
    """What the worker sends for a value that is not plain data (its type's name), or for one it
    refused to send (why): described in words in each language, never as ``a Opaque``."""
    from grader.sandbox import wire
    from grader.kit.asserts import describe_value
    from grader.i18n.messages import in_both as _both

    big = describe_value(wire.Opaque("unsendable Tensor (ValueError: the value holds 381 MiB; at most 64 MiB "
                                     "can be returned)"))
    both = _both("check_not_numeric", what="scale_scores()", value=big)
    assert both["en"].startswith("scale_scores() returned a Tensor that cannot be returned (the value holds 381 MiB")
    assert "返せない Tensor（値の大きさが 381 MiB です。返せるのは 64 MiB までです）" in both["ja"]
    odd = _both("check_not_numeric", what="f()", value=describe_value(wire.Opaque("Widget")))
    assert "returned a Widget object;" in odd["en"] and "Widget のオブジェクト" in odd["ja"]
    assert "Opaque" not in big + odd["en"] + odd["ja"]


def test_float32_arithmetic_on_float64_inputs_is_explained_sentence_by_sentence():
    """a float64 test failed by float32 arithmetic says so, in both languages, with its numbers"""
    want = torch.tensor([[3.0, -1.5, 0.25], [2.0, 1.0 / 3.0, -7.0]], dtype=torch.float64) / math.sqrt(128)
    got = want.float().double().numpy()  # the student computed in float32 and cast back
    with pytest.raises(testing.Mismatch) as caught:
        testing.assert_close(got, want, rtol=1e-10, atol=1e-12, dtype="float64", what="scale_scores(x, d_k=128)")
    m = caught.value
    err = np.abs(got - want.numpy())
    count = int(np.count_nonzero(err > 1e-12 + 1e-10 * np.abs(want.numpy())))
    rel = float((err / np.abs(want.numpy())).max())
    assert (m.expected, m.actual) == ("float64 precision", "float32 precision (float64)")
    assert m.rationale["en"].split(". ") == [
        f"scale_scores(x, d_k=128): {count} of 6 values differ from the float64 result by up to a relative "
        f"{rel:.2g}, float32's rounding (the values came back as float64): the input is float64, so the result "
        "must keep float64 precision (allowed here: a relative 1e-10)",
        "Compute in the input's dtype: no .float(), no float32 tensors or numpy float32 in between.",
    ]
    assert m.rationale["ja"].split("。") == [
        f"scale_scores(x, d_k=128): 6 個中 {count} 個の値が float64 の結果と相対誤差 {rel:.2g} までずれています",
        "これは float32 の丸め誤差です（戻り値の dtype は float64）",
        "入力が float64 なので、結果も float64 の精度が必要です（ここでの許容は相対 1e-10）",
        "入力と同じ dtype で計算してください（.float() や、途中で float32 のテンソルや numpy の float32 を使わない）",
        "",
    ]


@pytest.mark.parametrize("returned", [
    torch.sqrt(torch.tensor(128.0)).numpy(),  # a 0-d float32 tensor, as it comes back
    np.float32(math.sqrt(128)).item(),  # numpy's float32, as a Python float
    float(np.float32(math.sqrt(128))),
])
def test_a_float32_square_root_passes_the_courses_float_tolerance(returned):
    """scaling_factor(4096, 32) computed in float32 is right: an untyped float compares at 1e-6"""
    assert abs(float(returned) - math.sqrt(128)) > 1e-9 * math.sqrt(128)  # not float64's digits
    assert assert_float(returned, math.sqrt(128), rel=testing.FLOAT32_CONSTANT_REL) == pytest.approx(math.sqrt(128))


def test_a_number_that_differs_is_shown_with_the_digits_that_differ():
    """11.3137 against 11.3137 says nothing: the failure shows as many digits as tell them apart"""
    value = float(np.float32(math.sqrt(128)))
    with pytest.raises(Mismatch) as caught:
        assert_float(value, math.sqrt(128), rel=1e-9, what="scaling_factor(4096, 32)")
    m = caught.value
    assert (m.actual, m.expected) == ("11.3137083", "11.3137085")
    assert m.rationale["en"] == ("scaling_factor(4096, 32) returned 11.3137083; expected 11.3137085 "
                                 "(allowed error 1.13e-08).")
    assert m.rationale["ja"] == ("scaling_factor(4096, 32) の戻り値は 11.3137083 でしたが、期待値は 11.3137085 です"
                                 "（許容誤差 1.13e-08）。")
    # an array: its worst entry, the same way
    with pytest.raises(Mismatch) as caught:
        assert_close(np.array([2.0, 1.000004]), np.array([2.0, 1.0000001]), rtol=1e-6, atol=0.0, what="f(x)")
    assert (caught.value.actual, caught.value.expected) == ("1.000004", "1.000000")
    assert "expected 1.000000, got 1.000004 (" in caught.value.rationale["en"]
    assert "期待値 1.000000 に対して 1.000004 でした" in caught.value.rationale["ja"]
