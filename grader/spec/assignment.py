"""One assignment of the course, as its rubric declares it: parts, files, functions, plug-in.

The grader package knows no chapter. Everything particular to an assignment is named by its
rubric: the parts (``id``, submitted ``file``, ``functions``), and under ``plugin:`` the hooks
file (probes, oracle, plots, expected values), the mistake catalogue, the mutants, the
correct-style fixtures, the notebook's name and the student README's text. This module turns
that declaration into the answers every stage asks: which files make a submission, which
functions to probe, which catalogue to word the findings with.

Example::

    a = assignment_of(load_rubric("rubrics/chapter09.yaml"))   # as `grader new chapter09` wrote it
    a.part_files            # {"part1": "part1.py"}
    a.functions("part1")    # ("double",)
    a.catalogue()["not-implemented"].title["en"]   # "Stub left in place"
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any


from grader.spec.catalogue import Entry, catalogue
from grader.kit.hooks import NO_HOOKS, Figure, Hooks, load_hooks
import grader.safeyaml as safeyaml

if TYPE_CHECKING:
    from grader.spec.rubric.model import Part, Rubric

__all__ = ["Assignment", "answer_key", "assignment_of", "figures_hook"]

CODE_SUFFIX = ".py"
QUIZ_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True, slots=True)
class Assignment:
    """The rubric's declaration of one assignment, with the questions stages ask of it."""

    rubric: Rubric

    @property
    def id(self) -> str:
        return str(self.rubric.assignment)

    @property
    def code_parts(self) -> tuple[Part, ...]:
        """The parts graded from a ``.py`` file (a notebook defines all of them), in rubric order."""
        return tuple(p for p in self.rubric.parts if p.file.endswith(CODE_SUFFIX))

    @property
    def part_files(self) -> dict[str, str]:
        """Code part id -> the file a folder submission holds it in."""
        return {p.id: p.file for p in self.code_parts}

    @property
    def quiz_file(self) -> str | None:
        """The quiz's file name (``answers.yaml``), or None when the assignment has no quiz."""
        return next((p.file for p in self.rubric.parts if p.file.endswith(QUIZ_SUFFIXES)), None)

    @property
    def quiz_part(self) -> str | None:
        return next((p.id for p in self.rubric.parts if p.file.endswith(QUIZ_SUFFIXES)), None)

    def functions(self, part: str) -> tuple[str, ...]:
        """The functions of a code part in probe order: the rubric's list, else the hooks' order."""
        declared = next((p.functions for p in self.code_parts if p.id == part), ())
        return tuple(declared)

    @property
    def all_functions(self) -> dict[str, tuple[str, ...]]:
        return {p.id: self.functions(p.id) for p in self.code_parts}

    @property
    def hooks(self) -> Hooks:
        hooks_file = self.rubric.plugin.hooks
        return load_hooks(hooks_file) if hooks_file is not None else NO_HOOKS

    def catalogue(self) -> dict[str, Entry]:
        """This assignment's mistake catalogue (the framework's notes included)."""
        return catalogue(self.rubric.plugin.catalogue)

    def mistake_ids(self) -> list[str]:
        return [mid for mid, e in self.catalogue().items() if not e.note]

    @property
    def mutants(self) -> Path | None:
        return self.rubric.plugin.mutants

    @property
    def fixtures(self) -> Path | None:
        return self.rubric.plugin.fixtures

    def plugin_paths(self, *, instructor: bool) -> list[Path]:
        """The plug-in's files and folders a copy of the course needs.

        Students get the hooks' folder (probes, figures, expected values) and the catalogue:
        ``grader check`` names mistakes on their machine too. Instructors also get the mutants
        and the correct-style fixtures, which are built from the reference.
        """
        plugin = self.rubric.plugin
        paths = [plugin.hooks.parent if plugin.hooks else None, plugin.catalogue, plugin.readme]
        if instructor:
            paths += [plugin.mutants, plugin.fixtures]
        return list(dict.fromkeys(Path(p).resolve() for p in paths if p is not None))

    @property
    def notebook(self) -> str | None:
        """The notebook handed out: the rubric's name, else the only ``.ipynb`` in exercises/."""
        if self.rubric.plugin.notebook:
            return str(self.rubric.plugin.notebook)
        found = sorted(Path(self.rubric.exercises).glob("*.ipynb"))
        return found[0].name if len(found) == 1 else None


def figures_hook(rubric: Rubric | None) -> Callable[[dict[str, Any], Sequence[str]], list[Figure]] | None:
    """The assignment's figure-drawing hook (``Hooks.figures``), or None without a plug-in.

    The hooks file is loaded only when a figure is drawn: a page of a report without plots (every
    report ``grader batch`` writes) is rendered without importing the plug-in, and so without
    the torch it imports.
    """
    if rubric is None or rubric.plugin.hooks is None:
        return None
    known = rubric

    def draw(plots: dict[str, Any], languages: Sequence[str]) -> list[Figure]:
        return assignment_of(known).hooks.figures(plots, languages)

    return draw


def answer_key(folder: Path | None, quiz_file: str | None) -> Any:
    """The reference's answer key: its quiz file read as YAML data (``{}`` without one).

    Read as data, never imported: ``grader batch``'s own process needs the key for the validate
    corpus without loading the reference's code (and the torch it imports).
    """
    key_file = folder / quiz_file if folder is not None and quiz_file else None
    if key_file is None or not key_file.exists():
        return {}
    return safeyaml.load(key_file.read_text(encoding="utf-8"))


@functools.cache
def assignment_of(rubric: Rubric) -> Assignment:
    """The :class:`Assignment` a loaded rubric declares (one per rubric object)."""
    return Assignment(rubric)
