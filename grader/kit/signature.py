"""Behaviour signatures: a bounded record of what a student's function returned on probe inputs.

:class:`grader.kit.probes.Probe` records every call a recogniser makes (:func:`signature_of`
each value); an ``unrecognised`` mistake keeps its functions' records in its evidence
(``probes``), and :mod:`grader.insight.unknown_mistakes` groups submissions whose records agree
(:func:`same_signature`). A catalogue entry written from a cluster (``signature:``) is
recognised the same way. Every value is the student's: a signature is small whatever
they return (:data:`SIGNATURE_CALLS` ...). No torch here: the class summary reads these.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:  # imported where used: a class summary of reports without such a record needs no numpy
    import numpy as np

__all__ = ["UNRECOGNISED", "SIGNATURE_CALLS", "SIGNATURE_TEXT", "SIGNATURE_TOTAL", "SIGNATURE_VALUES", "CallRecord",
           "Signature", "same_signature", "signature_of"]

#: The framework's id for a failure that no catalogue entry explains.
UNRECOGNISED = "unrecognised"
#: Calls kept per function and in all, numbers kept per call, characters kept of a string.
SIGNATURE_CALLS, SIGNATURE_TOTAL, SIGNATURE_VALUES, SIGNATURE_TEXT = 12, 48, 24, 80


class Signature(TypedDict, total=False):
    """One returned value, bounded: numbers (``shape`` to ``sum``), or else ``text``."""

    #: a string's first characters, or the type's name of a value that is not numbers
    text: str
    #: a dict of numbers: its first keys, sorted (``values`` then follow that order)
    keys: list[str]
    shape: list[int]
    n: int
    #: the first numbers, each to 6 significant digits (inf and nan as text)
    values: list[float | str]
    sum: float | str


class _Called(TypedDict):
    call: str


class CallRecord(_Called, Signature, total=False):
    """One probe call in a :class:`grader.kit.probes.Probe`'s log: the call as written, and the
    :class:`Signature` of what it returned or the exception type it ``raised``."""

    raised: str


def signature_of(value: object) -> Signature:
    """A bounded summary of one returned value: its shape, its first numbers (6 significant
    digits), their count and sum; a string's first characters; else the type's name.

    >>> signature_of([1.0, 2.0])
    {'shape': [2], 'n': 2, 'values': [1.0, 2.0], 'sum': 3.0}
    """
    import numpy as np

    if isinstance(value, dict):
        chosen = sorted(list(value)[:16], key=str)
        keys = [str(k)[:SIGNATURE_TEXT] for k in chosen]
        nums = [_number(value[k]) for k in chosen]
        if all(n is not None for n in nums):
            value = nums
            out: Signature = {"keys": keys}
        else:
            return {"text": ("dict " + ", ".join(keys))[:SIGNATURE_TEXT]}
    else:
        out = {}
    if isinstance(value, str):
        return {"text": value[:SIGNATURE_TEXT]}
    a = _array(value)
    if a is None:
        return {"text": type(value).__name__[:SIGNATURE_TEXT]}
    flat = a.reshape(-1)
    with np.errstate(all="ignore"):
        total = float(np.sum(flat)) if flat.size else 0.0
    return {**out, "shape": [int(d) for d in a.shape[:8]], "n": int(flat.size),
            "values": [_sig(float(x)) for x in flat[:SIGNATURE_VALUES]], "sum": _sig(total)}


def _sig(x: float) -> float | str:
    """A number to 6 significant digits; inf and nan as text (YAML and JSON keep them)."""
    return float(f"{x:.6g}") if math.isfinite(x) else repr(x)


def same_signature(a: Sequence[Mapping[str, object]], b: Sequence[Mapping[str, object]], rtol: float = 1e-3) -> bool:
    """Two probe logs (lists of :class:`CallRecord`, as a report or a catalogue holds them: read
    back from a file) show the same behaviour: the same calls in the same order, the same
    exception types, values equal to ``rtol``."""
    if len(a) != len(b) or not a:
        return False
    for x, y in zip(a, b):
        if x.get("call") != y.get("call") or x.get("raised") != y.get("raised") or x.get("text") != y.get("text"):
            return False
        if x.get("shape") != y.get("shape") or x.get("n") != y.get("n"):
            return False
        vx, vy = x.get("values"), y.get("values")
        if (vx is None) != (vy is None):
            return False
        if vx is None:
            continue
        if not isinstance(vx, Iterable) or not isinstance(vy, Iterable):
            return False
        if not _close_lists([*vx, x.get("sum", 0.0)], [*vy, y.get("sum", 0.0)], rtol):
            return False
    return True


def _close_lists(a: list[object], b: list[object], rtol: float) -> bool:
    import numpy as np

    if len(a) != len(b):
        return False
    try:
        x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return bool(np.allclose(x, y, rtol=rtol, atol=1e-5, equal_nan=True))


def _array(value: object) -> np.ndarray | None:
    import numpy as np

    if isinstance(value, bool) or value is None:
        return None
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        return None


def _number(value: object) -> float | None:
    a = _array(value)
    return float(a.reshape(())) if a is not None and a.size == 1 else None
