"""The plug-in API: everything an assignment's suites and hooks file import, from one module.

A chapter's tests and recognisers say ``from grader.kit import assert_close, Finding, Probe``;
nothing else of the grader is theirs to import (``tests/fitness/test_public_api.py`` holds this
module's ``__all__`` to the names below, and mypy checks each chapter's hooks file against
:class:`AssignmentHooks`). The names live in five modules, loaded on first use, so that a light
process reading only ``grader.kit.hooks`` does not import torch and pytest:

============  ====================================================================
asserts       checks a suite's tests make, with feedback in both languages
quiz          the quiz's checks: well formed (public), right (hidden)
probes        what recognisers are written in: ``Probe``, ``Finding``, value helpers
figures       a report's figures: matplotlib on the Agg canvas, as base64 PNG
hooks         the hooks file's protocol (``AssignmentHooks``) and ``Figure``
signature     the behaviour signature an unrecognised failure keeps
============  ====================================================================

Two names differ from their module's: the probes' seeded ``randn(seed, *shape)`` is
:func:`seeded_randn` here (``randn`` is the suites' ``randn(rng, shape)``), and
``grader.sinks.PLOT_ITEMS`` (how many points a plot's data may carry) is re-exported.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from grader.kit.asserts import (
        ANSWER_KEY,
        FLOAT32_CONSTANT_REL,
        FLOAT32_PRECISION,
        Mismatch,
        RaisesOutcome,
        StudentRaised,
        UnreadableAnswers,
        assert_array,
        assert_close,
        assert_dict,
        assert_float,
        assert_int,
        assert_list,
        describe_call,
        describe_value,
        number_value,
        quiz_answer,
        quiz_letter,
        quiz_number,
        quiz_question_ids,
        raises_student,
        randn,
        require,
        take_notes,
        tolerance,
    )
    from grader.kit.figures import figure, png, series, style
    from grader.kit.hooks import AssignmentHooks, Figure, Recogniser
    from grader.kit.probes import (
        UNRECOGNISED,
        Finding,
        NotImplementedByStudent,
        Probe,
        ProbeStopped,
        Raised,
        Unavailable,
        arr,
        close,
        gen,
        hardcoded,
        num,
        pick,
        plain,
        ratio,
        same,
        show,
        unrecognised,
    )
    from grader.kit.probes import randn as seeded_randn
    from grader.kit.quiz import check_answer, check_well_formed, questions
    from grader.kit.signature import same_signature, signature_of
    from grader.sinks import PLOT_ITEMS

#: public name -> (module, name there)
_HOMES: dict[str, tuple[str, str]] = {
    **{n: ("grader.kit.asserts", n) for n in (
        "ANSWER_KEY", "FLOAT32_CONSTANT_REL", "FLOAT32_PRECISION", "Mismatch", "RaisesOutcome", "StudentRaised", "UnreadableAnswers",
        "assert_array", "assert_close", "assert_dict", "assert_float", "assert_int", "assert_list", "describe_call",
        "describe_value", "number_value", "quiz_answer", "quiz_letter", "quiz_number", "quiz_question_ids",
        "raises_student", "randn", "require", "take_notes", "tolerance")},
    **{n: ("grader.kit.figures", n) for n in ("figure", "png", "series", "style")},
    **{n: ("grader.kit.hooks", n) for n in ("AssignmentHooks", "Figure", "Recogniser")},
    **{n: ("grader.kit.probes", n) for n in (
        "UNRECOGNISED", "Finding", "NotImplementedByStudent", "Probe", "ProbeStopped", "Raised", "Unavailable",
        "arr", "close", "gen", "hardcoded", "num", "pick", "plain", "ratio", "same", "show", "unrecognised")},
    "seeded_randn": ("grader.kit.probes", "randn"),
    **{n: ("grader.kit.quiz", n) for n in ("check_answer", "check_well_formed", "questions")},
    **{n: ("grader.kit.signature", n) for n in ("same_signature", "signature_of")},
    "PLOT_ITEMS": ("grader.sinks", "PLOT_ITEMS"),
}

__all__ = [
    "ANSWER_KEY", "AssignmentHooks", "FLOAT32_CONSTANT_REL", "FLOAT32_PRECISION", "Figure", "Finding", "Mismatch",
    "NotImplementedByStudent", "PLOT_ITEMS", "Probe", "ProbeStopped", "Raised", "RaisesOutcome", "Recogniser",
    "StudentRaised", "UNRECOGNISED", "Unavailable", "UnreadableAnswers", "arr", "assert_array",
    "assert_close", "assert_dict", "assert_float", "assert_int", "assert_list", "check_answer",
    "check_well_formed", "close", "describe_call", "describe_value", "figure", "gen", "hardcoded", "num",
    "number_value", "pick", "plain", "png", "questions", "quiz_answer", "quiz_letter", "quiz_number",
    "quiz_question_ids", "raises_student", "randn", "ratio", "require", "same", "same_signature",
    "seeded_randn", "series", "show", "signature_of", "style", "take_notes", "tolerance", "unrecognised",
]


def __getattr__(name: str) -> Any:
    try:
        module, there = _HOMES[name]
    except KeyError:
        raise AttributeError(f"module 'grader.kit' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), there)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
