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
other sequence          ``[...]`` too (a namedtuple, ``torch.Size``, ``range``, a ``deque``)
dict (str keys)         ``{"$d": [[key, value], ...]}``
other mapping           ``{"$d": ...}`` too (an ``OrderedDict``, any ``Mapping``)
numpy array             ``{"$a": {"dtype": "<f4", "shape": [2, 3], "buf": {"$raw": 0}}}``
torch tensor            ``{"$t": {...same as $a...}}`` (decoded as a tensor where torch is loaded)
anything else           ``{"$o": "<type name>"}`` (never an object: just its name)
======================  =========================================================

An array's bytes do not go into the JSON: ``{"$raw": i}`` stands for the frame's raw buffer
``i`` (C order, little-endian), and it may appear nowhere but as the ``buf`` of an array.

A frame (all integers unsigned 32-bit big-endian)::

    size | json_len | count | len_0 ... len_{count-1} | JSON (UTF-8) | buffer_0 ... buffer_{count-1}

where ``size`` counts every byte after itself (at most :data:`MAX_FRAME`). The lengths must
add up to ``size`` exactly, buffer ``i`` must be referenced exactly once and the references
must appear in the JSON in the order 0, 1, 2, ... so buffers never overlap and none is left
over. Nothing is ever pickled, and decoding checks dtype, shape and byte count before
building an array (always a fresh copy, never a view of the frame).

Example::

    >>> decode(encode({"x": float("nan")}))["x"] != 0
    True
"""

from __future__ import annotations

import json
import math
import os
import struct
import sys
import threading
from collections.abc import Mapping, Sequence
from typing import Literal, NoReturn, TypeAlias, TypedDict, overload

import numpy as np

#: dtypes allowed on the wire (numeric and bool; never object, never structured).
ALLOWED_DTYPES = frozenset(
    ["|b1", "|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f2", "<f4", "<f8"]
)
#: the largest frame either side accepts (bytes).
MAX_FRAME = 256 * 1024 * 1024
#: how deep nested lists/dicts may go before the value is refused.
MAX_DEPTH = 32

_HEADER = struct.Struct(">I")  # size (and each buffer length in the table)
_BODY = struct.Struct(">II")  # json_len, count
_HEAD = struct.Struct(">III")  # size, json_len, count
_DTYPES = {name: np.dtype(name) for name in ALLOWED_DTYPES}
#: Most items a sequence other than a list or tuple may turn into (``range(10**12)`` is short).
MAX_ITEMS = 1 << 22
_MAX_DIM = 2**63  # no numpy axis is longer; also keeps math.prod of a forged shape cheap


class WireError(ValueError):
    """A frame or value that does not follow the protocol."""


#: A value in the JSON of a frame, as :func:`encode` builds it and :func:`parse_body` reads it:
#: JSON's own types, and the raw buffer that stands as the ``buf`` of an array.
Encoded: TypeAlias = "None | bool | int | float | str | list[Encoded] | dict[str, Encoded] | _Raw"
#: One frame as read: a JSON object. Whatever came from the sandbox is checked field by field
#: where it is read; nothing here says which fields a frame has.
Frame: TypeAlias = "dict[str, Encoded]"
#: What crosses the boundary, as the trusted side sees it once decoded (the module table): plain
#: data, arrays, and :class:`Opaque` for anything else. This is the type of every value a
#: student's function returns to a suite, a probe or a plot hook.
WireValue: TypeAlias = "None | bool | int | float | str | list[WireValue] | dict[str, WireValue] | np.ndarray | Opaque"


class ChunkSpec(TypedDict):
    """One piece of a module's source: a ``.py`` file whole, or one code cell of a notebook."""

    code: str
    label: str
    first_line: int


class ModuleSpec(TypedDict):
    """A module as the child builds it, by running its chunks in order (``Module.to_dict()`` of
    :mod:`grader.ingest.submission`)."""

    name: str
    filename: str
    chunks: list[ChunkSpec]


class OpenRequest(TypedDict):
    """The trusted side's ``open``: a child for one submission (all but ``skip``, set aside)."""

    op: Literal["open"]
    kind: str
    modules: list[ModuleSpec]
    limits: dict[str, float]
    skip: list[str]


class ZygoteConfig(TypedDict, total=False):
    """What the trusted side tells the zygote as it starts it (JSON, its ``argv[1]``), and what
    the zygote adds to it for itself (from ``run_as`` on)."""

    #: the four pipes: requests to the child, its answers, control frames in and out
    req: int
    resp: int
    ctl_in: int
    ctl_out: int
    scratch: str
    #: PID 1 of its own namespace (bubblewrap)
    pid1: bool
    threads: int
    seccomp: bool
    warm_more: bool
    #: the user id student code runs as when the zygote is root, or why there is none
    student_uid: int | str | None
    #: the subprocess level: one submission in this process, frames on stdin and stdout
    spawned: bool
    run_as: list[int | str] | str | None
    vmsize_kb: int
    cpu_spent_s: float
    wipe: list[str]


class _Raw:
    """The bytes of one array, carried beside the JSON of a frame.

    Only :func:`encode` (from an array) and :func:`parse_body` (from a frame's buffer table)
    make these; JSON alone never does.
    """

    __slots__ = ("data",)

    def __init__(self, data: memoryview) -> None:
        self.data = data  # one-dimensional, format "B": len() is the byte count


def _array_to_wire(arr: np.ndarray) -> dict[str, Encoded]:
    if arr.dtype.byteorder == ">":
        arr = arr.astype(arr.dtype.newbyteorder("<"), order="C")
    dtype = arr.dtype.str
    if dtype not in ALLOWED_DTYPES:
        raise WireError(f"arrays of dtype {arr.dtype} cannot cross the boundary")
    if not arr.flags.c_contiguous:
        arr = arr.copy(order="C")  # keeps 0-d arrays 0-d, unlike ascontiguousarray
    # No copy here: the view keeps the array alive (and unresizable) until the frame is built.
    # (numpy's stubs declare the buffer protocol on arrays for Python >= 3.12 only: the ignores.)
    data = memoryview(arr).cast("B") if arr.size else memoryview(b"")  # type: ignore[arg-type]  # (cast refuses 0 in shape)
    return {"dtype": dtype, "shape": list(arr.shape), "buf": _Raw(data)}


def _array_from_wire(spec: Encoded) -> np.ndarray:
    if type(spec) is not dict or len(spec) != 3 or "dtype" not in spec or "shape" not in spec or "buf" not in spec:
        raise WireError("array spec must have exactly dtype, shape and buf")
    dtype, shape, buf = spec["dtype"], spec["shape"], spec["buf"]
    dt = _DTYPES.get(dtype) if type(dtype) is str else None
    if dt is None:
        what = repr(dtype[:20]) if type(dtype) is str else f"of type {type(dtype).__name__}"
        raise WireError(f"dtype {what} is not allowed on the wire")
    if type(shape) is not list or len(shape) > MAX_DEPTH:
        raise WireError("array shape must be a list of at most MAX_DEPTH ints")
    dims = [n for n in shape if type(n) is int and 0 <= n < _MAX_DIM]
    if len(dims) != len(shape):
        raise WireError("array dimensions must be ints from 0 to 2**63 - 1")
    if type(buf) is not _Raw:
        raise WireError("array bytes must be a buffer of the frame")
    if math.prod(dims) * dt.itemsize != len(buf.data):
        raise WireError("array byte count does not match its dtype and shape")
    try:
        arr = np.empty(dims, dt)  # no larger than the bytes just counted
    except (ValueError, OverflowError):  # e.g. shape [0, 2**62, 2**62]: no bytes, and no such array
        raise WireError("array shape is out of range") from None
    if arr.size:  # (cast refuses a 0 in the shape)
        memoryview(arr).cast("B")[:] = buf.data  # type: ignore[arg-type]  # the one copy: never a view of the frame
    return arr


def encode(value: object, _depth: int = 0) -> Encoded:
    """Turn a value into plain data for :func:`dumps` (see the module table).

    Arrays and tensors are not copied: the result refers to their memory until it is
    written with :func:`dumps` or :func:`write_frame` (or read back with :func:`decode`).
    """
    if _depth > MAX_DEPTH:
        raise WireError("value is nested too deeply")
    # Exact types (``type(value) is``): a subclass of int or str is the student's own class.
    if value is None or type(value) is bool or type(value) is int or type(value) is str:
        return value
    if type(value) is float:
        if math.isfinite(value):
            return value
        return {"$f": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}
    if type(value) is list or type(value) is tuple:
        return [encode(v, _depth + 1) for v in value]
    if type(value) is dict:
        return _mapping(value, _depth)
    if type(value) is np.ndarray:
        return {"$a": _array_to_wire(value)}
    t = type(value)
    if isinstance(value, np.generic) and t.__module__ == "numpy":
        return encode(value.item(), _depth)
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        arr = torch.Tensor.numpy(torch.Tensor.contiguous(torch.Tensor.cpu(torch.Tensor.detach(value))))
        return {"$t": _array_to_wire(arr)}
    # Where the student's value is encoded (inside the sandbox), a mapping becomes a plain dict
    # and a sequence a plain list here, so the trusted side sees their items and nothing live.
    if isinstance(value, Mapping):
        return _mapping(value, _depth)
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray, memoryview)):
        if not isinstance(value, (list, tuple)) and len(value) > MAX_ITEMS:
            raise WireError(f"a sequence of more than {MAX_ITEMS} items cannot cross the boundary")
        return [encode(v, _depth + 1) for v in list(value)]
    return {"$o": t.__name__[:80]}


def _mapping(value: Mapping[object, object], depth: int) -> dict[str, Encoded]:
    items: list[Encoded] = []
    for k, v in list(value.items()):
        if type(k) is not str:
            raise WireError("only str keys may cross the boundary")
        items.append([k, encode(v, depth + 1)])
    return {"$d": items}


class Opaque:
    """Stands for a student value that is not plain data; only its type name is known."""

    __slots__ = ("type_name",)

    def __init__(self, type_name: str) -> None:
        self.type_name = type_name

    def __repr__(self) -> str:
        return f"<{self.type_name} object>"


@overload
def decode(data: Encoded, *, tensors: Literal[False] = False, _depth: int = 0) -> WireValue: ...
@overload
def decode(data: Encoded, *, tensors: bool, _depth: int = 0) -> object: ...
def decode(data: Encoded, *, tensors: bool = False, _depth: int = 0) -> object:
    """Inverse of :func:`encode`, strict about every field.

    Args:
        data: a value from :func:`parse_body` (or from :func:`encode`).
        tensors: build ``torch.Tensor`` for ``$t`` values (the worker side); otherwise every
            array comes back as a ``numpy.ndarray`` (the trusted side).
    """
    if _depth > MAX_DEPTH:
        raise WireError("value is nested too deeply")
    if data is None or type(data) is bool or type(data) is int or type(data) is str or type(data) is float:
        return data
    if type(data) is list:
        return [decode(v, tensors=tensors, _depth=_depth + 1) for v in data]
    if type(data) is dict and len(data) == 1:
        ((tag, body),) = data.items()
        if tag == "$a":
            return _array_from_wire(body)
        if tag == "$d" and type(body) is list:
            out: dict[str, object] = {}
            for pair in body:
                if type(pair) is not list or len(pair) != 2 or type(pair[0]) is not str:
                    raise WireError("dict entries must be [str, value] pairs")
                out[pair[0]] = decode(pair[1], tensors=tensors, _depth=_depth + 1)
            return out
        if tag == "$t":
            arr = _array_from_wire(body)
            if tensors:
                import torch

                return torch.from_numpy(arr)
            return arr
        if tag == "$f" and type(body) is str and body in ("nan", "inf", "-inf"):
            return float(body)
        if tag == "$o" and type(body) is str:
            return Opaque(body)
    raise WireError("unknown value on the wire")


class _Pending(threading.local):
    buffers: list[memoryview] | None = None  # the raw buffers of the frame being built


_pending = _Pending()


def _raw_ref(obj: object) -> dict[str, int]:
    """``default`` of the JSON encoder: a buffer goes beside the JSON, anything else is refused."""
    buffers = _pending.buffers
    if type(obj) is _Raw and buffers is not None:
        buffers.append(obj.data)
        return {"$raw": len(buffers) - 1}
    raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")


_ENCODER = json.JSONEncoder(separators=(",", ":"), allow_nan=False, default=_raw_ref)


def _frame_parts(message: Mapping[str, object]) -> list[bytes | memoryview]:
    """The pieces of one frame, in order: headers, JSON, then the raw buffers."""
    outer = _pending.buffers
    buffers: list[memoryview] = []
    _pending.buffers = buffers
    try:
        text = _ENCODER.encode(message).encode("utf-8")
    finally:
        _pending.buffers = outer
    count = len(buffers)
    if not count:
        size = _BODY.size + len(text)
        if size > MAX_FRAME:
            raise WireError(f"frame of {size} bytes exceeds the {MAX_FRAME}-byte limit")
        return [_HEAD.pack(size, len(text), 0), text]
    lengths = [len(b) for b in buffers]
    size = _BODY.size + 4 * count + len(text) + sum(lengths)
    if size > MAX_FRAME:
        raise WireError(f"frame of {size} bytes exceeds the {MAX_FRAME}-byte limit")
    return [struct.pack(f">III{count}I", size, len(text), count, *lengths), text, *buffers]


def dumps(message: Mapping[str, object]) -> bytes:
    """One frame: headers, JSON and raw buffers (``message`` must already be plain data)."""
    return b"".join(_frame_parts(message))


def write_frame(fd: int, message: Mapping[str, object]) -> None:
    """Write one frame to a file descriptor, all of it."""
    view = memoryview(dumps(message))
    while view:
        n = os.write(fd, view)
        view = view[n:]


class _Refs(threading.local):
    """The frame whose JSON this thread is parsing, and how far its buffers have been taken."""

    view = memoryview(b"")
    count = 0  # buffers in the frame's table
    taken = 0  # references seen so far; they must come in order 0, 1, 2, ...
    offset = 0  # where the next buffer starts
    placed = 0  # references found where they belong: the "buf" of an array spec


_refs = _Refs()


def _object_hook(obj: Frame) -> Encoded:
    """Swap an exact ``{"$raw": i}`` for buffer ``i``; count those inside array specs."""
    if "$raw" in obj:
        index = obj["$raw"]
        refs = _refs
        if len(obj) != 1 or type(index) is not int or index != refs.taken or index >= refs.count:
            raise WireError("invalid or out-of-order buffer reference")
        (n,) = _HEADER.unpack_from(refs.view, _BODY.size + 4 * index)
        start = refs.offset
        if start + n > len(refs.view):
            raise WireError("buffer runs past the end of the frame")
        refs.taken, refs.offset = index + 1, start + n
        return _Raw(refs.view[start : start + n])
    if len(obj) == 1 and ("$a" in obj or "$t" in obj):
        spec = obj.get("$a", obj.get("$t"))
        if type(spec) is dict and type(spec.get("buf")) is _Raw:
            _refs.placed += 1
    return obj


def _no_constant(name: str) -> NoReturn:
    raise WireError(f"{name} is not JSON")  # non-finite floats travel as {"$f": ...}


_DECODER = json.JSONDecoder(parse_constant=_no_constant)
_RAW_DECODER = json.JSONDecoder(object_hook=_object_hook, parse_constant=_no_constant)


def _parse(view: memoryview) -> Frame:
    """Parse a frame body held in memory that nobody else will change.

    Buffers are looked up only as the JSON references them, so a forged table costs no
    more than the JSON it comes with.
    """
    total = len(view)
    if total < _BODY.size:
        raise WireError("frame is too short for its header")
    json_len, count = _BODY.unpack_from(view)
    start = _BODY.size + 4 * count
    end = start + json_len
    if end > total or (not count and end != total):
        raise WireError("frame's lengths do not add up to its size")
    try:
        text = str(view[start:end], "utf-8")
        if count or "$raw" in text or "\\u" in text:  # (a \u escape could spell "$raw")
            refs = _refs
            outer = refs.view, refs.count, refs.taken, refs.offset, refs.placed
            refs.view, refs.count, refs.taken, refs.offset, refs.placed = view, count, 0, end, 0
            try:
                message, stop = _RAW_DECODER.raw_decode(text)
                if refs.taken != count or refs.placed != count or refs.offset != total:
                    raise WireError("a buffer is unreferenced, referenced outside an array, or "
                                    "the buffers do not fill the frame")
            finally:
                refs.view, refs.count, refs.taken, refs.offset, refs.placed = outer
        else:
            message, stop = _DECODER.raw_decode(text)
    except WireError:
        raise
    except (ValueError, RecursionError) as exc:  # bad UTF-8 or JSON, a 5000-digit int, [[[[...
        raise WireError(f"frame is not JSON: {str(exc)[:200]}") from None
    if type(message) is not dict or stop != len(text):
        raise WireError("frame must hold one JSON object and nothing else")
    return message


def parse_body(body: bytes) -> Frame:
    """Parse a frame body (everything after the size); the top level must be an object."""
    if type(body) is not bytes:
        body = bytes(body)  # a private copy: the buffers are views of it
    return _parse(memoryview(body))


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


def read_frame(fd: int) -> Frame:
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


#: bounds of one read on the trusted side (see :meth:`FrameReader.wanted`)
READ_MIN, READ_MAX = 1 << 16, 1 << 20


class FrameReader:
    """Incremental frame parser for non-blocking reads on the trusted side."""

    def __init__(self) -> None:
        self._buf = bytearray()

    def feed(self, data: bytes) -> list[Frame]:
        self._buf += data
        out: list[Frame] = []
        while len(self._buf) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(self._buf)
            if size > MAX_FRAME:
                raise WireError(f"frame of {size} bytes exceeds the limit")
            end = _HEADER.size + size
            if len(self._buf) < end:
                break
            if len(self._buf) == end:  # the usual case: take the buffer, copy nothing
                frame, self._buf = self._buf, bytearray()
            else:
                frame = self._buf[:end]
                del self._buf[:end]
            out.append(_parse(memoryview(frame)[_HEADER.size :]))  # a bytearray that is ours alone
        return out

    def wanted(self) -> int:
        """How many bytes to ask the next ``os.read`` for: what the frame being received still
        lacks, at least 64 KiB and at most 1 MiB.

        ``os.read(fd, n)`` first allocates ``n`` bytes; a 1 MiB buffer for a 100-byte reply
        costs a map and an unmap, ~13 µs a call, more than the rest of the read.
        """
        if len(self._buf) < _HEADER.size:
            return READ_MIN
        size: int = _HEADER.unpack_from(self._buf)[0]
        return max(READ_MIN, min(READ_MAX, _HEADER.size + size - len(self._buf)))

    def reset(self) -> None:
        self._buf.clear()
