"""The hooks an assignment's plug-in implements, and how the grader loads them.

An assignment keeps its own knowledge outside the grader package, in a Python file its rubric
names (``plugin.hooks``). That file is an ordinary module; the grader reads the names below
from it, each optional except ``RECOGNISERS``:

=====================  ==========================================================================
``RECOGNISERS``        ``{function: recogniser}``; a recogniser takes a :class:`grader.kit.probes.Probe`
                       bound to the function's part and returns a list of
                       :class:`grader.kit.probes.Finding` (empty: nothing wrong seen)
``ORACLE``             ``{function: callable}``: the right answer computed with torch, used by
                       ``Probe.expect`` when the reference is not loaded (``grader check``)
``quiz_findings``      ``(answers: dict) -> list[Finding]``: mistakes a quiz answer shows (a hook
                       that also takes ``variant=None`` gets the student's own numbers)
``plot_data``          ``(session, reference) -> dict``: the student's values for the figures
                       (plain data, stored in the report)
``figures``            ``(plots: dict, languages) -> list[Figure]``: PNG figures for the HTML
                       report, drawn from ``plot_data``'s dict
``expected_values``    ``(reference) -> dict``: the public suite's ``expected.json`` (written by
                       ``python -m grader.prepare.expected``)
``NOTEBOOK_INTRO``     ``str``: the first markdown cell of the handed-out notebook
``README_EXAMPLE``     ``{lang: str}``: the mistake the student README names as an example
``personal_handout``   ``(name: str, text: str, values: dict) -> str``: a handed-out file's text
                       (a stub, the quiz, a notebook cell) with one student's own numbers
                       (``grader release --variants``)
=====================  ==========================================================================

:class:`AssignmentHooks` lists them with their types (a plug-in author's checker can hold a
hooks file against it); :class:`Hooks` is how the grader reaches them, the one way everywhere,
each with its default. The sandbox's zygote warms torch itself before forking (the same
operations for every assignment), so a plug-in has no warm-up hook.

The module runs in the trusted process (never in the sandbox); it may import
numpy, torch and :mod:`grader.kit.probes`. It ships with the public suite, so it must hold no
answer the hidden tests or the quiz key keep secret: expected values come from the reference
(when loaded) or from torch.

Example::

    hooks = load_hooks(Path("suites/chapter09/plugin/hooks.py"))   # as `grader new chapter09` wrote it
    hooks.recognisers["double"](probe)   # [] when the student's double() is right
"""

from __future__ import annotations

import functools
import hashlib
import importlib.machinery
import importlib.util
import inspect
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Protocol, cast

from grader.errors import GraderError
from grader.i18n.messages import said

if TYPE_CHECKING:
    from grader.sandbox.session import Session
    from grader.kit.probes import Finding, Probe

__all__ = ["HOOK_PROTOCOLS", "OPTIONAL_HOOKS", "AssignmentHooks", "Figure", "Hooks", "HooksModule", "Recogniser",
           "conformance_check", "load_hooks"]


@dataclass(frozen=True, slots=True)
class Figure:
    """One PNG of the HTML report: its bytes as base64, a caption per language, an anchor name."""

    png: str = field(metadata={"help": "base64 PNG"})
    caption: Mapping[str, str] = field(metadata={"help": "language -> caption"})
    name: str = field(metadata={"help": "short id, used as the image's anchor"})


Recogniser = Callable[["Probe"], "list[Finding]"]


class HooksModule(Protocol):
    """What a plug-in module must define: ``RECOGNISERS``."""

    @property
    def RECOGNISERS(self) -> Mapping[str, Recogniser]: ...  # noqa: N802 - the module constant's name


class HasOracle(Protocol):
    @property
    def ORACLE(self) -> Mapping[str, Callable[..., object]]: ...  # noqa: N802


class HasNotebookIntro(Protocol):
    @property
    def NOTEBOOK_INTRO(self) -> str: ...  # noqa: N802


class HasReadmeExample(Protocol):
    @property
    def README_EXAMPLE(self) -> Mapping[str, str]: ...  # noqa: N802


class HasQuizFindings(Protocol):
    def quiz_findings(self, answers: dict[str, object]) -> list[Finding]: ...


class HasPlotData(Protocol):
    def plot_data(self, session: Session, reference: object) -> dict[str, object]: ...


class HasFigures(Protocol):
    def figures(self, plots: dict[str, object], languages: Sequence[str]) -> list[Figure]: ...


class HasExpectedValues(Protocol):
    def expected_values(self, reference: object) -> dict[str, object]: ...


class HasPersonalHandout(Protocol):
    def personal_handout(self, name: str, text: str, values: dict[str, object]) -> str: ...


#: Each optional hook -> the protocol that gives its type. A hooks file is checked against
#: :class:`HooksModule` and the protocol of each optional hook it defines
#: (:func:`conformance_check`), since a module that leaves a hook out is still a valid plug-in.
HOOK_PROTOCOLS: dict[str, type] = {
    "ORACLE": HasOracle, "quiz_findings": HasQuizFindings, "plot_data": HasPlotData, "figures": HasFigures,
    "expected_values": HasExpectedValues, "NOTEBOOK_INTRO": HasNotebookIntro, "README_EXAMPLE": HasReadmeExample,
    "personal_handout": HasPersonalHandout,
}


class AssignmentHooks(HooksModule, HasOracle, HasQuizFindings, HasPlotData, HasFigures, HasExpectedValues,
                      HasNotebookIntro, HasReadmeExample, HasPersonalHandout, Protocol):
    """Every hook a plug-in module may define, with its type (all but ``RECOGNISERS`` optional)."""


#: The optional hooks, as :class:`AssignmentHooks` names them (``grader new`` lists them).
OPTIONAL_HOOKS = tuple(HOOK_PROTOCOLS)


def conformance_check(modules: Mapping[str, str]) -> str:
    """A Python file for mypy that holds each chapter's hooks file to the hooks' types.

    ``modules`` maps a dotted module path (``suites.chapter07.plugin.hooks``) to its file. The
    check names :class:`HooksModule` and the protocol of each optional hook the file defines at
    its top level, so a wrong signature (``figures(plots)`` without ``languages``, say) fails
    ``make lint`` instead of a batch. ``grader new`` rewrites the file with each new chapter.
    """
    imports = ["from grader.kit import hooks"]
    lines: list[str] = []
    for dotted, file in sorted(modules.items()):
        alias = "_" + dotted.replace(".", "_")
        imports.append(f"import {dotted} as {alias}")
        defined = _top_level_names(Path(file))
        for name in ("RECOGNISERS", *OPTIONAL_HOOKS):
            if name in defined:
                protocol = "HooksModule" if name == "RECOGNISERS" else HOOK_PROTOCOLS[name].__name__
                lines.append(f"{alias}_{name}: hooks.{protocol} = {alias}")
    head = ['"""mypy holds each chapter\'s hooks file to the hooks\' types (written by ``grader new``:',
            'do not edit by hand). Read by mypy only, never imported."""', ""]
    return "\n".join([*head, *imports, "", *lines]) + "\n"


def _top_level_names(file: Path) -> set[str]:
    """The names a Python file binds at its top level (defs, classes, assignments)."""
    import ast

    names: set[str] = set()
    for node in ast.parse(file.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


@dataclass(frozen=True, slots=True)
class Hooks:
    """An assignment's hooks, each with its default when the module does not define it."""

    module: ModuleType | None
    recognisers: Mapping[str, Recogniser] = field(default_factory=dict)
    oracle: Mapping[str, Callable[..., object]] = field(default_factory=dict)

    def _defines(self, name: str) -> bool:
        """Whether the module defines the hook ``name`` (a callable). Its type is then the hook's
        protocol (``HOOK_PROTOCOLS``), which mypy holds each chapter's file to: the casts below."""
        return callable(getattr(self.module, name, None)) if self.module is not None else False

    def quiz_findings(self, answers: dict[str, object], variant: dict[str, object] | None = None) -> list[Finding]:
        """The module's findings; one whose hook takes ``variant=`` gets the student's own numbers."""
        if not self._defines("quiz_findings"):
            return []
        hook = cast(HasQuizFindings, self.module).quiz_findings
        if variant is not None and "variant" in inspect.signature(hook).parameters:
            return list(cast("Callable[..., list[Finding]]", hook)(answers, variant=variant))
        return list(hook(answers))

    def plot_data(self, session: Session, reference: object) -> dict[str, object]:
        if not self._defines("plot_data"):
            return {}
        return dict(cast(HasPlotData, self.module).plot_data(session, reference) or {})

    def figures(self, plots: dict[str, object], languages: Sequence[str]) -> list[Figure]:
        if not self._defines("figures"):
            return []
        return list(cast(HasFigures, self.module).figures(plots, languages))

    def expected_values(self, reference: object) -> dict[str, object] | None:
        if not self._defines("expected_values"):
            return None
        return dict(cast(HasExpectedValues, self.module).expected_values(reference))

    def personal_handout(self, name: str, text: str, values: dict[str, object]) -> str:
        """``text`` of the handed-out file ``name`` with one student's numbers; as it is without the hook."""
        if not self._defines("personal_handout"):
            return text
        return str(cast(HasPersonalHandout, self.module).personal_handout(name, text, values))

    @property
    def notebook_intro(self) -> str:
        """``NOTEBOOK_INTRO``, or "" when the module gives none."""
        return str(getattr(self.module, "NOTEBOOK_INTRO", "") or "")

    @property
    def readme_example(self) -> Mapping[str, str] | None:
        """``README_EXAMPLE`` ({lang: text}), or None."""
        example = getattr(self.module, "README_EXAMPLE", None)
        return example if isinstance(example, Mapping) else None


NO_HOOKS = Hooks(module=None)


@functools.cache
def load_hooks(path: Path) -> Hooks:
    """Import the plug-in file at ``path`` once, under a private module name.

    Raises:
        GraderError: the file cannot be imported, or its ``RECOGNISERS`` is not a mapping of
            function names to callables; the message names the file.
    """
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
    package = f"_grader_plugin_{digest}"
    # The hooks file's folder is a private package, so the file may import its neighbours
    # (``from . import plots``) without putting that folder on sys.path.
    pkg_spec = importlib.machinery.ModuleSpec(package, None, is_package=True)
    pkg_spec.submodule_search_locations = [str(path.parent)]
    sys.modules.setdefault(package, importlib.util.module_from_spec(pkg_spec))
    name = f"{package}.{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise GraderError(said("cannot_imported_python_module", path=path))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - the instructor's file: say which and why
        sys.modules.pop(name, None)
        raise GraderError(said("importing_assignment_s_hooks", path=path, name=type(exc).__name__, why=exc)) from exc
    recognisers = getattr(module, "RECOGNISERS", None)
    if not isinstance(recognisers, Mapping) or not all(
        isinstance(k, str) and callable(v) for k, v in recognisers.items()
    ):
        raise GraderError(f"{path}: define RECOGNISERS = {{'function_name': recogniser, ...}}")
    oracle = getattr(module, "ORACLE", None) or {}
    return Hooks(module=module, recognisers=dict(recognisers), oracle=dict(oracle))
