"""What an assignment's probes are written with: calling the student, findings, evidence helpers.

A recogniser (see :mod:`grader.hooks`) gets a :class:`Probe` bound to one part of one
submission. ``probe("double", x)`` calls the student's function in the sandbox and returns
plain data (ndarrays, floats, lists, dicts); ``probe.expect("part1", "double", x)`` gives the
right answer (the reference's when loaded, else the hooks'
``ORACLE``). It returns :class:`Finding` records: a catalogue id, the function, and the
evidence (the student's own numbers) the catalogue's message templates are filled with.

A student's ``NotImplementedError`` ends the function's probing as ``not-implemented``; any
other exception as ``unrecognised`` with the exception's type; a missing function is skipped
(the report says so already); a timeout or crash stops probing the part.

Helpers: :func:`arr` / :func:`num` (a returned value as float64 array / number, or None),
:func:`close`, :func:`same` (exactly equal: the test for a hardcoded answer), :func:`show`
(a value for a message), :func:`ratio` (the constant c with raw ≈ c · out), :func:`hardcoded`,
:func:`unrecognised`, :func:`randn` (seeded torch tensors), :func:`plain`.

Example::

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

from grader.diagnosis import (
    UNRECOGNISED,
    Finding,
    _arr as arr,
    _close as close,
    _hardcoded as hardcoded,
    _num as num,
    _plain as plain,
    _Probe as Probe,
    _randn as randn,
    _ratio as ratio,
    _same as same,
    _show as show,
    _unrecognised as unrecognised,
)
from grader.testing import describe_call

__all__ = [
    "UNRECOGNISED",
    "Finding",
    "Probe",
    "arr",
    "close",
    "describe_call",
    "hardcoded",
    "num",
    "plain",
    "randn",
    "ratio",
    "same",
    "show",
    "unrecognised",
]
