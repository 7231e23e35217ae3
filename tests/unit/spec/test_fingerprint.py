"""``grader batch --resume`` follows the grader's knowledge of mistakes, not only the rubric.

A report says which mistakes a submission made; that depends on the mistake catalogue and
on the diagnosis code as much as on the rubric and the suites. So the fingerprint a resumed
batch compares includes both, and a class resumed after either changed is graded again.
"""

from __future__ import annotations

import shutil

from grader.spec import fingerprint as rubric_module
from grader.spec.fingerprint import knowledge_files, rubric_fingerprint
from grader.spec.rubric.load import load_rubric

from tests.helpers import ROOT


CH7 = load_rubric(ROOT / "rubrics" / "chapter07.yaml")


def test_the_knowledge_is_the_catalogue_and_the_diagnosis():
    """the fingerprint covers the assignment's catalogue and probes, and the framework's"""
    names = {(f.parent.name, f.name) for f in knowledge_files(CH7)}
    assert {("plugin", "mistakes.yaml"), ("plugin", "hooks.py"), ("plugin", "plots.py"),
            ("grader", "framework.yaml"), ("kit", "probes.py"), ("grading", "diagnosis.py")} <= names
    assert all(f.is_file() for f in knowledge_files(CH7))


def test_the_fingerprint_changes_with_the_knowledge(tmp_path, monkeypatch):
    """editing the catalogue or the diagnosis changes the fingerprint; leaving them alone does not"""
    rubric = load_rubric(ROOT / "rubrics" / "chapter07.yaml")
    copies = []
    for f in knowledge_files(CH7):
        copy = tmp_path / f.name
        shutil.copyfile(f, copy)
        copies.append(copy)
    monkeypatch.setattr(rubric_module, "knowledge_files", lambda rubric=None: list(copies))
    before = rubric_fingerprint(rubric, ("public", "hidden"))
    assert rubric_fingerprint(rubric, ("public", "hidden")) == before
    for copy in copies:
        previous = rubric_fingerprint(rubric, ("public", "hidden"))
        with copy.open("a", encoding="utf-8") as fh:
            fh.write("\n# changed\n")
        assert rubric_fingerprint(rubric, ("public", "hidden")) != previous, copy.name


