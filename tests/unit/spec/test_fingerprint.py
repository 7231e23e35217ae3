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




def test_view_only_options_and_comments_leave_the_fingerprint_alone(tmp_path):
    """the report options that only decide the student views (formats, hidden tests' details,
    quiz answers, the exit code) and the rubric's comments do not change the fingerprint, so a
    --resume after changing them regrades nothing; an option that decides a score does."""
    from tests.helpers import rubric_copy

    def fingerprint(**report):
        path = rubric_copy(tmp_path, lambda data: data.setdefault("report", {}).update(report))
        return rubric_fingerprint(load_rubric(path), ("public", "hidden"))

    before = fingerprint()
    assert before == fingerprint(formats=["yaml", "html", "markdown", "json"], hidden_details="after_publish",
                                 hidden_tests="pass-fail", quiz_answers="always", fail_below_pass_mark=True)
    path = rubric_copy(tmp_path)
    path.write_text("# a comment of the instructor's\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    assert before == rubric_fingerprint(load_rubric(path), ("public", "hidden"))
    assert before != fingerprint(pass_mark=70)
    assert before != fingerprint(rounding=3)
