"""Tests for grader/validate.py (`grader validate`) and the mutant case files it grades."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from rich.console import Console
from rich.table import Table

from grader import probing
from grader.assignment import assignment_of
from grader.errors import GraderError
from grader.rubric import load_rubric
from grader.runner import reference_for
from grader.validate import Row, ValidationResult, load_mutants, render_table, student_answers, validate

ROOT = Path(__file__).resolve().parent.parent
RUBRICS = {name: load_rubric(ROOT / "rubrics" / f"{name}.yaml") for name in ("chapter07", "chapter08")}
CH7 = assignment_of(RUBRICS["chapter07"])
REFERENCE = ROOT / "solutions" / "chapter07"


def _mutants(a):
    return load_mutants(a.mutants, tuple(a.part_files.values()))


def _every_mutant():
    return [(name, m) for name, rubric in RUBRICS.items() for m in _mutants(assignment_of(rubric))]


@pytest.mark.parametrize("name", sorted(RUBRICS))
def test_every_catalogue_id_has_a_mutant(name):
    """each id of the catalogue has at least one mutant case file, in a folder named after it"""
    a = assignment_of(RUBRICS[name])
    mutants = _mutants(a)
    assert {m.id for m in mutants} == set(a.mistake_ids())
    for m in mutants:
        assert m.path.parent.name == m.id


@pytest.mark.parametrize(("name", "m"), _every_mutant(), ids=lambda v: v if isinstance(v, str) else v.name)
def test_mutants_differ_from_the_reference_in_one_file(name, m):
    """a mutant is appended to exactly one reference file and still compiles with it"""
    reference = Path(RUBRICS[name].reference)
    mutated = m.source(reference)
    assert mutated.startswith((reference / m.file).read_text(encoding="utf-8").rstrip()), m.name
    compile(mutated, m.name, "exec")  # the overlay fits the file it is appended to
    assert "def " in m.path.read_text(encoding="utf-8"), m.name  # it replaces a function


@pytest.mark.parametrize(("name", "mutant"), _every_mutant(), ids=lambda v: v if isinstance(v, str) else v.name)
def test_mutant_is_named_with_exactly_its_id_in_process(name, mutant):
    """every probe of the diagnosis, run on a mutant, names its id and nothing else"""
    from test_diagnosis import InProcessSession, Run

    rubric = RUBRICS[name]
    a = assignment_of(rubric)
    reference_dir = Path(rubric.reference)
    part = mutant.file.removesuffix(".py")
    sources = {p: (reference_dir / f).read_text(encoding="utf-8") for p, f in a.part_files.items()}
    sources[part] = mutant.source(reference_dir)
    run = Run()
    found = probing.diagnose(run, InProcessSession(sources), reference_for(rubric), rubric, parts=list(a.part_files))
    assert sorted({m.id for m in found}) == [mutant.id]
    assert run.errors == []


def test_malformed_mutant_header_is_refused(tmp_path):
    """a case file without its '# mistake:' / '# file:' header stops with a message naming it"""
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "bad.py").write_text("def f():\n    pass\n")
    with pytest.raises(GraderError, match="bad.py"):
        load_mutants(tmp_path, ("scaling.py",))
    (tmp_path / "x" / "bad.py").write_text("# mistake: x\n# file: other.py\n")
    with pytest.raises(GraderError, match="other.py"):
        load_mutants(tmp_path, ("scaling.py",))


def test_student_answers_are_student_shaped():
    """the filled quiz has the student's shape (id: {answer: ...}), built from the key"""
    key = yaml.safe_load((REFERENCE / "answers.yaml").read_text(encoding="utf-8"))
    filled = yaml.safe_load(student_answers(key))
    assert set(filled) == set(key)
    assert filled["divisor-4096-32"] == {"answer": 11.3137}
    assert all(set(v) == {"answer"} for v in filled.values())


def test_result_ok_needs_every_row_and_at_least_one():
    """a result is ok only when it has rows and every row holds"""
    good = Row("reference", "reference", "full marks", 1.0, 1.0, (), True)
    bad = Row("mutant x/y", "mutant", "loses points; x", 1.0, 1.0, (), False, "lost no points")
    assert ValidationResult((good,), 1, 0.1, ("x",)).ok
    assert not ValidationResult((good, bad), 1, 0.1, ("x",)).ok
    assert not ValidationResult((), 1, 0.1, ("x",)).ok


def test_render_table_shows_each_row_and_the_problem():
    """the table lists subject, expectation, score, named ids and a verdict with the problem"""
    rows = (
        Row("reference", "reference", "full marks; nothing named", 119.0, 119.0, (), True),
        Row("mutant a/b", "mutant", "loses points; a", 119.0, 119.0, (), False, "lost no points"),
    )
    table = render_table(ValidationResult(rows, 7, 1.0, ("a",)))
    assert isinstance(table, Table)
    console = Console(width=160, record=True)
    console.print(table)
    text = console.export_text()
    for expected in ("reference", "119/119", "mutant a/b", "FAIL: lost no points", "seed 7", "0 of 1"):
        assert expected in text


@pytest.mark.slow
def test_validate_proves_the_chapter07_assignment(rubric):
    """grader validate: reference full and unnamed, stubs 0 and not-implemented, every id caught"""
    result = validate(rubric, seed=3)
    from grader.validate import rows_as_text

    assert result.ok, rows_as_text(result.rows)
    assert set(result.caught) == set(CH7.mistake_ids())
    assert len(result.caught) >= 17
    kinds = [r.kind for r in result.rows]
    assert kinds.count("stub") >= 2 and kinds.count("reference") == 2


@pytest.mark.slow
def test_validate_reports_a_mutant_the_suites_miss(rubric, tmp_path):
    """a 'mutant' identical to the reference is a discrepancy: it loses nothing and is named nothing"""
    folder = tmp_path / "softmax-overflow"
    folder.mkdir()
    (folder / "unchanged.py").write_text("# mistake: softmax-overflow\n# file: softmax.py\n"
                                         "UNCHANGED = True  # appended, it changes no behaviour\n")
    result = validate(rubric, seed=3, mutants=folder.parent)
    assert not result.ok
    row = next(r for r in result.rows if r.subject == "mutant softmax-overflow/unchanged")
    assert not row.ok and "lost no points" in row.problem and "named nothing" in row.problem
    missing = {r.subject for r in result.rows if r.kind == "catalogue"}
    assert "catalogue sqrt-d-model" in missing
