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


def test_the_notebook_front_door_lists_every_public_name():
    """``grader.notebook`` (what a student's notebook imports) offers exactly its ``__all__``, and
    with no warm checker started it has none to show or stop."""
    from grader import notebook

    public = {n for n, v in vars(notebook).items() if not n.startswith("_") and callable(v)
              and getattr(v, "__module__", "") == notebook.__name__}
    assert sorted(notebook.__all__) == sorted(public)
    assert notebook.status() == {}
    notebook.shutdown()


def test_python_m_grader_is_the_grader_command(monkeypatch, capsys):
    """``python -m grader`` runs the ``grader`` command (here ``--version``)."""
    import importlib
    import sys

    import pytest

    monkeypatch.setattr(sys, "argv", ["grader", "--version"])
    monkeypatch.delitem(sys.modules, "grader.__main__", raising=False)
    with pytest.raises(SystemExit) as done:
        import grader.__main__  # noqa: F401  (importing it runs the command, as python -m does)
    assert done.value.code == 0
    assert "version" in capsys.readouterr().out
    sys.modules.pop("grader.__main__", None)
    assert importlib.util.find_spec("grader.__main__") is not None
