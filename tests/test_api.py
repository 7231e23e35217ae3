"""The package's public names are exactly what __all__ lists."""

import types

import grader


def test_all_lists_every_public_name():
    public = {n for n in dir(grader) if not n.startswith("_")} - {"annotations", "TYPE_CHECKING", "Any"}
    # Submodules show up as attributes once something imported them; they are not names of the API.
    public -= {n for n in public if isinstance(getattr(grader, n), types.ModuleType)}
    assert sorted(grader.__all__) == sorted(public | {"grade"})


def test_grade_is_importable_lazily():
    from grader.runner import grade

    assert grader.grade is grade
