"""The package's public names are exactly what __all__ lists."""

import types

import grader


def test_all_lists_every_public_name():
    # Submodules appear in dir(grader) once anything imported them; they are not names of __all__.
    public = {n for n in dir(grader) if not n.startswith("_")
              and not isinstance(getattr(grader, n), types.ModuleType)} - {"annotations", "TYPE_CHECKING", "Any"}
    assert sorted(grader.__all__) == sorted(public | {"grade"})


def test_grade_is_importable_lazily():
    from grader.grading.runner import grade

    assert grader.grade is grade
