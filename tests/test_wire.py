"""Plain data crosses the sandbox boundary unchanged, and nothing else crosses it."""

import json
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from grader import wire

plain = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**62), 2**62) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@given(plain)
@settings(max_examples=200, deadline=None)
def test_plain_values_round_trip(value):
    assert wire.decode(json.loads(json.dumps(wire.encode(value)))) == value


@given(hnp.arrays(dtype=st.sampled_from([np.float32, np.float64, np.int64, np.bool_, np.uint8]),
                  shape=hnp.array_shapes(min_dims=0, max_dims=4, max_side=5)))
@settings(max_examples=100, deadline=None)
def test_arrays_round_trip_bit_for_bit(arr):
    back = wire.decode(json.loads(json.dumps(wire.encode(arr))))
    assert type(back) is np.ndarray
    assert back.dtype == arr.dtype and back.shape == arr.shape
    assert back.tobytes() == np.ascontiguousarray(arr).tobytes()


def test_non_finite_floats_survive_json():
    frame = wire.dumps({"v": wire.encode([math.nan, math.inf, -math.inf])})
    back = wire.decode(wire.parse_body(frame[4:])["v"])
    assert math.isnan(back[0]) and back[1] == math.inf and back[2] == -math.inf


def test_tensors_become_arrays_on_the_trusted_side_and_tensors_in_the_worker():
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    data = wire.encode(t)
    assert isinstance(wire.decode(data), np.ndarray)
    back = wire.decode(data, tensors=True)
    assert isinstance(back, torch.Tensor) and torch.equal(back, t)


def test_objects_cross_only_as_their_type_name():
    class Anything(float):
        def __eq__(self, other):
            return True

    value = wire.decode(wire.encode(object()))
    assert isinstance(value, wire.Opaque) and value.type_name == "object"
    # A float subclass is not a float: it arrives as an opaque name, never as a number.
    assert isinstance(wire.decode(wire.encode(Anything(1.0))), wire.Opaque)


def test_object_arrays_are_refused():
    with pytest.raises(wire.WireError):
        wire.encode(np.array([object()], dtype=object))


@pytest.mark.parametrize("bad", [
    {"$a": {"dtype": "|O", "shape": [1], "b64": ""}},
    {"$a": {"dtype": "<f4", "shape": [2], "b64": "AAAA"}},
    {"$a": {"dtype": "<f4", "shape": [-1], "b64": ""}},
    {"$zz": 1},
    {"plain": "dict without tag"},
    {"$d": [[1, 2]]},
])
def test_malformed_values_are_rejected(bad):
    with pytest.raises(wire.WireError):
        wire.decode(bad)


def test_frame_reader_reassembles_split_frames():
    frames = wire.dumps({"a": 1}) + wire.dumps({"b": [1, 2]})
    reader = wire.FrameReader()
    got = []
    for i in range(len(frames)):
        got += reader.feed(frames[i:i + 1])
    assert got == [{"a": 1}, {"b": [1, 2]}]


def test_oversized_frame_header_is_refused():
    reader = wire.FrameReader()
    with pytest.raises(wire.WireError):
        reader.feed((wire.MAX_FRAME + 1).to_bytes(4, "big"))
