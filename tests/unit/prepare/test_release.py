"""The student release: everything students need, nothing of the solutions or hidden tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from grader.cli import main
from grader.prepare.release import build_release, student_rubric
from grader.spec.rubric.load import load_rubric

from tests.helpers import ROOT, RUBRIC


#: Lines of pytest plumbing the hidden suites and the grader package both contain by nature.
GENERIC = {
    "__tracebackhide__ = True",
    "def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:",
    "got = student.scaling.scale_scores(x, 64)",
    "if type(value) is str:",
}


def _lines(paths: list[Path]) -> set[str]:
    out: set[str] = set()
    for p in paths:
        try:
            text = p.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if p.suffix == ".ipynb":  # the cells' own lines, not their JSON encoding
            text = "\n".join("".join(c.get("source", "")) for c in json.loads(text)["cells"])
        out |= {line.strip() for line in text.splitlines()}
    return out


def _files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts]


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("release") / "student-repo"
    build_release(load_rubric(RUBRIC), out)
    return out


def test_release_holds_no_line_of_the_solutions_or_hidden_suites(release: Path) -> None:
    """No non-trivial line (stripped, longer than 20 characters) of solutions/** or the hidden
    suites appears in any release file, apart from lines the public material itself already
    has (imports and docstrings shared with the stubs and public tests) and a few generic
    lines of pytest plumbing the grader package shares with the hidden suites."""
    secret = _lines(_files(ROOT / "solutions") + _files(ROOT / "suites" / "chapter07" / "hidden"))
    public = _lines(_files(ROOT / "exercises") + _files(ROOT / "suites" / "chapter07" / "public"))
    secret = {line for line in secret if len(line) > 20} - public - GENERIC
    assert secret, "the secret material should not be empty"
    leaks = []
    for f in _files(release):
        leaks += [f"{f.relative_to(release)}: {line}" for line in sorted(_lines([f]) & secret)]
    assert [] == leaks[:20]


def test_release_layout(release: Path) -> None:
    names = {p.relative_to(release).as_posix() for p in _files(release)}
    for must in ("README.md", "pyproject.toml", ".github/workflows/autograde.yml", ".gitlab-ci.yml",
                 "rubrics/chapter07.yaml", "exercises/chapter07/scaling.py",
                 "exercises/chapter07/chapter07.ipynb", "suites/chapter07/public/expected.json",
                 "grader/cli/__init__.py", "grader/suite.ini", "grader/templates/report.html.j2"):
        assert must in names
    assert not [n for n in names if n.startswith(("solutions", "suites/chapter07/hidden", "grader/tools"))]
    rubric = load_rubric(release / "rubrics" / "chapter07.yaml")
    assert rubric.reference is None
    assert ["public"] == [s.name for s in rubric.suites]


def test_release_ci_files(release: Path) -> None:
    workflow = yaml.safe_load((release / ".github/workflows/autograde.yml").read_text(encoding="utf-8"))
    steps = workflow["jobs"]["check"]["steps"]
    runs = "\n".join(s.get("run", "") for s in steps)
    assert "grader check" in runs and "--format junit" in runs and "pip install ." in runs
    assert any(s.get("uses", "").startswith("actions/upload-artifact") for s in steps)
    gitlab = yaml.safe_load((release / ".gitlab-ci.yml").read_text(encoding="utf-8"))
    assert gitlab["autograde"]["artifacts"]["reports"]["junit"] == "grader-report/report.junit.xml"
    assert any("--out-dir grader-report" in line for line in gitlab["autograde"]["script"])
    readme = (release / "README.md").read_text(encoding="utf-8")
    assert "python -m venv .venv" in readme and "pip install ." in readme and "grader check" in readme
    # every shipped install takes torch's CPU build from PyTorch's CPU index, and caches pip
    from grader.install import TORCH_CPU_INSTALL

    assert f"pip install {TORCH_CPU_INSTALL}" in readme and f"pip install {TORCH_CPU_INSTALL}" in runs
    assert f"pip install {TORCH_CPU_INSTALL}" in gitlab["autograde"]["script"]
    assert gitlab["autograde"]["cache"]["paths"] == [".cache/pip"]
    assert any(s.get("with", {}).get("cache") == "pip" for s in steps)
    rubric = load_rubric(release / "rubrics" / "chapter07.yaml")
    assert rubric.report.fail_below_pass_mark  # the student's CI is red below the pass mark
    assert "提出" in readme or "完成" in readme


def test_student_rubric_drops_hidden_keys_and_their_comments() -> None:
    text = student_rubric(RUBRIC.read_text(encoding="utf-8"))
    data = yaml.safe_load(text)
    assert "reference" not in data and list(data["suites"]) == ["public"]
    assert "rules" not in data["points"]  # its only rule was about the hidden suite
    assert "Never shipped to students" not in text
    assert "public: {path" in text


def test_release_command_refuses_a_non_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "x").write_text("keep me")
    result = CliRunner().invoke(main, ["release", str(tmp_path), "--rubric", str(RUBRIC)])
    assert result.exit_code == 2
    assert (tmp_path / "x").read_text() == "keep me"


def test_the_readme_says_the_language_grader_check_speaks_and_how_to_choose_the_other(
        release: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """What the README says of choosing the language is what the released ``grader check`` does:
    without --lang or $GRADER_LANG it speaks the rubric's first language; --lang / GRADER_LANG
    give the other one."""
    from grader.cli.shared import lang_of

    monkeypatch.delenv("GRADER_LANG", raising=False)
    rubric = load_rubric(release / "rubrics" / "chapter07.yaml")
    assert lang_of(None, rubric) == "ja" and "en" in rubric.report.languages
    readme = (release / "README.md").read_text(encoding="utf-8")
    assert "表示は日本語です。`grader check --lang en`（または環境変数 `GRADER_LANG=en`）で英語の表示に" in readme
    assert ("Its output is in Japanese unless you ask otherwise: `grader check --lang en` (or the environment "
            "variable `GRADER_LANG=en`) shows English") in readme
    assert "で日本語のみ" not in readme and "shows English only" not in readme  # (the default already was)
    monkeypatch.setenv("GRADER_LANG", "en")
    assert lang_of(None, rubric) == "en"
    # a course in English alone says so, and offers no other language
    from tests.helpers import course_copy

    course = course_copy(tmp_path / "course", chapters=("chapter07",))
    path = course / "rubrics" / "chapter07.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("language: both", "language: en", 1), encoding="utf-8")
    monkeypatch.delenv("GRADER_LANG", raising=False)
    english = load_rubric(path)
    assert lang_of(None, english) == "en"
    build_release(english, tmp_path / "english")
    text = (tmp_path / "english" / "README.md").read_text(encoding="utf-8")
    assert "表示は英語です。`grader check -v` で詳しい表示になります。" in text
    assert "Its output is in English; `grader check -v` shows more detail." in text


@pytest.mark.parametrize(("lang", "said"), [("ja", "個のファイルを書きました"), ("en", "files written to")])
def test_the_release_command_speaks_the_sessions_language(tmp_path: Path, lang: str, said: str) -> None:
    result = CliRunner().invoke(main, ["release", str(tmp_path / "repo"), "--rubric", str(RUBRIC), "--lang", lang])
    assert result.exit_code == 0, result.output
    assert said in result.output, result.output
