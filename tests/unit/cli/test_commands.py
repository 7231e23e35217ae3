"""The command modules, in process: every command is in the group, with its help, and the shared
rules (exit codes, the language, a usage error) hold. Nothing here grades."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from grader.cli import batch, main, prepare, shared, student, term
from tests.helpers import ROOT

COMMANDS = {
    student: ("check", "grade"),
    batch: ("batch", "export", "similarity", "catalogue"),
    term: ("adjust", "ledger", "publish", "regrade", "gradebook"),
    prepare: ("new", "validate", "release", "gradescope"),
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
    assert [int(c) for c in shared.ExitCode] == [0, 1, 2, 3]
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
    ("ja", ["6 件を比較し、1 グループに 3 組がありました。", "下書き clamp-twice（softmax、提出物 2 件）を",
            "ミュータント", "コードが見つからなかったため"]),
    ("en", ["6 compared, 3 pairs in 1 groups; ", "draft clamp-twice (softmax, 2 submissions) added to",
            "; mutant ", "no mutant (the code was not found)"]),
])
def test_similarity_and_catalogue_draft_speak_the_sessions_language(
        tmp_path, monkeypatch: pytest.MonkeyPatch, lang: str, said: list[str]) -> None:
    """Their closing lines are the session's language (--lang, else the course's), not English always."""
    from pathlib import Path

    import grader.insight.draft_entry as draft_entry
    import grader.outputs.similarity_page as similarity_page
    from grader.insight.draft_entry import Drafted

    monkeypatch.setattr(batch, "load_for", lambda outdir, rubric_path: SimpleNamespace(
        report=SimpleNamespace(languages=("ja", "en"))))
    monkeypatch.setattr(similarity_page, "refresh", lambda *a, **k: SimpleNamespace(
        compared=6, pairs=[1, 2, 3], groups=[1]))
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
