"""The command modules, in process: every command is in the group, with its help, and the shared
rules (exit codes, the language, a usage error) hold. Nothing here grades."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from grader.cli import batch, main, prepare, shared, student, term
from grader.cli import review
from tests.helpers import ROOT

COMMANDS = {
    student: ("check", "grade"),
    batch: ("batch", "export", "similarity", "catalogue"),
    term: ("adjust", "ledger", "publish", "regrade", "gradebook", "push", "pull"),
    prepare: ("new", "validate", "release", "gradescope"),
    review: ("review",),
}


@pytest.mark.parametrize("module", list(COMMANDS), ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_each_command_module_gives_its_commands_to_the_group(module: object) -> None:
    group = main.commands if hasattr(main, "commands") else {}
    for name in COMMANDS[module]:
        assert name in group, name
        assert group[name].callback is not None
        assert group[name].callback.__module__ == module.__name__, (name, group[name].callback.__module__)


@pytest.mark.parametrize("name", [n for names in COMMANDS.values() for n in names])
def test_every_command_has_its_help(name: str) -> None:
    result = CliRunner().invoke(main, [name, "--help"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Usage: ") and f" {name} " in result.output.splitlines()[0] + " "


def test_the_exit_codes_are_the_documented_ones() -> None:
    assert [int(c) for c in shared.ExitCode] == [0, 1, 2, 3, 4]
    below = SimpleNamespace(report=SimpleNamespace(fail_below_pass_mark=True))
    lenient = SimpleNamespace(report=SimpleNamespace(fail_below_pass_mark=False))
    failed = [SimpleNamespace(passed=False)]
    assert shared.exit_code_for(failed, below) == shared.ExitCode.BELOW_PASS_MARK
    assert shared.exit_code_for(failed, lenient) == shared.ExitCode.GRADED


def test_the_language_is_the_option_then_the_environment_then_the_rubric(monkeypatch: pytest.MonkeyPatch) -> None:
    rubric = SimpleNamespace(report=SimpleNamespace(languages=("ja", "en")))
    monkeypatch.delenv("GRADER_LANG", raising=False)
    assert shared.lang_of(None, rubric) == "ja"
    monkeypatch.setenv("GRADER_LANG", "en")
    assert shared.lang_of(None, rubric) == "en"
    assert shared.lang_of("ja", rubric) == "ja"


def test_a_missing_rubric_is_a_usage_error_naming_it(tmp_path: object) -> None:
    result = CliRunner().invoke(main, ["batch", str(ROOT / "examples" / "submissions"), "--out", "x",
                                       "--rubric", "no/such/rubric.yaml"])
    assert result.exit_code == shared.ExitCode.USAGE_ERROR
    assert "no/such/rubric.yaml" in result.output


@pytest.mark.parametrize(("lang", "said"), [
    ("ja", ["6 件を比較し、3 組に印を付けました（1 グループ）。", "下書き clamp-twice（softmax、提出物 2 件）を",
            "変異体: ", "変異体はありません"]),
    ("en", ["6 compared, 3 pairs flagged in 1 groups; ", "draft clamp-twice (softmax, 2 submissions) added to",
            "; its mutant: ", "no mutant (the code was not found)"]),
])
def test_similarity_and_catalogue_draft_speak_the_sessions_language(
        tmp_path, monkeypatch: pytest.MonkeyPatch, lang: str, said: list[str]) -> None:
    """Their closing lines are the session's language (--lang, else the course's), not English always."""
    from pathlib import Path

    import grader.insight.draft_entry as draft_entry
    import grader.outputs.similarity_page as similarity_page
    from grader.insight.draft_entry import Drafted

    monkeypatch.setattr(batch, "load_for", lambda outdir, rubric_path: SimpleNamespace(
        report=SimpleNamespace(languages=("ja", "en")), file=str(tmp_path / "rubrics" / "chapter07.yaml")))
    monkeypatch.setattr(similarity_page, "refresh", lambda *a, **k: SimpleNamespace(
        compared=6, pairs=[1, 2, 3], groups=[1], capped=[]))
    drafted = [Drafted("clamp-twice", Path("mistakes.yaml"), Path("from-cluster-1.py"), "softmax", 2),
               Drafted("clamp-twice", Path("mistakes.yaml"), None, "softmax", 2)]
    monkeypatch.setattr(draft_entry, "draft_entry", lambda *a, **k: drafted.pop(0))
    monkeypatch.delenv("GRADER_LANG", raising=False)
    chosen = ["--lang", lang] if lang == "en" else []  # Japanese: the course's first language
    outputs = [CliRunner().invoke(main, ["similarity", str(tmp_path), *chosen]),
               CliRunner().invoke(main, ["catalogue", "draft", str(tmp_path), "--cluster", "1", *chosen]),
               CliRunner().invoke(main, ["catalogue", "draft", str(tmp_path), "--cluster", "1", *chosen])]
    assert [r.exit_code for r in outputs] == [0, 0, 0], [r.output for r in outputs]
    text = " ".join(" ".join(r.output.split()) for r in outputs)
    assert all(s in text for s in said), text
@pytest.mark.parametrize("lang", ["en", "ja"])
def test_catalogue_draft_names_the_validate_command_that_works_in_a_course_of_two_rubrics(tmp_path, lang) -> None:
    """In a course with two rubrics a bare ``grader validate`` cannot choose one; the line after a
    draft names the rubric, in the session's language, and that command finds the chapter drafted."""
    import shlex

    from grader.errors import UsageError
    from grader.report.model import GradeReport, Mistake
    from grader.report.outdir import report_path, report_yaml
    from tests.helpers import course_copy, grader_here

    course = course_copy(tmp_path / "course", chapters=("chapter07", "chapter08"))
    probes = {"softmax_with_temperature": [{"call": "softmax_with_temperature(float32[3])", "shape": [3], "n": 3,
                                            "values": [0.2, 0.3, 0.5], "sum": 1.0}]}
    out = tmp_path / "out"
    for name in ("a", "b"):
        report = GradeReport(assignment="chapter07", submission=name, score=1.0, max_score=2.0, tests=[], parts=[],
                             mistakes=[Mistake(id="unrecognised", part="softmax", message={"en": "", "ja": ""},
                                               evidence={"functions": list(probes), "probes": probes})],
                             sandbox={}, errors=[], seed=1, graded_at="")
        path = report_path(out, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(report_yaml(report), encoding="utf-8")
    done = grader_here("catalogue", "draft", str(out), "--cluster", "1", "--lang", lang, cwd=course)
    assert done.exit_code == 0, done.output
    line = done.stderr.strip().splitlines()[-1]
    assert ("then run: " if lang == "en" else "次を実行してください: ") in line
    command = shlex.split(line.rsplit(": ", 1)[1])
    assert command == ["grader", "validate", "--rubric", "rubrics/chapter07.yaml"]
    here = Path.cwd()
    os.chdir(course)
    try:
        with pytest.raises(UsageError):
            shared.load(None)  # what the bare command does here
        assert shared.load(command[3]).assignment == "chapter07"
    finally:
        os.chdir(here)


@pytest.mark.parametrize(("lang", "said"), [("ja", "個のファイルを書きました。次に実行するもの: grader validate --rubric"),
                                            ("en", "files written; next: grader validate --rubric")])
def test_new_says_what_it_wrote_and_what_comes_next_in_the_language_asked(tmp_path, lang: str, said: str) -> None:
    """grader new's closing line in --lang (a Japanese course sets $GRADER_LANG=ja)."""
    from tests.helpers import grader_here

    done = grader_here("new", "chapter09", "--root", str(tmp_path), env={"GRADER_LANG": lang})
    assert done.exit_code == 0, done.output
    line = " ".join(done.stderr.split())
    assert said in line and str(Path(tmp_path) / "rubrics" / "chapter09.yaml") in line, line


def test_pull_and_push_name_their_platforms_and_what_each_needs(tmp_path) -> None:  # type: ignore[no-untyped-def]
    for name, words in (("pull", ("--from [canvas|moodle]", "CANVAS_TOKEN", "MOODLE_TOKEN")),
                        ("push", ("--to [canvas|moodle|lti13]", "MOODLE_TOKEN"))):
        result = CliRunner().invoke(main, [name, "--help"])
        assert result.exit_code == 0 and all(w in " ".join(result.output.split()) for w in words), result.output
    out = tmp_path / "out"
    out.mkdir()
    result = CliRunner().invoke(main, ["push", str(out), "--to", "canvas", "--url", "https://canvas.example.edu",
                                       "--assignment", "5", "--rubric", str(ROOT / "rubrics" / "chapter07.yaml")],
                                env={"CANVAS_TOKEN": "t"})
    assert result.exit_code == 2 and "--to canvas needs --course" in result.output + (result.stderr or "")
    result = CliRunner().invoke(main, ["push", str(out), "--to", "moodle", "--url", "https://moodle.example.edu",
                                       "--rubric", str(ROOT / "rubrics" / "chapter07.yaml")], env={"MOODLE_TOKEN": "t"})
    assert result.exit_code == 2 and "--to moodle needs --assignment" in result.output + (result.stderr or "")
    result = CliRunner().invoke(main, ["pull", str(tmp_path / "src"), "--from", "canvas", "--url",
                                       "https://canvas.example.edu", "--assignment", "5"], env={"CANVAS_TOKEN": "t"})
    assert result.exit_code == 2 and "--from canvas needs --course" in result.output + (result.stderr or "")
    assert not (tmp_path / "src").exists()
