"""The rubric as the grader holds it: frozen dataclasses, one per section of the YAML file.

:func:`grader.spec.rubric.load.load_rubric` builds a :class:`Rubric` once, at the edge, and
every stage downstream (runner, sandbox, diagnosis, report writers) reads these objects and
never the YAML. Each field carries its ``help`` in its metadata, for the docs and for tests.

=====================  =====================================================  ================
section of the file    what it holds                                          type
=====================  =====================================================  ================
(top level)            assignment id, title, exercises, reference, due        :class:`Rubric`
``parts``              the exercise files, in report order                    :class:`Part`
``suites``             the public and hidden test folders                     :class:`Suite`
``points``             default points and per-test rules                      :class:`PointRule`
``limits``             resource limits per submission                         ``Limits`` (sandbox)
``report``             formats, languages, what students see                  :class:`ReportOptions`
``mistakes``           per-mistake partial credit and the central mistake     :class:`MistakeOptions`
``late``               what a late submission loses                           :class:`LatePolicy`
``plugin``             the assignment's own files (hooks, catalogue, ...)     :class:`Plugin`
``manual``             items given by hand in ``grader review``, ±points      :class:`ManualItem`
=====================  =====================================================  ================

Example::

    rubric.points_for("hidden/test_variance.py::test_scaled[64]")   # 2.0 (first matching rule)
    rubric.suite("public").path                                     # absolute folder of the tests
    rubric.report.languages                                         # ("ja", "en")
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from fnmatch import fnmatchcase
from pathlib import Path

from grader.i18n.messages import said
from grader.sandbox.limits import Limits
from grader.spec.rubric.checks import fmt

__all__ = [
    "FORMATS",
    "LANGUAGES",
    "HiddenDetail",
    "HiddenDetails",
    "LatePolicy",
    "ManualItem",
    "MistakeOptions",
    "Part",
    "Plugin",
    "PointRule",
    "QuizAnswers",
    "ReportOptions",
    "Rubric",
    "Suite",
    "Text",
    "Visibility",
]

#: Report formats a rubric may ask for, in the order the docs list them.
FORMATS = ("yaml", "json", "gradescope", "junit", "markdown", "html")
#: The course's languages, as a rubric names them.
LANGUAGES = ("ja", "en")


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
        raise ValueError(said("unknown_language_use_one", lang=f"{lang!r}", langs=', '.join(LANGUAGES)))


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
class ManualItem:
    """A rubric item given by hand in ``grader review`` (rubric key ``manual``): ±points when given."""

    id: str = field(metadata=_help("short name of the item, unique in the rubric, e.g. variance-explanation"))
    title: Text = field(metadata=_help("what the reviewer judges, in en and ja"))
    points: float = field(metadata=_help("points the item gives (negative: takes off) when a reviewer ticks it"))
    part: str | None = field(default=None, metadata=_help("the part whose score the item moves; None: the total"))


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
                               percent=fmt(self.penalty_percent)))
        if self.grace_minutes:
            parts.append(label("late_grace", lang, minutes=fmt(self.grace_minutes)))
        if self.cap_percent < 100:
            parts.append(label("late_cap", lang, percent=fmt(self.cap_percent)))
        return label("list_sep", lang).join(parts) if parts else label("late_none", lang)


@dataclass(frozen=True, slots=True)
class Rubric:
    """A whole assignment's grading configuration, as loaded by :func:`grader.spec.rubric.load.load_rubric`."""

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
    manual: tuple[ManualItem, ...] = field(
        default=(), metadata=_help("items a reviewer gives by hand in grader review, each ±points"))

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
