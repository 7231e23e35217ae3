"""What one message costs on the wire: the base64 format it replaced against ``grader.sandbox.wire``.

Not a timed test: run it by hand and read the numbers.

    python bench/wire_speed.py [--repeat 9] [--min-time 0.2]

For each message, one round trip is ``encode`` + ``dumps`` + ``parse_body`` + ``decode`` (no
pipe): (a) a small call message with ints, (b) an 8 KiB float32 tensor, (c) a 1 MiB float64
array. The old implementation (JSON with base64 inside) is embedded below as it was, so both
run in the same process on the same values, in alternating runs; the figure is the best of
``--repeat`` runs, in CPU time of this process (so other work on the machine counts less).
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import struct
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.sandbox import wire  # noqa: E402


class old:  # noqa: N801 - the base64 format, trimmed to what a round trip uses
    ALLOWED_DTYPES = wire.ALLOWED_DTYPES
    MAX_FRAME = wire.MAX_FRAME
    MAX_DEPTH = wire.MAX_DEPTH
    WireError = wire.WireError
    Opaque = wire.Opaque
    _HEADER = struct.Struct(">I")

    @staticmethod
    def _array_to_wire(arr: np.ndarray) -> dict[str, Any]:
        arr = np.array(arr, order="C", copy=True)
        if arr.dtype.byteorder == ">":
            arr = arr.astype(arr.dtype.newbyteorder("<"))
        dtype = arr.dtype.str
        if dtype not in old.ALLOWED_DTYPES:
            raise old.WireError(f"arrays of dtype {arr.dtype} cannot cross the boundary")
        return {
            "dtype": dtype,
            "shape": [int(n) for n in arr.shape],
            "b64": base64.b64encode(arr.tobytes()).decode("ascii"),
        }

    @staticmethod
    def _array_from_wire(spec: Any) -> np.ndarray:
        if not isinstance(spec, dict) or set(spec) != {"dtype", "shape", "b64"}:
            raise old.WireError("array spec must have exactly dtype, shape and b64")
        dtype, shape, b64 = spec["dtype"], spec["shape"], spec["b64"]
        if dtype not in old.ALLOWED_DTYPES:
            raise old.WireError(f"dtype {dtype!r} is not allowed on the wire")
        if not isinstance(shape, list) or not all(type(n) is int and n >= 0 for n in shape):
            raise old.WireError("array shape must be a list of non-negative ints")
        if len(shape) > old.MAX_DEPTH or not isinstance(b64, str):
            raise old.WireError("array spec is malformed")
        raw = base64.b64decode(b64.encode("ascii"), validate=True)
        dt = np.dtype(dtype)
        if math.prod(shape) * dt.itemsize != len(raw):
            raise old.WireError("array byte count does not match its dtype and shape")
        return np.frombuffer(raw, dtype=dt).reshape(shape).copy()

    @staticmethod
    def encode(value: Any, _depth: int = 0) -> Any:
        if _depth > old.MAX_DEPTH:
            raise old.WireError("value is nested too deeply")
        if value is None or type(value) in (bool, int, str):
            return value
        if type(value) is float:
            if math.isfinite(value):
                return value
            return {"$f": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}
        if isinstance(value, np.ndarray) and type(value) is np.ndarray:
            return {"$a": old._array_to_wire(value)}
        if isinstance(value, np.generic) and type(value).__module__ == "numpy":
            return old.encode(value.item(), _depth)
        torch = sys.modules.get("torch")
        if torch is not None and isinstance(value, torch.Tensor):
            arr = torch.Tensor.numpy(torch.Tensor.contiguous(torch.Tensor.cpu(torch.Tensor.detach(value))))
            return {"$t": old._array_to_wire(np.array(arr, copy=True))}
        if type(value) in (list, tuple):
            return [old.encode(v, _depth + 1) for v in value]
        if type(value) is dict:
            items = []
            for k, v in value.items():
                if type(k) is not str:
                    raise old.WireError("only str keys may cross the boundary")
                items.append([k, old.encode(v, _depth + 1)])
            return {"$d": items}
        return {"$o": type(value).__name__[:80]}

    @staticmethod
    def decode(data: Any, *, tensors: bool = False, _depth: int = 0) -> Any:
        if _depth > old.MAX_DEPTH:
            raise old.WireError("value is nested too deeply")
        if data is None or type(data) in (bool, int, str, float):
            return data
        if type(data) is list:
            return [old.decode(v, tensors=tensors, _depth=_depth + 1) for v in data]
        if type(data) is dict and len(data) == 1:
            ((tag, body),) = data.items()
            if tag == "$f" and body in ("nan", "inf", "-inf"):
                return float(body)
            if tag == "$a":
                return old._array_from_wire(body)
            if tag == "$t":
                arr = old._array_from_wire(body)
                if tensors:
                    return torch.from_numpy(arr)
                return arr
            if tag == "$d" and type(body) is list:
                out: dict[str, Any] = {}
                for pair in body:
                    if type(pair) is not list or len(pair) != 2 or type(pair[0]) is not str:
                        raise old.WireError("dict entries must be [str, value] pairs")
                    out[pair[0]] = old.decode(pair[1], tensors=tensors, _depth=_depth + 1)
                return out
            if tag == "$o" and type(body) is str:
                return old.Opaque(body)
        raise old.WireError("unknown value on the wire")

    @staticmethod
    def dumps(message: dict[str, Any]) -> bytes:
        body = json.dumps(message, separators=(",", ":"), allow_nan=False).encode("utf-8")
        if len(body) > old.MAX_FRAME:
            raise old.WireError(f"frame of {len(body)} bytes exceeds the {old.MAX_FRAME}-byte limit")
        return old._HEADER.pack(len(body)) + body

    @staticmethod
    def parse_body(body: bytes) -> dict[str, Any]:
        try:
            message = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise old.WireError(f"frame is not JSON: {exc}") from None
        if type(message) is not dict:
            raise old.WireError("frame must hold a JSON object")
        return message


def round_trip(mod: Any, make: Any, field: str, value: Any) -> Any:
    frame = mod.dumps(dict(make, **{field: mod.encode(value)}))
    return mod.decode(mod.parse_body(frame[4:])[field])


def calibrate(fn: Any, min_time: float) -> int:
    """Enough loops that one timed run takes about ``min_time`` seconds."""
    loops = 1
    while True:
        start = time.process_time()
        for _ in range(loops):
            fn()
        took = time.process_time() - start
        if took >= min_time:
            return loops
        loops *= 2 if took <= 0 else max(2, min(10, int(min_time / took) + 1))


def best_us(fns: list[Any], repeat: int, min_time: float) -> list[float]:
    """Best µs per call of each function; runs alternate so both see the same machine."""
    loops = [calibrate(fn, min_time) for fn in fns]
    best = [math.inf] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            start = time.process_time()  # CPU time: other work on the machine does not count
            for _ in range(loops[i]):
                fn()
            best[i] = min(best[i], (time.process_time() - start) / loops[i])
    return [b * 1e6 for b in best]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--min-time", type=float, default=0.2, help="seconds per timed run")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    cases = [
        ("(a) call message, ints", {"op": "call", "part": "scaling", "func": "scaling_factor", "id": 17,
                                    "kwargs": {"$d": []}}, "args", [512, 8]),
        ("(b) 8 KiB float32 tensor", {"id": 17, "ok": True}, "value",
         torch.from_numpy(rng.standard_normal(2048, dtype=np.float32))),
        ("(c) 1 MiB float64 array", {"id": 17, "ok": True}, "value", rng.standard_normal(131072)),
    ]
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, torch {torch.__version__}")
    print(f"one round trip = encode + dumps + parse_body + decode; best of {args.repeat} runs, CPU time")
    print(f"{'message':28} {'frame old':>10} {'frame new':>10} {'old µs':>10} {'new µs':>10} {'speed-up':>9}")
    for name, make, field, value in cases:
        expect = value.numpy() if isinstance(value, torch.Tensor) else value
        sizes = []
        for mod in (old, wire):  # same answer from both, or the figures mean nothing
            back = round_trip(mod, make, field, value)
            assert np.array_equal(np.asarray(back), np.asarray(expect)), (name, mod)
            sizes.append(len(mod.dumps(dict(make, **{field: mod.encode(value)}))))
        t_old, t_new = best_us([lambda: round_trip(old, make, field, value),
                                lambda: round_trip(wire, make, field, value)], args.repeat, args.min_time)
        print(f"{name:28} {sizes[0]:>10} {sizes[1]:>10} {t_old:>10.1f} {t_new:>10.1f} {t_old / t_new:>8.1f}x")


if __name__ == "__main__":
    main()
