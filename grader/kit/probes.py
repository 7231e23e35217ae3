"""The words an assignment's recognisers are written in: a probe into the student's code, findings.

Recognition is by behaviour only. After a submission's tests, the diagnosis
(:func:`grader.grading.diagnosis.diagnose`) calls the
student's functions again through the same sandboxed session (``session.call``) on probe
inputs the assignment's recognisers choose (``plugin.hooks`` of its rubric, see
:mod:`grader.kit.hooks`), and words what they find with the assignment's catalogue.

A recogniser gets a :class:`Probe` bound to one part of one submission. ``probe("double", x)``
calls the student's function in the sandbox and returns plain data (ndarrays, floats, lists,
dicts); ``probe.args_after("double", x)`` also returns the arguments as the call left them;
``probe.expect("part1", "double", x)`` gives the right answer (the reference's when loaded, else
the hooks' ``ORACLE``). It returns :class:`Finding` records: a catalogue id, the function, and
the evidence (the student's own numbers) the catalogue's message templates are filled with.

Cost: only the parts whose tests failed are probed (a part that passed is named nothing, and
a correct submission costs no call at all). A student's ``NotImplementedError`` ends the
function's probing as ``not-implemented``; another exception as ``unrecognised`` with its type
(a recogniser may catch :class:`Raised` to judge it); a missing function is skipped (the report
says so already); a timeout or crash stops probing that part only.

Helpers: :func:`arr` / :func:`num` (a returned value as float64 array / number, or None),
:func:`close`, :func:`same` (exactly equal: the test for a hardcoded answer), :func:`show`
(a value for a message), :func:`ratio` (the constant c with raw ≈ c · out), :func:`pick`,
:func:`hardcoded`, :func:`unrecognised`, :func:`gen` / :func:`randn` (seeded torch), :func:`plain`.

Example (the recogniser ``grader new`` writes)::

    def _double(p: Probe) -> list[Finding]:       # part1.double(x) should return 2 x
        x = randn(7, 4, 4)
        got = arr(p("double", x))
        if close(got, p.expect("part1", "double", x)):
            return []
        if close(got, x.double().numpy()):
            return [Finding("returns-input", "double", {"call": describe_call("double", x)})]
        return unrecognised("double", call=describe_call("double", x))
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import torch

from grader.errors import SandboxError
from grader.kit.signature import (
    SIGNATURE_CALLS,
    SIGNATURE_TEXT,
    SIGNATURE_TOTAL,
    UNRECOGNISED,
    CallRecord,
    same_signature,
    signature_of,
)
from grader.sandbox.session import Echoed, Session, StudentRaised, StudentTimeout, StudentUnavailable
from grader.sandbox.wire import WireValue
from grader.kit.asserts import describe_call

__all__ = [
    "UNRECOGNISED", "Finding", "NotImplementedByStudent", "Probe", "ProbeStopped", "Raised", "Unavailable", "arr",
    "close", "describe_call", "gen", "hardcoded", "num", "pick", "plain", "randn", "ratio", "same",
    "same_signature", "show", "signature_of", "unrecognised",
]



@dataclass
class Finding:
    """One function's behaviour matched ``id`` (or nothing known: ``unrecognised``)."""

    id: str
    function: str
    #: what the catalogue's message templates are filled with (the student's own numbers), and
    #: what the report keeps
    evidence: dict[str, object] = field(default_factory=dict)


# --------------------------------------------------------------------------- calling


class ProbeStopped(Exception):
    """The session timed out or crashed: stop probing this part (the diagnosis moves on)."""


class Unavailable(Exception):
    """No such function, or its file did not load."""


class NotImplementedByStudent(Exception):
    """The function still raises NotImplementedError."""


class Raised(Exception):
    """The student's function raised ``type_name`` (a recogniser may catch it to judge it)."""

    def __init__(self, type_name: str, message: str) -> None:
        super().__init__(f"{type_name}: {message}")
        self.type_name = type_name
        self.message = message


class Probe:
    """Calls into the student's part, and computes expected values on the trusted side."""

    def __init__(self, session: Session, part: str, reference: object,
                 oracle: Mapping[str, Callable[..., object]] | None = None,
                 variant: Mapping[str, object] | None = None) -> None:
        self.session = session
        self.part = part
        self.reference = reference
        self.oracle = oracle or {}
        #: the student's own numbers (their variant's values, e.g. d_model, n_heads, d_k), or None
        self.variant: Mapping[str, object] | None = variant
        self.calls = 0
        #: function -> what its calls returned, bounded (:func:`signature_of`): the behaviour
        #: signature an unrecognised failure keeps in the report
        self.log: dict[str, list[CallRecord]] = {}

    def __call__(self, func: str, *args: object, **kwargs: object) -> WireValue:
        with self._calling(func, args, kwargs):
            out = self.session.call(self.part, func, list(args), dict(kwargs))
        self._record(func, args, kwargs, value=out)
        return out

    def args_after(self, func: str, *args: object) -> Echoed:
        """Like calling, but also returns the positional arguments as the call left them."""
        with self._calling(func, args, {}):
            echoed = self.session.call(self.part, func, list(args), {}, echo_args=True)
        self._record(func, args, {}, value=echoed[0])
        return echoed

    @contextlib.contextmanager
    def _calling(self, func: str, args: Sequence[object], kwargs: Mapping[str, object]) -> Iterator[None]:
        """Count one call; what the session raises becomes what a recogniser catches."""
        self.calls += 1
        try:
            yield
        except StudentRaised as exc:
            if exc.type_name == "NotImplementedError" or "NotImplementedError" in exc.bases:
                raise NotImplementedByStudent from None
            self._record(func, args, kwargs, raised=exc.type_name)
            raise Raised(exc.type_name, exc.message) from None
        except StudentUnavailable:
            raise Unavailable from None
        except (StudentTimeout, SandboxError):
            self._record(func, args, kwargs, raised="timeout")
            raise ProbeStopped from None

    def _record(self, func: str, args: Sequence[object], kwargs: Mapping[str, object], *,
                raised: str | None = None, value: WireValue = None) -> None:
        calls = self.log.setdefault(func, [])
        if len(calls) >= SIGNATURE_CALLS or sum(map(len, self.log.values())) >= SIGNATURE_TOTAL:
            return
        try:
            call = describe_call(func, *args, **kwargs)[:200]
        except Exception:  # noqa: BLE001 - a description is a nicety
            call = func
        if raised is not None:
            calls.append({"call": call, "raised": str(raised)[:SIGNATURE_TEXT]})
        else:
            # (mypy takes a ** item in a TypedDict display to need every optional key: the cast)
            calls.append(cast(CallRecord, {"call": call, **signature_of(value)}))

    def expect(self, part: str, func: str, *args: object) -> Any:
        """The right answer: the reference's when it is loaded, else torch's, as plain data.

        Typed ``Any``: it is what the course's own reference (or oracle) returns, whose shape the
        recogniser's author knows and the kit cannot (a student's value is a ``WireValue``)."""
        module = getattr(self.reference, part, None) if self.reference is not None else None
        if module is not None and hasattr(module, func):
            return plain(getattr(module, func)(*args))
        return plain(self.oracle[func](*args))


# --------------------------------------------------------------------------- plain values


def plain(value: object) -> object:
    """A trusted value as the wire would bring it back: a tensor as a float64 array, numpy
    scalars as Python numbers, tuples as lists (anything else as it is)."""
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().double().numpy()
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def arr(value: object) -> np.ndarray | None:
    """A student's value as a float64 array, or None when it is not numeric."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return np.array(float(value))
    try:
        out = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    return out


def num(value: object) -> float | None:
    a = arr(value)
    if a is None or a.size != 1:
        return None
    return float(a.reshape(()))


def close(got: object, want: object, rtol: float = 1e-4, atol: float = 1e-6) -> bool:
    g, w = arr(got), arr(want)
    if g is None or w is None or g.shape != w.shape:
        return False
    return bool(np.all(np.isfinite(g)) and np.allclose(g, w, rtol=rtol, atol=atol))


def same(a: object, b: object) -> bool:
    """Exactly the same value (the test for a hardcoded answer)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    x, y = arr(a), arr(b)
    if x is None or y is None:
        return bool(a == b) if type(a) is type(b) and isinstance(a, (str, list)) else False
    return x.shape == y.shape and bool(np.array_equal(x, y, equal_nan=True))


def show(value: object) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {show(v)}" for k, v in list(value.items())[:4]) + "}"
    a = arr(value)
    if a is None:
        return type(value).__name__
    if a.ndim == 0:
        return f"{float(a):.6g}"
    flat = ", ".join(f"{x:.4g}" for x in a.reshape(-1)[:4])
    return f"[{flat}{', ...' if a.size > 4 else ''}] (shape {list(a.shape)})"



# --------------------------------------------------------------------------- inference


def ratio(raw: np.ndarray, out: object) -> float | None:
    """The constant c with raw ≈ c · out, or None when no single constant explains out."""
    o = arr(out)
    if o is None or o.shape != raw.shape or not np.all(np.isfinite(o)):
        return None
    big = np.abs(raw) > 1e-2 * np.abs(raw).max()
    big &= np.abs(o) > 1e-12
    if big.sum() < 2:
        return None
    ratios = raw[big] / o[big]
    r = float(np.median(ratios))
    if r == 0 or not math.isfinite(r):
        return None
    within = np.abs(ratios / r - 1.0) < 2e-3
    return r if within.mean() >= 0.9 else None




def pick(findings: list[Finding | None]) -> list[Finding]:
    """The first probe's finding wins (probes are ordered: the chapter's numbers first)."""
    real = [f for f in findings if f is not None]
    return real[:1]


def hardcoded(func: str, call_a: str, out_a: object, call_b: str, out_b: object) -> Finding | None:
    if same(out_a, out_b):
        return Finding("hardcoded-output", func, {"call": call_a, "other_call": call_b,
                                                  "value": show(out_a)})
    return None


def unrecognised(func: str, **evidence: object) -> list[Finding]:
    return [Finding(UNRECOGNISED, func, evidence)]


def gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def randn(seed: int, *shape: int, scale: float = 1.0) -> torch.Tensor:
    return torch.randn(*shape, generator=gen(seed)) * scale


