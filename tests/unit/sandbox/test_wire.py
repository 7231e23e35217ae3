"""Plain data crosses the sandbox boundary unchanged, and nothing else crosses it."""

import json
import math
import os
import struct
import sys
import threading

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from grader.sandbox import wire


plain = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**62), 2**62) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
ALL_DTYPES = sorted(wire.ALLOWED_DTYPES)
SHAPES = [(), (0,), (5,), (2, 3), (3, 0, 2), (1, 1, 1, 4)]


def through(value, tensors=False):
    """encode -> dumps -> FrameReader (the trusted side) / parse_body -> decode."""
    frame = wire.dumps({"v": wire.encode(value)})
    (message,) = wire.FrameReader().feed(frame)
    assert wire.parse_body(frame[4:]).keys() == message.keys()
    return wire.decode(message["v"], tensors=tensors)


def body(text, buffers=(), *, json_len=None, count=None, lengths=None):
    """A frame body built by hand (what a forger can write), without the size in front."""
    text = text.encode() if isinstance(text, str) else text
    lengths = [len(b) for b in buffers] if lengths is None else lengths
    count = len(lengths) if count is None else count
    head = struct.pack(f">II{len(lengths)}I", len(text) if json_len is None else json_len, count, *lengths)
    return head + text + b"".join(buffers)


def sample(dtype, shape):
    n = math.prod(shape)
    return (np.arange(n) * 37 % 251).astype(np.dtype(dtype)).reshape(shape)


@given(plain)
@settings(max_examples=200, deadline=None)
def test_plain_values_round_trip(value):
    assert through(value) == value


@given(hnp.arrays(dtype=st.sampled_from([np.dtype(d) for d in ALL_DTYPES]),
                  shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5)))
@settings(max_examples=200, deadline=None)
def test_arrays_round_trip_bit_for_bit(arr):
    back = through(arr)
    assert type(back) is np.ndarray
    assert back.dtype == arr.dtype and back.shape == arr.shape
    assert back.tobytes() == np.ascontiguousarray(arr).tobytes()


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_every_allowed_dtype_and_shape_round_trips_as_a_fresh_array(dtype, shape):
    arr = sample(dtype, shape)
    for back in (through(arr), wire.decode(wire.encode(arr))):
        assert type(back) is np.ndarray and back.dtype == arr.dtype and back.shape == arr.shape
        assert back.tobytes() == arr.tobytes()
        # a copy of its own, writable, never a view of the frame or of the original
        assert back.base is None and back.flags.writeable and back.flags.c_contiguous
        assert not np.shares_memory(back, arr)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_non_contiguous_and_big_endian_arrays_arrive_in_order_and_little_endian(dtype):
    arr = sample(dtype, (4, 6))
    view = arr[::2, ::-3]
    assert not view.flags.c_contiguous
    assert np.array_equal(through(view), view)
    swapped = arr.astype(arr.dtype.newbyteorder(">"))
    back = through(swapped)
    assert back.dtype.str == dtype and np.array_equal(back, arr)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_tensors_round_trip_as_tensors_in_the_worker_and_arrays_on_the_trusted_side(dtype, shape):
    try:
        t = torch.from_numpy(sample(dtype, shape))
    except TypeError:
        pytest.skip(f"torch has no dtype for {dtype}")
    back = through(t, tensors=True)
    assert isinstance(back, torch.Tensor) and back.dtype == t.dtype and back.shape == t.shape
    assert torch.equal(back, t) and (t.numel() == 0 or back.data_ptr() != t.data_ptr())
    arr = through(t)
    assert type(arr) is np.ndarray and np.array_equal(arr, t.numpy())


def test_tensors_that_need_grad_or_are_transposed_cross_as_their_values():
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3).requires_grad_(True)
    back = through(t.T, tensors=True)
    assert not back.requires_grad and torch.equal(back, t.detach().T)
    data = wire.encode(t)
    assert isinstance(wire.decode(data), np.ndarray)
    assert torch.equal(wire.decode(data, tensors=True), t.detach())


def test_several_arrays_nested_in_lists_and_dicts_share_one_frame():
    a = sample("<f4", (2, 3))
    b = sample("|u1", (0,))
    c = sample("<i8", ())
    t = torch.ones(4, dtype=torch.float64)
    value = {"first": [a, {"deep": (b, [c])}], "t": t, "n": 3, "a again": a}
    frame = wire.dumps({"v": wire.encode(value)})
    size, json_len, count = struct.unpack_from(">III", frame)
    assert size == len(frame) - 4 and count == 5
    lengths = struct.unpack_from(">5I", frame, 12)
    assert lengths == (a.nbytes, b.nbytes, c.nbytes, t.numel() * 8, a.nbytes)  # JSON order
    text = json.loads(frame[12 + 20: 12 + 20 + json_len])
    assert "b64" not in json.dumps(text) and '{"$raw": 4}' in json.dumps(text)
    back = wire.decode(wire.parse_body(frame[4:])["v"])
    assert back.keys() == value.keys() and back["n"] == 3
    assert np.array_equal(back["first"][0], a) and np.array_equal(back["a again"], a)
    assert back["first"][0] is not back["a again"]
    assert back["first"][1]["deep"][0].shape == (0,) and back["first"][1]["deep"][1][0] == c
    assert type(back["t"]) is np.ndarray and np.array_equal(back["t"], t.numpy())


def test_frame_layout_is_size_json_length_count_lengths_json_buffers():
    frame = wire.dumps({"v": wire.encode(np.array([1, 258], dtype="<i2"))})
    text = b'{"v":{"$a":{"dtype":"<i2","shape":[2],"buf":{"$raw":0}}}}'
    assert frame == struct.pack(">IIII", 12 + len(text) + 4, len(text), 1, 4) + text + b"\x01\x00\x02\x01"
    assert wire.dumps({"op": "end"}) == struct.pack(">III", 8 + 12, 12, 0) + b'{"op":"end"}'


def test_encoded_arrays_are_not_plain_json_and_only_dumps_writes_them():
    with pytest.raises(TypeError):
        json.dumps(wire.encode(np.zeros(2)))
    with pytest.raises(TypeError):
        wire.dumps({"v": object()})  # a message must already be plain data


def test_non_finite_floats_survive_json():
    frame = wire.dumps({"v": wire.encode([math.nan, math.inf, -math.inf])})
    back = wire.decode(wire.parse_body(frame[4:])["v"])
    assert math.isnan(back[0]) and back[1] == math.inf and back[2] == -math.inf


def test_strings_that_look_like_references_are_only_strings():
    value = {"$raw": 0, "k": ["$raw", "\\u0024raw", "é", "\ud800"], "$a": "$t"}
    assert through(value) == value
    assert through([np.zeros(1), value])[1] == value


def test_objects_cross_only_as_their_type_name():
    class Anything(float):
        def __eq__(self, other):
            return True

    value = wire.decode(wire.encode(object()))
    assert isinstance(value, wire.Opaque) and value.type_name == "object"
    # A float subclass is not a float: it arrives as an opaque name, never as a number.
    assert isinstance(wire.decode(wire.encode(Anything(1.0))), wire.Opaque)
    assert isinstance(through(np.zeros(2).view(np.matrix)), wire.Opaque)


@pytest.mark.parametrize("arr", [
    np.array([object()], dtype=object),
    np.zeros(2, dtype="<c8"),
    np.zeros(2, dtype=[("a", "<f4")]),
    np.zeros(2, dtype="<M8[ns]"),
    np.zeros(2, dtype="<U3"),
], ids=["object", "complex", "structured", "datetime", "unicode"])
def test_arrays_of_other_dtypes_are_refused(arr):
    with pytest.raises(wire.WireError):
        wire.encode(arr)


def _buf(data: bytes):
    """A real buffer reference, as parse_body makes it."""
    message = wire.parse_body(body('{"v":{"$a":{"dtype":"|u1","shape":[%d],"buf":{"$raw":0}}}}' % len(data),
                                   [data]))
    return message["v"]["$a"]["buf"]


@pytest.mark.parametrize("bad", [
    lambda: {"$a": {"dtype": "|O", "shape": [1], "buf": _buf(b"\0" * 8)}},
    lambda: {"$a": {"dtype": "<f4", "shape": [2], "buf": _buf(b"\0" * 4)}},
    lambda: {"$a": {"dtype": "<f4", "shape": [1], "buf": _buf(b"\0" * 8)}},
    lambda: {"$a": {"dtype": "<f4", "shape": [-1], "buf": _buf(b"")}},
    lambda: {"$a": {"dtype": "<f4", "shape": [True], "buf": _buf(b"\0" * 4)}},
    lambda: {"$a": {"dtype": "<f4", "shape": 1, "buf": _buf(b"\0" * 4)}},
    lambda: {"$a": {"dtype": "<f4", "shape": [1] * 33, "buf": _buf(b"\0" * 4)}},
    lambda: {"$a": {"dtype": "<f4", "shape": [0, 10**30], "buf": _buf(b"")}},
    lambda: {"$a": {"dtype": "<f4", "shape": [0, 2**62, 2**62], "buf": _buf(b"")}},
    lambda: {"$a": {"dtype": ["<f4"], "shape": [1], "buf": _buf(b"\0" * 4)}},
    lambda: {"$a": {"dtype": {"x": 1}, "shape": [1], "buf": _buf(b"\0" * 4)}},
    lambda: {"$a": {"dtype": "<f4", "shape": [1], "b64": "AAAAAA=="}},  # the old format
    lambda: {"$a": {"dtype": "<f4", "shape": [1], "buf": b"\0" * 4}},  # bytes are not a buffer
    lambda: {"$a": {"dtype": "<f4", "shape": [1], "buf": {"$raw": 0}}},  # nor an unresolved one
    lambda: {"$a": {"dtype": "<f4", "shape": [1], "buf": _buf(b"\0" * 4), "x": 1}},
    lambda: {"$a": {"dtype": "<f4", "buf": _buf(b"\0" * 4)}},
    lambda: {"$t": ["<f4", [1], _buf(b"\0" * 4)]},
    lambda: {"$raw": 0},
    lambda: [1, _buf(b"\0")],  # a buffer anywhere but in an array spec
    lambda: {"$f": ["nan"]},
    lambda: {"$o": 3},
    lambda: {"$zz": 1},
    lambda: {"plain": "dict without tag"},
    lambda: {"$d": [[1, 2]]},
    lambda: {"$d": [["a", 1, 2]]},
    lambda: b"bytes",
    lambda: 1j,
])
def test_malformed_values_are_rejected(bad):
    with pytest.raises(wire.WireError):
        wire.decode(bad(), tensors=True)


ARRAY = '{"$a":{"dtype":"<f4","shape":[1],"buf":{"$raw":%s}}}'
FOUR = b"\0\0\x80\x3f"  # 1.0 as <f4


@pytest.mark.parametrize("forged", [
    b"",
    b"\0\0\0",
    body("{}", json_len=3),  # JSON longer than the frame
    body('{"a":1}', json_len=6),  # JSON cut short
    body('{"a":1}') + b"x",  # bytes after the JSON with no buffer table
    body('{"a":1}', count=0xFFFFFFFF, lengths=[]),  # a table of 4 Gi lengths
    body('{"v":%s}' % (ARRAY % 0), [FOUR], lengths=[0xFFFFFFFF]),  # a 4 GiB buffer
    body('{"v":%s}' % (ARRAY % 0), [FOUR], lengths=[8]),  # a buffer past the end
    body('{"v":%s}' % (ARRAY % 0), [FOUR + b"\0"], lengths=[4]),  # bytes left over
    body('{"v":%s}' % (ARRAY % 0), [FOUR, FOUR]),  # a buffer nobody references
    body('{"v":%s}' % (ARRAY % 1), [FOUR]),  # index out of range
    body('{"v":%s}' % (ARRAY % -1), [FOUR]),
    body('{"v":%s}' % (ARRAY % "true"), [FOUR]),
    body('{"v":%s}' % (ARRAY % "0.0"), [FOUR]),
    body('{"v":%s}' % (ARRAY % '"0"'), [FOUR]),
    body('{"v":%s}' % (ARRAY % 0)),  # a reference in a frame without buffers
    body('{"v":[%s,%s]}' % (ARRAY % 1, ARRAY % 0), [FOUR, FOUR]),  # out of order
    body('{"v":[%s,%s]}' % (ARRAY % 0, ARRAY % 0), [FOUR, FOUR]),  # one buffer twice (overlap)
    body('{"v":[%s,%s]}' % (ARRAY % 1, ARRAY % 1), [FOUR, FOUR]),
    body('{"v":{"$raw":0}}', [FOUR]),  # $raw where it does not belong ...
    body('{"v":[{"$raw":0}]}', [FOUR]),
    body('{"v":{"$d":[["k",{"$raw":0}]]}}', [FOUR]),
    body('{"v":{"dtype":"<f4","shape":[1],"buf":{"$raw":0}}}', [FOUR]),  # spec without $a
    body('{"v":{"$a":{"dtype":{"$raw":0},"shape":[1],"buf":{"$raw":1}}}}', [FOUR, FOUR]),
    body('{"v":{"$a":{"dtype":"<f4","shape":[1],"buf":{"$raw":0},"more":{"$raw":1}}}}', [FOUR, FOUR]),
    body('{"v":{"$a":{"dtype":"<f4","shape":[1],"buf":{"$raw":0,"x":1}}}}', [FOUR]),
    body('{"v":{"$a":{"dtype":"<f4","shape":[1],"buf":{"$raw":0}},"x":1}}', [FOUR]),
    body('{"\\u0024raw":0}', [FOUR]),  # ... even spelled with an escape
    body('{"v":{"\\u0024raw":0}}'),
    body('{"\\u0024raw":0}'),
    body(b'{"v":"\xff"}'),  # not UTF-8
    body(b'{"v":"\xed\xa0\x80"}'),  # an encoded surrogate is not UTF-8 either
    body("[1,2]"),  # not an object
    body('"just a string"'),
    body('{"a":1} '),  # anything after the object
    body('{"a":1}{"b":2}'),
    body(' {"a":1}'),
    body('{"a":%s}' % ("1" * 5000)),  # an int too long to read
    body('{"a":%s}' % ("[" * 100_000 + "]" * 100_000)),  # deeper than the parser goes
    body('{"a":NaN}'),
])
def test_forged_frames_raise_wire_error(forged):
    with pytest.raises(wire.WireError):
        wire.parse_body(forged)
    with pytest.raises(wire.WireError):
        wire.FrameReader().feed(struct.pack(">I", len(forged)) + forged)


def test_forged_values_inside_well_formed_frames_fail_at_decode():
    bad_count = body('{"v":{"$a":{"dtype":"<f4","shape":[3],"buf":{"$raw":0}}}}', [FOUR * 2])
    huge_shape = body('{"v":{"$a":{"dtype":"<f4","shape":[0,%d],"buf":{"$raw":0}}}}' % 10**30, [b""])
    bad_dtype = body('{"v":{"$t":{"dtype":"|O","shape":[1],"buf":{"$raw":0}}}}', [b"\0" * 8])
    for forged in (bad_count, huge_shape, bad_dtype):
        message = wire.parse_body(forged)
        with pytest.raises(wire.WireError):
            wire.decode(message["v"], tensors=True)


def test_dumps_refuses_a_frame_over_the_limit(monkeypatch):
    monkeypatch.setattr(wire, "MAX_FRAME", 1000)
    wire.dumps({"v": wire.encode(np.zeros(100, dtype="<f4"))})
    with pytest.raises(wire.WireError):
        wire.dumps({"v": wire.encode(np.zeros(300, dtype="<f4"))})
    with pytest.raises(wire.WireError):
        wire.dumps({"v": "x" * 1000})


def test_frame_reader_reassembles_split_frames():
    arr = sample("<f8", (3, 4))
    frames = wire.dumps({"a": 1}) + wire.dumps({"b": [1, 2], "c": wire.encode(arr)}) + wire.dumps({"d": None})
    reader = wire.FrameReader()
    got = []
    for i in range(len(frames)):
        got += reader.feed(frames[i:i + 1])
    assert [m.keys() for m in got] == [{"a"}, {"b", "c"}, {"d"}]
    assert got[1]["b"] == [1, 2] and np.array_equal(wire.decode(got[1]["c"]), arr)
    got = reader.feed(frames)  # all at once, and twice over
    got += reader.feed(frames[:7])
    got += reader.feed(frames[7:])
    assert [m.keys() for m in got] == [{"a"}, {"b", "c"}, {"d"}] * 2
    assert np.array_equal(wire.decode(got[4]["c"]), arr)


def test_a_large_array_crosses_a_pipe_in_pipe_sized_pieces():
    arr = np.random.default_rng(1).standard_normal(131072)  # 1 MiB
    frame = wire.dumps({"v": wire.encode(arr)})
    reader = wire.FrameReader()
    got = []
    for i in range(0, len(frame), 65536):
        got += reader.feed(frame[i:i + 65536])
    (message,) = got
    assert np.array_equal(wire.decode(message["v"]), arr)
    r, w = os.pipe()
    try:
        writer = threading.Thread(target=wire.write_frame, args=(w, {"v": wire.encode(arr)}))
        writer.start()
        message = wire.read_frame(r)
        writer.join()
    finally:
        os.close(r)
        os.close(w)
    assert np.array_equal(wire.decode(message["v"]), arr)


def test_read_frame_refuses_a_4_gib_header_and_reports_a_closed_channel():
    r, w = os.pipe()
    try:
        os.write(w, b"\xff\xff\xff\xffgarbage")
        with pytest.raises(wire.WireError):
            wire.read_frame(r)
    finally:
        os.close(r)
        os.close(w)
    r, w = os.pipe()
    frame = wire.dumps({"v": wire.encode(np.zeros(10))})
    os.write(w, frame[:-3])
    os.close(w)
    try:
        with pytest.raises(EOFError):
            wire.read_frame(r)
    finally:
        os.close(r)


def test_oversized_frame_header_is_refused():
    reader = wire.FrameReader()
    with pytest.raises(wire.WireError):
        reader.feed((wire.MAX_FRAME + 1).to_bytes(4, "big"))
    reader = wire.FrameReader()
    with pytest.raises(wire.WireError):
        reader.feed(b"\xff\xff\xff\xff")


def test_frames_parse_correctly_in_several_threads_at_once():
    frames = [wire.dumps({"v": wire.encode([sample("<i4", (n,)), "x", sample("<f8", (2, n))])})
              for n in range(1, 9)]
    errors = []

    def work(k):
        try:
            for _ in range(200):
                for n, frame in enumerate(frames, start=1):
                    back = wire.decode(wire.parse_body(frame[4:])["v"])
                    assert back[0].shape == (n,) and back[2].shape == (2, n) and back[1] == "x"
                    assert np.array_equal(back[2], sample("<f8", (2, n)))
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors == []


def test_frame_reader_asks_for_what_the_frame_still_lacks_within_bounds():
    """Reads are sized to the frame being received: small replies never make ``os.read``
    allocate a megabyte, and large ones still come in megabyte steps."""
    reader = wire.FrameReader()
    assert reader.wanted() == wire.READ_MIN  # nothing yet
    small = wire.dumps({"id": 1, "ok": True, "value": 64})
    assert reader.feed(small[:2]) == [] and reader.wanted() == wire.READ_MIN  # half a header
    assert [f["value"] for f in reader.feed(small[2:])] == [64]
    big = wire.dumps({"v": wire.encode(np.zeros(3 * 1024 * 1024, dtype=np.uint8))})
    assert reader.feed(big[:1000]) == []
    assert reader.wanted() == wire.READ_MAX  # 3 MiB still missing: one megabyte at a time
    assert reader.feed(big[1000:-100]) == []
    assert reader.wanted() == wire.READ_MIN  # 100 bytes missing: never less than the minimum
    (frame,) = reader.feed(big[-100:])
    assert wire.decode(frame["v"]).nbytes == 3 * 1024 * 1024


def test_mappings_and_sequences_cross_as_plain_dicts_and_lists():
    from collections import OrderedDict, defaultdict, deque, namedtuple

    import torch

    row = namedtuple("row", "d_k variance")
    assert through(OrderedDict(d_k=16, rows=(1, 2))) == {"d_k": 16, "rows": [1, 2]}
    assert type(through(defaultdict(int, a=1))) is dict
    assert through(row(16, 15.9)) == [16, 15.9] and through(torch.Size([1, 1, 4, 4])) == [1, 1, 4, 4]
    assert through(range(3)) == [0, 1, 2] and through(deque([1.5])) == [1.5]
    assert isinstance(through("abc"), str) and isinstance(through(b"abc"), wire.Opaque)
    with pytest.raises(wire.WireError):
        wire.encode(range(wire.MAX_ITEMS + 1))
    with pytest.raises(wire.WireError):
        wire.encode(OrderedDict({1: 2}))


def test_a_students_mapping_becomes_plain_data_inside_the_sandbox():
    """The conversion runs where the student's code runs: only items come back, nothing live."""
    import sys
    import textwrap

    from grader.sandbox.limits import Limits
    from grader.sandbox.worker import Worker

    if not sys.platform.startswith("linux"):
        pytest.skip("the rlimits worker forks; this check is for POSIX")
    code = textwrap.dedent('''
        from collections import OrderedDict
        from collections.abc import Mapping

        class Rows(Mapping):  # a Mapping that is no dict, claiming to equal everything
            def __init__(self): self.d = {"d_k": 16.0, "std": 4.0}
            def __getitem__(self, k): return self.d[k]
            def __iter__(self): return iter(self.d)
            def __len__(self): return 2
            def __eq__(self, other): return True

        class Broken(dict):
            def items(self): raise RuntimeError("no items")

        def table(): return (OrderedDict(d_k=16, variance=15.8), Rows())
        def broken(): return Broken(a=1)
    ''')
    limits = Limits(per_call_s=60, per_submission_s=300, memory_mb=1024, cpu_s=60, file_size_mb=16,
                        scratch_mb=32, output_kb=16, processes=1)
    module = {"name": "a", "filename": "a.py", "chunks": [{"code": code, "label": "a.py", "first_line": 1}]}
    with Worker(level="rlimits", limits=limits) as worker:
        session = worker.open({"kind": "folder", "modules": [module]}, limits)
        try:
            rows = session.call("a", "table", [], {})
            broken = session.call("a", "broken", [], {})
        finally:
            session.close()
    assert type(rows) is list and [type(r) for r in rows] == [dict, dict]
    assert rows == [{"d_k": 16, "variance": 15.8}, {"d_k": 16.0, "std": 4.0}]
    assert isinstance(broken, wire.Opaque) and "RuntimeError" in broken.type_name
