"""Prove the chapter 7 suites in-process: the reference passes, known-wrong variants fail.

``StandInPlugin`` below is TEST SCAFFOLDING ONLY. It is not the grader's plugin and gives no
isolation: it calls the given modules directly in this process, then converts every result to
plain data the way the sandbox worker does (tensors -> ndarray copies, numpy scalars -> Python
numbers, tuples -> lists), and turns a raised exception into ``StudentRaised``. It exists so the
suites' own logic (tolerances, statistics, messages) can be checked quickly and independently of
the worker.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import numpy as np
import pytest
import torch
import yaml

from grader.grading.runner import forget_other_suites
from grader.kit.asserts import ANSWER_KEY
from grader.sandbox.session import StudentRaised
from grader.prepare import expected as expected_tool

from tests.helpers import ROOT


SOLUTIONS = ROOT / "solutions" / "chapter07"
STUBS = ROOT / "exercises" / "chapter07"
SUITES = ROOT / "suites" / "chapter07"
PARTS = ("scaling", "softmax", "variance")


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def reference() -> SimpleNamespace:
    ns = SimpleNamespace(**{p: _load(SOLUTIONS / f"{p}.py", f"_selfcheck_ref_{p}") for p in PARTS})
    ns.answers_key = yaml.safe_load((SOLUTIONS / "answers.yaml").read_text(encoding="utf-8"))
    return ns


@functools.cache
def stubs() -> dict[str, ModuleType]:
    return {p: _load(STUBS / f"{p}.py", f"_selfcheck_stub_{p}") for p in PARTS}


def key_answers() -> dict[str, Any]:
    """The answer key written as a student's answers.yaml would parse."""
    return {qid: {"answer": spec["answer"]} for qid, spec in reference().answers_key.items()}


# --- the stand-in ------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().numpy().copy()
    if isinstance(value, np.ndarray):
        return np.array(value)  # a base-class copy
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _copy_arg(value: Any) -> Any:
    # The worker receives its own copies; a student mutating an input must not change the test's.
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, np.ndarray):
        return value.copy()
    return value


class _StandInPart:
    def __init__(self, module: Any) -> None:
        self._module = module

    def __getattr__(self, name: str) -> Callable[..., Any]:
        func = getattr(self._module, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            args = tuple(_copy_arg(a) for a in args)
            kwargs = {k: _copy_arg(v) for k, v in kwargs.items()}
            try:
                result = func(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - every student exception becomes data
                bases = [c.__name__ for c in type(exc).__mro__[1:]]
                raise StudentRaised(type(exc).__name__, str(exc), f"{name}()", bases) from None
            return _plain(result)

        return call


class StandInPlugin:
    """TEST SCAFFOLDING ONLY: in-process fixtures ``student``, ``ref``, ``rng``,
    ``grading_seed``, ``answers``, ``variant`` and ``answer_key`` for running the suites without the sandbox."""

    def __init__(self, modules: dict[str, Any], answers: dict[str, Any], *, seed: int = 20260810) -> None:
        self.modules = modules
        self.answers_value = answers
        self.seed = seed
        self.outcomes: dict[str, str] = {}
        self.items: list[pytest.Item] = []

    def pytest_configure(self, config: pytest.Config) -> None:
        config.addinivalue_line("markers", "part(id): the assignment part a test module grades")
        config.stash[ANSWER_KEY] = reference().answers_key

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.items = list(session.items)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        name = _short(report.nodeid)
        if report.when == "call":
            self.outcomes[name] = report.outcome
        elif report.failed:  # setup or teardown: the test's machinery broke
            self.outcomes[name] = "error"
        elif report.skipped:
            self.outcomes[name] = "skipped"

    @pytest.fixture
    def student(self) -> SimpleNamespace:
        return SimpleNamespace(**{p: _StandInPart(m) for p, m in self.modules.items()})

    @pytest.fixture
    def ref(self) -> SimpleNamespace:
        return reference()

    @pytest.fixture
    def grading_seed(self) -> int:
        return self.seed

    @pytest.fixture
    def rng(self, request: pytest.FixtureRequest, grading_seed: int) -> np.random.Generator:
        return np.random.default_rng([grading_seed, zlib.crc32(request.node.nodeid.encode())])

    @pytest.fixture
    def answers(self) -> dict[str, Any]:
        return self.answers_value

    @pytest.fixture
    def variant(self) -> dict[str, Any] | None:
        return None  # the chapter's own numbers

    @pytest.fixture
    def answer_key(self) -> dict[str, Any]:
        return dict(reference().answers_key)


def _short(nodeid: str) -> str:
    """``suites/chapter07/hidden/test_scaling.py::t[x]`` -> ``hidden/test_scaling.py::t[x]``."""
    return nodeid.split("chapter07/", 1)[-1]


def run_suites(
    modules: dict[str, Any],
    *,
    answers: dict[str, Any] | None = None,
    suites: Iterable[str] = ("public", "hidden"),
    files: Iterable[str] = (),
    seed: int = 20260810,
) -> StandInPlugin:
    paths = [str(SUITES / s / f) for s in suites for f in files] if files else [str(SUITES / s) for s in suites]
    plugin = StandInPlugin(modules, key_answers() if answers is None else answers, seed=seed)
    forget_other_suites([SUITES / s for s in suites])  # another chapter graded in this process
    pytest.main([*paths, "-p", "no:terminal", f"--rootdir={ROOT}"], plugins=[plugin])
    assert plugin.outcomes, "the suites collected nothing"
    return plugin


def failing(plugin: StandInPlugin) -> set[str]:
    return {name for name, status in plugin.outcomes.items() if status != "passed"}


def ref_modules(**overrides: Callable[..., Any]) -> dict[str, Any]:
    """The reference modules with some functions replaced: ``ref_modules(scaling__scale_scores=f)``."""
    modules: dict[str, Any] = {p: getattr(reference(), p) for p in PARTS}
    for key, func in overrides.items():
        part, name = key.split("__", 1)
        modules[part] = SimpleNamespace(**{**vars(modules[part]), name: func})
    return modules


# --- the reference and the stubs ---------------------------------------------------------------


@pytest.mark.parametrize("seed", [20260810, 7])
def test_reference_passes_everything(seed):
    plugin = run_suites(ref_modules(), seed=seed)
    assert failing(plugin) == set()


def test_suite_sizes():
    plugin = run_suites(ref_modules())
    public = [n for n in plugin.outcomes if n.startswith("public/")]
    hidden = [n for n in plugin.outcomes if n.startswith("hidden/")]
    assert 25 <= len(public) <= 35
    assert 60 <= len(hidden) <= 90


def test_every_test_has_a_bilingual_title_and_a_part():
    plugin = run_suites(ref_modules())
    parts = set()
    for item in plugin.items:
        doc = (item.function.__doc__ or "").strip().splitlines()  # type: ignore[attr-defined]
        assert len(doc) >= 2 and doc[0].strip(), item.nodeid
        assert doc[1].strip().startswith("ja: "), item.nodeid
        marker = item.get_closest_marker("part")
        assert marker is not None, item.nodeid
        parts.add(marker.args[0])
    assert parts == {"scaling", "softmax", "variance", "quiz"}


def test_stubs_fail_everything_without_errors():
    plugin = run_suites(stubs(), answers={qid: {"answer": None} for qid in reference().answers_key})
    assert set(plugin.outcomes.values()) == {"failed"}


def test_missing_answers_fail_only_the_quiz():
    plugin = run_suites(ref_modules(), answers={})
    assert failing(plugin) == {n for n in plugin.outcomes if "test_quiz.py" in n}


def test_quiz_accepts_flat_answers_and_rejects_wrong_ones():
    key = reference().answers_key
    flat = {qid: str(spec["answer"]).upper() if spec["type"] == "choice" else spec["answer"] for qid, spec in key.items()}
    assert failing(run_suites({}, answers=flat, files=["test_quiz.py"])) == set()
    # Well formed (public passes) but wrong (hidden fails): 64 is sqrt(4096), a classic slip.
    wrong = {
        qid: 64 if spec["type"] == "numeric" else next(c for c in "abcd" if c != spec["answer"])
        for qid, spec in key.items()
    }
    plugin = run_suites({}, answers=wrong, files=["test_quiz.py"])
    assert failing(plugin) == {n for n in plugin.outcomes if n.startswith("hidden/")}


def test_expected_json_is_current():
    assert expected_tool.main(["--check"]) == 0


# --- known-wrong variants ----------------------------------------------------------------------


def _divide_by_d_k_scaling() -> dict[str, Callable[..., Any]]:
    def scale_scores(scores, d_k):
        return scores / d_k

    def attention_scores(q, k):
        return q @ k.transpose(-2, -1) / q.shape[-1]

    def multihead_attention_scores(q, k, n_heads):
        b, s, d = q.shape
        qh = q.view(b, s, n_heads, d // n_heads).transpose(1, 2)
        kh = k.view(b, s, n_heads, d // n_heads).transpose(1, 2)
        return qh @ kh.transpose(-2, -1) / (d // n_heads)

    return {
        "scaling__scale_scores": scale_scores,
        "scaling__attention_scores": attention_scores,
        "scaling__multihead_attention_scores": multihead_attention_scores,
    }


def _softmax_overflow(x, dim=-1):
    e = torch.exp(x)
    return e / e.sum(dim=dim, keepdim=True)


def _softmax_last_axis_only(x, dim=-1):
    return torch.softmax(x, dim=-1)


def _temperature_multiplied(x, temperature, dim=-1):
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    return torch.softmax(x * temperature, dim=dim)


def _jacobian_no_outer(p):
    return torch.diag(p)


def _saturation_as_tensors(scores, d_k):
    return {"unscaled": torch.softmax(scores, 0).max(), "scaled": torch.softmax(scores / math.sqrt(d_k), 0).max()}


def _variance_std(d_k, n_samples=10000, seed=0):
    return math.sqrt(reference().variance.dot_product_variance(d_k, n_samples, seed))


def _variance_self_dot(d_k, n_samples=10000, seed=0):
    q = torch.randn(n_samples, d_k, generator=torch.Generator().manual_seed(seed))
    return float((q * q).sum(1).var())


def _variance_ignores_seed(d_k, n_samples=10000, seed=0):
    q, k = torch.randn(n_samples, d_k), torch.randn(n_samples, d_k)
    return float((q * k).sum(1).var())


def _variance_uniform(d_k, n_samples=10000, seed=0):
    gen = torch.Generator().manual_seed(seed)
    q, k = torch.rand(n_samples, d_k, generator=gen), torch.rand(n_samples, d_k, generator=gen)
    return float((q * k).sum(1).var())


def _saturation_hardcoded(scores, d_k):
    return {"unscaled": 0.950, "scaled": 0.403}


def _multihead_no_transpose(q, k, n_heads):
    b, s, d = q.shape
    qh, kh = q.reshape(b, n_heads, s, d // n_heads), k.reshape(b, n_heads, s, d // n_heads)
    return qh @ kh.transpose(-2, -1) / math.sqrt(d // n_heads)


def _multihead_sqrt_d_model(q, k, n_heads):
    return reference().scaling.multihead_attention_scores(q, k, n_heads) * math.sqrt(q.shape[-1] // n_heads) / math.sqrt(q.shape[-1])


MUTANTS: dict[str, tuple[dict[str, Callable[..., Any]], set[str]]] = {
    "divide-by-d-k": (
        _divide_by_d_k_scaling(),
        {
            "public/test_scaling.py::test_scale_scores_chapter_example",
            "public/test_scaling.py::test_scale_scores_random[16]",
            "public/test_scaling.py::test_scale_scores_random[256]",
            "public/test_scaling.py::test_attention_scores",
            "public/test_scaling.py::test_multihead_attention_scores_gpt2_small",
            "hidden/test_scaling.py::test_scale_scores_chapter_example",
            "hidden/test_scaling.py::test_scale_scores_edge_d_k[256]",
            "hidden/test_scaling.py::test_scale_scores_any_shape[1]",
            "hidden/test_scaling.py::test_scale_scores_any_shape[4]",
            "hidden/test_scaling.py::test_scale_scores_large_magnitudes",
            "hidden/test_scaling.py::test_scale_scores_float64",
            "hidden/test_scaling.py::test_attention_scores_shapes[batch-heads]",
            "hidden/test_scaling.py::test_attention_scores_float64",
            "hidden/test_scaling.py::test_multihead_attention_scores[768-12]",
            "hidden/test_scaling.py::test_multihead_heads_are_feature_slices",
        },
    ),
    "head-split-order": (
        {"scaling__multihead_attention_scores": _multihead_no_transpose},
        {
            "public/test_scaling.py::test_multihead_attention_scores_gpt2_small",
            *(f"hidden/test_scaling.py::test_multihead_attention_scores[{i}]" for i in ("768-12", "4096-32", "512-8", "64-4")),
            "hidden/test_scaling.py::test_multihead_heads_are_feature_slices",
        },
    ),
    "sqrt-d-model": (
        {"scaling__multihead_attention_scores": _multihead_sqrt_d_model},
        {
            "public/test_scaling.py::test_multihead_attention_scores_gpt2_small",
            *(f"hidden/test_scaling.py::test_multihead_attention_scores[{i}]" for i in ("768-12", "4096-32", "512-8", "64-4")),
        },
    ),
    "softmax-overflow": (
        {"softmax__softmax": _softmax_overflow},
        {"public/test_softmax.py::test_softmax_large_inputs", "hidden/test_softmax.py::test_softmax_large_inputs"},
    ),
    "softmax-wrong-dim": (
        {"softmax__softmax": _softmax_last_axis_only},
        {
            "public/test_softmax.py::test_softmax_matches_torch[0]",
            "hidden/test_softmax.py::test_softmax_matches_reference[2d-dim0]",
            "hidden/test_softmax.py::test_softmax_matches_reference[3d-dim1]",
        },
    ),
    "temperature-multiplied": (
        {"softmax__softmax_with_temperature": _temperature_multiplied},
        {
            "public/test_softmax.py::test_temperature",
            "hidden/test_softmax.py::test_temperature_matches_reference",
            "hidden/test_softmax.py::test_temperature_sqrt_d_k_is_scaling",
        },
    ),
    "jacobian-wrong": (
        {"softmax__softmax_jacobian": _jacobian_no_outer},
        {
            "public/test_softmax.py::test_jacobian_matches_autograd",
            "hidden/test_softmax.py::test_jacobian_matches_reference",
            "hidden/test_softmax.py::test_jacobian_properties",
            "hidden/test_softmax.py::test_jacobian_vanishes_as_softmax_saturates",
        },
    ),
    "saturation-not-floats": (
        {"softmax__compare_saturation": _saturation_as_tensors},
        {
            "public/test_softmax.py::test_compare_saturation_chapter_example",
            "hidden/test_softmax.py::test_compare_saturation_chapter_example",
            "hidden/test_softmax.py::test_compare_saturation_random_scores",
        },
    ),
    "variance-returns-std": (
        {"variance__dot_product_variance": _variance_std},
        {
            "public/test_variance.py::test_dot_product_variance_is_d_k[4]",
            "public/test_variance.py::test_dot_product_variance_is_d_k[64]",
            "public/test_variance.py::test_seed_controls_the_sample",
            "hidden/test_variance.py::test_dot_product_variance_is_d_k[4]",
            "hidden/test_variance.py::test_dot_product_variance_is_d_k[16]",
            "hidden/test_variance.py::test_dot_product_variance_is_d_k[64]",
            "hidden/test_variance.py::test_same_seed_same_value",
            "hidden/test_variance.py::test_different_seeds_differ",
        },
    ),
    "variance-self-dot": (
        {"variance__dot_product_variance": _variance_self_dot},
        {f"hidden/test_variance.py::test_dot_product_variance_is_d_k[{d}]" for d in (1, 4, 16, 64)},
    ),
    "variance-uniform": (
        {"variance__dot_product_variance": _variance_uniform},
        {f"hidden/test_variance.py::test_dot_product_variance_is_d_k[{d}]" for d in (1, 4, 16, 64)},
    ),
    "hardcoded-saturation": (
        {"softmax__compare_saturation": _saturation_hardcoded},
        {"hidden/test_softmax.py::test_compare_saturation_random_scores"},
    ),
    "variance-ignores-seed": (
        {"variance__dot_product_variance": _variance_ignores_seed},
        {"public/test_variance.py::test_seed_controls_the_sample", "hidden/test_variance.py::test_same_seed_same_value"},
    ),
}


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_wrong_variant_fails_the_relevant_tests(mutant):
    overrides, must_fail = MUTANTS[mutant]
    part = next(iter(overrides)).split("__")[0]
    plugin = run_suites(ref_modules(**overrides), files=[f"test_{part}.py"])
    failed = failing(plugin)
    assert must_fail <= failed, f"not caught: {sorted(must_fail - failed)}"
    assert all(plugin.outcomes[n] == "failed" for n in failed), "a wrong answer must fail, not error"
