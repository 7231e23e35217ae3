"""``grader validate``: prove the assignment before it is handed out.

Three claims are checked by grading, with the hidden and public suites, in one ``grade()`` call
(one warm worker):

1. the reference earns full marks and is named nothing (also when every probe of the
   diagnosis is run on it, not only those for failing parts);
2. every stub (the exercise folder and each notebook in it) earns 0 without crashing and is
   named ``not-implemented``;
3. for every id of the mistake catalogue, at least one mutant of the reference loses points
   and is named with exactly that id;
4. every correct submission of the rubric's ``plugin.fixtures`` corpus (folders, notebooks
   and zips written independently, in the styles students use) earns full marks on every
   part and is named nothing: no style the contract allows costs a point.

A mutant is a case file under the rubric's ``plugin.mutants`` folder, ``<id>/<name>.py``,
holding the definitions of one reference file that it changes (appended to that file when
graded), under a header::

    # mistake: not-implemented
    # file: part1.py

Example::

    result = validate(load_rubric("rubrics/chapter07.yaml"))
    Console().print(render_table(result))
    sys.exit(0 if result.ok else 1)
"""

from __future__ import annotations

import difflib
import tempfile
import textwrap
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from grader.errors import GraderError
from grader.i18n.messages import said
from grader.ingest.corpus import corpus_paths, load_corpus, reference_copy, student_answers

if TYPE_CHECKING:
    from types import SimpleNamespace

    from grader.ingest.submission.model import Submission
    from grader.report.model import CaseOutcome, GradeReport
    from grader.spec.rubric.model import Rubric

__all__ = ["Mutant", "Row", "ValidationResult", "load_mutants",
           "render_lines", "render_table", "validate"]

NOT_IMPLEMENTED = "not-implemented"


@dataclass(frozen=True, slots=True)
class Mutant:
    """One case file: the definitions that differ from the reference's ``file``."""

    id: str = field(metadata={"help": "the mistake id it must be named with"})
    file: str = field(metadata={"help": "which reference file it replaces, e.g. scaling.py"})
    path: Path = field(metadata={"help": "the case file"})
    what: str = field(default="", metadata={"help": "one line on what was changed"})

    @property
    def name(self) -> str:
        return f"{self.id}/{self.path.stem}"

    def source(self, reference: Path) -> str:
        """The mutated file: the reference's ``file`` with this case's definitions appended.

        A later ``def`` replaces the earlier one when the module runs, so a case file holds
        only the functions (or constants) it changes.
        """
        original = (reference / self.file).read_text(encoding="utf-8").rstrip()
        return f"{original}\n\n\n# --- mutant {self.name} ---\n{self.path.read_text(encoding='utf-8')}"


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the table: a graded subject, what it must show, and whether it did."""

    subject: str
    kind: str  # reference | stub | mutant | correct | catalogue
    expected: str
    score: float | None
    max_score: float | None
    named: tuple[str, ...]
    ok: bool
    problem: str = ""


@dataclass(frozen=True, slots=True)
class ValidationResult:
    """All rows, plus what they add up to."""

    rows: tuple[Row, ...]
    seed: int | None
    seconds: float
    ids: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """True when every row holds (and there is at least one)."""
        return bool(self.rows) and all(r.ok for r in self.rows)

    @property
    def caught(self) -> tuple[str, ...]:
        """Catalogue ids proven by at least one mutant."""
        return tuple(i for i in self.ids if any(r.kind == "mutant" and r.ok and r.named == (i,) for r in self.rows))


# --------------------------------------------------------------------------- mutants


def load_mutants(folder: Path, code_files: Sequence[str]) -> list[Mutant]:
    """Read every ``<id>/<name>.py`` case file under ``folder``, sorted by id then name.

    Raises:
        GraderError: a case file lacks its ``# mistake:`` / ``# file:`` header, or names a
            file the reference does not have.
    """
    mutants = []
    for path in sorted(folder.glob("*/*.py")):
        header: dict[str, str] = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.startswith("#"):
                break
            key, sep, value = line[1:].partition(":")
            if sep:
                header[key.strip()] = value.strip()
        shown = f"{folder.name}/{path.relative_to(folder).as_posix()}"  # (no machine's folders in a message)
        if "mistake" not in header or "file" not in header:
            raise GraderError(said("mutant_starts_mistake_id", path=shown))
        if header["file"] not in code_files:
            near = difflib.get_close_matches(header["file"], list(code_files), n=1)
            raise GraderError(f"{shown}: '# file: {header['file']}' must be one of {', '.join(code_files)}"
                              + (f"; did you mean {near[0]!r}?" if near else ""))
        mutants.append(Mutant(header["mistake"], header["file"], path, header.get("mutant", "")))
    return mutants


def _declared(rubric: Rubric) -> tuple[tuple[str, ...], list[str], set[str], Path | None, Path | None]:
    """Code files, mistake ids, known ids, mutants and correct-style corpus the rubric declares."""
    from grader.spec.assignment import assignment_of

    a = assignment_of(rubric)
    return tuple(a.part_files.values()), a.mistake_ids(), set(a.catalogue()), a.mutants, a.fixtures


# --------------------------------------------------------------------------- validating


def validate(
    rubric: Rubric,
    *,
    seed: int | None = None,
    mutants: Path | None = None,
    corpus: Path | None = None,
    level: str | None = None,
    allow_weak: bool = True,
) -> ValidationResult:
    """Grade the reference, the stubs, every mutant and every correct style; one row each.

    Args:
        rubric: the loaded rubric (its ``reference`` and ``exercises`` are used).
        seed: the grading seed (random when None; shown in the table).
        mutants: folder of mutant case files; the rubric's ``plugin.mutants`` by default.
        corpus: folder of correct submissions; the rubric's ``plugin.fixtures`` by default.
        level: sandbox level, as for :func:`grader.grading.runner.grade`.
        allow_weak: whether an rlimits-only sandbox is acceptable.

    Raises:
        GraderError: the rubric has no reference, names a mistake the catalogue lacks, or a
            mutant file is malformed.
    """
    from grader.spec.assignment import assignment_of
    from grader.spec.catalogue import check_rubric
    from grader.grading.runner import grade, reference_for
    from grader.ingest.submission.load import read_submission

    if rubric.reference is None:
        raise GraderError(f"{rubric.file}: validate needs `reference:` in the rubric")
    check_rubric(rubric)
    started = time.monotonic()
    reference_dir = Path(rubric.reference)
    code_files, ids_declared, known, mutants_dir, fixtures_dir = _declared(rubric)
    parts = assignment_of(rubric).part_files
    mutants = mutants or mutants_dir
    mutant_list = load_mutants(mutants, code_files) if mutants is not None else []
    if corpus is not None:
        fixtures_dir = corpus
    fixtures = load_corpus(fixtures_dir) if fixtures_dir is not None else []
    reference = reference_for(rubric)
    assert reference is not None
    answers = student_answers(reference.answers_key or {})
    exercises = Path(rubric.exercises)
    notebooks = sorted(exercises.glob("*.ipynb"))
    expectations: list[tuple[str, str, str, Mutant | None]] = [
        ("reference", "reference", "full marks; nothing named", None),
        (f"stub {exercises.name}/", "stub", f"0; {NOT_IMPLEMENTED}", None),
        *[(f"stub {nb.name}", "stub", f"0; {NOT_IMPLEMENTED}", None) for nb in notebooks],
        *[(f"mutant {m.name}", "mutant", f"loses points; {m.id}", m) for m in mutant_list],
        *[(f"correct {f.name}", "correct", "full marks; nothing named", None) for f in fixtures],
    ]
    with tempfile.TemporaryDirectory(prefix="grader-validate-") as tmp:
        subs = [read_submission(path, parts=parts)  # each graded as it is: no handout
                for path in _subjects(Path(tmp), reference_dir, answers, code_files, exercises, notebooks,
                                      mutant_list, fixtures)]
        reports = grade(rubric, subs, suites=("public", "hidden"), seed=seed, level=level, allow_weak=allow_weak,
                        students=False)  # the course's own code
        rows = [_judge(subject, kind, expected, mutant, report)
                for (subject, kind, expected, mutant), report in zip(expectations, reports)]
        rows.append(_probe_everything(rubric, subs[0], reference, level, allow_weak))
    rows += _catalogue_rows(rubric, rows, fixtures_dir, fixtures, ids_declared, known, mutant_list)
    reports_seed = reports[0].seed if reports else seed
    return ValidationResult(tuple(rows), reports_seed, time.monotonic() - started, tuple(ids_declared))


def _subjects(root: Path, reference_dir: Path, answers: str, code_files: Sequence[str], exercises: Path,
              notebooks: list[Path], mutant_list: list[Mutant], fixtures: list[Path]) -> list[Path]:
    """The folders and files to grade, in the order of the expectations: the reference, the
    stubs, each mutant over a copy of the reference, each correct style."""
    paths = [reference_copy(root / "reference", reference_dir, answers, code_files), exercises, *notebooks]
    for i, m in enumerate(mutant_list):
        folder = reference_copy(root / f"mutant-{i:02d}-{m.id}", reference_dir, answers, code_files)
        (folder / m.file).write_text(m.source(reference_dir), encoding="utf-8")
        paths.append(folder)
    return paths + corpus_paths(root, reference_dir, answers, code_files, fixtures)


def _catalogue_rows(rubric: Rubric, rows: list[Row], fixtures_dir: Path | None, fixtures: list[Path],
                    ids_declared: Sequence[str], known: set[str], mutant_list: list[Mutant]) -> list[Row]:
    """What the catalogue still lacks: a corpus, a mutant per id, worded entries, known ids."""
    from grader.spec.assignment import assignment_of

    out: list[Row] = []
    if fixtures_dir is not None and not fixtures:
        out.append(Row("correct styles", "correct", "a corpus of correct submissions", None, None, (), False,
                       f"no correct submissions found in {fixtures_dir}"))
    for mid in ids_declared:
        if not any(r.kind == "mutant" and r.ok and r.named == (mid,) for r in rows):
            out.append(Row(f"catalogue {mid}", "catalogue", f"a mutant named {mid}", None, None, (), False,
                           "no mutant proves this id"))
    for mid, entry in assignment_of(rubric).catalogue().items():
        if entry.draft:
            out.append(Row(f"catalogue {mid}", "catalogue", "a worded entry", None, None, (), False,
                           f"a draft: word its title and message in {Path(str(rubric.plugin.catalogue)).name}, "
                           "then delete `draft: true`"))
    for m in mutant_list:
        if m.id not in known:
            out.append(Row(f"mutant {m.name}", "catalogue", "a catalogue id", None, None, (), False,
                           f"{m.id} is not in the catalogue"))
    return out


def _judge(subject: str, kind: str, expected: str, mutant: Mutant | None, report: GradeReport) -> Row:
    named = tuple(sorted({m.id for m in report.mistakes}))
    problems = []
    crashed = [t.id for t in report.tests if t.status.value in ("error", "timeout")]
    if report.errors:
        problems.append("grading problems: " + "; ".join(report.errors)[:300])
    if kind in ("reference", "correct"):
        if crashed:
            problems.append(f"{len(crashed)} tests errored or timed out, e.g. {crashed[0]}")
        if report.score != report.max_score:
            lost = [t for t in report.tests if t.score < t.max_score]
            why = (lost[0].feedback or {}).get("en", "") if lost else ""
            problems.append(f"lost points in {', '.join(t.id for t in lost[:3])}"
                            + (f" ({why[:200]})" if why else ""))
        if named:
            problems.append(f"named {', '.join(named)}")
    elif kind == "stub":
        if report.score != 0:
            problems.append(f"scored {report.score:g}")
        if crashed:
            problems.append(f"{len(crashed)} tests errored or timed out, e.g. {crashed[0]}")
        if named != (NOT_IMPLEMENTED,):
            problems.append(f"named {', '.join(named) or 'nothing'}")
    else:
        assert mutant is not None
        if report.score >= report.max_score:
            problems.append("lost no points: the suites miss this mistake")
        if crashed:
            problems.append(f"{len(crashed)} tests errored or timed out, e.g. {crashed[0]}")
        if named != (mutant.id,):
            problems.append(f"named {', '.join(named) or 'nothing'}")
    return Row(subject, kind, expected, report.score, report.max_score, named, not problems, "; ".join(problems))


def _probe_everything(rubric: Rubric, sub: Submission, reference: SimpleNamespace, level: str | None,
                      allow_weak: bool) -> Row:
    """Run every probe of the diagnosis on the reference, failing parts or not."""
    from grader.grading import diagnosis
    from grader.spec.assignment import assignment_of
    from grader.sandbox.limits import Limits
    from grader.sandbox.level import choose_level
    from grader.sandbox.spawn import worker_for

    chosen, _ = choose_level(allow_weak=allow_weak, prefer=level)
    errors: list[str] = []
    with worker_for(chosen, limits=rubric.limits) as worker:
        session = worker.open(sub, Limits.of(rubric.limits))
        try:
            run = _Run(errors=errors)
            found = diagnosis.diagnose(run, session, reference, rubric,
                                       parts=[p.id for p in assignment_of(rubric).code_parts])
        finally:
            session.close()
    named = tuple(sorted({m.id for m in found}))
    problems = ([f"named {', '.join(named)}"] if named else []) + errors
    return Row("reference, every probe", "reference", "nothing named", None, None, named, not problems,
               "; ".join(problems))


@dataclass
class _Run:
    """The little of a ``SubmissionRun`` that :func:`grader.kit.probes.diagnose` reads."""

    errors: list[str]
    outcomes: list[CaseOutcome] = field(default_factory=list)
    answers: dict[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------- table


def render_table(result: ValidationResult) -> Table:
    """The result as a rich table: subject, expected, score, named ids, verdict."""
    table = Table(
        title=f"grader validate (seed {result.seed})",
        caption=_caption(result),
        show_header=True,
        header_style="bold",
    )
    # "fold": a cell too narrow breaks an id across lines rather than cutting it off with "…".
    table.add_column("subject", overflow="fold")
    table.add_column("expected", overflow="fold")
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("named", overflow="fold")
    table.add_column("verdict", overflow="fold")
    for r in result.rows:
        score = f"{r.score:g}/{r.max_score:g}" if r.score is not None and r.max_score is not None else "-"
        verdict = Text("ok", style="green") if r.ok else Text(f"FAIL: {r.problem}", style="bold red")
        table.add_row(r.subject, r.expected, score, ", ".join(r.named) or "-", verdict)
    return table


def render_lines(result: ValidationResult, width: int = 80) -> str:
    """The result as plain lines for a log (CI, a file): every id, subject and verdict whole.

    One block per row: the verdict and the subject on the first line, then what was expected,
    the score and the ids named, and for a failing row the problem. Text is wrapped at
    ``width`` only between words, so an id or a test id is never split or cut; a word longer
    than the line stays on a line of its own.
    """
    def wrap(text: str, indent: str) -> list[str]:
        return textwrap.wrap(text, width=width, initial_indent=indent, subsequent_indent=indent + "  ",
                             break_long_words=False, break_on_hyphens=False) or [indent]

    lines = [f"grader validate (seed {result.seed})", ""]
    for r in result.rows:
        lines += wrap(f"{'ok  ' if r.ok else 'FAIL'}  {r.subject}", "")
        lines += wrap(f"expected: {r.expected}", "      ")
        score = f"{r.score:g}/{r.max_score:g}" if r.score is not None and r.max_score is not None else "-"
        lines += wrap(f"score: {score}; named: {', '.join(r.named) or '-'}", "      ")
        if not r.ok:
            lines += wrap(f"problem: {r.problem}", "      ")
    lines += ["", *wrap(_caption(result), "")]
    return "\n".join(lines) + "\n"


def _caption(result: ValidationResult) -> str:
    caught = result.caught
    status = "all checks hold" if result.ok else f"{sum(not r.ok for r in result.rows)} discrepancies"
    return (f"{len(caught)} of {len(result.ids)} catalogue ids caught by a mutant; {status}; "
            f"{result.seconds:.1f} s")


def rows_as_text(rows: Sequence[Row]) -> str:
    """Plain lines, for logs and test failure messages."""
    return "\n".join(f"{'ok  ' if r.ok else 'FAIL'} {r.subject}: {r.expected} -> {', '.join(r.named) or '-'}"
                     f"{'' if r.ok else ' (' + r.problem + ')'}" for r in rows)
