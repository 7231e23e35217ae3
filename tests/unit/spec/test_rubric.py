"""Tests for grader/spec/rubric/ (model, load, checks): the real rubric loads; a bad one names file, key and fix."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path
from collections.abc import Callable
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.spec import rubric as rubric_module
from grader.errors import RubricError
from grader.sandbox.limits import Limits
from grader.spec.rubric.load import load_rubric
from grader.spec.rubric.model import (
    HiddenDetail,
    ManualItem,
    MistakeOptions,
    Part,
    PointRule,
    ReportOptions,
    Rubric,
    Suite,
    Text,
    Visibility,
)

from tests.helpers import ROOT


RUBRIC = "rubrics/r.yaml"  # as the user types it, relative to the working folder

VALID: dict[str, Any] = {
    "schema": 1,
    "assignment": "chapter07",
    "title": {"en": "Scaling", "ja": "スケーリング"},
    "exercises": "../exercises/ch",
    "reference": "../solutions/ch",
    "suites": {
        "public": {"path": "../suites/ch/public", "visibility": "visible"},
        "hidden": {"path": "../suites/ch/hidden", "visibility": "hidden"},
    },
    "parts": [
        {"id": "scaling", "file": "scaling.py", "title": {"en": "Scaling", "ja": "スケーリング"}},
        {"id": "softmax", "file": "softmax.py", "title": {"en": "Softmax", "ja": "ソフトマックス"}},
        {"id": "variance", "file": "variance.py", "title": {"en": "Variance", "ja": "分散"}},
        {"id": "quiz", "file": "answers.yaml", "title": {"en": "Quiz", "ja": "小テスト"}},
    ],
    "points": {"default": 1, "rules": [{"match": "hidden/test_variance.py::*", "points": 2}]},
    "limits": {
        "per_call_s": 10,
        "per_submission_s": 120,
        "memory_mb": 1024,
        "cpu_s": 60,
        "file_size_mb": 16,
        "scratch_mb": 64,
        "output_kb": 256,
        "processes": 1,
    },
    "report": {
        "formats": ["yaml"],
        "language": "both",
        "hidden_tests": "full",
        "rounding": 2,
        "pass_mark": 60,
        "fail_below_pass_mark": False,
    },
    "mistakes": {"sqrt-d-model": {"partial_credit": 0}},
}

Write = Callable[[Any], str]


@pytest.fixture
def write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Write:
    """A course tree in tmp_path (the working folder); returns a function writing rubrics/r.yaml."""
    for folder in (
        "rubrics",
        "exercises/ch",
        "solutions/ch",
        "suites/ch/public",
        "suites/ch/hidden",
    ):
        (tmp_path / folder).mkdir(parents=True)
    monkeypatch.chdir(tmp_path)

    def _write(data: Any) -> str:
        text = data if isinstance(data, str) else yaml.safe_dump(data, allow_unicode=True)
        (tmp_path / RUBRIC).write_text(text, encoding="utf-8")
        return RUBRIC

    return _write


def error_for(write: Write, data: Any) -> RubricError:
    with pytest.raises(RubricError) as info:
        load_rubric(write(data))
    return info.value


def changed(path: str, value: Any) -> dict[str, Any]:
    """VALID with the value at a dotted path (list indices as numbers) replaced; `...` deletes."""
    data = copy.deepcopy(VALID)
    *parents, last = path.split(".")
    node: Any = data
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    if value is ...:
        del node[last]
    else:
        node[int(last) if isinstance(node, list) else last] = value
    return data


# --- the real rubric ---------------------------------------------------------------------


def test_the_course_rubric_loads() -> None:
    """rubrics/chapter07.yaml is valid and says what the course needs."""
    rubric = load_rubric(ROOT / "rubrics" / "chapter07.yaml")
    assert "chapter07" == rubric.assignment
    assert ("scaling", "softmax", "variance", "quiz") == tuple(p.id for p in rubric.parts)
    assert ("scaling.py", "softmax.py", "variance.py", "answers.yaml") == tuple(
        p.file for p in rubric.parts
    )
    assert all(p.title.en and p.title.ja for p in rubric.parts)
    assert rubric.title.en
    assert rubric.title.ja
    assert Visibility.VISIBLE == rubric.suite("public").visibility
    assert Visibility.HIDDEN == rubric.suite("hidden").visibility
    assert ROOT / "suites" / "chapter07" / "hidden" == rubric.suite("hidden").path
    assert ROOT / "exercises" / "chapter07" == rubric.exercises
    assert ROOT / "solutions" / "chapter07" == rubric.reference
    assert 2.0 == rubric.points_for("hidden/test_variance.py::test_scaled_variance_is_one[64]")
    assert 1.0 == rubric.points_for("hidden/test_scaling.py::test_head_dim[768-12]")
    assert 1.0 == rubric.points_for("public/test_variance.py::test_returns_float")
    assert ("ja", "en") == rubric.report.languages
    assert Limits() == rubric.limits


def test_a_valid_rubric_loads_with_resolved_paths(write: Write, tmp_path: Path) -> None:
    """Paths are read relative to the rubric's folder and stored absolute; file is kept as given."""
    rubric = load_rubric(write(VALID))
    assert Path(RUBRIC) == rubric.file
    assert (tmp_path / "suites" / "ch" / "public").resolve() == rubric.suite("public").path
    assert rubric.suite("public").path.is_absolute()
    assert (tmp_path / "exercises" / "ch").resolve() == rubric.exercises


def test_optional_sections_take_their_defaults(write: Write) -> None:
    """Only assignment, exercises, suites and parts are required; empty sections mean defaults."""
    data = {k: VALID[k] for k in ("assignment", "exercises", "suites", "parts")}
    data["limits"] = None
    rubric = load_rubric(write(data))
    assert None is rubric.reference
    assert Text("chapter07", "chapter07") == rubric.title
    assert Limits() == rubric.limits
    assert ReportOptions() == rubric.report
    assert () == rubric.mistakes
    assert 1.0 == rubric.default_points


def test_a_suite_defaults_its_visibility_from_its_name(write: Write) -> None:
    rubric = load_rubric(
        write(
            changed(
                "suites",
                {
                    "public": {"path": "../suites/ch/public"},
                    "hidden": {"path": "../suites/ch/hidden"},
                },
            )
        )
    )
    assert Visibility.VISIBLE == rubric.suite("public").visibility
    assert Visibility.HIDDEN == rubric.suite("hidden").visibility


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("both", ("ja", "en")),
        ("en", ("en",)),
        ("ja", ("ja",)),
        (["en", "ja"], ("en", "ja")),
        (["en", "en"], ("en",)),
    ],
)
def test_language_forms(write: Write, language: Any, expected: tuple[str, ...]) -> None:
    assert expected == load_rubric(write(changed("report.language", language))).report.languages


def test_report_options_are_read(write: Write) -> None:
    data = changed(
        "report",
        {
            "formats": "junit",
            "hidden_tests": "pass-fail",
            "rounding": 0,
            "pass_mark": 50.5,
            "fail_below_pass_mark": True,
        },
    )
    report = load_rubric(write(data)).report
    assert (
        ReportOptions(
            formats=("junit",),
            hidden_tests=HiddenDetail.PASS_FAIL,
            rounding=0,
            pass_mark=50.5,
            fail_below_pass_mark=True,
        )
        == report
    )


def test_any_kebab_case_mistake_id_is_accepted(write: Write) -> None:
    """The catalogue lives elsewhere: unknown ids are accepted here and cross-checked later."""
    rubric = load_rubric(
        write(
            changed(
                "mistakes", {"sqrt-d-model": None, "brand-new-mistake-2": {"partial_credit": 0.5}}
            )
        )
    )
    assert MistakeOptions("sqrt-d-model", 0.0) == rubric.mistake_options("sqrt-d-model")
    assert MistakeOptions("brand-new-mistake-2", 0.5) == rubric.mistake_options(
        "brand-new-mistake-2"
    )
    assert MistakeOptions("not-listed", 0.0) == rubric.mistake_options("not-listed")


def test_yaml_12_exponent_floats_are_numbers(write: Write) -> None:
    """PyYAML reads `1e2` as a string (YAML 1.1); the rubric reads the number it looks like."""
    assert (
        100.0
        == load_rubric(
            write(
                "limits: {per_submission_s: 1e2}\n"
                + yaml.safe_dump(
                    {k: v for k, v in VALID.items() if k != "limits"}, allow_unicode=True
                )
            )
        ).limits.per_submission_s
    )


# --- errors: file, key path, problem and fix -----------------------------------------------


def test_the_message_names_file_key_value_type_and_fix(write: Write) -> None:
    err = error_for(write, changed("limits.per_call_s", "10pt"))
    expected = (
        "rubrics/r.yaml: limits.per_call_s: must be a number > 0 (got '10pt', a str); "
        "write per_call_s: 10"
    )
    assert expected == str(err)
    assert (RUBRIC, "limits.per_call_s") == (err.file, err.yaml_path)
    assert isinstance(err, ValueError)


@pytest.mark.parametrize(
    ("path", "value", "yaml_path", "problem", "fix"),
    [
        # numbers, booleans and ranges
        (
            "points.default",
            True,
            "points.default",
            "must be a number > 0 (got true, a boolean)",
            "write default: 1",
        ),
        (
            "points.default",
            0,
            "points.default",
            "must be a number > 0 (got 0, an int)",
            "write default: 1",
        ),
        (
            "points.rules.0.points",
            "2 points",
            "points.rules[0].points",
            "must be a number >= 0 (got '2 points', a str)",
            "write points: 2",
        ),
        (
            "limits.memory_mb",
            -1,
            "limits.memory_mb",
            "must be a whole number > 0 (got -1, an int)",
            "write memory_mb: 1024",
        ),
        (
            "limits.per_call_s",
            0,
            "limits.per_call_s",
            "must be a number > 0 (got 0, an int)",
            "write per_call_s: 10",
        ),
        (
            "limits.processes",
            1.5,
            "limits.processes",
            "must be a whole number > 0 (got 1.5, a float)",
            "write processes: 1",
        ),
        (
            "limits.per_call_s",
            500,
            "limits.per_call_s",
            "longer than the whole submission",
            "write per_call_s: 10",
        ),
        (
            "report.pass_mark",
            150,
            "report.pass_mark",
            "must be a number from 0 to 100 (got 150, an int)",
            "write pass_mark: 60",
        ),
        (
            "report.pass_mark",
            -1,
            "report.pass_mark",
            "must be a number from 0 to 100",
            "write pass_mark: 60",
        ),
        (
            "report.pass_mark",
            "70%",
            "report.pass_mark",
            "(got '70%', a str)",
            "write pass_mark: 70",
        ),
        (
            "report.rounding",
            -1,
            "report.rounding",
            "must be a whole number from 0 to 10",
            "write rounding: 2",
        ),
        (
            "report.fail_below_pass_mark",
            "yes",
            "report.fail_below_pass_mark",
            "must be true or false (got 'yes', a str)",
            "write fail_below_pass_mark: false",
        ),
        (
            "mistakes.sqrt-d-model.partial_credit",
            -1,
            "mistakes.sqrt-d-model.partial_credit",
            "must be a number >= 0",
            "write partial_credit: 0",
        ),
        ("schema", 2, "schema", "this grader reads schema 1 (got 2, an int)", "write schema: 1"),
        # choices, with the nearest valid value
        (
            "report.formats",
            ["yaml", "jsn"],
            "report.formats[1]",
            "must be one of yaml, json,",
            "did you mean 'json'?",
        ),
        (
            "report.formats",
            "markdwn",
            "report.formats",
            "(got 'markdwn', a str)",
            "did you mean 'markdown'?",
        ),
        ("report.formats", [], "report.formats", "non-empty list", "write formats: [yaml, junit]"),
        (
            "report.language",
            "jp",
            "report.language",
            "must be one of ja, en, both (got 'jp', a str)",
            "did you mean 'ja'?",
        ),
        (
            "report.language",
            ["ja", "fr"],
            "report.language[1]",
            "must be one of ja, en (got 'fr', a str)",
            "write one of: ja, en",
        ),
        (
            "report.quiz_answers",
            "after_due",
            "report.quiz_answers",
            "must be one of never, after_due_date, always",
            "did you mean 'after_due_date'?",
        ),
        (
            "report.hidden_tests",
            "pass_fail",
            "report.hidden_tests",
            "must be one of none, pass-fail, full",
            "did you mean 'pass-fail'?",
        ),
        (
            "report.hidden_tests",
            False,
            "report.hidden_tests",
            "(got false, a boolean)",
            "write one of: none, pass-fail, full",
        ),
        (
            "suites.public.visibility",
            "after_due",
            "suites.public.visibility",
            "must be one of visible, hidden, after_due_date, after_published",
            "did you mean 'after_due_date'?",
        ),
        # shapes and required keys
        (
            "parts.2",
            "variance.py",
            "parts[2]",
            "must be a mapping (got 'variance.py', a str)",
            "write {id: scaling",
        ),
        (
            "parts.1.id",
            "scaling",
            "parts[1].id",
            "duplicate part id 'scaling' (also parts[0].id)",
            "give each part its own id",
        ),
        (
            "parts.3.file",
            "variance.py",
            "parts[3].file",
            "duplicate part file 'variance.py' (also parts[2].file)",
            "give each part its own file",
        ),
        (
            "parts.0.id",
            "Scaling-1",
            "parts[0].id",
            "must be lower-case letters",
            "write id: scaling",
        ),
        (
            "parts.0.file",
            "../solutions/ch/scaling.py",
            "parts[0].file",
            "must be a path inside the submission",
            "write file: scaling.py",
        ),
        ("parts.0.file", ..., "parts[0].file", "required key is missing", "add file: scaling.py"),
        (
            "parts",
            [],
            "parts",
            "must be a non-empty list (got a list of 0 items)",
            "write parts: [{id: scaling",
        ),
        ("title.ja", ..., "title.ja", "required key is missing", "add ja: ..."),
        (
            "title",
            "Scaling",
            "title",
            "must be a mapping (got 'Scaling', a str)",
            'write title: {en: "...", ja: "..."}',
        ),
        ("suites", {}, "suites", "no suite configured", "write suites: {public:"),
        (
            "suites.hidden.path",
            ...,
            "suites.hidden.path",
            "required key is missing",
            "add path: ../suites/chapter07/hidden",
        ),
        (
            "assignment",
            "chapter 07",
            "assignment",
            "must be letters, digits",
            "write assignment: chapter07",
        ),
        (
            "points.rules.0.match",
            "test_variance.py::*",
            "points.rules[0].match",
            "test ids start with a suite name and '/'",
            'write match: "*/test_variance.py::*" for every suite',
        ),
        (
            "points.rules.0.match",
            "hiden/test_variance.py::*",
            "points.rules[0].match",
            "no suite is called 'hiden'",
            'write match: "hidden/test_variance.py::*"',
        ),
        (
            "mistakes",
            ["sqrt-d-model"],
            "mistakes",
            "must be a mapping of mistake id to options",
            "write mistakes: {returns-input: {partial_credit: 0}}",
        ),
        (
            "mistakes",
            {"Sqrt_D_Model": None},
            "mistakes.Sqrt_D_Model",
            "mistake ids are kebab-case",
            "write sqrt-d-model",
        ),
        (
            "mistakes",
            {"SqrtDModel": None},
            "mistakes.SqrtDModel",
            "mistake ids are kebab-case",
            "write sqrt-d-model",
        ),
    ],
)
def test_invalid_values_name_the_key_and_the_fix(
    write: Write, path: str, value: Any, yaml_path: str, problem: str, fix: str
) -> None:
    err = error_for(write, changed(path, value))
    assert (RUBRIC, yaml_path) == (err.file, err.yaml_path)
    assert problem in err.problem
    assert fix in err.fix
    assert str(err).startswith(f"{RUBRIC}: {yaml_path}: ")


@pytest.mark.parametrize("key", ["assignment", "parts", "suites", "exercises"])
def test_missing_required_keys(write: Write, key: str) -> None:
    err = error_for(write, changed(key, ...))
    assert (key, "required key is missing") == (err.yaml_path, err.problem)
    assert err.fix.startswith(f"add {key}: ")


@pytest.mark.parametrize(
    ("data", "yaml_path", "problem", "fix"),
    [
        ({**VALID, "pasrts": []}, "", "unknown key 'pasrts'", "did you mean 'parts'?"),
        (
            changed("limits.per_cal_s", 5),
            "limits",
            "unknown key 'per_cal_s'",
            "did you mean 'per_call_s'?",
        ),
        (
            changed("report.languages", "en"),
            "report",
            "unknown key 'languages'",
            "did you mean 'language'?",
        ),
        (
            changed("suites.hiden", {"path": "x"}),
            "suites",
            "unknown key 'hiden'",
            "did you mean 'hidden'?",
        ),
        (
            changed("parts.0.name", "x"),
            "parts[0]",
            "unknown key 'name'",
            "valid keys are: id, file, title, functions",
        ),
        (changed("title.jp", "x"), "title", "unknown key 'jp'", "did you mean 'ja'?"),
        (
            changed("mistakes.sqrt-d-model.credit", 1),
            "mistakes.sqrt-d-model",
            "unknown key 'credit'",
            "did you mean 'partial_credit'?",
        ),
    ],
)
def test_unknown_keys_suggest_the_nearest_valid_key(
    write: Write, data: dict[str, Any], yaml_path: str, problem: str, fix: str
) -> None:
    err = error_for(write, data)
    assert (yaml_path, problem, fix) == (err.yaml_path, err.problem, err.fix)


def test_unknown_top_level_key_message(write: Write) -> None:
    data = {("pasrts" if k == "parts" else k): v for k, v in VALID.items()}
    assert "rubrics/r.yaml: unknown key 'pasrts'; did you mean 'parts'?" == str(
        error_for(write, data)
    )


def test_yaml_syntax_error_gives_line_and_column(write: Write) -> None:
    err = error_for(write, "assignment: chapter07\nparts: [\n  {id: scaling\n")
    assert "" == err.yaml_path
    assert err.problem.startswith("invalid YAML at line ")
    assert ", column " in err.problem
    assert "indentation" in err.fix


def test_duplicate_yaml_keys_are_an_error(write: Write) -> None:
    """PyYAML keeps the last of two equal keys silently; the rubric refuses them."""
    err = error_for(write, "assignment: a\nparts: []\nassignment: b\n")
    assert "the key 'assignment' is given twice in one mapping (lines 1 and 3)" == err.problem
    assert "keep one of them" == err.fix


def test_the_rubric_files_own_errors_are_said_in_japanese(write: Write, tmp_path: Path) -> None:
    """A rubric that is not YAML, has a key twice, or is a folder: the sentence and the fix in
    Japanese (only the YAML parser's own words stay as it wrote them)."""
    from grader.i18n.messages import error_text

    dup = error_text(error_for(write, "assignment: a\nparts: []\nassignment: b\n"), "ja")
    assert dup.endswith("同じ階層にキー 'assignment' が 2 回書かれています（1 行目と 3 行目）。どちらか一方だけにしてください")
    bad = error_text(error_for(write, "assignment: chapter07\nparts: [\n  {id: scaling\n"), "ja")
    assert "YAML として読めません（" in bad and "字下げを確かめ" in bad
    assert "invalid YAML" not in bad and "check the indentation" not in bad
    (tmp_path / "folder.yaml").mkdir()
    with pytest.raises(RubricError) as info:
        load_rubric(tmp_path / "folder.yaml")
    assert error_text(info.value, "ja").endswith("ファイルではなくフォルダです。その中の .yaml ファイルを指定してください")


def test_missing_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RubricError) as info:
        load_rubric("rubrics/nope.yaml")
    assert ("rubrics/nope.yaml", "") == (info.value.file, info.value.yaml_path)
    assert "file not found (looked for rubrics/nope.yaml)" == info.value.problem
    assert "--rubric" in info.value.fix


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("- a\n- b\n", "the top level must be a mapping (got a list of 2 items)"),
        ("", "the top level must be a mapping (got nothing (an empty value))"),
        ("just text\n", "the top level must be a mapping (got 'just text', a str)"),
    ],
)
def test_top_level_must_be_a_mapping(write: Write, text: str, problem: str) -> None:
    err = error_for(write, text)
    assert ("", problem) == (err.yaml_path, err.problem)
    assert str(err).startswith("rubrics/r.yaml: the top level must be a mapping")


def test_a_missing_suite_folder_is_named_relative_to_the_working_folder(write: Write) -> None:
    err = error_for(write, changed("suites.hidden.path", "../suites/ch/hiddn"))
    assert "suites.hidden.path" == err.yaml_path
    assert err.problem.startswith("folder not found: suites/ch/hiddn ('../suites/ch/hiddn' from ")
    assert "create suites/ch/hiddn/ and put the suite's test_*.py files in it" in err.fix


@pytest.mark.parametrize(
    ("key", "what"), [("exercises", "the stubs"), ("reference", "reference solution")]
)
def test_missing_exercise_and_reference_folders(write: Write, key: str, what: str) -> None:
    err = error_for(write, changed(key, "../nowhere"))
    assert (key, "folder not found: nowhere ('../nowhere' from the rubric's folder rubrics)") == (
        err.yaml_path,
        err.problem,
    )
    assert what in err.fix


def test_a_suite_path_that_is_a_file(write: Write, tmp_path: Path) -> None:
    (tmp_path / "suites" / "ch" / "tests.py").write_text("", encoding="utf-8")
    err = error_for(write, changed("suites.public.path", "../suites/ch/tests.py"))
    assert ("suites.public.path", "suites/ch/tests.py is a file, not a folder") == (
        err.yaml_path,
        err.problem,
    )


def test_validation_does_not_use_assert() -> None:
    """`python -O` strips asserts; user input must be checked with real errors."""
    for module in Path(rubric_module.__file__).parent.glob("*.py"):
        assert "assert " not in module.read_text(encoding="utf-8"), module.name


# Arbitrary YAML-shaped values anywhere must give a RubricError, never a crash of the loader.
_yaml_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
_paths = st.sampled_from(
    [
        "assignment",
        "title",
        "title.en",
        "exercises",
        "reference",
        "suites",
        "suites.public",
        "suites.public.path",
        "suites.hidden.visibility",
        "parts",
        "parts.0",
        "parts.1.id",
        "parts.2.title",
        "points",
        "points.default",
        "points.rules",
        "points.rules.0",
        "points.rules.0.match",
        "limits",
        "limits.cpu_s",
        "report",
        "report.formats",
        "report.language",
        "report.rounding",
        "mistakes",
        "mistakes.sqrt-d-model",
        "schema",
    ]
)


@settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(path=_paths, value=_yaml_values)
def test_any_value_anywhere_loads_or_raises_rubric_error(
    write: Write, path: str, value: Any
) -> None:
    try:
        load_rubric(write(changed(path, value)))
    except RubricError as err:
        assert err.file == RUBRIC
        assert err.problem


@pytest.mark.parametrize("path", ["exercises", "reference", "suites.public.path"])
def test_a_nul_in_a_path_is_a_rubric_error_naming_the_key(write: Write, path: str) -> None:
    """(Found by the property above: a NUL reached the file system and raised ValueError.)"""
    with pytest.raises(RubricError) as err:
        load_rubric(write(changed(path, "ex\x00ercises")))
    assert err.value.file == RUBRIC and "NUL" in str(err.value) and path in str(err.value)


# --- the objects -------------------------------------------------------------------------

DATACLASSES = [Text, Part, Suite, PointRule, Limits, ReportOptions, MistakeOptions, ManualItem, Rubric]


@pytest.mark.parametrize("cls", DATACLASSES, ids=lambda c: c.__name__)
def test_every_field_has_its_own_help_text(cls: type) -> None:
    helps = {f.name: f.metadata.get("help", "") for f in dataclasses.fields(cls)}
    assert [] == [name for name, text in helps.items() if not text.strip()]
    assert len(helps) == len(set(helps.values())), "two fields share a help text (copy-paste?)"


def test_points_for_takes_the_first_matching_rule(tmp_path: Path) -> None:
    rubric = Rubric(
        file=Path("r.yaml"),
        assignment="a",
        title=Text("a", "a"),
        parts=(),
        suites=(),
        reference=None,
        exercises=tmp_path,
        default_points=1.5,
        point_rules=(
            PointRule("hidden/test_scaling.py::test_head_dim[768-12]", 5),
            PointRule("hidden/test_scaling.py::*", 3),
            PointRule("hidden/*", 0),
            PointRule("*", 7),
        ),
    )
    assert 5 == rubric.points_for("hidden/test_scaling.py::test_head_dim[768-12]")
    assert 3 == rubric.points_for("hidden/test_scaling.py::test_head_dim[4096-32]")
    assert 0 == rubric.points_for("hidden/test_softmax.py::test_stable")
    assert 7 == rubric.points_for("public/test_softmax.py::test_stable")
    assert 7 == rubric.points_for("HIDDEN/test_scaling.py::x"), (
        "matching is case-sensitive on every OS"
    )
    assert 1.5 == dataclasses.replace(rubric, point_rules=()).points_for("hidden/anything")


@pytest.mark.parametrize(
    "obj",
    [
        Text("a", "b"),
        Part("p", "p.py", Text("a", "b")),
        Suite("public", Path("."), Visibility.VISIBLE),
        PointRule("*", 1),
        Limits(),
        ReportOptions(),
        MistakeOptions("x"),
    ],
    ids=lambda o: type(o).__name__,
)
def test_objects_are_frozen(obj: Any) -> None:
    name = dataclasses.fields(obj)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(obj, name, getattr(obj, name))
    with pytest.raises((AttributeError, TypeError)):  # slots: no new attributes either
        obj.extra = 1


def test_a_loaded_rubric_is_frozen(write: Write) -> None:
    rubric = load_rubric(write(VALID))
    with pytest.raises(dataclasses.FrozenInstanceError):
        rubric.assignment = "other"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        rubric.limits.per_call_s = 1  # type: ignore[misc]
    assert isinstance(rubric.parts, tuple)
    assert isinstance(rubric.report.formats, tuple)


def test_lookups(write: Write) -> None:
    rubric = load_rubric(write(VALID))
    assert "softmax.py" == rubric.part("softmax").file
    assert "hidden" == rubric.suite("hidden").name
    with pytest.raises(KeyError, match="no part 'nope'"):
        rubric.part("nope")
    with pytest.raises(KeyError, match="no suite 'secret'"):
        rubric.suite("secret")
    assert "スケーリング" == rubric.part("scaling").title.get("ja")
    assert "Scaling" == rubric.part("scaling").title.get("en")
    with pytest.raises(ValueError, match="unknown language 'de'"):
        rubric.title.get("de")


def test_late_policy_and_central_mistakes_are_read_and_checked(tmp_path):
    """late: {penalty_percent, cap_percent} and mistakes.<id>.central, with key paths on errors."""
    import shutil as _shutil

    from grader.errors import RubricError
    from grader.spec.rubric.load import load_rubric

    src = ROOT / "rubrics" / "chapter07.yaml"
    rubric = load_rubric(src)
    assert rubric.late is not None and rubric.late.penalty_percent == 10
    assert rubric.late.apply(100, 119) == pytest.approx(100 - 11.9)
    assert rubric.late.apply(5, 119) == 0.0  # never below zero
    assert any(m.central for m in rubric.mistakes if m.id == "sqrt-d-model")
    folder = tmp_path / "rubrics"
    _shutil.copytree(src.parent, folder)
    for name in ("exercises", "solutions", "suites"):
        (tmp_path / name).symlink_to(src.parent.parent / name)
    text = src.read_text(encoding="utf-8")
    (folder / "chapter07.yaml").write_text(text.replace("late: {penalty_percent: 10, cap_percent: 100}",
                                                        "late: {penalty_percent: 10, cap_percent: 50}"), encoding="utf-8")
    capped = load_rubric(folder / "chapter07.yaml").late
    assert capped.apply(100, 119) == pytest.approx(59.5) and "50%" in capped.describe("en")
    (folder / "chapter07.yaml").write_text(text.replace("late: {penalty_percent: 10, cap_percent: 100}",
                                                        "late: {penalty_percent: 150}"), encoding="utf-8")
    with pytest.raises(RubricError, match="late.penalty_percent"):
        load_rubric(folder / "chapter07.yaml")
    (folder / "chapter07.yaml").write_text(text.replace("central: true", "central: yes please"), encoding="utf-8")
    with pytest.raises(RubricError, match="mistakes.sqrt-d-model.central"):
        load_rubric(folder / "chapter07.yaml")


def test_due_needs_its_offset_and_the_late_policy_may_count_days(write: Write) -> None:
    rubric = load_rubric(write({**VALID, "due": "2026-12-01T23:59:00+09:00",
                                "late": {"penalty_percent": 10, "per": "day", "grace_minutes": 15}}))
    assert rubric.due == "2026-12-01T23:59:00+09:00" and rubric.late.per == "day"
    assert "per day or part of a day" in rubric.late.describe("en") and "猶予 15 分" in rubric.late.describe("ja")
    # unquoted in YAML it is a timestamp; the offset is kept
    assert load_rubric(write(yaml.safe_dump(VALID) + "due: 2026-12-01T23:59:00+09:00\n")).due.endswith("+09:00")
    err = error_for(write, {**VALID, "due": "2026-12-01 23:59"})
    assert "due" in str(err) and "no time zone" in str(err) and "+09:00" in str(err)
    err = error_for(write, {**VALID, "late": {"penalty_percent": 10, "per": "week"}})
    assert "late.per" in str(err)
