"""Rubric loading: one YAML file -> one frozen :class:`Rubric`, checked once at the edge.

Everything downstream (runner, sandbox, diagnosis, report writers) reads the ``Rubric`` and
never the YAML. A rubric that is wrong in any way stops here with a :class:`RubricError` whose
message names the file as the user wrote it, the YAML key path and the fix::

    rubrics/chapter07.yaml: limits.per_call_s: must be a number > 0 (got '10s', a str);
    write per_call_s: 10

(one line in practice).

Example::

    rubric = load_rubric("rubrics/chapter07.yaml")
    rubric.points_for("hidden/test_variance.py::test_scaled[64]")   # 2.0 (first matching rule)
    rubric.suite("public").path                                     # absolute folder of the tests
    rubric.report.languages                                         # ("ja", "en")
"""

from __future__ import annotations

import difflib
import math
import os
import re
from dataclasses import dataclass, field
from enum import Enum
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import yaml

from grader.sandbox.limits import Limits
from grader.i18n.messages import said
from grader.errors import RubricError

#: A ``def name(`` in Python source: the functions a file defines, without importing it.
_DEF = re.compile(r"\bdef\s+([A-Za-z_]\w*)\s*\(")

__all__ = [
    "FORMATS",
    "HiddenDetail",
    "LatePolicy",
    "HiddenDetails",
    "QuizAnswers",
    "Limits",
    "MistakeOptions",
    "Part",
    "Plugin",
    "PointRule",
    "ReportOptions",
    "Rubric",
    "Suite",
    "Text",
    "Visibility",
    "load_rubric",
]

#: Report formats a rubric may ask for, in the order the docs list them.
FORMATS = ("yaml", "json", "gradescope", "junit", "markdown", "html")
_LANGUAGES = ("ja", "en")
_SUITE_NAMES = ("public", "hidden")


class Visibility(str, Enum):
    """When a student sees a test's result (Gradescope's vocabulary)."""

    VISIBLE = "visible"  #: always
    HIDDEN = "hidden"  #: never
    AFTER_DUE_DATE = "after_due_date"  #: once the due date has passed
    AFTER_PUBLISHED = "after_published"  #: once the instructor publishes grades


class HiddenDetail(str, Enum):
    """How much a student's report shows of tests that are not visible to them."""

    NONE = "none"  #: only the total score those tests contributed
    PASS_FAIL = "pass-fail"  #: each test's name and status, without feedback
    FULL = "full"  #: name, status and feedback, like a visible test


class HiddenDetails(str, Enum):
    """When the details of tests not visible to students (names, inputs, feedback) are shown."""

    NEVER = "never"  #: never: students see what ``hidden_tests`` says
    AFTER_DUE = "after_due"  #: once the rubric's ``due:`` has passed when the report is written
    AFTER_PUBLISH = "after_publish"  #: once ``grader publish OUT`` was run on the batch output


class QuizAnswers(str, Enum):
    """When a student's report may show the right answer of a quiz question they got wrong."""

    NEVER = "never"  #: never (the key stays with the instructor)
    AFTER_DUE_DATE = "after_due_date"  #: only in reports of quiz tests released after the due date
    ALWAYS = "always"  #: in every report (e.g. a practice quiz)


def _help(text: str) -> dict[str, str]:
    return {"help": text}


@dataclass(frozen=True, slots=True)
class Text:
    """A string in both course languages."""

    en: str = field(metadata=_help("the English text"))
    ja: str = field(metadata=_help("the Japanese text"))

    def get(self, lang: str) -> str:
        """Return the text in ``lang`` (``"en"`` or ``"ja"``).

        Raises:
            ValueError: for any other language code.
        """
        if lang == "en":
            return self.en
        if lang == "ja":
            return self.ja
        raise ValueError(said("unknown_language_use_one", lang=f"{lang!r}", langs=', '.join(_LANGUAGES)))


@dataclass(frozen=True, slots=True)
class Part:
    """One exercise file of the assignment; every test belongs to exactly one part."""

    id: str = field(metadata=_help("short name used in test ids, reports and `student.<id>`"))
    file: str = field(metadata=_help("the submission file this part grades, e.g. scaling.py"))
    title: Text = field(metadata=_help("the part's title shown in reports, in en and ja"))
    functions: tuple[str, ...] = field(
        default=(), metadata=_help("the functions a code part defines, in the order they are probed")
    )


@dataclass(frozen=True, slots=True)
class Plugin:
    """Where an assignment's own pieces live, outside the grader package (see docs/architecture.md).

    Every path is absolute; ``None`` where the rubric declares nothing.
    """

    hooks: Path | None = field(
        default=None, metadata=_help("Python file: the probes, oracle, plots and expected values")
    )
    catalogue: Path | None = field(default=None, metadata=_help("YAML file: the mistake catalogue"))
    mutants: Path | None = field(default=None, metadata=_help("folder of mutant case files, <id>/<name>.py"))
    fixtures: Path | None = field(
        default=None, metadata=_help("folder of correct submissions written in other styles")
    )
    notebook: str | None = field(default=None, metadata=_help("the notebook's file name in exercises/"))
    readme: Path | None = field(default=None, metadata=_help("Markdown file: the student README's text"))
    expected: Path | None = field(
        default=None, metadata=_help("JSON file of the public suite's expected values")
    )


@dataclass(frozen=True, slots=True)
class Suite:
    """A folder of pytest files run against every submission."""

    name: str = field(metadata=_help("'public' (students have it) or 'hidden' (instructors only)"))
    path: Path = field(metadata=_help("absolute, resolved folder holding the suite's test files"))
    visibility: Visibility = field(metadata=_help("when students see this suite's results"))


@dataclass(frozen=True, slots=True)
class PointRule:
    """Points for the tests whose id matches a pattern; the first matching rule wins."""

    match: str = field(
        metadata=_help(
            "test id, or fnmatch pattern over test ids such as "
            "'hidden/test_scaling.py::test_head_dim[768-12]'"
        )
    )
    points: float = field(metadata=_help("points each matching test is worth"))


@dataclass(frozen=True, slots=True)
class ReportOptions:
    """What the reports contain and which files are written."""

    formats: tuple[str, ...] = field(
        default=("yaml",), metadata=_help("report files to write: " + ", ".join(FORMATS))
    )
    languages: tuple[str, ...] = field(
        default=("ja", "en"),
        metadata=_help("feedback languages in order (rubric key `language`: ja, en or both)"),
    )
    hidden_tests: HiddenDetail = field(
        default=HiddenDetail.FULL, metadata=_help("how much students see of hidden tests")
    )
    rounding: int = field(default=2, metadata=_help("decimal places for scores in reports"))
    pass_mark: float = field(default=60.0, metadata=_help("pass mark, percent of the max score"))
    fail_below_pass_mark: bool = field(
        default=False, metadata=_help("exit with status 1 when the score is below the pass mark")
    )
    quiz_answers: QuizAnswers = field(
        default=QuizAnswers.AFTER_DUE_DATE,
        metadata=_help("when a student sees the right answer of a quiz question answered wrongly:"
                       " never | after_due_date (only where the quiz tests' visibility is"
                       " after_due_date; never in grader check) | always"),
    )
    hidden_details: HiddenDetails = field(
        default=HiddenDetails.NEVER,
        metadata=_help("when students see hidden tests in full (before: as hidden_tests says):"
                       " never | after_due (needs due:) | after_publish (grader publish OUT)"),
    )


@dataclass(frozen=True, slots=True)
class MistakeOptions:
    """How the rubric treats one recognised mistake (the catalogue itself lives elsewhere)."""

    id: str = field(metadata=_help("the mistake's stable kebab-case id, e.g. returns-input"))
    partial_credit: float = field(
        default=0.0,
        metadata=_help("points given back on the part when exactly this mistake explains it"),
    )
    central: bool = field(
        default=False,
        metadata=_help("the chapter's central mistake: a passing submission with it is shown as"
                       " \"passed, but …\" with it first, and the class summary counts who passed despite it"),
    )


@dataclass(frozen=True, slots=True)
class LatePolicy:
    """What a submission the LMS flagged as late loses (rubric key ``late``)."""

    penalty_percent: float = field(
        default=0.0, metadata=_help("percent of the maximum score taken off a late submission")
    )
    cap_percent: float = field(
        default=100.0, metadata=_help("a late submission scores at most this percent of the maximum")
    )
    per: str = field(
        default="once", metadata=_help("once: penalty_percent once; day: for every day or part of a day after "
                                       "the student's due date (needs due: and submission times)")
    )
    grace_minutes: float = field(
        default=0.0, metadata=_help("a submission this many minutes after the due date is on time")
    )

    def apply(self, score: float, max_score: float) -> float:
        """The score a late submission keeps (never below 0)."""
        kept = min(score - max_score * self.penalty_percent / 100, max_score * self.cap_percent / 100)
        return max(0.0, min(score, kept))

    def describe(self, lang: str) -> str:
        """The policy in words, for reports and the gradebook."""
        from grader.i18n.messages import label

        parts = []
        if self.penalty_percent:
            parts.append(label("late_per_day" if self.per == "day" else "late_once", lang,
                               percent=_fmt(self.penalty_percent)))
        if self.grace_minutes:
            parts.append(label("late_grace", lang, minutes=_fmt(self.grace_minutes)))
        if self.cap_percent < 100:
            parts.append(label("late_cap", lang, percent=_fmt(self.cap_percent)))
        return label("list_sep", lang).join(parts) if parts else label("late_none", lang)


@dataclass(frozen=True, slots=True)
class Rubric:
    """A whole assignment's grading configuration, as loaded by :func:`load_rubric`."""

    file: Path = field(metadata=_help("the rubric file, as the path was given to load_rubric"))
    assignment: str = field(metadata=_help("the assignment's id, e.g. chapter07"))
    title: Text = field(metadata=_help("the assignment's title in en and ja"))
    parts: tuple[Part, ...] = field(metadata=_help("the exercise files, in report order"))
    suites: tuple[Suite, ...] = field(metadata=_help("the test suites, in the rubric's order"))
    reference: Path | None = field(
        metadata=_help("absolute folder of the reference solution; None when not configured")
    )
    exercises: Path = field(metadata=_help("absolute folder of the stubs handed to students"))
    default_points: float = field(default=1.0, metadata=_help("points for a test no rule matches"))
    point_rules: tuple[PointRule, ...] = field(
        default=(), metadata=_help("per-test points; the first matching rule wins")
    )
    limits: Limits = field(default=Limits(), metadata=_help("resource limits per submission"))
    report: ReportOptions = field(default=ReportOptions(), metadata=_help("report options"))
    mistakes: tuple[MistakeOptions, ...] = field(
        default=(), metadata=_help("per-mistake options; unlisted ids get the defaults")
    )
    late: LatePolicy | None = field(
        default=None, metadata=_help("what a late submission loses; None: lateness is only shown")
    )
    due: str = field(
        default="", metadata=_help("the due date, ISO 8601 with its offset (2026-12-01T23:59:00+09:00); "
                                   "empty: the LMS's late flag decides")
    )
    plugin: Plugin = field(default=Plugin(), metadata=_help("the assignment's own pieces"))

    def points_for(self, test_id: str) -> float:
        """Points for one test: the first rule whose ``match`` fits ``test_id``, else the default.

        A rule matches when it equals the id exactly (ids contain ``[...]``, which fnmatch reads
        as a character class) or when the id fits it as a case-sensitive fnmatch pattern.
        """
        for rule in self.point_rules:
            if rule.match == test_id or fnmatchcase(test_id, rule.match):
                return rule.points
        return self.default_points

    def part(self, id: str) -> Part:  # noqa: A002 - `id` is the rubric's own word
        """The part called ``id``. Raises ``KeyError`` naming the known ids."""
        for part in self.parts:
            if part.id == id:
                return part
        raise KeyError(f"no part {id!r}; the rubric has {[p.id for p in self.parts]}")

    def suite(self, name: str) -> Suite:
        """The suite called ``name``. Raises ``KeyError`` naming the configured suites."""
        for suite in self.suites:
            if suite.name == name:
                return suite
        raise KeyError(f"no suite {name!r}; the rubric has {[s.name for s in self.suites]}")

    def mistake_options(self, id: str) -> MistakeOptions:  # noqa: A002
        """Options for mistake ``id``; ids the rubric does not list get the defaults."""
        for options in self.mistakes:
            if options.id == id:
                return options
        return MistakeOptions(id=id)


def load_rubric(path: str | os.PathLike[str]) -> Rubric:
    """Read and check a rubric file.

    Paths inside it are relative to the folder holding it.

    Args:
        path: the rubric file; kept as given for messages.

    Returns:
        The frozen rubric.

    Raises:
        RubricError: the file is missing, not YAML, or breaks any rule; the message says
            where and what to write instead.
    """
    shown = os.fspath(path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")  # Windows editors add a BOM
    except FileNotFoundError:
        raise RubricError(shown, "", said("rubric_file_not_found", path=_show(Path(path).absolute())),
                          said("rubric_pass_path")) from None
    except IsADirectoryError:
        raise RubricError(shown, "", said("rubric_is_folder"), said("rubric_name_yaml_inside")) from None
    except UnicodeDecodeError as exc:
        raise RubricError(shown, "", said("rubric_not_utf8", why=exc.reason), said("rubric_save_utf8")) from None
    except OSError as exc:
        raise RubricError(shown, "", said("rubric_cannot_read", why=exc.strerror or exc),
                          said("rubric_check_permissions")) from None
    try:
        data = yaml.load(text, Loader=_Loader)  # noqa: S506 - _Loader is a SafeLoader
    except _DuplicateKey as exc:
        raise RubricError(shown, "", said("rubric_duplicate_key", key=exc.key, first=exc.first, line=exc.line),
                          said("rubric_keep_one_key")) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        what = " ".join(p for p in (exc.context, exc.problem) if p)  # the YAML parser's own words
        if mark is None:
            raise RubricError(shown, "", said("rubric_invalid_yaml", what=what), said("rubric_fix_yaml")) from None
        raise RubricError(shown, "", said("rubric_invalid_yaml_at", line=mark.line + 1, column=mark.column + 1,
                                          what=what), said("rubric_check_indentation")) from None
    except yaml.YAMLError as exc:
        raise RubricError(shown, "", said("rubric_invalid_yaml", what=exc), said("rubric_fix_yaml")) from None
    return _Reader(shown, Path(path).absolute().parent).rubric(data, Path(path))


# --- YAML loading ------------------------------------------------------------------------


class _DuplicateKey(yaml.constructor.ConstructorError):
    """A key given twice in one mapping: the key, and the lines of its first and second."""

    def __init__(self, key: Any, first: yaml.Mark, again: yaml.Mark) -> None:
        super().__init__(f"while reading a mapping (its first {key!r} is at line {first.line + 1})", first,
                         f"duplicate key {key!r}", again)
        self.key, self.first, self.line = repr(key), first.line + 1, again.line + 1


class _Loader(yaml.SafeLoader):
    """SafeLoader that rejects duplicate keys and reads ``1e3`` as a float (as YAML 1.2 does)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, yaml.Mark] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue  # `<<: *anchor` keys may legitimately be overridden
            key = self.construct_object(key_node, deep=deep)
            try:
                first = seen.setdefault(key, key_node.start_mark)
            except TypeError:
                continue  # unhashable key: the base class reports it
            if first is not key_node.start_mark:
                raise _DuplicateKey(key, first, key_node.start_mark)
        return super().construct_mapping(node, deep=deep)


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)


# --- checking ----------------------------------------------------------------------------

_TOP_KEYS = (
    "schema",
    "assignment",
    "title",
    "exercises",
    "reference",
    "suites",
    "parts",
    "points",
    "limits",
    "report",
    "mistakes",
    "late",
    "due",
    "plugin",
)
_PLUGIN_PATHS = {
    "hooks": ("file", "hooks: ../suites/chapter07/plugin/hooks.py"),
    "catalogue": ("file", "catalogue: ../suites/chapter07/plugin/mistakes.yaml"),
    "mutants": ("folder", "mutants: ../suites/chapter07/mutants"),
    "fixtures": ("folder", "fixtures: ../suites/chapter07/correct"),
    "readme": ("file", "readme: ../suites/chapter07/plugin/README.md"),
    "expected": ("file", "expected: ../suites/chapter07/public/expected.json"),
}
_REQUIRED_EXAMPLES = {
    "assignment": "assignment: chapter07",
    "exercises": "exercises: ../exercises/chapter07 (relative to the rubric's folder)",
    "suites": "suites: {public: {path: ../suites/chapter07/public, visibility: visible}}",
    "parts": "parts: [{id: scaling, file: scaling.py, title: {en: Scaling, ja: スケーリング}}]",
}
_FLOAT_LIMITS = ("per_call_s", "per_submission_s", "cpu_s")
_INT_LIMITS = ("memory_mb", "file_size_mb", "scratch_mb", "output_kb", "processes")
_PART_ID = re.compile(r"[a-z][a-z0-9_]*")
_KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_SLUG = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


class _Reader:
    """Walks the parsed YAML, tracking the key path, and builds the dataclasses."""

    def __init__(self, file: str, base: Path) -> None:
        self.file = file
        self.base = base

    def fail(self, path: str, problem: str, fix: str = "") -> RubricError:
        return RubricError(self.file, path, problem, fix)

    # generic checks

    def mapping(self, value: Any, path: str, keys: tuple[str, ...], example: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            what = "must be a mapping" if path else "the top level must be a mapping"
            raise self.fail(path, f"{what} (got {_describe(value)})", f"write {example}")
        for key in value:
            if key not in keys:
                close = difflib.get_close_matches(str(key), keys, n=1, cutoff=0.5)
                fix = (
                    f"did you mean {close[0]!r}?" if close else f"valid keys are: {', '.join(keys)}"
                )
                raise self.fail(path, f"unknown key {_key_repr(key)}", fix)
        return value

    def require(self, data: dict[str, Any], key: str, path: str, example: str) -> Any:
        if key not in data:
            raise self.fail(_join(path, key), "required key is missing", f"add {example}")
        return data[key]

    def string(
        self,
        value: Any,
        path: str,
        example: str,
        pattern: re.Pattern[str] | None = None,
        rule: str = "",
    ) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(
                path,
                f"must be a non-empty string (got {_describe(value)})",
                f"write {_leaf(path)}: {example}",
            )
        if pattern is not None and not pattern.fullmatch(value):
            raise self.fail(
                path, f"must be {rule} (got {_describe(value)})", f"write {_leaf(path)}: {example}"
            )
        return value

    def number(
        self,
        value: Any,
        path: str,
        *,
        low: float,
        low_open: bool = False,
        high: float | None = None,
        integer: bool = False,
        example: float,
    ) -> float:
        def fits(x: Any) -> bool:
            return (
                isinstance(x, (int, float))
                and not isinstance(x, bool)
                and math.isfinite(x)
                and (x > low if low_open else x >= low)
                and (high is None or x <= high)
                and (not integer or float(x).is_integer())
            )

        if fits(value):
            return int(value) if integer else float(value)
        kind = "a whole number" if integer else "a number"
        if high is not None:
            rule = f"{kind} from {_fmt(low)} to {_fmt(high)}"
        else:
            rule = f"{kind} {'>' if low_open else '>='} {_fmt(low)}"
        # Suggest the digits the author meant ('10pt' -> 10) when they would be valid.
        found = re.search(r"[-+]?\d+(?:\.\d+)?", value) if isinstance(value, str) else None
        meant = float(found.group()) if found else None
        suggestion = meant if meant is not None and fits(meant) else example
        raise self.fail(
            path,
            f"must be {rule} (got {_describe(value)})",
            f"write {_leaf(path)}: {_fmt(suggestion)}",
        )

    def boolean(self, value: Any, path: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(
                path,
                f"must be true or false (got {_describe(value)})",
                f"write {_leaf(path)}: false",
            )
        return value

    def choice(self, value: Any, path: str, options: tuple[str, ...]) -> str:
        if isinstance(value, str) and value in options:
            return value
        close = (
            difflib.get_close_matches(str(value), options, n=1, cutoff=0.5)
            if isinstance(value, str)
            else []
        )
        fix = f"did you mean {close[0]!r}?" if close else f"write one of: {', '.join(options)}"
        raise self.fail(path, f"must be one of {', '.join(options)} (got {_describe(value)})", fix)

    def text(self, value: Any, path: str, example: str) -> Text:
        data = self.mapping(value, path, ("en", "ja"), f"{_leaf(path)}: {example}")
        got = [
            self.string(self.require(data, lang, path, f"{lang}: ..."), _join(path, lang), '"..."')
            for lang in ("en", "ja")
        ]
        return Text(en=got[0], ja=got[1])

    def path_text(self, value: Any, path: str, example: str) -> str:
        """A string naming a file or folder (no NUL: no system call takes one)."""
        raw = self.string(value, path, example)
        if "\x00" in raw:
            raise self.fail(path, f"a path cannot hold a NUL character (got {raw!r})", f"write a path, e.g. {example}")
        return raw

    def folder(self, value: Any, path: str, example: str, what: str) -> Path:
        raw = self.path_text(value, path, example)
        resolved = (self.base / raw).resolve()
        if resolved.is_dir():
            return resolved
        shown = _show(resolved)
        if resolved.exists():
            raise self.fail(
                path, f"{shown} is a file, not a folder", f"point {_leaf(path)} at a folder"
            )
        raise self.fail(
            path,
            f"folder not found: {shown} ({raw!r} from the rubric's folder {_show(self.base)})",
            f"create {shown}/ {what}, or correct the path",
        )

    # the rubric's sections

    def rubric(self, data: Any, file: Path) -> Rubric:
        data = self.mapping(
            data, "", _TOP_KEYS, "a mapping with keys: " + ", ".join(_REQUIRED_EXAMPLES)
        )
        for key, example in _REQUIRED_EXAMPLES.items():
            self.require(data, key, "", example)
        if "schema" in data and (type(data["schema"]) is not int or data["schema"] != 1):
            raise self.fail(
                "schema",
                f"this grader reads schema 1 (got {_describe(data['schema'])})",
                "write schema: 1",
            )
        assignment = self.string(
            data["assignment"], "assignment", "chapter07", _SLUG, "letters, digits, '.', '_' or '-'"
        )
        title = (
            self.text(data["title"], "title", '{en: "...", ja: "..."}')
            if "title" in data
            else Text(en=assignment, ja=assignment)
        )
        suites = self.suites(data["suites"])
        default_points, rules = self.points(_section(data, "points"), suites)
        reference = data.get("reference")
        report = self.report(_section(data, "report"))
        if report.hidden_details == HiddenDetails.AFTER_DUE and not self.due(data.get("due")):
            raise self.fail("report.hidden_details", said("after_due_needs_due"),
                            said("add_due_top_level", example="2026-12-01T23:59:00+09:00"))
        return Rubric(
            file=file,
            assignment=assignment,
            title=title,
            parts=self.parts(data["parts"]),
            suites=suites,
            reference=None
            if reference is None
            else self.folder(
                reference,
                "reference",
                "../solutions/chapter07",
                "with the reference solution, or remove the 'reference' key",
            ),
            exercises=self.folder(
                data["exercises"],
                "exercises",
                "../exercises/chapter07",
                "with the stubs handed to students",
            ),
            default_points=default_points,
            point_rules=rules,
            limits=self.limits(_section(data, "limits")),
            report=report,
            mistakes=self.mistakes(_section(data, "mistakes")),
            late=self.late(data["late"]) if data.get("late") is not None else None,
            due=self.due(data.get("due")),
            plugin=self.plugin(_section(data, "plugin")),
        )

    def plugin(self, value: Any) -> Plugin:
        data = self.mapping(value, "plugin", (*_PLUGIN_PATHS, "notebook"), "plugin: {hooks: ..., catalogue: ...}")
        found: dict[str, Any] = {}
        for key, (kind, example) in _PLUGIN_PATHS.items():
            if key not in data:
                continue
            path = f"plugin.{key}"
            if kind == "folder":
                found[key] = self.folder(data[key], path, example.split(": ", 1)[1], "for this assignment")
                continue
            raw = self.path_text(data[key], path, example.split(": ", 1)[1])
            resolved = (self.base / raw).resolve()
            if not resolved.is_file() and key != "expected":  # the expected values are written by a tool
                near = _nearest(resolved.name, resolved.parent)
                raise self.fail(path, said("file_found_rubric_s", path=_show(resolved), raw=f"{raw!r}"),
                                f"did you mean {near!r}? write {key}: {Path(raw).parent.as_posix()}/{near}"
                                if near else said("create_correct_path", example=example))
            found[key] = resolved
        if "notebook" in data:
            found["notebook"] = self.string(data["notebook"], "plugin.notebook", "chapter07.ipynb")
        return Plugin(**found)

    def late(self, value: Any) -> LatePolicy:
        example = "late: {penalty_percent: 10, cap_percent: 80, per: day, grace_minutes: 15}"
        data = self.mapping(value, "late", ("penalty_percent", "cap_percent", "per", "grace_minutes"), example)
        got: dict[str, Any] = {}
        for key, default in (("penalty_percent", 10), ("cap_percent", 80)):
            if key in data:
                got[key] = self.number(data[key], f"late.{key}", low=0, high=100, example=default)
        if "grace_minutes" in data:
            got["grace_minutes"] = self.number(data["grace_minutes"], "late.grace_minutes", low=0, high=10080,
                                               example=15)
        if "per" in data:
            if data["per"] not in ("once", "day"):
                raise self.fail("late.per", f"must be once or day (got {data['per']!r})", "write per: day")
            got["per"] = data["per"]
        return LatePolicy(**got)

    def due(self, value: Any) -> str:
        if value in (None, ""):
            return ""
        from datetime import datetime

        text = value.isoformat() if isinstance(value, datetime) else str(value)
        try:
            when = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise self.fail("due", f"not a date and time (got {text!r})", "write due: 2026-12-01T23:59:00+09:00") from None
        if when.utcoffset() is None:
            raise self.fail("due", f"no time zone (got {text!r})", f"add the offset: due: {text}+09:00")
        return when.isoformat()

    def suites(self, value: Any) -> tuple[Suite, ...]:
        data = self.mapping(value, "suites", _SUITE_NAMES, _REQUIRED_EXAMPLES["suites"])
        if not data:
            raise self.fail(
                "suites", "no suite configured", f"write {_REQUIRED_EXAMPLES['suites']}"
            )
        suites = []
        for name, entry in data.items():
            path = f"suites.{name}"
            example = f"{{path: ../suites/chapter07/{name}, visibility: {name}}}".replace(
                "visibility: public", "visibility: visible"
            )
            entry = self.mapping(entry, path, ("path", "visibility"), f"{name}: {example}")
            default = Visibility.VISIBLE if name == "public" else Visibility.HIDDEN
            visibility = entry.get("visibility", default.value)
            suites.append(
                Suite(
                    name=name,
                    path=self.folder(
                        self.require(entry, "path", path, f"path: ../suites/chapter07/{name}"),
                        f"{path}.path",
                        f"../suites/chapter07/{name}",
                        "and put the suite's test_*.py files in it",
                    ),
                    visibility=Visibility(
                        self.choice(
                            visibility, f"{path}.visibility", tuple(v.value for v in Visibility)
                        )
                    ),
                )
            )
        return tuple(suites)

    def parts(self, value: Any) -> tuple[Part, ...]:
        if not isinstance(value, list) or not value:
            raise self.fail(
                "parts",
                f"must be a non-empty list (got {_describe(value)})",
                f"write {_REQUIRED_EXAMPLES['parts']}",
            )
        parts: list[Part] = []
        for i, entry in enumerate(value):
            path = f"parts[{i}]"
            entry = self.mapping(
                entry,
                path,
                ("id", "file", "title", "functions"),
                "{id: scaling, file: scaling.py, title: {en: ..., ja: ...}}",
            )
            part_id = self.string(
                self.require(entry, "id", path, "id: scaling"),
                f"{path}.id",
                "scaling",
                _PART_ID,
                "lower-case letters, digits and '_', "
                "starting with a letter (it is used as `student.<id>`)",
            )
            file = self.string(
                self.require(entry, "file", path, "file: scaling.py"), f"{path}.file", "scaling.py"
            )
            if Path(file).is_absolute() or ".." in re.split(r"[\\/]", file):
                raise self.fail(
                    f"{path}.file",
                    f"must be a path inside the submission (got {file!r})",
                    f"write file: {Path(file).name}",
                )
            for attr, mine in (("id", part_id), ("file", file)):
                for j, other in enumerate(parts):
                    if getattr(other, attr) == mine:
                        raise self.fail(
                            f"{path}.{attr}",
                            f"duplicate part {attr} {mine!r} (also parts[{j}].{attr})",
                            f"give each part its own {attr}",
                        )
            title = (
                self.text(entry["title"], f"{path}.title", '{en: "...", ja: "..."}')
                if "title" in entry
                else Text(en=part_id, ja=part_id)
            )
            functions = entry.get("functions") or []
            if not isinstance(functions, list) or not all(
                isinstance(f, str) and f.isidentifier() for f in functions
            ):
                raise self.fail(
                    f"{path}.functions",
                    f"must be a list of function names (got {_describe(functions)})",
                    "write functions: [double, halve] (the names the part's file defines)",
                )
            parts.append(Part(id=part_id, file=file, title=title, functions=tuple(functions)))
        return tuple(parts)

    def points(self, value: Any, suites: tuple[Suite, ...]) -> tuple[float, tuple[PointRule, ...]]:
        data = self.mapping(
            value, "points", ("default", "rules"), "points: {default: 1, rules: []}"
        )
        default = self.number(
            data.get("default", 1.0), "points.default", low=0, low_open=True, example=1
        )
        rules_value = data.get("rules", [])
        if not isinstance(rules_value, list):
            raise self.fail(
                "points.rules",
                f"must be a list (got {_describe(rules_value)})",
                'write rules: [{match: "hidden/test_variance.py::*", points: 2}]',
            )
        names = [s.name for s in suites]
        rules = []
        for i, entry in enumerate(rules_value):
            path = f"points.rules[{i}]"
            entry = self.mapping(
                entry, path, ("match", "points"), '{match: "hidden/test_x.py::*", points: 2}'
            )
            match = self.string(
                self.require(entry, "match", path, 'match: "hidden/test_x.py::*"'),
                f"{path}.match",
                '"hidden/test_x.py::*"',
            )
            # A pattern that cannot match any suite's ids silently scores nothing: catch it here.
            head, slash, rest = match.partition("/")
            if slash and not any(fnmatchcase(n, head) for n in names):
                close = difflib.get_close_matches(head, names, n=1, cutoff=0.5)
                raise self.fail(
                    f"{path}.match",
                    f"no suite is called {head!r} ({', '.join(names)}), "
                    f"so {match!r} matches no test",
                    f'write match: "{close[0] if close else "*"}/{rest}"',
                )
            if not slash and not match.startswith("*"):
                raise self.fail(
                    f"{path}.match",
                    f"test ids start with a suite name and '/' "
                    f"(e.g. {names[0]}/test_x.py::test_y), so {match!r} matches no test",
                    f'write match: "*/{match}" for every suite, or "{names[0]}/{match}"',
                )
            points = self.number(
                self.require(entry, "points", path, "points: 2"), f"{path}.points", low=0, example=2
            )
            rules.append(PointRule(match=match, points=points))
        return default, tuple(rules)

    def limits(self, value: Any) -> Limits:
        keys = _FLOAT_LIMITS + _INT_LIMITS
        data = self.mapping(value, "limits", keys, "limits: {per_call_s: 10, memory_mb: 1024}")
        defaults = Limits()
        got: dict[str, Any] = {}
        for key in keys:
            if key in data:
                got[key] = self.number(
                    data[key],
                    f"limits.{key}",
                    low=0,
                    low_open=True,
                    integer=key in _INT_LIMITS,
                    example=getattr(defaults, key),
                )
        limits = Limits(**got)
        if limits.per_call_s > limits.per_submission_s:
            raise self.fail(
                "limits.per_call_s",
                f"one call may not take longer than the whole submission ({_fmt(limits.per_call_s)}"
                f" s > per_submission_s {_fmt(limits.per_submission_s)} s)",
                f"write per_call_s: {_fmt(min(defaults.per_call_s, limits.per_submission_s))}",
            )
        return limits

    def report(self, value: Any) -> ReportOptions:
        keys = (
            "formats",
            "language",
            "hidden_tests",
            "rounding",
            "pass_mark",
            "fail_below_pass_mark",
            "quiz_answers",
            "hidden_details",
        )
        data = self.mapping(value, "report", keys, "report: {formats: [yaml], language: both}")
        defaults = ReportOptions()
        got: dict[str, Any] = {}
        if "formats" in data:
            got["formats"] = self.names(data["formats"], "report.formats", FORMATS, "[yaml, junit]")
        if "language" in data:
            lang = data["language"]
            got["languages"] = (
                ("ja", "en")
                if lang == "both"
                else self.names(lang, "report.language", _LANGUAGES, "both", extra=("both",))
            )
        if "hidden_tests" in data:
            got["hidden_tests"] = HiddenDetail(
                self.choice(
                    data["hidden_tests"],
                    "report.hidden_tests",
                    tuple(h.value for h in HiddenDetail),
                )
            )
        if "rounding" in data:
            got["rounding"] = int(
                self.number(
                    data["rounding"],
                    "report.rounding",
                    low=0,
                    high=10,
                    integer=True,
                    example=defaults.rounding,
                )
            )
        if "pass_mark" in data:
            got["pass_mark"] = self.number(
                data["pass_mark"], "report.pass_mark", low=0, high=100, example=defaults.pass_mark
            )
        if "fail_below_pass_mark" in data:
            got["fail_below_pass_mark"] = self.boolean(
                data["fail_below_pass_mark"], "report.fail_below_pass_mark"
            )
        if "quiz_answers" in data:
            got["quiz_answers"] = QuizAnswers(
                self.choice(data["quiz_answers"], "report.quiz_answers", tuple(q.value for q in QuizAnswers))
            )
        if "hidden_details" in data:
            got["hidden_details"] = HiddenDetails(
                self.choice(data["hidden_details"], "report.hidden_details", tuple(h.value for h in HiddenDetails))
            )
        return ReportOptions(**got)

    def names(
        self,
        value: Any,
        path: str,
        options: tuple[str, ...],
        example: str,
        extra: tuple[str, ...] = (),
    ) -> tuple[str, ...]:
        """One name or a non-empty list of names from ``options``; duplicates are dropped."""
        if isinstance(value, str):
            return (self.choice(value, path, options + extra),)
        if not isinstance(value, list) or not value:
            raise self.fail(
                path,
                f"must be one of {', '.join(options + extra)} or a non-empty list "
                f"of them (got {_describe(value)})",
                f"write {_leaf(path)}: {example}",
            )
        return tuple(
            dict.fromkeys(self.choice(v, f"{path}[{i}]", options) for i, v in enumerate(value))
        )

    def mistakes(self, value: Any) -> tuple[MistakeOptions, ...]:
        if not isinstance(value, dict):
            raise self.fail(
                "mistakes",
                f"must be a mapping of mistake id to options (got {_describe(value)})",
                "write mistakes: {returns-input: {partial_credit: 0}}",
            )
        options = []
        for mistake_id, entry in value.items():
            if not isinstance(mistake_id, str) or not _KEBAB.fullmatch(mistake_id):
                raise self.fail(
                    f"mistakes.{mistake_id}",
                    f"mistake ids are kebab-case (got {_describe(mistake_id)})",
                    f"write {_kebab(str(mistake_id))}",
                )
            path = f"mistakes.{mistake_id}"
            entry = (
                {}
                if entry is None
                else self.mapping(
                    entry, path, ("partial_credit", "central"), f"{mistake_id}: {{partial_credit: 0}}"
                )
            )
            credit = self.number(
                entry.get("partial_credit", 0.0), f"{path}.partial_credit", low=0, example=0
            )
            central = self.boolean(entry.get("central", False), f"{path}.central")
            options.append(MistakeOptions(id=mistake_id, partial_credit=credit, central=central))
        return tuple(options)


# --- message helpers ---------------------------------------------------------------------


def _section(data: dict[str, Any], key: str) -> Any:
    """An optional section; written but left empty (``limits:``) means all defaults."""
    value = data.get(key)
    return {} if value is None else value


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _leaf(path: str) -> str:
    """The last key of a YAML path: ``parts[2].points`` -> ``points``."""
    return re.sub(r"\[\d+\]$", "", path.rsplit(".", 1)[-1])


def _key_repr(key: Any) -> str:
    # YAML 1.1 turns bare yes/no/on/off keys into booleans: show what the file says.
    return f"{key!r} (read as a boolean; quote it)" if isinstance(key, bool) else repr(str(key))


def _describe(value: Any) -> str:
    """The value and its type the way a YAML author reads them: ``'10pt', a str``."""
    if value is None:
        return "nothing (an empty value)"
    if isinstance(value, bool):
        return f"{str(value).lower()}, a boolean"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"{shown!r}, a str"
    if isinstance(value, int):
        return f"{value}, an int"
    if isinstance(value, float):
        return f"{value!r}, a float"
    if isinstance(value, list):
        return f"a list of {len(value)} item{'s' * (len(value) != 1)}"
    if isinstance(value, dict):
        return "a mapping"
    return f"{value!r}, a {type(value).__name__}"


def _fmt(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)


def _kebab(name: str) -> str:
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "-", name)
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "mistake-id"


def _show(path: Path) -> str:
    """``path`` relative to the working folder (never absolute: messages name no machine's folders)."""
    here = Path.cwd().resolve()
    try:
        return path.relative_to(here).as_posix() or "."
    except ValueError:
        try:
            return Path(os.path.relpath(path, here)).as_posix()
        except ValueError:  # another drive (Windows): the name from the rubric's folder is all we say
            return path.name


def _nearest(name: str, folder: Path, suffix: str = "") -> str:
    """The name in ``folder`` closest to ``name`` ("" when none is close)."""
    try:
        names = [p.name for p in folder.iterdir() if not suffix or p.name.endswith(suffix)]
    except OSError:
        return ""
    hit = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
    return hit[0] if hit else ""


def check_parts(rubric: Rubric) -> None:
    """Every ``parts[].file`` is a file of the stubs or the reference, and every name under its
    ``functions:`` is defined there: a misspelt one would cost every student that part.

    Only where the reference is (the instructor's course): in a student's release the
    exercises folder holds the student's own work, whose files say nothing about the rubric.

    Raises:
        RubricError: naming the key, the value, the nearest match and the fix.
    """
    import ast

    if rubric.reference is None or not Path(rubric.reference).is_dir():
        return  # a student's release: its exercises folder is the student's own work, not the rubric's
    folders = [f for f in (rubric.exercises, rubric.reference) if f is not None and Path(f).is_dir()]
    shown = [_show(Path(f)) for f in folders]
    for i, part in enumerate(rubric.parts):
        if not str(part.file).endswith(".py"):
            continue
        found = [Path(f) / part.file for f in folders if (Path(f) / part.file).is_file()]
        if not found:
            near = next((n for n in (_nearest(part.file, Path(f), ".py") for f in folders) if n), "")
            if len(shown) == 2:
                problem = said("neither_nor", file=f"{part.file!r}", first=shown[0], second=shown[1])
                fix = said("write_file_s_name", first=shown[0], second=shown[1])
            else:
                problem = said("file", file=f"{part.file!r}", folder=shown[0])
                fix = said("write_file_s_name_2", folder=shown[0])
            raise RubricError(str(rubric.file), f"parts[{i}].file", problem,
                              said("did_you_mean_write", near=f"{near!r}", name=near) if near else fix)
        defined: set[str] = set()
        for path in found:
            try:
                tree = ast.parse(path.read_text(encoding="utf-8-sig"))
                defined.update(n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
            except (OSError, SyntaxError, ValueError):
                defined.update(_DEF.findall(path.read_text(encoding="utf-8", errors="replace")))
        files = [_show(path) for path in found]
        for k, function in enumerate(part.functions):
            if function in defined:
                continue
            close = difflib.get_close_matches(function, sorted(defined), n=1, cutoff=0.5)
            problem = (said("defined_neither_nor", func=f"{function!r}", first=files[0], second=files[1]) if len(files) == 2
                       else said("defined", func=f"{function!r}", file=files[0]))
            if close:
                fix = said("did_you_mean_write_2", near=f"{close[0]!r}", name=close[0])
            elif defined:
                fix = said("write_function_defines", file=part.file, names=', '.join(sorted(defined)))
            else:
                fix = said("defines_no_function_yet", file=part.file)
            raise RubricError(str(rubric.file), f"parts[{i}].functions[{k}]", problem, fix)
