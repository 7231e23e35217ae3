"""Rubric loading: one YAML file -> one frozen :class:`Rubric`, checked once at the edge.

Everything downstream (runner, sandbox, diagnosis, report writers) reads the ``Rubric``
(:mod:`grader.spec.rubric.model`) and never the YAML. A rubric that is wrong in any way stops
here with a :class:`RubricError` whose message names the file as the user wrote it, the YAML key
path and the fix::

    rubrics/chapter07.yaml: limits.per_call_s: must be a number > 0 (got '10s', a str);
    write per_call_s: 10

(one line in practice). The checks of single values and the words of these messages are in
:mod:`grader.spec.rubric.checks`; this module reads the file and each section with them:

- :func:`load_rubric`: the file, read as UTF-8, parsed as YAML;
- the YAML loader: a SafeLoader that refuses duplicate keys and reads ``1e3`` as a float;
- the section readers (``_RubricReader``): one method per section, each building its dataclass;
- :func:`check_parts`: every part's file and functions exist in the stubs or the reference.

Example::

    rubric = load_rubric("rubrics/chapter07.yaml")
    rubric.points_for("hidden/test_variance.py::test_scaled[64]")   # 2.0 (first matching rule)
    rubric.suite("public").path                                     # absolute folder of the tests
    rubric.report.languages                                         # ("ja", "en")
    check_parts(rubric)       # every part's file and functions exist in the stubs or the reference
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Hashable
from fnmatch import fnmatchcase
from pathlib import Path

import yaml

from grader.errors import RubricError
from grader.i18n.messages import said
from grader.sandbox.limits import Limits
from grader.spec.rubric.checks import Reader, describe, fmt, join, kebab, leaf, nearest, section, show
from grader.spec.rubric.model import (
    FORMATS,
    LANGUAGES,
    HiddenDetail,
    HiddenDetails,
    LatePolicy,
    ManualItem,
    MistakeOptions,
    Part,
    Plugin,
    PointRule,
    QuizAnswers,
    ReportOptions,
    Rubric,
    Suite,
    Text,
    Visibility,
)

__all__ = ["check_parts", "load_rubric"]

#: A ``def name(`` in Python source: the functions a file defines, without importing it.
_DEF = re.compile(r"\bdef\s+([A-Za-z_]\w*)\s*\(")
_SUITE_NAMES = ("public", "hidden")


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
        raise RubricError(shown, "", said("rubric_file_not_found", path=show(Path(path).absolute())),
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
    return _RubricReader(shown, Path(path).absolute().parent).rubric(data, Path(path))


# --- YAML loading ------------------------------------------------------------------------


class _DuplicateKey(yaml.constructor.ConstructorError):
    """A key given twice in one mapping: the key, and the lines of its first and second."""

    def __init__(self, key: object, first: yaml.Mark, again: yaml.Mark) -> None:
        super().__init__(f"while reading a mapping (its first {key!r} is at line {first.line + 1})", first,
                         f"duplicate key {key!r}", again)
        self.key, self.first, self.line = repr(key), first.line + 1, again.line + 1


class _Loader(yaml.SafeLoader):
    """SafeLoader that rejects duplicate keys and reads ``1e3`` as a float (as YAML 1.2 does)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Hashable, object]:
        seen: dict[object, yaml.Mark] = {}
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
    "manual",
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


class _RubricReader(Reader):
    """The rubric's sections, each read with the :class:`Reader`'s checks into its dataclass."""

    def text(self, value: object, path: str, example: str) -> Text:
        data = self.mapping(value, path, ("en", "ja"), f"{leaf(path)}: {example}")
        got = [
            self.string(self.require(data, lang, path, f"{lang}: ..."), join(path, lang), '"..."')
            for lang in ("en", "ja")
        ]
        return Text(en=got[0], ja=got[1])

    def rubric(self, data: object, file: Path) -> Rubric:
        data = self.mapping(
            data, "", _TOP_KEYS, "a mapping with keys: " + ", ".join(_REQUIRED_EXAMPLES)
        )
        for key, example in _REQUIRED_EXAMPLES.items():
            self.require(data, key, "", example)
        if "schema" in data and (type(data["schema"]) is not int or data["schema"] != 1):
            raise self.fail(
                "schema",
                f"this grader reads schema 1 (got {describe(data['schema'])})",
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
        default_points, rules = self.points(section(data, "points"), suites)
        reference = data.get("reference")
        report = self.report(section(data, "report"))
        if report.hidden_details == HiddenDetails.AFTER_DUE and not self.due(data.get("due")):
            raise self.fail("report.hidden_details", said("after_due_needs_due"),
                            said("add_due_top_level", example="2026-12-01T23:59:00+09:00"))
        parts = self.parts(data["parts"])
        return Rubric(
            file=file,
            assignment=assignment,
            title=title,
            parts=parts,
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
            limits=self.limits(section(data, "limits")),
            report=report,
            mistakes=self.mistakes(section(data, "mistakes")),
            late=self.late(data["late"]) if data.get("late") is not None else None,
            due=self.due(data.get("due")),
            plugin=self.plugin(section(data, "plugin")),
            manual=self.manual(data.get("manual"), tuple(p.id for p in parts)),
        )

    def manual(self, value: object, parts: tuple[str, ...]) -> tuple[ManualItem, ...]:
        """``manual:``: a list of items a reviewer gives by hand (grader review), each ±points."""
        if value in (None, []):
            return ()
        example = "manual: [{id: explanation, part: variance, points: 2, title: {en: ..., ja: ...}}]"
        if not isinstance(value, list):
            raise self.fail("manual", said("rubric_manual_list"), said("rubric_manual_list_fix", example=example))
        items: list[ManualItem] = []
        for i, raw in enumerate(value):
            path = f"manual[{i}]"
            data = self.mapping(raw, path, ("id", "title", "points", "part"), example)
            item_id = self.string(self.require(data, "id", path, "id: explanation"), f"{path}.id", "explanation",
                                  _SLUG, "letters, digits, '.', '_' or '-'")
            if item_id in {m.id for m in items}:
                raise self.fail(f"{path}.id", said("rubric_manual_twice", id=item_id),
                                said("rubric_manual_rename"))
            points = self.number(self.require(data, "points", path, "points: 2"), f"{path}.points", low=-1000,
                                 high=1000, example=2)
            part = data.get("part")
            if part is not None and part not in parts:
                raise self.fail(f"{path}.part", said("rubric_manual_part", part=part, parts=", ".join(parts)),
                                said("rubric_manual_part_fix"))
            items.append(ManualItem(id=item_id, title=self.text(self.require(data, "title", path, "title: {en: ..., ja: ...}"),
                                                                 f"{path}.title", "{en: ..., ja: ...}"),
                                    points=points, part=None if part is None else str(part)))
        if len(items) > 9:
            raise self.fail("manual", said("rubric_manual_nine", n=len(items)), said("rubric_manual_nine_fix"))
        return tuple(items)

    def plugin(self, value: object) -> Plugin:
        data = self.mapping(value, "plugin", (*_PLUGIN_PATHS, "notebook"), "plugin: {hooks: ..., catalogue: ...}")
        found: dict[str, Path] = {}
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
                near = nearest(resolved.name, resolved.parent)
                raise self.fail(path, said("file_found_rubric_s", path=show(resolved), raw=f"{raw!r}"),
                                f"did you mean {near!r}? write {key}: {Path(raw).parent.as_posix()}/{near}"
                                if near else said("create_correct_path", example=example))
            found[key] = resolved
        notebook = self.string(data["notebook"], "plugin.notebook", "chapter07.ipynb") if "notebook" in data else None
        return Plugin(hooks=found.get("hooks"), catalogue=found.get("catalogue"), mutants=found.get("mutants"),
                      fixtures=found.get("fixtures"), notebook=notebook, readme=found.get("readme"),
                      expected=found.get("expected"))

    def late(self, value: object) -> LatePolicy:
        example = "late: {penalty_percent: 10, cap_percent: 80, per: day, grace_minutes: 15}"
        data = self.mapping(value, "late", ("penalty_percent", "cap_percent", "per", "grace_minutes"), example)
        defaults = LatePolicy()

        def percent(key: str, default: float, suggested: float) -> float:
            return self.number(data[key], f"late.{key}", low=0, high=100, example=suggested) if key in data else default

        penalty = percent("penalty_percent", defaults.penalty_percent, 10)
        cap = percent("cap_percent", defaults.cap_percent, 80)
        grace = (self.number(data["grace_minutes"], "late.grace_minutes", low=0, high=10080, example=15)
                 if "grace_minutes" in data else defaults.grace_minutes)
        per = data.get("per", defaults.per)
        if per not in ("once", "day"):
            raise self.fail("late.per", f"must be once or day (got {per!r})", "write per: day")
        return LatePolicy(penalty_percent=penalty, cap_percent=cap, per=str(per), grace_minutes=grace)

    def due(self, value: object) -> str:
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
        from grader.errors import UsageError
        from grader.spec.due import within_years

        try:
            within_years(when, "due", text)
        except UsageError as exc:  # (the sentence names due: itself)
            raise self.fail("", exc.args[0]) from None
        return when.isoformat()

    def suites(self, value: object) -> tuple[Suite, ...]:
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

    def parts(self, value: object) -> tuple[Part, ...]:
        if not isinstance(value, list) or not value:
            raise self.fail(
                "parts",
                f"must be a non-empty list (got {describe(value)})",
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
                    f"must be a list of function names (got {describe(functions)})",
                    "write functions: [double, halve] (the names the part's file defines)",
                )
            parts.append(Part(id=part_id, file=file, title=title, functions=tuple(functions)))
        return tuple(parts)

    def points(self, value: object, suites: tuple[Suite, ...]) -> tuple[float, tuple[PointRule, ...]]:
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
                f"must be a list (got {describe(rules_value)})",
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

    def limits(self, value: object) -> Limits:
        keys = _FLOAT_LIMITS + _INT_LIMITS
        data = self.mapping(value, "limits", keys, "limits: {per_call_s: 10, memory_mb: 1024}")
        defaults = Limits()
        got: dict[str, float] = {}  # (an int for the whole-number limits)
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
        limits = Limits.of(got)
        if limits.per_call_s > limits.per_submission_s:
            raise self.fail(
                "limits.per_call_s",
                f"one call may not take longer than the whole submission ({fmt(limits.per_call_s)}"
                f" s > per_submission_s {fmt(limits.per_submission_s)} s)",
                f"write per_call_s: {fmt(min(defaults.per_call_s, limits.per_submission_s))}",
            )
        return limits

    def report(self, value: object) -> ReportOptions:
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
        formats = (self.names(data["formats"], "report.formats", FORMATS, "[yaml, junit]")
                   if "formats" in data else defaults.formats)
        languages = defaults.languages
        if "language" in data:
            lang = data["language"]
            languages = (
                ("ja", "en")
                if lang == "both"
                else self.names(lang, "report.language", LANGUAGES, "both", extra=("both",))
            )
        hidden_tests = defaults.hidden_tests
        if "hidden_tests" in data:
            hidden_tests = HiddenDetail(
                self.choice(
                    data["hidden_tests"],
                    "report.hidden_tests",
                    tuple(h.value for h in HiddenDetail),
                )
            )
        rounding = defaults.rounding
        if "rounding" in data:
            rounding = int(
                self.number(
                    data["rounding"],
                    "report.rounding",
                    low=0,
                    high=10,
                    integer=True,
                    example=defaults.rounding,
                )
            )
        pass_mark = defaults.pass_mark
        if "pass_mark" in data:
            pass_mark = self.number(
                data["pass_mark"], "report.pass_mark", low=0, high=100, example=defaults.pass_mark
            )
        fail_below_pass_mark = defaults.fail_below_pass_mark
        if "fail_below_pass_mark" in data:
            fail_below_pass_mark = self.boolean(
                data["fail_below_pass_mark"], "report.fail_below_pass_mark"
            )
        quiz_answers = defaults.quiz_answers
        if "quiz_answers" in data:
            quiz_answers = QuizAnswers(
                self.choice(data["quiz_answers"], "report.quiz_answers", tuple(q.value for q in QuizAnswers))
            )
        hidden_details = defaults.hidden_details
        if "hidden_details" in data:
            hidden_details = HiddenDetails(
                self.choice(data["hidden_details"], "report.hidden_details", tuple(h.value for h in HiddenDetails))
            )
        return ReportOptions(formats=formats, languages=languages, hidden_tests=hidden_tests, rounding=rounding,
                             pass_mark=pass_mark, fail_below_pass_mark=fail_below_pass_mark,
                             quiz_answers=quiz_answers, hidden_details=hidden_details)

    def mistakes(self, value: object) -> tuple[MistakeOptions, ...]:
        if not isinstance(value, dict):
            raise self.fail(
                "mistakes",
                f"must be a mapping of mistake id to options (got {describe(value)})",
                "write mistakes: {returns-input: {partial_credit: 0}}",
            )
        options = []
        for mistake_id, entry in value.items():
            if not isinstance(mistake_id, str) or not _KEBAB.fullmatch(mistake_id):
                raise self.fail(
                    f"mistakes.{mistake_id}",
                    f"mistake ids are kebab-case (got {describe(mistake_id)})",
                    f"write {kebab(str(mistake_id))}",
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
    shown = [show(Path(f)) for f in folders]
    for i, part in enumerate(rubric.parts):
        if not str(part.file).endswith(".py"):
            continue
        found = [Path(f) / part.file for f in folders if (Path(f) / part.file).is_file()]
        if not found:
            near = next((n for n in (nearest(part.file, Path(f), ".py") for f in folders) if n), "")
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
        files = [show(path) for path in found]
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
