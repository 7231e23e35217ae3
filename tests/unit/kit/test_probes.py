"""The vocabulary hooks files are written in (grader/kit/probes.py): a student's value as plain
numbers, compared with tolerance or exactly, and shown briefly; the inference helpers."""

from __future__ import annotations

import math

import numpy as np
import torch

from grader.kit import probes


def test_plain_turns_tensors_and_containers_into_numpy_and_python() -> None:
    value = probes.plain({"t": torch.tensor([1.0, 2.0]), "l": (np.float32(3.0), [torch.tensor(4)])})
    assert isinstance(value["t"], np.ndarray) and value["t"].dtype == np.float64
    assert value["l"][0] == 3.0 and isinstance(value["l"][0], float)


def test_arr_and_num_take_numbers_only() -> None:
    assert probes.arr(True) is None and probes.arr(None) is None and probes.arr("x") is None
    assert probes.num(2) == 2.0 and probes.num([[5.0]]) == 5.0 and probes.num([1, 2]) is None


def test_close_needs_the_same_shape_and_finite_values() -> None:
    assert probes.close([1.0, 2.0], [1.0, 2.0 + 1e-7])
    assert not probes.close([1.0, 2.0], [1.0, 2.1])
    assert not probes.close([1.0], [[1.0]])
    assert not probes.close([math.nan], [math.nan])


def test_same_is_exact_and_finds_a_hardcoded_answer() -> None:
    assert probes.same({"a": [1.0, math.nan]}, {"a": [1.0, math.nan]})
    assert not probes.same([1.0], [1.0 + 1e-12])
    found = probes.hardcoded("f", "f(1)", [1.0, 2.0], "f(2)", [1.0, 2.0])
    assert found is not None and found.id == "hardcoded-output" and found.evidence["other_call"] == "f(2)"
    assert probes.hardcoded("f", "f(1)", [1.0], "f(2)", [2.0]) is None


def test_ratio_finds_one_constant_or_none() -> None:
    raw = np.linspace(1.0, 5.0, 20)
    assert probes.ratio(raw, raw / 8.0) == 8.0
    assert probes.ratio(raw, raw ** 2) is None


def test_show_is_brief() -> None:
    assert probes.show(np.arange(10.0)) == "[0, 1, 2, 3, ...] (shape [10])"
    assert probes.show(2.5) == "2.5" and probes.show(object()) == "object"


def test_randn_is_the_same_for_the_same_seed() -> None:
    assert torch.equal(probes.randn(3, 2, 4), probes.randn(3, 2, 4))
    assert not torch.equal(probes.randn(3, 2, 4), probes.randn(4, 2, 4))
