"""Tests for grader/prepare/validate.py (`grader validate`) and the mutant case files it grades."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from rich.console import Console
from rich.table import Table

from grader.grading import diagnosis
from grader.spec.assignment import assignment_of
from grader.errors import GraderError
from grader.spec.rubric.load import load_rubric
from grader.grading.runner import reference_for
from grader.prepare.validate import Row, ValidationResult, load_mutants, render_lines, render_table, validate
from grader.ingest.corpus import load_corpus, student_answers

from tests.helpers import ROOT, rubric_copy


RUBRICS = {name: load_rubric(ROOT / "rubrics" / f"{name}.yaml") for name in ("chapter07", "chapter08")}
CH7 = assignment_of(RUBRICS["chapter07"])
REFERENCE = ROOT / "solutions" / "chapter07"
CORPUS = ROOT / "suites" / "chapter07" / "correct"
MUTANTS = CH7.mutants


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
    from tests.unit.grading.test_diagnosis import InProcessSession, Run

    rubric = RUBRICS[name]
    a = assignment_of(rubric)
    reference_dir = Path(rubric.reference)
    part = mutant.file.removesuffix(".py")
    sources = {p: (reference_dir / f).read_text(encoding="utf-8") for p, f in a.part_files.items()}
    sources[part] = mutant.source(reference_dir)
    run = Run()
    found = diagnosis.diagnose(run, InProcessSession(sources), reference_for(rubric), rubric, parts=list(a.part_files))
    if mutant.id == diagnosis.FLOAT32_PRECISION_ID:
        # Seen in the tests' float64 checks, not by the probes, whose inputs are float32 and find
        # such code right: the probes name nothing; graded (grader validate) it is named.
        assert found == []
    else:
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


def test_render_lines_keeps_every_id_whole_in_80_columns():
    """in a log, long subjects, test ids and mistake ids are printed whole; lines break only between words"""
    long_test = "hidden/test_softmax.py::test_temperature_large_inputs[0.5]"
    rows = (
        Row("reference", "reference", "full marks; nothing named", 124.0, 124.0, (), True),
        Row("mutant softmax-overflow/temperature-exp-directly", "mutant", "loses points; softmax-overflow",
            124.0, 124.0, ("missing-value-error", "multiply-by-sqrt-d-k"), False,
            f"lost points in {long_test}; named missing-value-error, multiply-by-sqrt-d-k"),
        Row("correct 22-lms-zip.zip", "correct", "full marks; nothing named", 124.0, 124.0, (), True),
    )
    text = render_lines(ValidationResult(rows, 7, 1.0, ("softmax-overflow",)))
    words = text.split()
    for whole in ("softmax-overflow/temperature-exp-directly", long_test + ";", "missing-value-error,",
                  "multiply-by-sqrt-d-k", "22-lms-zip.zip", "124/124;"):
        assert whole in words, whole
    assert all(len(line) <= 80 or " " not in line.strip() for line in text.splitlines())
    assert "…" not in text
    assert "FAIL  mutant softmax-overflow/temperature-exp-directly" in text.splitlines()


def test_the_corpus_holds_twenty_correct_styles_with_a_notebook_and_a_zip():
    """suites/chapter07/correct: at least 20 submissions, folders, a notebook and a zip"""
    corpus = load_corpus(CORPUS)
    assert len(corpus) >= 20
    assert {".ipynb", ".zip"} <= {p.suffix for p in corpus}
    assert sum(p.is_dir() for p in corpus) >= 18


def test_an_unknown_mistakes_key_names_the_file_the_key_and_the_nearest_id(tmp_path):
    """`mistakes: {sqrt-d-modle: ...}` stops validate (and every command) with file, key path and nearest id"""
    import subprocess
    import sys

    rubric = rubric_copy(tmp_path, mistakes={"sqrt-d-modle": {"partial_credit": 0.5}})
    for command in (["validate"], ["check", str(ROOT / "exercises" / "chapter07")]):
        proc = subprocess.run([sys.executable, "-m", "grader", *command, "--rubric", str(rubric)], cwd=ROOT,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 2, proc.stderr
        assert f"{rubric}: mistakes.sqrt-d-modle:" in proc.stderr
        assert "did you mean 'sqrt-d-model'?" in proc.stderr
    from grader.spec.catalogue import check_rubric
    from grader.errors import RubricError
    from grader.spec.rubric.load import load_rubric

    with pytest.raises(RubricError) as err:
        check_rubric(load_rubric(rubric))
    assert (err.value.file, err.value.yaml_path) == (str(rubric), "mistakes.sqrt-d-modle")
    check_rubric(load_rubric(ROOT / "rubrics" / "chapter07.yaml"))  # the shipped rubric is fine


@pytest.mark.slow
def test_validate_reports_a_mutant_the_suites_miss(rubric, tmp_path):
    """a 'mutant' identical to the reference is a discrepancy: it loses nothing and is named nothing"""
    folder = tmp_path / "softmax-overflow"
    folder.mkdir()
    (folder / "unchanged.py").write_text("# mistake: softmax-overflow\n# file: softmax.py\n"
                                         "UNCHANGED = True  # appended, it changes no behaviour\n")
    # A corpus of one correct style and one that is not quite correct (softmax over all axes).
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS / "01-minimal-checks", corpus / "fine")
    shutil.copytree(CORPUS / "01-minimal-checks", corpus / "flawed")
    with (corpus / "flawed" / "softmax.py").open("a", encoding="utf-8") as fh:
        fh.write("\n\ndef softmax(x, dim=-1):\n    e = torch.exp(x - x.max())\n    return e / e.sum()\n")
    result = validate(rubric, seed=3, mutants=folder.parent, corpus=corpus)
    assert not result.ok
    row = next(r for r in result.rows if r.subject == "mutant softmax-overflow/unchanged")
    assert not row.ok and "lost no points" in row.problem and "named nothing" in row.problem
    missing = {r.subject for r in result.rows if r.kind == "catalogue"}
    assert "catalogue sqrt-d-model" in missing
    rows = {r.subject: r for r in result.rows if r.kind == "correct"}
    assert rows["correct fine"].ok
    assert not rows["correct flawed"].ok and "lost points in" in rows["correct flawed"].problem
