"""Assertions for the grading suites: type-strict, NaN-proof, bilingual.

Suites run in the trusted process and only ever see plain data coming back from the worker
(``numpy.ndarray``, ``float``, ``int``, ``bool``, ``str``, ``None``, ``list``, ``dict``). The
helpers here check that data in *positive form* (``error <= tolerance``), so a NaN, an object
that claims to equal everything, or an ``ndarray`` subclass can never pass by accident.

A failed check raises :class:`Mismatch`, an ``AssertionError`` that keeps ``expected``,
``actual``, a Japanese/English ``rationale`` and an optional ``help`` as fields, so report
writers can show them without re-parsing text.

Example::

    from grader.kit.asserts import assert_close, describe_call, randn

    def test_double(student, rng):
        x = randn(rng, (4, 8))
        got = student.part1.double(x)
        assert_close(got, x * 2, rtol=1e-5, atol=1e-6, what=describe_call("double", x))

This module must not import the pytest plugin: suites import it, and so does the plugin.

Sections: describing values and calls (for messages); inputs (:func:`randn`,
:func:`tolerance`); checks (``assert_*``, :func:`require`, :func:`raises_student`); quiz answers,
as people type them.
"""

from __future__ import annotations

import contextlib
import math
import re as _re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
import pytest
import torch

# messages and typing (above) are imported under private names: this module's public names are its __all__
from grader.i18n import messages as _messages
from grader.sandbox import wire as _wire
from grader.sandbox.session import StudentRaised

__all__ = [
    "ANSWER_KEY",
    "FLOAT32_CONSTANT_REL",
    "FLOAT32_PRECISION",
    "Mismatch",
    "RaisesOutcome",
    "StudentRaised",
    "assert_array",
    "assert_close",
    "assert_dict",
    "assert_float",
    "assert_int",
    "assert_list",
    "describe_call",
    "describe_value",
    "number_value",
    "UnreadableAnswers",
    "quiz_answer",
    "quiz_letter",
    "quiz_number",
    "quiz_question_ids",
    "randn",
    "raises_student",
    "require",
    "tolerance",
    "take_notes",
]

#: Where the plugin leaves the quiz answer key (``{question_id: {...}}``) on ``config.stash``,
#: so a suite can parametrize one test per question at collection time.
ANSWER_KEY = pytest.StashKey[dict[str, object]]()


class Mismatch(AssertionError):
    """A value the student returned is not what the test expects.

    Args:
        expected: short display form of what was expected.
        actual: short display form of what came back.
        rationale: ``{"en": ..., "ja": ...}``; ``str()`` of the error is the English one.
        help: optional ``{"en": ..., "ja": ...}`` hint on how to fix it.
    """

    def __init__(
        self,
        expected: str,
        actual: str,
        rationale: dict[str, str],
        help: dict[str, str] | None = None,  # noqa: A002 - the field name check50 made familiar
    ) -> None:
        self.expected = expected
        self.actual = actual
        self.rationale = dict(rationale)
        self.help = dict(help) if help is not None else None
        super().__init__(self.rationale["en"])

    def __str__(self) -> str:
        return self.rationale["en"]


def _fail(
    expected: str, actual: str, en: str, ja: str, help: dict[str, str] | None = None  # noqa: A002
) -> Mismatch:
    return Mismatch(expected, actual, {"en": en, "ja": ja}, help)


# ---------------------------------------------------------------------------------------------
# Describing values and calls (for messages)


def _fmt_number(x: float) -> str:
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    x = float(x)
    if math.isnan(x) or math.isinf(x):
        return str(x)
    text = f"{x:.6g}"
    # Keep a float looking like a float: 768.0, not 768 (which reads as an int argument).
    return text if any(c in text for c in ".e") else text + ".0"


def _fmt_pair(actual: float, expected: float) -> tuple[str, str]:
    """``actual`` and ``expected`` for a message that says they differ: six significant digits,
    or as many more as it takes for the two to read differently (float32's 11.3137083 against
    11.3137085, not 11.3137 against 11.3137)."""
    a, e = _fmt_number(actual), _fmt_number(expected)
    if a != e or isinstance(actual, (bool, np.bool_)) or isinstance(expected, (bool, np.bool_)):
        return a, e
    x, y = float(actual), float(expected)
    if x == y or not (math.isfinite(x) and math.isfinite(y)):
        return a, e
    for digits in range(7, 18):
        # "#" keeps the trailing zeros: both at the same precision (1.000004 against 1.000000)
        a, e = f"{x:#.{digits}g}", f"{y:#.{digits}g}"
        if a != e:
            break
    return a, e


def describe_value(value: object, *, limit: int = 60) -> str:
    """Render a value briefly for a message: ``float32[4, 8]``, ``8.0``, ``'abc'``, ``list[3]``.

    Only plain data and tensors the test itself made are described, so nothing here runs
    student code.
    """
    if isinstance(value, torch.Tensor):
        dtype = str(value.dtype).removeprefix("torch.")
        return f"{dtype}[{', '.join(str(n) for n in value.shape)}]"
    if type(value) is np.ndarray:
        if value.ndim == 0 and value.dtype.kind in "fiub":
            return f"{value.dtype}({_fmt_number(value.item())})"
        return f"ndarray {value.dtype}[{', '.join(str(n) for n in value.shape)}]"
    if isinstance(value, np.ndarray):
        return f"{type(value).__name__} (an ndarray subclass)"
    if value is None:
        return "None"
    if type(value) is bool or type(value) is int or type(value) is float:
        return _fmt_number(value)
    if type(value) is str:
        text = repr(value)
        return text if len(text) <= limit else text[: limit - 4] + "...'"
    if type(value) is list or type(value) is tuple:
        if len(value) <= 6 and all(type(v) in (int, float, bool) for v in value):
            text = "[" + ", ".join(_fmt_number(v) for v in value) + "]"
            if len(text) <= limit:
                return text
        return f"{type(value).__name__}[{len(value)}]"
    if type(value) is dict:
        keys = ", ".join(repr(k) for k in list(value)[:5])
        return "{" + keys + (", ..." if len(value) > 5 else "") + "}"
    if isinstance(value, _wire.Opaque):  # not plain data: its type's name, and why it could not come back
        unsendable = _re.fullmatch(r"unsendable (\S+) \((.*)\)", value.type_name, _re.DOTALL)
        if unsendable:
            why = unsendable[2].removeprefix("ValueError: ")  # (the worker's own refusal: its words alone)
            return _messages.said("unsendable_value", type=unsendable[1], why=why)
        return _messages.said("opaque_value", type=value.type_name)
    return f"a {type(value).__name__}"


def describe_call(func: object, *args: object, **kwargs: object) -> str:
    """Render a call for a message, e.g. ``double(float32[4, 8], times=2)``.

    Args:
        func: the function's name, or anything with a ``__name__``.
        *args: positional arguments as the test passed them.
        **kwargs: keyword arguments; tensors render as ``name: float32[4, 8]``.
    """
    name = func if isinstance(func, str) else getattr(func, "__name__", repr(func))
    parts = [describe_value(a) for a in args]
    for key, value in kwargs.items():
        sep = ": " if isinstance(value, (torch.Tensor, np.ndarray)) else "="
        parts.append(f"{key}{sep}{describe_value(value)}")
    return f"{name}({', '.join(parts)})"


# ---------------------------------------------------------------------------------------------
# Inputs


def randn(
    rng: np.random.Generator,
    shape: Sequence[int] | int,
    dtype: torch.dtype = torch.float32,
    scale: float = 1.0,
) -> torch.Tensor:
    """A tensor of N(0, scale²) entries drawn from the numpy ``rng`` (reproducible per test)."""
    data = rng.standard_normal(shape) * scale
    return torch.from_numpy(np.ascontiguousarray(data)).to(dtype)


def tolerance(dtype: object, magnitude: float = 1.0) -> dict[str, float]:
    """``rtol``/``atol`` suited to values computed in ``dtype`` whose typical size is ``magnitude``.

    float32 allows for a few rounding steps in a different order than the reference (a sum of
    ``d`` products, a different but equivalent formula); float64 is a million times tighter.
    """
    name = str(dtype).removeprefix("torch.")
    if name == "float64":
        return {"rtol": 1e-10, "atol": 1e-12 * magnitude}
    return {"rtol": 2e-5, "atol": 2e-6 * magnitude}


# ---------------------------------------------------------------------------------------------
# Checks

#: ``dtype.kind`` -> the label (grader.i18n.messages.LABELS) naming such numbers in a message.
_KIND_NAMES = {"f": "kind_f", "i": "kind_i", "b": "kind_b"}


def _as_plain_array(actual: object, what: str) -> np.ndarray:
    """Python float/int or a (nested) list of them -> float64 ndarray; anything else fails."""
    __tracebackhide__ = True

    def ok(v: object) -> bool:
        if type(v) in (float, int):
            return True
        return type(v) is list and all(ok(w) for w in v)

    if not ok(actual):
        raise _fail("an array of numbers", describe_value(actual),
                    **_messages.in_both("check_not_numeric", what=what, value=describe_value(actual)))
    try:
        return np.array(actual, dtype=np.float64)
    except ValueError:
        raise _fail("a rectangular array of numbers", "a ragged list", **_messages.in_both("check_ragged", what=what)) from None


def assert_array(
    actual: object,
    *,
    shape: Sequence[int] | None = None,
    dtype_kind: str = "f",
    dtype: object = None,
    finite: bool = True,
    allow_scalar: bool = False,
    what: str = "the function",
) -> np.ndarray:
    """Check that ``actual`` is a plain array of the right kind, shape and finiteness.

    Args:
        actual: what the student's function returned (already converted by the worker).
        shape: the required shape, or None for any.
        dtype_kind: required ``dtype.kind`` letters, e.g. ``"f"`` or ``"fi"``.
        dtype: if given, the exact dtype required (e.g. ``"float64"`` when precision matters).
        finite: require every entry to be finite.
        allow_scalar: also accept a Python float/int or a nested list of them.
        what: the call, for messages (see :func:`describe_call`).

    Returns:
        The array (for a scalar or list, a float64 copy).

    Raises:
        Mismatch: with a Japanese and English rationale.
    """
    __tracebackhide__ = True
    if type(actual) is np.ndarray:
        arr = actual
    elif allow_scalar and (type(actual) is float or type(actual) is int or type(actual) is list):
        arr = _as_plain_array(actual, what)
    else:
        raise _fail("an array of numbers", describe_value(actual),
                    **_messages.in_both("check_not_numeric", what=what, value=describe_value(actual)))

    _check_dtype(arr, dtype_kind, dtype, what)
    if shape is not None:
        _check_shape(arr, shape, what)
    if finite and arr.dtype.kind == "f":
        _check_finite(arr, what)
    return arr


#: The relative error a constant rounded to float32 brings (its epsilon is 1.2e-7, with room
#: for a constant computed in a few float32 steps): at float64 precision such a result is
#: still right, and the test says so in a note instead of taking the point. It is also the
#: course's tolerance for a returned number the contract types only as "float": float32
#: arithmetic (``torch.sqrt(torch.tensor(128.0))``) is a natural torch spelling of it.
FLOAT32_CONSTANT_REL = 1e-6

#: What a failed check shows as the student's value when float32 rounding alone made it fail
#: (:func:`assert_close` at float64 precision); the diagnosis names such a part's failure so.
FLOAT32_PRECISION = "float32 precision"

_NOTES: list[str] = []


def take_notes() -> list[str]:
    """The notes the checks of the test just run left (English, see grader.i18n.messages); cleared."""
    out = list(dict.fromkeys(_NOTES))
    _NOTES.clear()
    return out


def _constant_factor(a: np.ndarray, exp: np.ndarray, rtol: float, atol: float) -> float | None:
    """The relative error ``d`` when ``a`` is ``exp * (1 + d)`` to the tolerance, with ``|d|``
    at most :data:`FLOAT32_CONSTANT_REL` (a constant rounded to float32); else None."""
    scale = float(np.dot(exp.reshape(-1), exp.reshape(-1)))
    if rtol >= FLOAT32_CONSTANT_REL or scale == 0.0 or not np.all(np.isfinite(a)):
        return None
    d = float(np.dot(a.reshape(-1), exp.reshape(-1))) / scale - 1.0
    if not abs(d) <= FLOAT32_CONSTANT_REL:
        return None
    rest = np.abs(a - exp * (1.0 + d))
    return d if bool(np.all(rest <= atol + rtol * np.abs(exp))) else None


def _expected_array(expected: object) -> np.ndarray:
    # `expected` is computed by the test or the reference in this process: trusted.
    if isinstance(expected, torch.Tensor):
        array: np.ndarray = expected.detach().cpu().to(torch.float64).numpy()
        return array
    return np.asarray(expected, dtype=np.float64)


def _check_dtype(arr: np.ndarray, dtype_kind: str, dtype: object, what: str) -> None:
    __tracebackhide__ = True
    if arr.dtype.kind not in dtype_kind:
        kind = _KIND_NAMES.get(dtype_kind[0], "kind_any")
        raise _fail(
            f"dtype kind {dtype_kind!r}",
            str(arr.dtype),
            _messages.say("check_dtype_kind", "en", what=what, dtype=str(arr.dtype), kind=_messages.label(kind, "en")),
            _messages.say("check_dtype_kind", "ja", what=what, dtype=str(arr.dtype), kind=_messages.label(kind, "ja")),
        )
    if dtype is not None:
        want = np.dtype(str(dtype).removeprefix("torch."))
        if arr.dtype != want:
            raise _fail(str(want), str(arr.dtype),
                        **_messages.in_both("check_dtype", what=what, dtype=str(arr.dtype), want=str(want)))


def _check_shape(arr: np.ndarray, shape: Sequence[int], what: str) -> None:
    __tracebackhide__ = True
    want_shape = tuple(int(n) for n in shape)
    if arr.shape != want_shape:
        raise _fail(str(want_shape), str(arr.shape),
                    **_messages.in_both("check_shape", what=what, shape=str(arr.shape), want=str(want_shape)))


def _check_finite(arr: np.ndarray, what: str) -> None:
    __tracebackhide__ = True
    good = np.isfinite(arr)
    if not bool(good.all()):
        bad = np.argwhere(~good)
        first = tuple(int(i) for i in bad[0]) if arr.ndim else ()
        value = arr[first] if arr.ndim else arr.item()
        raise _fail("finite values", f"{len(bad)} non-finite",
                    **_messages.in_both("check_not_finite", what=what, count=len(bad), value=_fmt_number(value), index=str(first)))


def _worst(a: np.ndarray, exp: np.ndarray, err: np.ndarray, allowed: np.ndarray, ok: np.ndarray,
           what: str) -> Mismatch:
    """The failure of :func:`assert_close`, told at the entry that misses by the most."""
    excess = np.where(ok, -np.inf, err - allowed)
    idx = tuple(int(i) for i in np.unravel_index(int(np.argmax(excess)), exp.shape)) if exp.ndim else ()
    n_bad = int(exp.size - np.count_nonzero(ok))
    e_at, a_at = exp[idx], a[idx]
    max_err = float(err.max())
    actual_text, expected_text = _fmt_pair(a_at, e_at)
    return _fail(
        expected_text,
        actual_text,
        **_messages.in_both("check_values_differ", what=what, count=n_bad, size=int(exp.size), index=str(idx),
                expected=expected_text, actual=actual_text, error=f"{max_err:.3g}",
                allowed=f"{float(allowed[idx]):.3g}"),
    )


def _float32_rounding(arr: np.ndarray, a: np.ndarray, exp: np.ndarray, err: np.ndarray, ok: np.ndarray,
                      rtol: float, what: str) -> Mismatch | None:
    """The failure of a float64-precision check whose values are right to float32's precision:
    the student computed in float32 (returned float32, or cast back to float64 at the end)."""
    if rtol >= FLOAT32_CONSTANT_REL or exp.size == 0:
        return None
    # A few float32 roundings (its epsilon is 1.2e-7) of each value, or of the largest one where
    # a sum cancels; a common factor of 1 + 1e-5 is more than rounding and is told as it is.
    scale = float(np.abs(exp).max())
    if not bool(np.all(err <= 1e-6 * scale + 4e-6 * np.abs(exp))):
        return None
    rel = err / np.maximum(np.abs(exp), scale * 1e-3)  # near-zero entries: relative to the largest
    dtype = str(arr.dtype) if isinstance(arr, np.ndarray) else "float"
    return _fail("float64 precision", f"{FLOAT32_PRECISION} ({dtype})",
                 **_messages.in_both("check_float32_precision", what=what, count=int(exp.size - np.count_nonzero(ok)),
                                     size=int(exp.size), error=f"{float(rel.max()):.2g}", allowed=f"{rtol:.2g}",
                                     dtype=dtype))


def _check_zeros(a: np.ndarray, expected_zero_mask: object, what: str) -> None:
    __tracebackhide__ = True
    mask = np.asarray(
        expected_zero_mask.detach().cpu().numpy()
        if isinstance(expected_zero_mask, torch.Tensor)
        else expected_zero_mask,
        dtype=bool,
    )
    exact = a[mask] == 0.0
    if not bool(np.all(exact)):
        where_bad = np.argwhere(mask & (a != 0.0))
        idx = tuple(int(i) for i in where_bad[0])
        raise _fail("0.0", _fmt_number(a[idx]),
                    **_messages.in_both("check_masked_not_zero", what=what, index=str(idx), value=_fmt_number(a[idx])))


def assert_close(
    actual: object,
    expected: object,
    *,
    rtol: float,
    atol: float,
    what: str = "the function",
    expected_zero_mask: object = None,
    dtype: object = None,
    allow_scalar: bool = False,
) -> np.ndarray:
    """Check ``actual`` against ``expected`` elementwise: ``|a - e| <= atol + rtol * |e|``.

    ``actual`` is first checked with :func:`assert_array` (exact ``ndarray``, float, shape of
    ``expected``, all finite), so NaN and inf never pass. The comparison runs in float64.

    Args:
        actual: what the student returned.
        expected: trusted torch tensor, ndarray or nested list.
        rtol: relative tolerance.
        atol: absolute tolerance.
        what: the call, for messages.
        expected_zero_mask: boolean mask of entries that must be exactly ``0.0`` (for example
            masked attention positions).
        dtype: exact dtype required, if any.
        allow_scalar: accept a Python float or a list too.

    With a tolerance tighter than float32 (float64 precision), a result off by one common
    factor within :data:`FLOAT32_CONSTANT_REL` (a constant such as 1/√d_k rounded to float32)
    still passes; the report says so in a note.

    Returns:
        The student's array.
    """
    __tracebackhide__ = True
    exp = _expected_array(expected)
    arr = assert_array(
        actual, shape=exp.shape, dtype=dtype, allow_scalar=allow_scalar, what=what
    )
    a = arr.astype(np.float64)
    err = np.abs(a - exp)
    allowed = atol + rtol * np.abs(exp)
    ok = err <= allowed
    if not bool(np.all(ok)) and (d := _constant_factor(a, exp, rtol, atol)) is not None:
        ok = np.ones_like(ok)
        _NOTES.append(_messages.said("agrees_float64_result_only", what=what, error=f"{abs(d):.2g}"))
    if not bool(np.all(ok)):
        raise _float32_rounding(arr, a, exp, err, ok, rtol, what) or _worst(a, exp, err, allowed, ok, what)
    if expected_zero_mask is not None:
        _check_zeros(a, expected_zero_mask, what)
    return arr


def assert_float(
    actual: object,
    expected: float,
    *,
    rel: float = 1e-6,
    abs: float = 1e-12,  # noqa: A002 - mirrors pytest.approx
    what: str = "the function",
    allow_array: bool = True,
) -> float:
    """Check a single number: ``|a - e| <= abs + rel * |e|``.

    Accepts a Python ``float`` or ``int`` (never ``bool``), or, when ``allow_array``, an
    ``ndarray`` with exactly one element (a 0-d tensor comes back that way).

    Returns:
        The student's value as a float.
    """
    __tracebackhide__ = True
    exp = float(expected.item() if isinstance(expected, torch.Tensor) else expected)
    if type(actual) is float or type(actual) is int:
        value = float(actual)
    elif allow_array and type(actual) is np.ndarray and actual.size == 1 and actual.dtype.kind in "fi":
        value = float(actual.reshape(()).item())
    else:
        raise _fail("a number" if allow_array else "a Python float", describe_value(actual),
                    **_messages.in_both("check_not_a_number" if allow_array else "check_not_a_float", what=what,
                            value=describe_value(actual)))
    if not math.isfinite(value):
        raise _fail(_fmt_number(exp), _fmt_number(value),
                    **_messages.in_both("check_not_finite_number", what=what, value=_fmt_number(value), expected=_fmt_number(exp)))
    allowed = abs + rel * math.fabs(exp)
    if not (math.fabs(value - exp) <= allowed):
        value_text, expected_text = _fmt_pair(value, exp)
        raise _fail(expected_text, value_text,
                    **_messages.in_both("check_number_differs", what=what, value=value_text, expected=expected_text,
                            allowed=f"{allowed:.3g}"))
    return value


def number_value(actual: object) -> float | None:
    """``actual`` as a number when it is one: an int or float (never a bool), or an ndarray of one
    integer or floating-point element (a 0-d tensor comes back that way); else None.

    Where the contract names no type, ``16.0`` and ``16`` are the same number: compare what
    this returns.
    """
    if type(actual) is float or type(actual) is int:
        return float(actual)
    if type(actual) is np.ndarray and actual.size == 1 and actual.dtype.kind in "fiu":
        return float(actual.reshape(()).item())
    return None


def assert_int(actual: object, expected: int, *, what: str = "the function") -> int:
    """Check an exact integer result; ``bool`` and floats such as ``64.0`` are refused."""
    __tracebackhide__ = True
    if type(actual) is not int:
        integral_float = type(actual) is float and math.isfinite(actual) and actual.is_integer()
        raise _fail(
            str(expected) if integral_float else "an int",
            describe_value(actual),
            **_messages.in_both("check_not_an_int", what=what, value=describe_value(actual), type=type(actual).__name__),
            help={lang: _messages.say("check_int_floor_division", lang) for lang in ("en", "ja")} if integral_float else None,
        )
    if not (actual == expected):
        raise _fail(str(expected), str(actual),
                    **_messages.in_both("check_int_differs", what=what, value=str(actual), expected=str(expected)))
    return actual


def assert_dict(actual: object, keys: Sequence[str], *, what: str = "the function") -> dict[str, object]:
    """Check that ``actual`` is a plain ``dict`` with exactly the string ``keys`` (any order)."""
    __tracebackhide__ = True
    want = sorted(keys)
    if type(actual) is not dict:
        raise _fail(f"a dict with keys {want}", describe_value(actual),
                    **_messages.in_both("check_not_a_dict", what=what, value=describe_value(actual), keys=str(want)))
    got = sorted(repr(k) if type(k) is not str else k for k in actual)
    if got != want:
        missing = [k for k in want if k not in got]
        extra = [k for k in got if k not in want]
        raise _fail(str(want), str(got),
                    **_messages.in_both("check_dict_keys", what=what, got=str(got), keys=str(want), missing=str(missing),
                            extra=str(extra)))
    return actual


def assert_list(actual: object, length: int, *, what: str = "the function") -> list[object]:
    """Check that ``actual`` is a plain ``list`` of ``length`` items."""
    __tracebackhide__ = True
    if type(actual) is not list:
        raise _fail(f"a list of {length} items", describe_value(actual),
                    **_messages.in_both("check_not_a_list", what=what, value=describe_value(actual), length=length))
    if len(actual) != length:
        raise _fail(str(length), str(len(actual)),
                    **_messages.in_both("check_list_length", what=what, count=len(actual), length=length))
    return actual


def require(
    ok: object,
    *,
    en: str,
    ja: str,
    expected: str = "",
    actual: str = "",
    help: dict[str, str] | None = None,  # noqa: A002
) -> None:
    """Fail with a bilingual :class:`Mismatch` unless ``ok`` is exactly true.

    Write ``ok`` in positive form (``err <= tol``, not ``not err > tol``) so NaN fails.
    ``ok`` must be a Python or numpy ``bool``; anything else (an array, a student's object)
    is a bug in the test and fails too.
    """
    __tracebackhide__ = True
    if type(ok) not in (bool, np.bool_) or not bool(ok):
        raise _fail(expected, actual, en, ja, help)


@dataclass
class RaisesOutcome:
    """What :func:`raises_student` saw; set ``returned`` to name the value in the message."""

    returned: object = None
    raised: StudentRaised | None = field(default=None)


@contextlib.contextmanager
def raises_student(type_name: str | Sequence[str], *, what: str = "the call") -> Iterator[RaisesOutcome]:
    """Pass only if the block raises :class:`StudentRaised` of the given exception type.

    A subclass counts when the plugin reports its base-class names (``StudentRaised.bases``).

    Example::

        with raises_student("ValueError", what="halve(-1)") as call:
            call.returned = student.part1.halve(-1)
    """
    __tracebackhide__ = True
    names = (type_name,) if isinstance(type_name, str) else tuple(type_name)
    want = " or ".join(names)
    outcome = RaisesOutcome()
    try:
        yield outcome
    except StudentRaised as exc:
        outcome.raised = exc
        if exc.type_name in names or any(b in names for b in exc.bases):
            return
        raise _fail(want, exc.type_name, **_messages.in_both("check_raised_another", what=what, want=want, raised=str(exc))) from None
    shown = describe_value(outcome.returned)
    raise _fail(want, f"returned {shown}", **_messages.in_both("check_raised_nothing", what=what, want=want, value=shown))


def quiz_question_ids(config: pytest.Config) -> list[str]:
    """The quiz question ids the plugin put on ``config.stash[ANSWER_KEY]`` (empty if none)."""
    key = config.stash.get(ANSWER_KEY, None)
    return [str(k) for k in key] if key else []


# ---------------------------------------------------------------------------------------------
# Quiz answers, as people type them


class UnreadableAnswers(dict[str, object]):
    """The ``answers`` of a submission whose answers file could not be read: empty, with why.

    Args:
        problem: the reason in English, e.g. ``answers.yaml is not valid YAML (line 3, ...)``.
        problem_ja: the same in Japanese.
    """

    def __init__(self, problem: str, problem_ja: str = "") -> None:
        super().__init__()
        self.problem = problem
        self.problem_ja = problem_ja or problem


def quiz_answer(answers: object, question_id: str, *, file: str = "answers.yaml") -> object:
    """The student's answer to ``question_id``: ``answers[id]["answer"]`` as in the stub, or
    ``answers[id]``; ``None`` when there is none.

    Strings arrive NFKC-normalised (full-width letters and digits, ideographic spaces), since
    the grader normalises the whole file when it reads it. When the file could not be read
    at all, the test fails saying so, in both languages, instead of "no answer yet".
    """
    __tracebackhide__ = True
    if isinstance(answers, UnreadableAnswers):
        raise _fail(
            "a readable answers file",
            "unreadable",
            _messages.say("check_answers_unreadable", "en", question=question_id, file=file, problem=answers.problem),
            _messages.say("check_answers_unreadable", "ja", question=question_id, file=file, problem=answers.problem_ja),
        )
    if type(answers) is not dict:
        return None
    entry = answers.get(question_id)
    return entry.get("answer") if type(entry) is dict else entry


def quiz_number(value: object) -> float | None:
    """A numeric answer as a float (``2.5``, ``"2.5"``, ``" 11.31 "``), else None."""
    if type(value) is int or type(value) is float:
        return float(value)
    if type(value) is str:
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def quiz_letter(value: object) -> str | None:
    """A multiple-choice answer as one lower-case letter (``b``, ``B``, ``b)``, ``(b)``), else None."""
    if type(value) is not str:
        return None
    text = value.strip().strip("().").strip().lower()
    return text if len(text) == 1 and text.isalpha() else None
