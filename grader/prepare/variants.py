"""``grader variants check``: prove every variant before it is issued, then freeze the table.

For the first ``issue`` candidates of the rubric's ``variants:`` (:mod:`grader.spec.variants`):

1. the reference earns full marks and is named nothing in each;
2. every correct style of the validate corpus earns full marks and is named nothing in each;
3. every mutant of the catalogue is named with its id in each, by the diagnosis run with that
   variant's numbers (probes of the student's own sizes).

The tests that do not read the variant (neither the ``variant`` nor the ``answer_key`` fixture)
give the same result in every variant, and ``grader validate`` proves them once; here each
variant runs only the tests that read it, every subject of every variant in one grading session
(one warm worker), and the mutants are diagnosed in one session each, once per variant. So the
cost grows with the variant-reading tests, not with the whole suite times the variants.

A candidate that fails refuses the whole table, naming the variant (its id and numbers) and the
subject (reference, style or mutant): nothing is issued. When every candidate holds, the table
is frozen beside the rubric (``<assignment>.variants.json``) and, with ``ledger``, its hash is
written to that batch folder's ledger. A table frozen already is kept as it is: a generator
edited since changes no issued variant (and is said).
"""

from __future__ import annotations

import dataclasses
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.errors import GraderError
from grader.i18n.messages import said
from grader.ingest.corpus import corpus_submissions, reference_copy, student_answers
from grader.spec.variants import (
    Variant,
    VariantSpec,
    candidates,
    frozen_path,
    issued_table,
    load_frozen,
    table_hash,
    write_frozen,
)

if TYPE_CHECKING:
    from grader.ingest.submission.model import Submission
    from grader.report.model import CaseOutcome
    from grader.spec.rubric.model import Rubric

__all__ = ["CheckResult", "Failure", "check_variants", "describe_variant", "record_in_ledger", "variant_answers"]


@dataclass(frozen=True)
class Failure:
    """One subject that does not hold in one variant."""

    variant: str
    values: str
    subject: str
    problem: str


@dataclass
class CheckResult:
    """What ``grader variants check`` found and did."""

    checked: int
    failures: list[Failure]
    table: list[Variant] = field(default_factory=list)
    frozen: Path | None = None
    hash: str = ""
    kept: bool = False  # a table frozen before was kept (the generator changed since)
    seconds: float = 0.0
    gradings: int = 0
    diagnoses: int = 0

    @property
    def ok(self) -> bool:
        return not self.failures and bool(self.table)


def describe_variant(variant: Variant) -> str:
    """``d_model=512, n_heads=8, ...`` (lists as ``[8, 32, 128]``)."""
    return ", ".join(f"{k}={list(v) if isinstance(v, tuple) else v}" for k, v in variant.values.items())


def variant_answers(key: dict[str, object], spec: VariantSpec, variant: Variant) -> str:
    """A filled ``answers.yaml`` whose numeric answers are the variant's (the reference's quiz)."""
    return student_answers({**key, **variant.quiz_key(spec)})


def check_variants(rubric: Rubric, *, seed: int | None = None, level: str | None = None, allow_weak: bool = True,
                   mutants: bool = True, tell: Callable[[str], None] | None = None) -> CheckResult:
    """Prove the first ``issue`` candidates; freeze them when every one holds.

    Raises:
        GraderError: the rubric declares no variants or no reference, or the candidates cannot
            make the table (too few, too few distinct values).
    """
    from grader.grading.runner import grade, reference_for

    spec = rubric.variants
    if spec is None:
        raise GraderError(said("variants_none_declared", file=str(rubric.file)))
    if rubric.reference is None:
        raise GraderError(said("variants_need_reference", file=str(rubric.file)))
    started = time.monotonic()
    wanted = candidates(spec, rubric.assignment)[:spec.issue]
    issued_table(spec, rubric.assignment, proven=lambda v: v in wanted)  # too few / not distinct: said now
    reference = reference_for(rubric)
    assert reference is not None
    key = dict(reference.answers_key or {})
    subjects = _subjects(rubric, key)
    subs: list[Submission] = []
    labels: list[tuple[Variant, str]] = []
    for variant in wanted:
        answers = variant_answers(key, spec, variant)
        for name, sub in subjects:
            subs.append(dataclasses.replace(sub, answers=answers).with_variant(variant.as_data()))
            labels.append((variant, name))
    reports = grade(rubric, subs, seed=seed, level=level, allow_weak=allow_weak, students=False, variant_only=True)
    failures = [failure for (variant, name), report in zip(labels, reports)
                if (failure := _judge(variant, name, report.score, report.max_score, report.tests,
                                      sorted({m.id for m in report.mistakes}), report.errors)) is not None]
    diagnoses = 0
    if mutants:
        found, diagnoses = _mutants(rubric, wanted, reference, level, allow_weak)
        failures += found
    result = CheckResult(len(wanted), failures, gradings=len(subs), diagnoses=diagnoses)
    if not failures:
        _freeze(rubric, spec, wanted, result, tell)
    result.seconds = time.monotonic() - started
    return result


def _subjects(rubric: Rubric, key: dict[str, object]) -> list[tuple[str, Submission]]:
    """The reference and every correct style, as submissions (read into memory)."""
    from grader.ingest.submission.load import read_submission
    from grader.spec.assignment import assignment_of

    assert rubric.reference is not None
    code_files = tuple(assignment_of(rubric).part_files.values())
    with tempfile.TemporaryDirectory(prefix="grader-variants-") as tmp:
        folder = reference_copy(Path(tmp) / "reference", Path(rubric.reference), student_answers(key), code_files)
        ref = read_submission(folder, parts=assignment_of(rubric).part_files)
    return [("reference", ref), *[(f"style {name}", sub) for name, sub in corpus_submissions(rubric)]]


def _judge(variant: Variant, subject: str, score: float, most: float, tests: list[CaseOutcome],
           named: list[str], errors: list[str]) -> Failure | None:
    problems = []
    if score != most:
        lost = [t for t in tests if t.score < t.max_score]
        why = (lost[0].feedback or {}).get("en", "") if lost else ""
        problems.append(said("variants_lost_points", tests=", ".join(t.id for t in lost[:3]), why=why[:200]))
    if named:
        problems.append(said("variants_named", ids=", ".join(named)))
    if errors:
        problems.append("; ".join(errors)[:300])
    if not problems:
        return None
    return Failure(variant.id, describe_variant(variant), subject, "; ".join(problems))


def _mutants(rubric: Rubric, wanted: list[Variant], reference: Any, level: str | None,
             allow_weak: bool) -> tuple[list[Failure], int]:
    """Diagnose every mutant (one session each) with each variant's numbers: its id must be named."""
    from grader.grading import diagnosis
    from grader.grading.diagnosis import FLOAT32_PRECISION_ID
    from grader.ingest.submission.load import read_submission
    from grader.prepare.validate import load_mutants
    from grader.report.model import CaseOutcome, Status
    from grader.sandbox.level import choose_level
    from grader.sandbox.limits import Limits
    from grader.sandbox.spawn import worker_for
    from grader.spec.assignment import assignment_of

    a = assignment_of(rubric)
    if a.mutants is None or rubric.reference is None:
        return [], 0
    part_of = {file: part for part, file in a.part_files.items()}
    code_files = tuple(a.part_files.values())
    found: list[Failure] = []
    count = 0
    chosen, _ = choose_level(allow_weak=allow_weak, prefer=level)
    with tempfile.TemporaryDirectory(prefix="grader-variants-") as tmp, \
            worker_for(chosen, limits=rubric.limits) as worker:
        for i, mutant in enumerate(load_mutants(a.mutants, code_files)):
            if mutant.id == FLOAT32_PRECISION_ID:
                continue  # named from the tests' outcomes, not from probes: the same in every variant
            folder = reference_copy(Path(tmp) / f"m{i:02d}", Path(rubric.reference), "", code_files)
            (folder / mutant.file).write_text(mutant.source(Path(rubric.reference)), encoding="utf-8")
            sub = read_submission(folder, parts=a.part_files)
            part = part_of[mutant.file]
            session = worker.open(sub, Limits.of(rubric.limits))
            try:
                for variant in wanted:
                    run = _Run(sub.with_variant(variant.as_data()),
                               [CaseOutcome(id=f"variants::{part}", part=part, status=Status.FAILED, max_score=1.0)])
                    named = sorted({m.id for m in diagnosis.diagnose(run, session, reference, rubric, parts=[part])})
                    count += 1
                    if mutant.id not in named:
                        found.append(Failure(variant.id, describe_variant(variant), f"mutant {mutant.name}",
                                             said("variants_mutant_unnamed", id=mutant.id,
                                                  named=", ".join(named) or "-")))
            finally:
                session.close()
    return found, count


@dataclass
class _Run:
    """What the diagnosis reads of a run: a submission carrying the variant, a failed part."""

    submission: Submission
    outcomes: list[CaseOutcome]
    answers: dict[str, object] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def _freeze(rubric: Rubric, spec: VariantSpec, wanted: list[Variant], result: CheckResult,
            tell: Callable[[str], None] | None) -> None:
    path = frozen_path(Path(rubric.file), rubric.assignment)
    if path.exists():
        table, generator = load_frozen(path, rubric.assignment)
        result.table, result.frozen, result.hash = table, path, table_hash(table)
        if generator != spec.fingerprint() or table != wanted:
            result.kept = True
            if tell is not None:
                tell(said("variants_generator_changed", path=str(path), count=len(table)))
        return
    write_frozen(path, spec, wanted, rubric.assignment)
    result.table, result.frozen, result.hash = wanted, path, table_hash(wanted)


def record_in_ledger(outdir: Path, rubric: Rubric, table: list[Variant], generator: str) -> bool:
    """Write the issued table and its hash to ``outdir``'s ledger, unless a line holds it already."""
    from grader.report import ledger

    digest = table_hash(table)
    if (outdir / ledger.LEDGER).exists():
        for entry in ledger.read(outdir):
            if entry.op == "variants" and (entry.variants or {}).get("hash") == digest:
                return False
    else:
        outdir.mkdir(parents=True, exist_ok=True)
    ledger.append(outdir, op="variants", submission="", reason=said("variants_ledger_reason", count=len(table)),
                  variants={"assignment": rubric.assignment, "hash": digest, "generator": generator,
                            "table": [v.as_data() for v in table]})
    return True
