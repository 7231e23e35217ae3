"""Plain data across the sandbox boundary.

Both sides of the channel import this module: the trusted grader and the sandboxed worker
(which loads it as a plain file, so it imports only the standard library and numpy; torch is
looked up lazily and only where the caller already has it).

A value on the wire is JSON built from:

======================  =========================================================
Python value            JSON form
======================  =========================================================
None, bool, int, str    themselves
finite float            itself
nan / inf / -inf        ``{"$f": "nan"}`` / ``{"$f": "inf"}`` / ``{"$f": "-inf"}``
list, tuple             ``[...]`` (a tuple comes back as a list)
dict (str keys)         ``{"$d": [[key, value], ...]}``
numpy array             ``{"$a": {"dtype": "<f4", "shape": [2, 3], "b64": "..."}}``
torch tensor            ``{"$t": {...same as $a...}}`` (decoded as a tensor where torch is loaded)
anything else           ``{"$o": "<type name>"}`` (never an object: just its name)
======================  =========================================================

Frames are a 4-byte big-endian length followed by that many bytes of UTF-8 JSON. Nothing is
ever pickled, and decoding checks dtype, shape and byte count before building an array.

Example::

    >>> decode(encode({"x": float("nan")}))["x"] != 0
    True
"""

from __future__ import annotations

import base64
import json
import math
import os
import struct
import sys
from typing import Any

import numpy as np

#: dtypes allowed on the wire (numeric and bool; never object, never structured).
ALLOWED_DTYPES = frozenset(
    ["|b1", "|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f2", "<f4", "<f8"]
)
#: the largest frame either side accepts (bytes).
MAX_FRAME = 256 * 1024 * 1024
#: how deep nested lists/dicts may go before the value is refused.
MAX_DEPTH = 32

_HEADER = struct.Struct(">I")


class WireError(ValueError):
    """A frame or value that does not follow the protocol."""


def _array_to_wire(arr: np.ndarray) -> dict[str, Any]:
    arr = np.array(arr, order="C", copy=True)  # keeps 0-d arrays 0-d, unlike ascontiguousarray
    if arr.dtype.byteorder == ">":
        arr = arr.astype(arr.dtype.newbyteorder("<"))
    dtype = arr.dtype.str
    if dtype not in ALLOWED_DTYPES:
        raise WireError(f"arrays of dtype {arr.dtype} cannot cross the boundary")
    return {
        "dtype": dtype,
        "shape": [int(n) for n in arr.shape],
        "b64": base64.b64encode(arr.tobytes()).decode("ascii"),
    }


def _array_from_wire(spec: Any) -> np.ndarray:
    if not isinstance(spec, dict) or set(spec) != {"dtype", "shape", "b64"}:
        raise WireError("array spec must have exactly dtype, shape and b64")
    dtype, shape, b64 = spec["dtype"], spec["shape"], spec["b64"]
    if dtype not in ALLOWED_DTYPES:
        raise WireError(f"dtype {dtype!r} is not allowed on the wire")
    if not isinstance(shape, list) or not all(type(n) is int and n >= 0 for n in shape):
        raise WireError("array shape must be a list of non-negative ints")
    if len(shape) > MAX_DEPTH or not isinstance(b64, str):
        raise WireError("array spec is malformed")
    raw = base64.b64decode(b64.encode("ascii"), validate=True)
    dt = np.dtype(dtype)
    if math.prod(shape) * dt.itemsize != len(raw):
        raise WireError("array byte count does not match its dtype and shape")
    return np.frombuffer(raw, dtype=dt).reshape(shape).copy()


def encode(value: Any, _depth: int = 0) -> Any:
    """Turn a value into JSON-able plain data (see the module table)."""
    if _depth > MAX_DEPTH:
        raise WireError("value is nested too deeply")
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is float:
        if math.isfinite(value):
            return value
        return {"$f": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}
    if isinstance(value, np.ndarray) and type(value) is np.ndarray:
        return {"$a": _array_to_wire(value)}
    if isinstance(value, np.generic) and type(value).__module__ == "numpy":
        return encode(value.item(), _depth)
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        arr = torch.Tensor.numpy(torch.Tensor.contiguous(torch.Tensor.cpu(torch.Tensor.detach(value))))
        return {"$t": _array_to_wire(np.array(arr, copy=True))}
    if type(value) in (list, tuple):
        return [encode(v, _depth + 1) for v in value]
    if type(value) is dict:
        items = []
        for k, v in value.items():
            if type(k) is not str:
                raise WireError("only str keys may cross the boundary")
            items.append([k, encode(v, _depth + 1)])
        return {"$d": items}
    return {"$o": type(value).__name__[:80]}


class Opaque:
    """Stands for a student value that is not plain data; only its type name is known."""

    __slots__ = ("type_name",)

    def __init__(self, type_name: str) -> None:
        self.type_name = type_name

    def __repr__(self) -> str:
        return f"<{self.type_name} object>"


def decode(data: Any, *, tensors: bool = False, _depth: int = 0) -> Any:
    """Inverse of :func:`encode`, strict about every field.

    Args:
        data: parsed JSON.
        tensors: build ``torch.Tensor`` for ``$t`` values (the worker side); otherwise every
            array comes back as a ``numpy.ndarray`` (the trusted side).
    """
    if _depth > MAX_DEPTH:
        raise WireError("value is nested too deeply")
    if data is None or type(data) in (bool, int, str, float):
        return data
    if type(data) is list:
        return [decode(v, tensors=tensors, _depth=_depth + 1) for v in data]
    if type(data) is dict and len(data) == 1:
        ((tag, body),) = data.items()
        if tag == "$f" and body in ("nan", "inf", "-inf"):
            return float(body)
        if tag == "$a":
            return _array_from_wire(body)
        if tag == "$t":
            arr = _array_from_wire(body)
            if tensors:
                import torch

                return torch.from_numpy(arr)
            return arr
        if tag == "$d" and type(body) is list:
            out: dict[str, Any] = {}
            for pair in body:
                if type(pair) is not list or len(pair) != 2 or type(pair[0]) is not str:
                    raise WireError("dict entries must be [str, value] pairs")
                out[pair[0]] = decode(pair[1], tensors=tensors, _depth=_depth + 1)
            return out
        if tag == "$o" and type(body) is str:
            return Opaque(body)
    raise WireError("unknown value on the wire")


def dumps(message: dict[str, Any]) -> bytes:
    """One frame: length header plus JSON (``message`` must already be plain data)."""
    body = json.dumps(message, separators=(",", ":"), allow_nan=False).encode("utf-8")
    if len(body) > MAX_FRAME:
        raise WireError(f"frame of {len(body)} bytes exceeds the {MAX_FRAME}-byte limit")
    return _HEADER.pack(len(body)) + body


def write_frame(fd: int, message: dict[str, Any]) -> None:
    """Write one frame to a file descriptor, all of it."""
    view = memoryview(dumps(message))
    while view:
        n = os.write(fd, view)
        view = view[n:]


def parse_body(body: bytes) -> dict[str, Any]:
    """Parse a frame body; the top level must be an object."""
    try:
        message = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise WireError(f"frame is not JSON: {exc}") from None
    if type(message) is not dict:
        raise WireError("frame must hold a JSON object")
    return message


def read_exact(fd: int, n: int) -> bytes:
    """Read exactly ``n`` bytes from a blocking fd; EOFError if the writer went away."""
    chunks = []
    while n:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            raise EOFError("channel closed")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int) -> dict[str, Any]:
    """Blocking read of one frame (used inside the worker)."""
    (size,) = _HEADER.unpack(read_exact(fd, _HEADER.size))
    if size > MAX_FRAME:
        raise WireError(f"frame of {size} bytes exceeds the limit")
    return parse_body(read_exact(fd, size))


def drain(fd: int) -> None:
    """Read and drop whatever is waiting in a pipe (its writers are known to be dead)."""
    os.set_blocking(fd, False)
    try:
        while os.read(fd, 1 << 16):
            pass
    except BlockingIOError:
        pass
    finally:
        os.set_blocking(fd, True)


class FrameReader:
    """Incremental frame parser for non-blocking reads on the trusted side."""

    def __init__(self) -> None:
        self._buf = bytearray()

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        self._buf += data
        out = []
        while len(self._buf) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(self._buf)
            if size > MAX_FRAME:
                raise WireError(f"frame of {size} bytes exceeds the limit")
            if len(self._buf) < _HEADER.size + size:
                break
            body = bytes(self._buf[_HEADER.size : _HEADER.size + size])
            del self._buf[: _HEADER.size + size]
            out.append(parse_body(body))
        return out

    def reset(self) -> None:
        self._buf.clear()
