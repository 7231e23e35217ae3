"""``grader validate`` as CI runs it: the chapter-7 assignment proved, every row printed whole."""

from __future__ import annotations

import os

from grader.prepare.validate import load_mutants
from grader.spec.assignment import assignment_of
from grader.spec.rubric.load import load_rubric
from grader.ingest.corpus import load_corpus

from tests.helpers import CORRECT_STYLES, ROOT, RUBRIC


CH7 = assignment_of(load_rubric(RUBRIC))
CORPUS = CORRECT_STYLES
MUTANTS = CH7.mutants


def test_validate_proves_the_chapter07_assignment():
    """grader validate, as CI runs it (output to a log): every row holds, printed whole in 80 columns"""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "grader", "validate", "--rubric", "rubrics/chapter07.yaml",
                           "--seed", "3"], cwd=ROOT,
                          capture_output=True, text=True, timeout=900, env={**os.environ, "COLUMNS": "80"})
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    lines = out.splitlines()
    assert all(len(line) <= 80 or " " not in line.strip() for line in lines), out
    assert "…" not in out and "FAIL" not in out
    verdicts = [line for line in lines if line.startswith(("ok  ", "FAIL"))]
    subjects = [line[6:] for line in verdicts]
    assert "reference" in subjects and "reference, every probe" in subjects
    assert sum(s.startswith("stub ") for s in subjects) >= 2
    for mutant in load_mutants(MUTANTS, tuple(CH7.part_files.values())):
        assert f"mutant {mutant.name}" in subjects
    for sub in load_corpus(CORPUS):
        assert f"correct {sub.name}" in subjects
    ids = CH7.mistake_ids()
    assert f"{len(ids)} of {len(ids)} catalogue ids caught by a mutant; all checks hold;" in out
