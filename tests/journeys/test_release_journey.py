"""The student's journey as installed: exactly what the release README says, in a fresh venv.

`grader release` builds the student repository; the commands of the README's first shell
block run in it one by one (a venv, torch, `pip install .` without -e, `grader check`); then
`grader check` grades the exercises folder in the states a student leaves it in:
(a) untouched, (b) dividing by sqrt(768), (c) finished, and (d) the same three in the notebook,
checked from the notebook's own folder as `!grader check` in a cell runs it.

This machine cannot reach PyTorch's CPU index: the README's torch line runs without its
``--index-url`` so that pip takes the same pinned CPU wheel from the local wheel folder.

torch and the grader's dependencies are installed once per run, into ``release_venv`` (see
tests/journeys/conftest.py), which the README's venv sees through a ``.pth`` file: its torch line is then
already satisfied, and its ``pip install .`` installs the release's grader into the README's venv.
The chapter-8 journey in test_course.py shares it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
import yaml

from grader.install import TORCH, TORCH_CPU_INDEX
from grader.prepare.build_notebook import build

from tests.helpers import EXAMPLES, ROOT


CODE = ("scaling.py", "softmax.py", "variance.py", "answers.yaml")

pytestmark = pytest.mark.install


def _readme_commands(readme: str) -> list[str]:
    block = re.search(r"```sh\n(.*?)```", readme, re.S)
    assert block, "the README shows its commands in a ```sh block"
    return [line.strip() for line in block.group(1).splitlines() if line.strip()]


class Student:
    """A shell in the release folder with the README's venv activated."""

    def __init__(self, repo: Path, shared: Path) -> None:
        self.repo = repo
        self.shared = shared  # the site-packages of the run's release_venv
        self.env = {k: v for k, v in os.environ.items()
                    if k not in ("PYTHONPATH", "VIRTUAL_ENV", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY",
                                 "GITHUB_OUTPUT", "GRADER_LANG", "GRADER_SANDBOX")}
        self.install_s = 0.0

    def run(self, args: list[str], cwd: Path | None = None, timeout: float = 900) -> subprocess.CompletedProcess[str]:
        return subprocess.run(args, cwd=cwd or self.repo, env=self.env, capture_output=True, text=True,
                              timeout=timeout)

    def follow(self, line: str) -> subprocess.CompletedProcess[str] | None:
        """Run one README line as a student's shell would; unknown lines fail the test."""
        words = line.split()
        if words[:3] == ["python", "-m", "venv"]:
            done = self.run([sys.executable, *words[1:]])
            for site in (self.repo / words[3]).glob("lib/python*/site-packages"):
                (site / "release-venv.pth").write_text(f"{self.shared}\n", encoding="utf-8")
        elif words[:1] == ["."] and words[1].endswith("/activate"):
            venv = (self.repo / words[1]).parent.parent
            self.env["VIRTUAL_ENV"] = str(venv)
            self.env["PATH"] = f"{venv / 'bin'}{os.pathsep}{self.env['PATH']}"
            return None
        elif words[:2] == ["pip", "install"]:
            if TORCH in words:
                assert words[words.index("--index-url") + 1] == TORCH_CPU_INDEX
                words = [w for w in words if w not in ("--index-url", TORCH_CPU_INDEX)]
            assert "-e" not in words and "--editable" not in words
            start = time.monotonic()
            done = self.run(words)
            self.install_s += time.monotonic() - start
        elif words[:2] == ["grader", "check"]:
            done = self.run(words)
            assert done.returncode in (0, 1), done.stderr[-3000:]
            return done
        else:
            raise AssertionError(f"the journey test does not know the README line {line!r}")
        assert done.returncode == 0, f"{line}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
        return done

    def check(self, *args: str, cwd: Path | None = None) -> tuple[int, dict]:
        done = self.run(["grader", "check", *args, "--format", "yaml", "--lang", "en"], cwd=cwd)
        assert done.returncode in (0, 1), done.stderr[-3000:]
        return done.returncode, yaml.safe_load(done.stdout)


@pytest.fixture(scope="module")
def student(tmp_path_factory: pytest.TempPathFactory, release_venv: Path) -> Student:
    repo = tmp_path_factory.mktemp("journey") / "student-repo"
    built = subprocess.run([sys.executable, "-m", "grader", "release", str(repo),
                            "--rubric", str(ROOT / "rubrics" / "chapter07.yaml")],
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    me = Student(repo, release_venv)
    # what was handed out, to put the folder back between states
    shutil.copytree(repo / "exercises" / "chapter07", repo.parent / "handed-out")
    readme = (repo / "README.md").read_text(encoding="utf-8")
    for line in _readme_commands(readme):
        me.follow(line)
    installed = subprocess.run([str(repo / ".venv" / "bin" / "python"), "-c",
                                "import grader, sys; print(grader.__file__)"],
                               capture_output=True, text=True, env=me.env, cwd=repo.parent)
    assert "site-packages" in installed.stdout, "installed as a package, not run from the folder"
    size = sum(p.stat().st_size for p in (repo / ".venv").rglob("*") if p.is_file() and not p.is_symlink())
    print(f"\nrelease install: {me.install_s:.1f} s for the README's pip lines; "
          f"venv {size / 2**20:.0f} MiB")
    return me


def _reset(folder: Path) -> None:
    """The exercises folder as the release handed it out."""
    handed_out = folder.parents[2] / "handed-out"
    for name in (*CODE, "chapter07.ipynb"):
        shutil.copyfile(handed_out / name, folder / name)


def _ids(report: dict) -> list[str]:
    return [m["id"] for m in report["mistakes"]]


def _all_public_passed(report: dict) -> bool:
    return bool(report["tests"]) and all(t["status"] == "passed" for t in report["tests"])


def test_a_untouched_stubs_say_not_implemented(student: Student) -> None:
    _reset(student.repo / "exercises" / "chapter07")
    status, report = student.check()
    assert status == 1  # below the pass mark: the student's CI shows red
    assert report["score"] == 0 and report["suites"] == ["public"]
    assert {m["part"] for m in report["mistakes"] if m["id"] == "not-implemented"} >= {
        "scaling", "softmax", "variance"}
    assert "diagnosis stopped early" not in yaml.safe_dump(report)


def test_b_sqrt_d_model_is_named_with_27_71(student: Student) -> None:
    folder = student.repo / "exercises" / "chapter07"
    _reset(folder)
    for name in CODE:
        shutil.copyfile(EXAMPLES / "sqrt-d-model" / name, folder / name)
    status, report = student.check()
    [mistake] = [m for m in report["mistakes"] if m["id"] == "sqrt-d-model"]
    assert "27.71" in mistake["message"]["en"] and "27.71" in mistake["message"]["ja"]
    assert 0 < report["score"] < report["max_score"]
    # the README's own line, as a student types it
    plain = student.follow("grader check")
    assert plain is not None and "sqrt-d-model" in plain.stdout and "27.71" in plain.stdout


def test_c_finished_copy_passes_every_public_test(student: Student) -> None:
    folder = student.repo / "exercises" / "chapter07"
    _reset(folder)
    for name in CODE:
        shutil.copyfile(EXAMPLES / "correct" / name, folder / name)
    status, report = student.check()
    assert status == 0 and report["passed"]
    assert _all_public_passed(report) and report["score"] == report["max_score"] > 0
    assert report["mistakes"] == []


@pytest.mark.parametrize("state", ["untouched", "sqrt-d-model", "correct"])
def test_d_the_notebook_in_the_same_three_states(student: Student, state: str) -> None:
    """Only the notebook is worked on; `grader check` runs in its folder, as in a cell."""
    folder = student.repo / "exercises" / "chapter07"
    _reset(folder)
    if state != "untouched":
        source = EXAMPLES / state
        nbformat.write(build(source, source / "answers.yaml"), str(folder / "chapter07.ipynb"))
    status, report = student.check(cwd=folder)
    if state == "untouched":
        assert status == 1 and report["score"] == 0 and "not-implemented" in _ids(report)
        assert any("neither" in note for note in report["notes"])
    elif state == "sqrt-d-model":
        [mistake] = [m for m in report["mistakes"] if m["id"] == "sqrt-d-model"]
        assert "27.71" in mistake["message"]["en"]
        assert any(note.startswith("graded chapter07.ipynb") for note in report["notes"])
    else:
        assert status == 0 and _all_public_passed(report) and report["score"] == report["max_score"]
        assert any(note.startswith("graded chapter07.ipynb") for note in report["notes"])


# --- the shipped GitHub workflow, its steps run here as the runner runs them ---------------


@pytest.fixture(scope="module")
def workflow(student: Student) -> list[dict]:
    """The workflow's steps; its install step is run once here, in the journey's venv."""
    data = yaml.safe_load((student.repo / ".github" / "workflows" / "autograde.yml").read_text(encoding="utf-8"))
    steps = data["jobs"]["check"]["steps"]
    setup = next(s for s in steps if s.get("uses", "").startswith("actions/setup-python"))
    assert setup["with"]["cache"] == "pip"  # pip's cache is kept between runs
    [install] = [s for s in steps if s.get("name") == "Install the grader"]
    assert f"pip install {TORCH} --index-url {TORCH_CPU_INDEX}" in install["run"]
    # PyTorch's CPU index cannot be reached from here: the local wheel of the same pin stands in.
    script = install["run"].replace(f" --index-url {TORCH_CPU_INDEX}", "")
    done = _step(student, script, student.repo / "step-outputs-install")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return steps


def _step(student: Student, script: str, files: Path) -> subprocess.CompletedProcess[str]:
    """One `run:` step as GitHub's runner runs it: bash -e, with the runner's variables."""
    files.mkdir(parents=True, exist_ok=True)
    env = dict(student.env, GITHUB_ACTIONS="true", CI="true",
               GITHUB_STEP_SUMMARY=str(files / "summary.md"), GITHUB_OUTPUT=str(files / "output"),
               GITHUB_WORKSPACE=str(student.repo))
    return subprocess.run(["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", script],
                          cwd=student.repo, env=env, capture_output=True, text=True, timeout=900)


def _outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text(encoding="utf-8").splitlines() if "=" in line)


@pytest.mark.parametrize("form, state", [("py", "sqrt-d-model"), ("notebook", "correct"), ("py", "untouched")])
def test_the_shipped_workflow_tells_the_truth(student: Student, workflow: list[dict], tmp_path: Path,
                                              form: str, state: str) -> None:
    folder = student.repo / "exercises" / "chapter07"
    _reset(folder)
    if state != "untouched":
        source = EXAMPLES / state
        if form == "py":
            for name in CODE:
                shutil.copyfile(source / name, folder / name)
        else:
            nbformat.write(build(source, source / "answers.yaml"), str(folder / "chapter07.ipynb"))
    (student.repo / "grader-junit.xml").unlink(missing_ok=True)
    [check] = [s for s in workflow if s.get("id") == "check"]
    files = tmp_path / "runner"
    done = _step(student, check["run"], files)
    outputs = _outputs(files / "output")
    summary = (files / "summary.md").read_text(encoding="utf-8")
    errors = [line for line in done.stdout.splitlines() if line.startswith("::error ")]
    notices = [line for line in done.stdout.splitlines() if line.startswith("::notice ")]
    warnings = [line for line in done.stdout.splitlines() if line.startswith("::warning ")]

    # the job is red exactly when the score is below the pass mark, and the summary says which
    assert outputs["graded"] == ("notebook" if form == "notebook" else "folder")
    assert float(outputs["max-score"]) > 0
    passed = outputs["passed"] == "true"
    assert done.returncode == (0 if passed else 1), done.stderr[-3000:]
    assert ("The check ran and passed" in summary) == passed
    assert ("The check ran, but did not pass" in summary) == (not passed)
    assert len(summary.encode("utf-8")) < 1024 * 1024
    assert (student.repo / "grader-junit.xml").is_file()  # what the upload step sends

    # annotations: at most 10 errors, one per function, at its def line
    assert len(errors) <= 10
    titles = [re.search(r"title=([^:]*)::", line).group(1).split("%3A")[0] for line in errors]
    assert len(titles) == len(set(titles)), titles
    if state == "correct":
        assert passed and float(outputs["score"]) == float(outputs["max-score"]) and errors == []
    elif state == "sqrt-d-model":
        assert not passed or float(outputs["score"]) < float(outputs["max-score"])
        # The rubric's central mistake: a ::warning of its own ("passed, but …") when the
        # score passes, else with its function's ::error.
        [line] = [e for e in (warnings if passed else errors) if "[sqrt-d-model]" in e]
        assert not passed or "passed%2C but with the central mistake sqrt-d-model" in line
        source = (folder / "scaling.py").read_text(encoding="utf-8").splitlines()
        where = re.search(r"file=([^,]+),line=(\d+)", line)
        assert where and where.group(1) == "exercises/chapter07/scaling.py"
        assert source[int(where.group(2)) - 1].startswith("def scaling_factor(")
    else:  # the stubs: every function fails; 10 errors, ranked, and a notice for the rest
        assert not passed and len(errors) == 10 and len(notices) == 1
        for line in errors:
            where = re.search(r"file=([^,]+)(?:,line=(\d+))?", line)
            if where.group(2):
                text = (student.repo / where.group(1)).read_text(encoding="utf-8").splitlines()
                assert text[int(where.group(2)) - 1].startswith("def "), line


def test_a_students_text_is_no_workflow_command_and_a_runner_file_that_cannot_be_written_fails_nothing(
        student: Student, workflow: list[dict], tmp_path: Path) -> None:
    """The workflow's check step on a finished copy whose head_dim raises with a message that
    holds a workflow command line: only the grader's own lines start with ``::`` outside the
    ``::stop-commands::`` markers. Then the same step with GITHUB_STEP_SUMMARY a folder: a
    warning, the JUnit file still written, and the exit status the score calls for."""
    folder = student.repo / "exercises" / "chapter07"
    _reset(folder)
    for name in CODE:
        shutil.copyfile(EXAMPLES / "correct" / name, folder / name)
    with (folder / "scaling.py").open("a", encoding="utf-8") as fh:
        fh.write('\n\ndef head_dim(d_model, n_heads):\n'
                 '    raise ValueError("no\\n::error file=README.md,line=1,title=INJECTED::from a student\\nend")\n')
    [check] = [s for s in workflow if s.get("id") == "check"]
    done = _step(student, check["run"], tmp_path / "runner")
    lines = done.stdout.splitlines()
    [start] = [i for i, line in enumerate(lines) if line.startswith("::stop-commands::")]
    token = lines[start].removeprefix("::stop-commands::")
    assert len(token) >= 32
    [end] = [i for i, line in enumerate(lines) if line == f"::{token}::"]
    injected = [i for i, line in enumerate(lines) if line.startswith("::error file=README.md")]
    assert injected and all(start < i < end for i in injected), (start, end, injected)
    outside = [line for i, line in enumerate(lines) if line.startswith("::") and not start <= i <= end]
    assert outside and all(line.startswith(("::error file=exercises/", "::notice ", "::warning file=exercises/"))
                           for line in outside), outside

    (student.repo / "grader-junit.xml").unlink(missing_ok=True)
    files = tmp_path / "unwritable"
    files.mkdir()
    done = subprocess.run(["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", check["run"]],
                          cwd=student.repo, capture_output=True, text=True, timeout=900,
                          env=dict(student.env, GITHUB_ACTIONS="true", CI="true", GITHUB_STEP_SUMMARY=str(files),
                                   GITHUB_OUTPUT=str(files / "output"), GITHUB_WORKSPACE=str(student.repo)))
    passed = _outputs(files / "output")["passed"] == "true"
    assert done.returncode == (0 if passed else 1), done.stderr[-3000:]
    assert "could not be written" in done.stderr or "書き込めませんでした" in done.stderr, done.stderr[-2000:]
    assert (student.repo / "grader-junit.xml").is_file()
