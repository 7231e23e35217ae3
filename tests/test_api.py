"""The package's public names are exactly what __all__ lists."""

import grader


def test_all_lists_every_public_name():
    public = {n for n in dir(grader) if not n.startswith("_")} - {"annotations", "TYPE_CHECKING", "Any"}
    public -= {"errors", "report", "rubric", "submission", "runner", "wire", "sandbox", "testing", "plugin", "cli",
               "probing", "batch", "summary", "validate", "release", "gradescope", "tools", "catalogue",
                   "assignment", "hooks", "plotting", "course", "scaffold", "quizsuite"}
    assert sorted(grader.__all__) == sorted(public | {"grade"})


def test_grade_is_importable_lazily():
    from grader.runner import grade

    assert grader.grade is grade
