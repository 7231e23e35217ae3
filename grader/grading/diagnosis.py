"""Outcomes + probe values → recognised mistakes: the engine that runs an assignment's recognisers.

After a submission's tests, :func:`diagnose` probes the parts whose tests failed through the same
sandboxed session, with the recognisers of the rubric's hooks file (written in the words of
:mod:`grader.kit.probes`), and words what they find with the assignment's catalogue as
:class:`grader.report.model.Mistake` records. :func:`probe_part` probes one part.
"""

from __future__ import annotations

import re

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TYPE_CHECKING

import torch

from grader.i18n.messages import said
from grader.kit.asserts import FLOAT32_PRECISION
from grader.kit.hooks import Recogniser
from grader.kit.signature import CallRecord
from grader.kit.probes import (
    UNRECOGNISED,
    Finding,
    NotImplementedByStudent,
    Probe,
    ProbeStopped,
    Raised,
    Unavailable,
    plain,
    same_signature,
)
from grader.report.model import CaseOutcome, Mistake, Status

if TYPE_CHECKING:
    from grader.sandbox.session import Session
    from grader.spec.catalogue import Entry
    from grader.spec.rubric.model import Rubric

__all__ = ["FLOAT32_PRECISION_ID", "Run", "diagnose", "probe_part", "variant_of"]

#: The framework's id for a part whose tests failed only by float32 rounding (grader/framework.yaml).
FLOAT32_PRECISION_ID = "float32-precision"


class Run(Protocol):
    """What the diagnosis reads of one submission's run (:class:`grader.grading.collector.SubmissionRun`)."""

    @property
    def outcomes(self) -> Sequence[CaseOutcome]: ...

    @property
    def answers(self) -> dict[str, object]: ...

    @property
    def errors(self) -> list[str]:
        """Where a recogniser's own failure is told (appended to)."""
        ...


def variant_of(run: object) -> dict[str, object] | None:
    """The values of the run's variant (``run.submission.variant``), or None: the chapter's numbers."""
    variant = getattr(getattr(run, "submission", None), "variant", None)
    values = variant.get("values") if isinstance(variant, dict) else None
    return dict(values) if isinstance(values, dict) else None


def diagnose(run: Run, session: Session, reference: object, rubric: Rubric, *,
             parts: Iterable[str] | None = None) -> list[Mistake]:
    """Name the known mistakes this submission shows, with its own numbers as evidence.

    Args:
        run: the plugin's ``SubmissionRun`` (``outcomes``, ``answers``, ``errors``).
        session: the submission's open ``SubmissionSession`` (or anything with ``call``).
        reference: the reference namespace, or None (``grader check``): the expected values
            are then computed here with torch.
        rubric: the assignment's rubric: its parts, hooks (recognisers, oracle), catalogue and
            ``mistake_options(id).partial_credit``.
        parts: the parts to probe; by default those with a failed or errored test and no
            timeout (a hanging function would cost the per-call limit again).

    Returns:
        One :class:`Mistake` per (id, part), in part order; ``unrecognised`` entries say
        plainly that a failure matches no known mistake.
    """
    outcomes = list(run.outcomes or [])
    failing = _failing_parts(outcomes)
    kit = _Kit.of(rubric)
    wanted = list(parts) if parts is not None else [p for p in kit.functions if p in failing]
    mistakes: list[Mistake] = []
    threads = torch.get_num_threads()
    # The expected values are tiny tensors: on a busy machine, torch's thread pool makes each
    # small matmul cost milliseconds instead of microseconds.
    torch.set_num_threads(1)
    try:
        for part in wanted:
            if part not in kit.functions:
                continue
            if parts is None and any(t.part == part and t.status == Status.TIMEOUT for t in outcomes):
                continue
            findings = probe_part(session, part, reference, rubric, errors=run.errors, kit=kit,
                                  variant=variant_of(run))
            if not findings and failing.get(part, False):
                findings = _float32_only(part, outcomes)
            mistakes += _merge(part, findings, _filename(session, part, kit.files), rubric,
                               failed=failing.get(part, False), entries=kit.entries)
    finally:
        torch.set_num_threads(threads)
    if kit.quiz_part in failing:
        quiz = kit.quiz_findings(run.answers or {}, variant_of(run))
        mistakes += _merge(kit.quiz_part, quiz, kit.files.get(kit.quiz_part, kit.quiz_part), rubric,
                           failed=False, entries=kit.entries)
    return mistakes


@dataclass(frozen=True)
class _Kit:
    """What diagnosing one assignment needs: its functions, recognisers, oracle and catalogue."""

    functions: dict[str, tuple[str, ...]]
    recognisers: Mapping[str, Recogniser]
    oracle: Mapping[str, Callable[..., object]]
    entries: Mapping[str, Entry]
    quiz_findings: Callable[[dict[str, object], dict[str, object] | None], list[Finding]]
    files: dict[str, str]
    quiz_part: str | None

    @classmethod
    def of(cls, rubric: Rubric) -> _Kit:
        """What the rubric's assignment declares (no recognisers when it has no hooks)."""
        from grader.spec.assignment import assignment_of

        a = assignment_of(rubric)
        hooks = a.hooks
        return cls(a.all_functions, hooks.recognisers, hooks.oracle, a.catalogue(), hooks.quiz_findings,
                   {p.id: p.file for p in rubric.parts}, a.quiz_part)


def _failing_parts(outcomes: Sequence[CaseOutcome]) -> dict[str, bool]:
    """part -> True when it has a *failed* test (an error alone is explained elsewhere)."""
    out: dict[str, bool] = {}
    for t in outcomes:
        if t.status in (Status.FAILED, Status.ERROR):
            out[t.part] = out.get(t.part, False) or t.status == Status.FAILED
    return out


def _float32_only(part: str, outcomes: Sequence[CaseOutcome]) -> list[Finding]:
    """``float32-precision`` when every failed test of ``part`` failed by float32 alone: float64
    inputs whose results came back float32, or right only to float32's rounding. No probe can
    see it (the probes' inputs are float32, where such code is right); the tests did."""
    failed = [t for t in outcomes if t.part == part and t.status in (Status.FAILED, Status.ERROR)]
    if not failed or not all(_float32_failure(t) for t in failed):
        return []
    funcs = list(dict.fromkeys(f for f in map(_called, failed) if f))
    return [Finding(FLOAT32_PRECISION_ID, ", ".join(funcs), {"tests": len(failed)})]


def _called(t: CaseOutcome) -> str | None:
    """The student's function a failed check names: its ``function``, else the call its message
    starts with (``double(float64[3, 5]): …``)."""
    if t.function:
        return t.function
    m = re.match(r"([A-Za-z_]\w*)\(", t.feedback.get("en", ""))
    return m.group(1) if m else None


def _float32_failure(t: CaseOutcome) -> bool:
    """A test failed only because the student computed in float32 (see grader.kit.asserts)."""
    if t.status != Status.FAILED:
        return False
    if (t.actual or "").startswith(FLOAT32_PRECISION):
        return True
    return t.expected == "float64" and t.actual == "float32"


def _filename(session: Session, part: str, files: dict[str, str]) -> str:
    try:
        module = session.module_for(part)
        if module and session.kind == "notebook":
            return str(module["filename"])
    except Exception:  # noqa: BLE001 - a fake session without module_for
        pass
    return files.get(part, part)


def probe_part(session: Session, part: str, reference: object, rubric: Rubric, *, errors: list[str] | None = None,
               kit: _Kit | None = None, variant: Mapping[str, object] | None = None) -> list[Finding]:
    """Probe every function of ``part``; one or more findings per function that is wrong.

    ``variant``: the student's own numbers, which recognisers read as ``probe.variant`` (their
    sizes probed first, so that a finding quotes them)."""
    kit = kit or _Kit.of(rubric)
    probe = Probe(session, part, reference, oracle=kit.oracle, variant=variant)
    findings: list[Finding] = []
    for func in kit.functions[part]:
        recognise = kit.recognisers.get(func)
        if recognise is None:
            continue
        try:
            findings += recognise(probe)
        except NotImplementedByStudent:
            findings.append(Finding("not-implemented", func))
        except Raised as exc:
            findings.append(Finding(UNRECOGNISED, func, {"raised": exc.type_name,
                                                         "raised_message": exc.message[:200]}))
        except Unavailable:
            continue  # missing function or file that did not load: the report says so already
        except ProbeStopped:
            break
        except Exception as exc:  # noqa: BLE001 - our own fault must not cost the other functions
            if errors is not None:
                errors.append(said("diagnosis_failed", func=func, what=f"{type(exc).__name__}: {exc}"))
    return [_signed(f, probe.log, kit.entries) if f.id == UNRECOGNISED and f.function else f for f in findings]


def _signed(finding: Finding, log: Mapping[str, list[CallRecord]], entries: Mapping[str, Entry]) -> Finding:
    """An unrecognised finding with its behaviour signature, or the catalogue id whose
    recorded signature (``signature:`` of an entry, see :mod:`grader.spec.catalogue`) it matches."""
    calls = log.get(finding.function, [])
    for entry in entries.values():
        sig = getattr(entry, "signature", None)
        if sig and sig.get("function") == finding.function and same_signature(sig.get("probes") or [], calls):
            return Finding(entry.id, finding.function, {"call": calls[0]["call"] if calls else finding.function})
    return Finding(finding.id, finding.function, {**finding.evidence, "probes": calls})


def _raised(f: Finding) -> tuple[str, object] | None:
    """What ``f``'s function raised, when every call the diagnosis made to it raised: (type, message)."""
    if f.evidence.get("raised"):
        return str(f.evidence["raised"]), f.evidence.get("raised_message")
    probes = f.evidence.get("probes")
    if isinstance(probes, list) and probes and all(isinstance(c, dict) and "raised" in c for c in probes):
        first = probes[0]
        call = str(first.get("call") or f.function)
        return str(first["raised"]), {"en": f"calling {call}", "ja": f"{call} の呼び出し"}
    return None


def _unrecognised_message(group: list[Finding], funcs: list[str], slots: dict[str, object],
                          entry: Entry) -> dict[str, str]:
    """The unrecognised sentence true of each function: "raised …" for one that only raised when
    called, "returned values that differ …" only for those that returned something."""
    raisers: dict[str, tuple[str, object]] = {}
    for f in group:
        r = _raised(f)
        if f.function and r is not None and f.function not in raisers:
            raisers[f.function] = r
    rest = [fn for fn in funcs if fn not in raisers]
    parts: list[dict[str, str]] = []
    if raisers:
        kind, text = next(iter(raisers.values()))
        if isinstance(text, str):
            text = text.strip() or "-"
        parts.append(entry.render({**slots, "variant": "raised", "functions": ", ".join(raisers),
                                   "count": len(raisers), "raised": kind, "raised_message": text or "-"}))
    if rest:
        parts.append(entry.render({**slots, "variant": "functions", "functions": ", ".join(rest),
                                   "count": len(rest)}))
    return {"en": " ".join(p["en"] for p in parts), "ja": "".join(p["ja"] for p in parts)}


def _merge(part: str, findings: list[Finding], file: str, rubric: Rubric, *, failed: bool,
           entries: Mapping[str, Entry]) -> list[Mistake]:
    """One Mistake per id: the first function's evidence, the others listed."""
    if not findings and failed:
        findings = [Finding(UNRECOGNISED, "", {})]
    groups: dict[str, list[Finding]] = {}
    for f in findings:
        groups.setdefault(f.id, []).append(f)
    named = [mid for mid in groups if mid != UNRECOGNISED]
    credit_id = named[0] if len(named) == 1 and UNRECOGNISED not in groups else None
    mistakes = []
    for mid, group in groups.items():
        funcs = list(dict.fromkeys(f.function for f in group if f.function))
        evidence = dict(group[0].evidence)
        evidence["functions"] = funcs
        slots = {**evidence, "functions": ", ".join(funcs), "count": len(funcs), "file": file,
                 "function": group[0].function or file}
        if mid == UNRECOGNISED:
            evidence["probes"] = {f.function: f.evidence["probes"] for f in group if "probes" in f.evidence}
            slots.pop("probes", None)
            slots["variant"] = "functions" if funcs else "default"
            raised = str(evidence.get("raised") or "")
            if raised == "MemoryError":  # its message is usually empty: say what the limit was
                slots["variant"] = "memory"
                slots["limit"] = getattr(getattr(rubric, "limits", None), "memory_mb", "?")
            elif raised:
                slots["variant"] = "raised"
                slots["raised_message"] = str(evidence.get("raised_message") or "").strip() or "-"
        if mid == UNRECOGNISED and funcs and slots["variant"] in ("functions", "raised"):
            message = _unrecognised_message(group, funcs, slots, entries[mid])
        else:
            message = entries[mid].render(slots)
        others = funcs[1:]
        if others and mid not in ("not-implemented", UNRECOGNISED):
            message = {
                "en": f"{message['en']} The same mistake shows in {', '.join(others)}.",
                "ja": f"{message['ja']}{'、'.join(others)} にも同じ誤りがあります。",
            }
        credit = 0.0
        if mid == credit_id and rubric is not None:
            credit = float(rubric.mistake_options(mid).partial_credit or 0.0)
        mistakes.append(Mistake(id=mid, part=part, message=message, evidence={k: plain(v) for k, v in evidence.items()},
                                function=", ".join(funcs) or None, file=file, partial_credit=credit))
    return mistakes


