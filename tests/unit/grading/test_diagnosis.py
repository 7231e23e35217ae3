"""Tests for chapter 7's probes (suites/chapter07/plugin/hooks.py), grader/kit/probes.py and grader/spec/catalogue.py.

Most tests call the diagnosis on an in-process stand-in for the worker session (below), so
each case costs milliseconds; the values still travel through grader.sandbox.wire, as in the sandbox.
Spellings of each mistake and correct solutions in many styles are case files in
tests/fixtures/spellings/, each with a header::

    # expect: sqrt-d-model        (or "nothing")
    # file: scaling.py
    # function: multihead_attention_scores
"""

from __future__ import annotations

import types
import warnings
from pathlib import Path
from typing import Any

import pytest

import dataclasses

from grader.grading import diagnosis

from grader.sandbox import wire
from grader.spec.assignment import assignment_of
from grader.spec.rubric.load import load_rubric
from grader.spec.rubric.model import MistakeOptions
from grader.report.model import CaseOutcome, Mistake, Status
from grader.grading.runner import load_reference
from grader.sandbox.session import StudentTimeout, StudentUnavailable
from grader.sandbox.session import StudentRaised

from tests.helpers import ROOT


SPELLINGS = ROOT / "tests" / "fixtures" / "spellings"
CH7 = load_rubric(ROOT / "rubrics" / "chapter07.yaml")
CH7_ASSIGNMENT = assignment_of(CH7)
PARTS = ("scaling", "softmax", "variance")
ALL_PARTS = tuple(CH7_ASSIGNMENT.all_functions)


def catalogue():
    return CH7_ASSIGNMENT.catalogue()


def mistake_ids():
    return CH7_ASSIGNMENT.mistake_ids()
CONTRACT_IDS = [
    "sqrt-d-model", "divide-by-d-k", "no-scaling", "multiply-by-sqrt-d-k", "wrong-divisor",
    "head-split-order", "softmax-overflow", "softmax-wrong-dim", "softmax-not-normalized",
    "temperature-multiplied", "jacobian-wrong", "variance-returns-std", "variance-self-dot",
    "variance-uniform", "variance-ignores-seed", "hardcoded-output", "not-implemented",
]


class InProcessSession:
    """``call(part, func, args, kwargs)`` like ``SubmissionSession.call``, on modules built here."""

    kind = "folder"

    def __init__(self, sources: dict[str, str]) -> None:
        self.modules: dict[str, types.ModuleType] = {}
        self.calls = 0
        for part, code in sources.items():
            module = types.ModuleType(f"_inprocess_{part}")
            exec(compile(code, f"{part}.py", "exec"), module.__dict__)  # noqa: S102 - test fixtures
            self.modules[part] = module

    @classmethod
    def from_folder(cls, folder: Path, **replace: str) -> InProcessSession:
        sources = {p: (folder / f"{p}.py").read_text(encoding="utf-8") for p in PARTS
                   if (folder / f"{p}.py").exists()}
        sources.update(replace)
        return cls(sources)

    def module_for(self, part: str) -> dict[str, Any] | None:
        return {"name": part, "filename": f"{part}.py"} if part in self.modules else None

    def call(self, part: str, func: str, args: list[Any], kwargs: dict[str, Any], *,
             echo_args: bool = False) -> Any:
        self.calls += 1
        module = self.modules.get(part)
        if module is None or not callable(getattr(module, func, None)):
            raise StudentUnavailable(f"no {func}() in {part}.py", f"{part}.py", 0)
        args = wire.decode(wire.encode(list(args)), tensors=True)
        kwargs = wire.decode(wire.encode(dict(kwargs)), tensors=True)
        try:
            with warnings.catch_warnings():  # the student's warnings stay in the sandbox
                warnings.simplefilter("ignore")
                value = getattr(module, func)(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - described, as the worker does
            raise StudentRaised(type(exc).__name__, str(exc), f"{part}.py",
                                [c.__name__ for c in type(exc).__mro__[1:]]) from None
        if echo_args:  # the arguments as the call left them, as the worker sends them back
            return wire.decode(wire.encode(value)), wire.decode(wire.encode(list(args)))
        return wire.decode(wire.encode(value))


class Run:
    """The fields of SubmissionRun that diagnose() reads."""

    def __init__(self, outcomes: list[CaseOutcome] | None = None, answers: dict[str, Any] | None = None) -> None:
        self.outcomes = outcomes or []
        self.answers = answers or {}
        self.errors: list[str] = []


def failed(part: str, status: Status = Status.FAILED) -> CaseOutcome:
    return CaseOutcome(id=f"hidden/test_{part}.py::test_x", part=part, status=status, max_score=1.0)


@pytest.fixture(scope="module")
def reference():
    return load_reference(ROOT / "solutions" / "chapter07", PARTS)


def read_case(path: Path) -> tuple[dict[str, str], str]:
    text = path.read_text(encoding="utf-8")
    header = {}
    for line in text.splitlines():
        if not line.startswith("# "):
            break
        key, _, value = line[2:].partition(":")
        header[key.strip()] = value.strip()
    return header, text


def diagnose_all(session: InProcessSession, reference: Any, parts=PARTS, rubric=CH7) -> tuple[list[Mistake], Run]:
    run = Run()
    found = diagnosis.diagnose(run, session, reference, rubric, parts=parts)
    return found, run


# --------------------------------------------------------------------------- catalogue


def test_catalogue_holds_every_contract_id_in_order():
    """the catalogue lists the ids of the assignment contract first, in the contract's order
    (not-implemented, the last, is the framework's own and comes after the chapter's)"""
    assert CONTRACT_IDS[:-1] == mistake_ids()[: len(CONTRACT_IDS) - 1]
    assert "not-implemented" == CONTRACT_IDS[-1] and "not-implemented" in mistake_ids()


def test_every_catalogue_entry_has_messages_in_both_languages():
    """every entry has en and ja templates, a title and a recognition note"""
    for entry in catalogue().values():
        assert entry.title["en"] and entry.title["ja"]
        assert entry.recognised_by
        for templates in entry.messages.values():
            assert templates["en"].strip() and templates["ja"].strip()


def test_every_applies_to_names_a_probed_function():
    """applies_to only names functions the diagnosis probes (or the quiz question)"""
    known = {f"{part}.{func}" for part, funcs in CH7_ASSIGNMENT.all_functions.items() for func in funcs}
    for entry in catalogue().values():
        for name in entry.applies_to:
            assert name in known or name.startswith("quiz."), (entry.id, name)


def test_ja_messages_keep_no_line_break_spaces():
    """folded Japanese lines are joined without a space between two Japanese characters"""
    text = catalogue()["divide-by-d-k"].render({"call": "f()", "divisor": 64, "d_k": 64, "expected_divisor": 8})["ja"]
    assert "すべてのスコアが0 に" not in text and "割っています。d_k" in text


def test_missing_slot_is_shown_not_raised():
    """a template slot the evidence lacks renders as ? instead of failing"""
    text = catalogue()["sqrt-d-model"].render({})
    assert "?" in text["en"] and "?" in text["ja"]


# --------------------------------------------------------------------------- spellings


def _spelling_cases() -> list[Path]:
    return sorted(SPELLINGS.glob("*.py"))


@pytest.mark.parametrize("path", _spelling_cases(), ids=lambda p: p.stem)
@pytest.mark.parametrize("with_reference", [True, False], ids=["reference", "torch-only"])
def test_spelling(path, with_reference, reference):
    """each spelling of a mistake is named with its id; each correct style is named nothing"""
    header, text = read_case(path)
    part = header["file"].removesuffix(".py")
    found, run = diagnose_all(InProcessSession({part: text}), reference if with_reference else None, parts=(part,))
    assert run.errors == []
    named = sorted({m.id for m in found})
    if header["expect"] == "nothing":
        assert named == []
    else:
        assert named == [header["expect"]], [m.message["en"] for m in found]
        [mistake] = found
        assert header["function"] in (mistake.function or "").split(", ")


def test_spellings_cover_every_scaling_mistake_several_times():
    """the spelling cases hold at least three spellings of each scaling mistake"""
    counts: dict[str, int] = {}
    for path in _spelling_cases():
        header, _ = read_case(path)
        counts[header["expect"]] = counts.get(header["expect"], 0) + 1
    for mid in ("sqrt-d-model", "divide-by-d-k", "no-scaling", "multiply-by-sqrt-d-k", "wrong-divisor",
                "head-split-order"):
        assert counts.get(mid, 0) >= 3, mid
    assert counts["nothing"] >= 5


# --------------------------------------------------------------------------- no false accusations


def _correct_folders() -> list[Path]:
    folders = sorted(p for p in (ROOT / "tests" / "fixtures" / "submissions").glob("correct-*") if p.is_dir())
    return [ROOT / "solutions" / "chapter07", ROOT / "examples" / "submissions" / "correct", *folders]


@pytest.mark.parametrize("folder", _correct_folders(), ids=lambda p: p.name)
@pytest.mark.parametrize("seeds", [(1234, 4321), (1, 2), (7, 99), (2024, 31337), (0, 5)], ids=str)
def test_correct_solutions_are_named_nothing(folder, seeds, reference, monkeypatch):
    """correct solutions in any style are named nothing, whichever probe seeds are drawn"""
    monkeypatch.setattr(CH7_ASSIGNMENT.hooks.module, "_SEEDS", seeds)
    session = InProcessSession.from_folder(folder)
    for ref in (reference, None):
        found, run = diagnose_all(session, ref)
        assert [m.id for m in found] == []
        assert run.errors == []


def test_a_passing_submission_costs_no_call(reference):
    """parts whose tests all passed are not probed at all"""
    session = InProcessSession.from_folder(ROOT / "solutions" / "chapter07")
    run = Run([CaseOutcome(id="x", part=p, status=Status.PASSED, max_score=1.0, score=1.0) for p in PARTS])
    assert diagnosis.diagnose(run, session, reference, CH7) == []
    assert session.calls == 0


def test_probes_of_a_correct_submission_are_few(reference):
    """every probe of a correct submission together makes a bounded number of calls"""
    session = InProcessSession.from_folder(ROOT / "solutions" / "chapter07")
    diagnose_all(session, reference)
    assert session.calls < 140  # a count, not a time: a test must not depend on machine speed


# --------------------------------------------------------------------------- messages


def test_sqrt_d_model_message_quotes_the_students_numbers(reference):
    """the sqrt-d-model message gives 27.71 = √768, 768 / 12 = 64 and 8, in both languages"""
    session = InProcessSession.from_folder(ROOT / "examples" / "submissions" / "sqrt-d-model")
    found, _ = diagnose_all(session, reference, parts=("scaling",))
    [m] = found
    assert m.id == "sqrt-d-model" and m.part == "scaling" and m.file == "scaling.py"
    assert m.evidence["divisor"] == pytest.approx(27.7128, abs=1e-3)
    assert (m.evidence["d_model"], m.evidence["n_heads"], m.evidence["d_k"], m.evidence["expected_divisor"]) == (768, 12, 64, 8.0)
    for lang in ("en", "ja"):
        for number in ("27.71", "√768", "768 / 12 = 64", "√64 = 8"):
            assert number in m.message[lang], (lang, number)


@pytest.mark.parametrize(
    ("case", "numbers"),
    [
        ("divide_by_d_k_plain", ["64", "√64 = 8"]),
        ("wrong_divisor_literal_8", ["8", "d_k = 16", "4"]),
        ("wrong_divisor_wrong_axis", ["1.732", "√d_k = 8"]),
        ("multiply_sqrt", ["0.125", "√64"]),
        ("no_scaling_attention", ["√64 = 8"]),
        ("split_view_no_transpose", ["view(batch, n_heads, seq, d_k)", "n_heads = 12", "d_k = 64"]),
        ("overflow_plain", ["10000", "8"]),
        ("wrong_dim_zero", ["dim=-1", "0", "[3, 5]"]),
        ("temperature_times", ["2", "0.5"]),
        ("jacobian_diag", ["diag(p)", "-0.02331", "0.2278"]),
        ("std_torch", ["√16", "4"]),
        ("uniform_torch", ["[0, 1)"]),
        ("self_dot", ["16", "35.02", "2.19"]),
        ("seed_fixed", ["seed=1234", "seed=4321"]),
        ("hardcoded_saturation", ["0.9503", "0.4034"]),
    ],
)
def test_messages_carry_the_evidence_numbers(case, numbers, reference):
    """each message quotes the numbers found in the student's own run, in en and ja"""
    header, text = read_case(SPELLINGS / f"{case}.py")
    part = header["file"].removesuffix(".py")
    found, _ = diagnose_all(InProcessSession({part: text}), reference, parts=(part,))
    [m] = found
    for lang in ("en", "ja"):
        for number in numbers:
            assert number in m.message[lang], (lang, number, m.message[lang])


def test_same_mistake_in_several_functions_is_named_once_per_part(reference):
    """one Mistake per (id, part): the first function's numbers, the others listed"""
    session = InProcessSession.from_folder(ROOT / "examples" / "submissions" / "divide-by-dk")
    found, _ = diagnose_all(session, reference)
    assert [(m.id, m.part) for m in found] == [("divide-by-d-k", "scaling"), ("divide-by-d-k", "softmax"),
                                              ("divide-by-d-k", "variance")]
    scaling = found[0]
    assert scaling.function == "scaling_factor, scale_scores, attention_scores, multihead_attention_scores"
    assert "scale_scores" in scaling.message["en"] and "scale_scores" in scaling.message["ja"]


def test_stub_is_named_not_implemented_once_per_part(reference):
    """an untouched stub is not-implemented, once per file, listing its functions"""
    session = InProcessSession.from_folder(ROOT / "exercises" / "chapter07")
    found, _ = diagnose_all(session, reference)
    assert [(m.id, m.part) for m in found] == [("not-implemented", p) for p in PARTS]
    assert found[2].evidence["functions"] == ["dot_product_variance", "scaled_dot_product_variance", "variance_table"]
    assert "variance_table" in found[2].message["ja"]


def test_quiz_answer_with_sqrt_d_model_is_named_without_giving_the_answer():
    """answering √4096 = 64 for the divisor names sqrt-d-model but never states 11.31"""
    run = Run([failed("quiz")], {"divisor-4096-32": {"answer": 64}})
    [m] = diagnosis.diagnose(run, InProcessSession({}), None, CH7)
    assert (m.id, m.part, m.file) == ("sqrt-d-model", "quiz", "answers.yaml")
    for lang in ("en", "ja"):
        assert "64" in m.message[lang] and "√4096" in m.message[lang]
        assert "11.3" not in m.message[lang] and "128" not in m.message[lang]


# --------------------------------------------------------------------------- plain statements, robustness


def test_failure_no_known_mistake_explains_is_said_plainly(reference):
    """a wrong function that matches nothing known is reported as unrecognised, not guessed"""
    code = "import torch\n\ndef softmax_jacobian(p):\n    return p + p * p\n"  # a vector, and not the diagonal
    found, _ = diagnose_all(InProcessSession({"softmax": code}), reference, parts=("softmax",))
    [m] = found
    assert m.id == "unrecognised" and m.function == "softmax_jacobian"
    assert "softmax_jacobian" in m.message["en"] and "softmax_jacobian" in m.message["ja"]
    assert m.partial_credit == 0


@pytest.mark.parametrize(("body", "en", "ja"), [
    ("torch.diag(p) - 0.5 * torch.outer(p, p)", "p_i − 0.5 p_i² on the diagonal and −0.5 p_i p_j off it",
     "対角成分が p_i − 0.5 p_i²、非対角成分が −0.5 p_i p_j"),
    ("-torch.outer(p, p) + torch.diag(p * p)", "0 on the diagonal and −p_i p_j off it",
     "対角成分が 0、非対角成分が −p_i p_j"),
    ("torch.outer(p, p) - torch.diag(p)", "−p_i + p_i² on the diagonal and p_i p_j off it",
     "対角成分が −p_i + p_i²、非対角成分が p_i p_j"),
], ids=["half-outer", "off-diagonal-only", "wrong-sign"])
def test_every_wrong_jacobian_is_jacobian_wrong_described_by_its_numbers(reference, body, en, ja):
    """no list of forms decides: any wrong (n, n) Jacobian is named, with what its numbers hold"""
    code = f"import torch\n\ndef softmax_jacobian(p):\n    return {body}\n"
    found, _ = diagnose_all(InProcessSession({"softmax": code}), reference, parts=("softmax",))
    [m] = found
    assert (m.id, m.function) == ("jacobian-wrong", "softmax_jacobian")
    assert en in m.message["en"] and ja in m.message["ja"]
    assert "-0.02331" in m.message["en"] and "-0.02331" in m.message["ja"]  # the expected entry [0, 1]


def test_a_jacobian_no_combination_describes_is_shown_entry_by_entry(reference):
    """J of softmax(p) instead of p: still jacobian-wrong, with the entries measured"""
    import torch

    code = ("import torch\n\ndef softmax_jacobian(p):\n"
            "    s = torch.softmax(p, 0)\n    return torch.diag(s) - torch.outer(s, s)\n")
    found, _ = diagnose_all(InProcessSession({"softmax": code}), reference, parts=("softmax",))
    [m] = found
    assert m.id == "jacobian-wrong" and m.evidence.get("variant") == "measured"
    p = torch.softmax(torch.tensor([1.0, 0.2, -0.5, 2.0]), 0)
    s = torch.softmax(p, 0)
    got = f"{float(-s[0] * s[1]):.4g}"
    assert f"entry [0, 1] is {got} where -0.02331 is expected" in m.message["en"]
    assert f"要素 [0, 1] が -0.02331 ではなく {got}" in m.message["ja"]


def test_compare_saturation_wrong_only_through_its_softmax_is_named_with_it(reference):
    """a softmax dividing by 1 + the sum: compare_saturation, which calls it, shares its id"""
    code = ("import math\nimport torch\n\ndef softmax(x, dim=-1):\n"
            "    e = torch.exp(x - x.amax(dim=dim, keepdim=True))\n"
            "    return e / (1.0 + e.sum(dim=dim, keepdim=True))\n\n"
            "def compare_saturation(scores, d_k):\n"
            "    return {'unscaled': float(softmax(scores).max()),\n"
            "            'scaled': float(softmax(scores / math.sqrt(d_k)).max())}\n")
    found, _ = diagnose_all(InProcessSession({"softmax": code}), reference, parts=("softmax",))
    assert [m.id for m in found] == ["softmax-not-normalized"]
    assert found[0].evidence["functions"][:2] == ["softmax", "compare_saturation"]
    assert "compare_saturation" in found[0].message["en"] and "compare_saturation" in found[0].message["ja"]


def test_failed_part_with_no_finding_gets_a_plain_note(reference):
    """tests failed but every probe looks right: say that no known mistake explains it"""
    session = InProcessSession.from_folder(ROOT / "solutions" / "chapter07")
    run = Run([failed("softmax")])
    [m] = diagnosis.diagnose(run, session, reference, CH7)
    assert (m.id, m.part, m.function) == ("unrecognised", "softmax", None)


def test_errored_tests_alone_get_no_note(reference):
    """a part whose tests only errored (file did not load) is explained by the errors already"""
    run = Run([failed("softmax", Status.ERROR)])
    assert diagnosis.diagnose(run, InProcessSession({}), reference, CH7) == []


def test_timed_out_part_is_not_probed(reference):
    """a part with a timeout is left alone: probing could hang again"""
    session = InProcessSession.from_folder(ROOT / "examples" / "submissions" / "divide-by-dk")
    run = Run([failed("scaling"), failed("scaling", Status.TIMEOUT)])
    assert diagnosis.diagnose(run, session, reference, CH7) == []
    assert session.calls == 0


class FlakySession(InProcessSession):
    """Times out in one function, raises in another."""

    def call(self, part, func, args, kwargs):
        if func == "scale_scores":
            raise StudentTimeout("no answer within 10 s")
        if func == "softmax":
            raise RuntimeError("our own bug")
        return super().call(part, func, args, kwargs)


def test_a_timeout_stops_only_its_part_and_a_bug_only_its_function(reference):
    """a probe's timeout ends that part's probing; a diagnosis bug costs one function, noted"""
    session = FlakySession.from_folder(ROOT / "examples" / "submissions" / "divide-by-dk",
                                       softmax=(ROOT / "tests/fixtures/spellings/temperature_times.py").read_text())
    found, run = diagnose_all(session, reference)
    named = [(m.id, m.part) for m in found]
    assert ("divide-by-d-k", "scaling") in named  # scaling_factor, probed before the timeout
    assert ("temperature-multiplied", "softmax") in named
    assert ("divide-by-d-k", "variance") in named
    assert any("softmax()" in e for e in run.errors)


def test_student_exception_in_a_probe_is_a_finding_not_a_crash(reference):
    """a function that raises on a valid input is unrecognised; the others are still probed"""
    code = ("import math\n\ndef scale_scores(scores, d_k):\n    raise TypeError('bad')\n\n"
            "def attention_scores(q, k):\n    return q @ k.transpose(-2, -1)\n")
    found, _ = diagnose_all(InProcessSession({"scaling": code}), reference, parts=("scaling",))
    assert sorted(m.id for m in found) == ["no-scaling", "unrecognised"]
    unrecognised = next(m for m in found if m.id == "unrecognised")
    assert unrecognised.evidence["raised"] == "TypeError"


def Rubric(credit: dict[str, float]) -> Any:  # noqa: N802 - reads as the rubric it stands for
    """Chapter 7's rubric with these partial credits."""
    return dataclasses.replace(CH7, mistakes=tuple(MistakeOptions(mid, c) for mid, c in credit.items()))


def test_partial_credit_comes_from_the_rubric_when_one_mistake_explains_the_part(reference):
    """partial credit is the rubric's, given once per part when exactly one id explains it"""
    header, text = read_case(SPELLINGS / "divide_by_d_k_plain.py")
    found, _ = diagnose_all(InProcessSession({"scaling": text}), reference, parts=("scaling",),
                            rubric=Rubric({"divide-by-d-k": 2.5}))
    assert [(m.id, m.partial_credit) for m in found] == [("divide-by-d-k", 2.5)]
    mixed = text + "\n\ndef head_dim(d_model, n_heads):\n    return 64\n"
    found, _ = diagnose_all(InProcessSession({"scaling": mixed}), reference, parts=("scaling",),
                            rubric=Rubric({"divide-by-d-k": 2.5}))
    assert sorted((m.id, m.partial_credit) for m in found) == [("divide-by-d-k", 0.0), ("hardcoded-output", 0.0)]


def test_mistakes_are_plain_data():
    """evidence holds only str, numbers, lists and dicts, so every writer can show it"""
    run = Run([failed("quiz")], {"divisor-4096-32": {"answer": 128}})
    [m] = diagnosis.diagnose(run, InProcessSession({}), None, CH7)
    assert wire.decode(wire.encode(m.to_dict())) == m.to_dict()


def test_words_in_the_evidence_follow_the_message_language(reference):
    """evidence given in both languages (the reason a value is invalid) fills each message in its own"""
    header, text = read_case(SPELLINGS / "missing_value_error_assert.py")
    found, _ = diagnose_all(InProcessSession({"scaling": text}), reference, parts=("scaling",))
    [m] = found
    assert m.evidence["raised"] == "AssertionError"
    assert "768 is not divisible by 10" in m.message["en"] and "AssertionError" in m.message["en"]
    assert "768 は 10 で割り切れません" in m.message["ja"] and "AssertionError" in m.message["ja"]


def _correct_submissions() -> list[Path]:
    fixtures = sorted((ROOT / "tests" / "fixtures" / "submissions").glob("correct-*"))
    examples = [ROOT / "examples" / "submissions" / name for name in ("correct", "notebook-student.ipynb")]
    return [ROOT / "solutions" / "chapter07", *fixtures, *[p for p in examples if p.exists()]]


@pytest.mark.slow
def test_every_probe_through_the_worker_names_nothing_on_correct_submissions(rubric, reference):
    """through the real sandbox (folders, notebooks, zips), every probe of a correct submission names nothing"""
    from grader.grading.runner import choose_level
    from grader.sandbox.limits import Limits
    from grader.sandbox.spawn import worker_for
    from grader.ingest.submission.load import load_submission

    level, _ = choose_level()
    with worker_for(level, limits=rubric.limits) as worker:
        for path in _correct_submissions():
            session = worker.open(load_submission(path), Limits.of(rubric.limits))
            try:
                for ref in (reference, None):
                    run = Run()
                    found = diagnosis.diagnose(run, session, ref, rubric, parts=ALL_PARTS)
                    assert ([m.id for m in found], run.errors) == ([], []), path.name
            finally:
                session.close()


# --------------------------------------------------------------------------- sentences true to the evidence


def sentences(text: str, lang: str) -> list[str]:
    """A message cut into its sentences (English at ". ", Japanese at "。"), to check each one."""
    if lang == "ja":
        return [s + "。" for s in text.split("。") if s]
    return [s if s.endswith(".") else s + "." for s in text.split(". ")]


def only_mistake(case: str, reference: Any) -> Mistake:
    header, text = read_case(SPELLINGS / f"{case}.py")
    part = header["file"].removesuffix(".py")
    found, run = diagnose_all(InProcessSession({part: text}), reference, parts=(part,))
    assert run.errors == []
    [m] = found
    return m


@pytest.mark.parametrize(("case", "shape"), [("jacobian_diagonal_vector", "(4,)"),
                                             ("jacobian_diagonal_vector_numpy", "(4, 1)")])
def test_a_jacobian_returned_as_its_diagonal_is_named_sentence_by_sentence(case, shape, reference):
    """p (1 - p) for the Jacobian: its own id, the student's shape and values, the entry it lacks"""
    m = only_mistake(case, reference)
    assert (m.id, m.function) == ("jacobian-diagonal-vector", "softmax_jacobian")
    values = "[0.1759, 0.09186, 0.04824, 0.2358]"
    assert sentences(m.message["en"], "en") == [
        f"softmax_jacobian(float32[4]) returns shape {shape}, the values {values}: p_i (1 − p_i), only the "
        "diagonal of the Jacobian, as if each p_i depended on its own x_i alone (the derivative of an "
        "elementwise sigmoid).",
        "Softmax couples every output to every input: p_i also moves when another x_j does, by −p_i p_j "
        "(entry [0, 1] should be -0.02331).",
        "Return the (4, 4) matrix J = diag(p) − p pᵀ; its diagonal is what you returned.",
    ]
    assert sentences(m.message["ja"], "ja") == [
        f"softmax_jacobian(float32[4]) は形 {shape} の値 {values} を返しています。",
        "これは p_i (1 − p_i)、つまりヤコビ行列の対角成分だけで、各 p_i が自分の x_i だけに依存するかのような"
        "計算です（要素ごとのシグモイドの微分）。",
        "softmax ではどの出力もすべての入力に依存し、別の x_j が動くと p_i も −p_i p_j だけ動きます"
        "（要素 [0, 1] は -0.02331 のはずです）。",
        "(4, 4) の行列 J = diag(p) − p pᵀ を返してください。",
        "あなたが返した値はその対角成分です。",
    ]


def test_a_wrong_jacobian_whose_rows_sum_to_zero_is_not_said_to_sum_to_anything_else(reference):
    """2 (diag(p) − p pᵀ): the rows do sum to 0, and the message says so instead of "0 instead of 0" """
    m = only_mistake("jacobian_rows_sum_to_zero", reference)
    assert m.id == "jacobian-wrong"
    assert sentences(m.message["en"], "en") == [
        "softmax_jacobian(float32[4]) returns a matrix with 2 p_i − 2 p_i² on the diagonal and −2 p_i p_j off "
        "it instead of J = diag(p) − p pᵀ: entry [0, 1] is -0.04661 where -0.02331 is expected, entry [0, 0] "
        "is 0.3518 where 0.1759 is expected, and its rows do sum to 0, as they must.",
        "J[i, j] = p_i (1[i = j] − p_j): p_i − p_i² on the diagonal, −p_i p_j off it.",
    ]
    assert sentences(m.message["ja"], "ja") == [
        "softmax_jacobian(float32[4]) は J = diag(p) − p pᵀ ではなく 対角成分が 2 p_i − 2 p_i²、非対角成分が "
        "−2 p_i p_j の行列 を返しています。",
        "要素 [0, 1] が -0.02331 ではなく -0.04661、要素 [0, 0] が 0.1759 ではなく 0.3518 で、行の和は正しく "
        "0 になっています。",
        "J[i, j] = p_i (1[i = j] − p_j) なので、対角成分は p_i − p_i²、非対角成分は −p_i p_j です。",
    ]
    # a row that does not sum to 0 is still given with its number
    header, text = read_case(SPELLINGS / "jacobian_diagonal_only.py")
    found, _ = diagnose_all(InProcessSession({"softmax": text}), reference, parts=("softmax",))
    assert "row 0 sums to 0.1759 instead of 0" in found[0].message["en"]
    assert "0 行目の和が 0 ではなく 0.1759 です" in found[0].message["ja"]


@pytest.mark.parametrize(("case", "max_axis", "sum_axis", "sums"), [
    ("wrong_dim_max_along_dim_sum_last", 0, 1, "[0.7385, 0.5003, 0.5306, ...]"),
    ("wrong_dim_max_last_sum_along_dim_numpy", 1, 0, "[1, 1, 1, ...]"),
])
def test_a_softmax_with_dim_in_one_place_and_a_fixed_axis_in_the_other_is_named(case, max_axis, sum_axis, sums,
                                                                                reference):
    """the maximum along one axis and the sum along another: softmax-wrong-dim, both axes named"""
    m = only_mistake(case, reference)
    assert (m.id, m.evidence["variant"], m.evidence["max_axis"], m.evidence["sum_axis"]) == (
        "softmax-wrong-dim", "mixed-axes", max_axis, sum_axis)
    assert sentences(m.message["en"], "en") == [
        f"softmax(float32[3, 5], dim=0) subtracts the maximum along axis {max_axis} but divides by the sum along "
        f"axis {sum_axis} (the array has shape [3, 5]): one of the two is written for a fixed axis instead of "
        "dim=0.",
        f"Its values are exp(x − max along axis {max_axis}) / (sum along axis {sum_axis}), which is no softmax at "
        f"all; along dim they sum to {sums}.",
        "Take both the maximum and the sum along the dim you are given, with keepdim=True.",
    ]
    assert sentences(m.message["ja"], "ja") == [
        f"softmax(float32[3, 5], dim=0) は軸 {max_axis} に沿った最大値を引き、軸 {sum_axis} に沿った和で割っています"
        "（配列の形は [3, 5]）。",
        "どちらかが dim=0 ではなく固定の軸で書かれています。",
        f"値は exp(x − 軸 {max_axis} の最大値) / (軸 {sum_axis} の和) で、softmax ではありません。",
        f"dim に沿った和は {sums} です。",
        "最大値も和も、渡された dim に沿って keepdim=True で計算してください。",
    ]


def test_a_part_failed_only_by_float32_rounding_is_named_so(reference):
    """float64 tests that failed by float32 arithmetic (and nothing else) are float32-precision, not unrecognised"""
    from grader.kit.asserts import FLOAT32_PRECISION

    def f32(test: str, call: str, actual: str = f"{FLOAT32_PRECISION} (float64)", expected: str = "float64 precision",
            ) -> CaseOutcome:
        return CaseOutcome(id=f"hidden/test_scaling.py::{test}", part="scaling", status=Status.FAILED, max_score=1.0,
                           expected=expected, actual=actual, feedback={"en": f"{call}: 3 of 75 values differ"})

    session = InProcessSession.from_folder(ROOT / "solutions" / "chapter07")
    outcomes = [f32("test_scale_scores_float64", "scale_scores(float64[3, 5, 5], d_k=128)"),
                f32("test_attention_scores_float64", "attention_scores(float64[2, 3, 32], float64[2, 6, 32])",
                    actual="float32", expected="float64")]
    [m] = diagnosis.diagnose(Run(outcomes), session, reference, CH7)
    assert (m.id, m.part, m.function) == ("float32-precision", "scaling", "scale_scores, attention_scores")
    assert sentences(m.message["en"], "en") == [
        "scale_scores, attention_scores in scaling.py: the tests with float64 inputs failed only by float32 "
        "rounding.",
        "The values are right to about 7 significant digits, the precision of float32, but float64 inputs ask "
        "for float64 precision: somewhere the computation goes through float32 (.float(), a tensor made "
        "without dtype=x.dtype, numpy's float32).",
        "Compute in the input's dtype throughout.",
    ]
    assert sentences(m.message["ja"], "ja") == [
        "scaling.py の scale_scores, attention_scores: float64 の入力を使うテストが、float32 の丸め誤差だけで"
        "失敗しました。",
        "値は float32 の精度である有効数字約 7 桁までは正しいのですが、float64 の入力には float64 の精度が"
        "必要です。",
        "計算の途中で float32 を通っています（.float()、dtype=x.dtype を指定せずに作ったテンソル、numpy の "
        "float32 など）。",
        "最初から最後まで入力と同じ dtype で計算してください。",
    ]
    # one test failed for another reason: no claim that float32 explains the part
    other = CaseOutcome(id="hidden/test_scaling.py::test_x", part="scaling", status=Status.FAILED, max_score=1.0,
                        expected="8.0", actual="27.7128")
    [m] = diagnosis.diagnose(Run([*outcomes, other]), session, reference, CH7)
    assert m.id == "unrecognised"


def test_a_function_that_only_raised_is_not_said_to_have_returned_values(reference):
    """two unexplained functions in one part: the one that raised at every call is said to have
    raised, the one that returned something to have returned values that differ"""
    code = ("import torch\n\ndef softmax(x, dim=-1):\n    return torch.zeros_like(x) + 0.25 * x.sum()\n\n"
            "def softmax_jacobian(p):\n    raise RuntimeError('shape mismatch in my_helper')\n")
    found, _ = diagnose_all(InProcessSession({"softmax": code}), reference, parts=("softmax",))
    [m] = found
    assert m.id == "unrecognised" and m.function == "softmax, softmax_jacobian"
    assert sentences(m.message["en"], "en") == [
        "softmax_jacobian in softmax.py raised RuntimeError (shape mismatch in my_helper) when the grader "
        "called it, so its values could not be compared.",
        "Read the failing tests' messages for the call that raised.",
        "softmax in softmax.py returned values that differ from the expected ones in a way that matches none "
        "of the mistakes the grader knows.",
        "Read the failing tests' messages to see which values differ.",
    ]
    assert sentences(m.message["ja"], "ja") == [
        "softmax.py の softmax_jacobian は、採点システムが呼び出したときに RuntimeError を送出しました"
        "（shape mismatch in my_helper）。",
        "そのため値を比べられませんでした。",
        "失敗したテストのメッセージで、例外が起きた呼び出しを確認してください。",
        "softmax.py の softmax の戻り値が期待値と異なりますが、採点システムが知っている典型的な誤りのどれにも"
        "当てはまりません。",
        "失敗したテストのメッセージで、どの値が違うかを確認してください。",
    ]


@pytest.mark.parametrize(("value", "shown"), [(-1e-12, "-1e-12"), (3e-9, "3e-09"), (-0.0, "0.0000"),
                                              (0.25, "0.2500"), (-0.25, "-0.2500")])
def test_a_slot_never_rounds_a_number_into_another_claim(value, shown):
    """a nonzero value a format spec would show as 0 or -0 keeps its digits; -0 reads as 0"""
    from grader.spec.catalogue import Entry

    entry = Entry(id="x", title={"en": "x", "ja": "x"}, applies_to=(), recognised_by="", evidence=("v",),
                  messages={"default": {"en": "sums to {v:.4f}", "ja": "和は {v:.4f}"}})
    assert entry.render({"v": value}) == {"en": f"sums to {shown}", "ja": f"和は {shown}"}


@pytest.mark.parametrize(("fill", "shown"), [('float("-inf")', "-inf"), ("-1e9", "-1e+09")])
def test_a_mask_written_into_the_probabilities_is_named_sentence_by_sentence(fill, shown):
    """chapter 8: the softmax of the whole row, then a value written over the future's weights:
    mask-after-softmax with that value, for masked_softmax and for causal_attention that uses it"""
    ch8 = load_rubric(ROOT / "rubrics" / "chapter08.yaml")
    mutant = ("def masked_softmax(scores):\n    p = torch.softmax(scores, dim=-1)\n"
              f"    return p.masked_fill(~causal_mask(scores.shape[-1]), {fill})\n")
    source = (ROOT / "solutions" / "chapter08" / "masking.py").read_text(encoding="utf-8") + "\n\n" + mutant
    reference8 = load_reference(ROOT / "solutions" / "chapter08", ("masking",))
    for ref in (reference8, None):
        found, run = diagnose_all(InProcessSession({"masking": source}), ref, parts=("masking",), rubric=ch8)
        assert run.errors == []
        [m] = found
        assert (m.id, m.function, m.evidence["variant"]) == ("mask-after-softmax", "masked_softmax, causal_attention",
                                                              "written")
        row0 = f"[0.0314, {shown}, {shown}, {shown}, {shown}]"
        assert sentences(m.message["en"], "en") == [
            f"masked_softmax(float32[2, 5, 5]): row 0 is {row0}.",
            f"The positions after each row's own hold {shown} and the others the softmax of the whole row: the mask "
            "was written into the probabilities after the softmax.",
            f"{shown} is no weight (a weight lies between 0 and 1), and the weights a row may use still leave out "
            "what the future took: row 0's sum to 0.0314, the smallest row's to 0.0261, not 1.",
            "Write -inf into the scores with j > i first, then take the softmax: e^(-inf) = 0 gives the future "
            "exactly 0 and each row sums to 1.",
            "The same mistake shows in causal_attention.",
        ]
        assert sentences(m.message["ja"], "ja") == [
            f"masked_softmax(float32[2, 5, 5]): 0 行目は {row0} です。",
            f"各行で自分より後ろの位置に {shown} が入り、それ以外の位置は行全体の softmax になっています。",
            "softmax の後で確率にマスクを書き込んでいます。",
            f"{shown} は重みではありません（重みは 0 から 1 の間の値です）。",
            "また、見てよい位置の重みには未来が取った分が欠けたままで、0 行目の和は 0.0314、最も小さい行の和は "
            "0.0261 で、1 になっていません。",
            "先に j > i のスコアを -inf にしてから softmax を取ってください。",
            "e^(-inf) = 0 なので未来の重みはちょうど 0 になり、各行の和は 1 になります。",
            "causal_attention にも同じ誤りがあります。",
        ]


# --------------------------------------------------------------------------- a student's own variant


class VariantRun(Run):
    """A run whose submission carries the student's variant, as a batch with variants grades it."""

    def __init__(self, values: dict[str, Any], outcomes: list[CaseOutcome] | None = None,
                 answers: dict[str, Any] | None = None) -> None:
        super().__init__(outcomes, answers)
        self.submission = types.SimpleNamespace(variant={"id": "v0", "values": values})


OWN = {"d_model": 512, "n_heads": 8, "d_k": 64, "seq_len": 6, "temperature": 2.0, "dims": [8, 32, 128]}


@pytest.mark.parametrize("folder", ["sqrt-d-model"])
def test_with_a_variant_sqrt_d_model_quotes_the_students_own_sizes(folder, reference):
    """the student of d_model 512 with 8 heads reads √512 ≈ 22.63 and 512 / 8 = 64, not GPT-2's numbers"""
    session = InProcessSession.from_folder(ROOT / "examples" / "submissions" / folder)
    [m] = diagnosis.diagnose(VariantRun(OWN), session, reference, CH7, parts=("scaling",))
    assert m.id == "sqrt-d-model"
    assert (m.evidence["d_model"], m.evidence["n_heads"], m.evidence["d_k"]) == (512, 8, 64)
    assert m.evidence["divisor"] == pytest.approx(22.627, abs=1e-3)
    for lang in ("en", "ja"):
        for number in ("22.63", "√512", "512 / 8 = 64", "√64 = 8"):
            assert number in m.message[lang], (lang, number)
        assert "768" not in m.message[lang]


def test_with_a_variant_the_quiz_divisor_is_judged_on_the_students_own_model():
    """√d_model of the student's own model is named; √4096 = 64 is no longer their mistake's number"""
    own = {**OWN, "d_model": 384, "n_heads": 4, "d_k": 96}
    run = VariantRun(own, [failed("quiz")], {"divisor-4096-32": {"answer": 19.6}})
    [m] = diagnosis.diagnose(run, InProcessSession({}), None, CH7)
    assert (m.id, m.evidence["d_model"], m.evidence["n_heads"]) == ("sqrt-d-model", 384, 4)
    for lang in ("en", "ja"):
        assert "√384" in m.message[lang] and "9.8" not in m.message[lang]
    run = VariantRun(own, [failed("quiz")], {"divisor-4096-32": {"answer": 64}})
    assert diagnosis.diagnose(run, InProcessSession({}), None, CH7) == []


def test_with_a_variant_the_reference_is_named_nothing(reference):
    session = InProcessSession.from_folder(ROOT / "solutions" / "chapter07")
    assert diagnosis.diagnose(VariantRun(OWN), session, reference, CH7, parts=PARTS) == []
