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
import json
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.errors import GraderError
from grader.i18n.messages import said, say
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

__all__ = ["CheckResult", "Failure", "check_variants", "describe_variant", "personal_releases", "read_roster", "roster_variants", "variant_answers"]


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


# --------------------------------------------------------------------------- personal releases


def personal_releases(rubric: Rubric, outdir: str | Path, students: list[str], *, force: bool = False,
                      tell: Callable[[str], None] | None = None) -> dict[str, Path]:
    """One student repository per LMS id in ``outdir/<id>/``, each with that student's numbers only.

    Each is :func:`grader.prepare.release.build_release`'s repository (whose rubric never holds the
    ``variants:`` pools), then made personal: ``rubrics/<assignment>.my-variant.json`` holds the
    student's variant (which ``grader check``, the notebook's check cell and the CI grade with);
    every ``.py`` stub and the quiz start with the student's numbers, the notebook gets a constants
    cell, and the plug-in's ``personal_handout`` hook words the questions with them. The handout's
    fingerprints are those of the personal stubs.

    Raises:
        GraderError: no frozen table (run ``grader variants check``), or the secret refused.
        UsageError: ``outdir`` not empty (without ``force``), an LMS id twice or unfit for a folder.
    """
    import shutil

    from grader.errors import UsageError
    from grader.prepare.release import build_release
    from grader.spec.variants import PERSONAL_SUFFIX, course_secret, variant_for

    out = Path(outdir)
    if out.exists() and any(out.iterdir()):
        if not force:
            raise UsageError(said("folder_empty_choose_new", path=out))
        shutil.rmtree(out)
    table, _ = load_frozen(frozen_path(Path(rubric.file), rubric.assignment), rubric.assignment)
    secret = course_secret(course=Path(rubric.file).parent, outdirs=(out,), tell=tell)
    seen: dict[str, str] = {}
    for student in students:
        folder = _folder_name(student)
        if folder in seen:
            raise UsageError(said("variants_student_twice", student=student[:80], other=seen[folder][:80]))
        seen[folder] = student
    made: dict[str, Path] = {}
    for folder, student in seen.items():
        variant = variant_for(table, secret, rubric.assignment, student)
        target = out / folder
        build_release(rubric, target)
        rubric_rel = Path(rubric.file).resolve().relative_to(Path(rubric.file).resolve().parent.parent)
        (target / rubric_rel.with_name(rubric.assignment + PERSONAL_SUFFIX)).write_text(
            json.dumps(variant.as_data(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        _personalise(rubric, target, rubric_rel, variant)
        made[student] = target
    return made


def roster_variants(rubric: Rubric, students: list[str], *,
                    tell: Callable[[str], None] | None = None) -> dict[str, dict[str, object]]:
    """Each roster student's variant (plain data) by LMS id, NFKC-folded: what a Gradescope
    autograder carries instead of the course secret."""
    import unicodedata

    from grader.spec.variants import course_secret, variant_for

    table, _ = load_frozen(frozen_path(Path(rubric.file), rubric.assignment), rubric.assignment)
    secret = course_secret(course=Path(rubric.file).parent, tell=tell)
    return {unicodedata.normalize("NFKC", s).strip(): variant_for(table, secret, rubric.assignment, s).as_data()
            for s in students if s.strip()}


def read_roster(path: Path) -> list[str]:
    """The LMS ids of a roster file: one a line, or a CSV whose header names ``lms_id`` (else
    ``student_id``, else ``student``); blank lines and ``#`` comments skipped; UTF-8 or CP932."""
    import csv
    import io

    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("cp932", errors="replace")
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if lines and "," in lines[0]:
        rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
        column = next((c for c in ("lms_id", "student_id", "student") if rows and c in rows[0]), None)
        if column is None:
            raise GraderError(said("variants_roster_column", path=str(path)))
        return [str(r.get(column) or "").strip() for r in rows if str(r.get(column) or "").strip()]
    return [line.strip() for line in lines]


def _folder_name(student: str) -> str:
    """An LMS id as a folder name: itself when it is a plain one, refused otherwise."""
    import re
    import unicodedata

    from grader.errors import UsageError

    key = unicodedata.normalize("NFKC", student).strip()
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,99}", key):
        raise UsageError(said("variants_student_id_bad", student=repr(student)[:80]))
    return key


def _personalise(rubric: Rubric, target: Path, rubric_rel: Path, variant: Variant) -> None:
    """The stubs, the quiz and the notebook of one release, with the student's numbers."""
    from grader.ingest.submission.choice import HANDOUT_SUFFIX, Handout
    from grader.spec.assignment import assignment_of

    hooks = assignment_of(rubric).hooks
    spec = rubric.variants
    derived = {r[0] for r in spec.integer_ratios} if spec is not None else set()
    shown = {k: v for k, v in variant.values.items() if k not in derived}
    numbers = ", ".join(f"{k} = {list(v) if isinstance(v, tuple) else v}" for k, v in shown.items())
    values: dict[str, object] = {k: (list(v) if isinstance(v, tuple) else v) for k, v in variant.values.items()}
    header = [f"# {say('variants_handout_header', lang, id=variant.id, numbers=numbers)}" for lang in ("ja", "en")]
    exercises = target / Path(rubric.exercises).resolve().relative_to(Path(rubric.file).resolve().parent.parent)
    for path in sorted(exercises.iterdir()):
        if path.suffix in (".py", ".yaml", ".yml"):
            text = hooks.personal_handout(path.name, path.read_text(encoding="utf-8"), values)
            path.write_text("\n".join(header) + "\n\n" + text, encoding="utf-8")
        elif path.suffix == ".ipynb":
            path.write_text(_personal_notebook(path.read_text(encoding="utf-8"), header, shown, hooks, values),
                            encoding="utf-8")
    handout = target / rubric_rel.with_name(rubric_rel.stem + HANDOUT_SUFFIX)
    handout.write_text(json.dumps(Handout.of_folder(exercises).to_dict(), indent=1) + "\n", encoding="utf-8")


def _personal_notebook(text: str, header: list[str], shown: dict[str, Any], hooks: Any,
                      values: dict[str, object]) -> str:
    """The notebook with a constants cell (the student's numbers) after its first cell, and each
    cell worded by the ``personal_handout`` hook."""
    nb = json.loads(text)
    cells = nb.get("cells", [])
    for cell in cells:
        source = "".join(cell.get("source", []))
        cell["source"] = hooks.personal_handout("notebook", source, values).splitlines(keepends=True)
    constants = header + [f"{k.upper()} = {list(v) if isinstance(v, tuple) else v!r}" for k, v in shown.items()]
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
            "source": [line + "\n" for line in constants[:-1]] + [constants[-1]]}
    cells.insert(1 if cells else 0, cell)
    nb["cells"] = cells
    return json.dumps(nb, ensure_ascii=False, indent=1) + "\n"
