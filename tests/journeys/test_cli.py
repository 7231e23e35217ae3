"""The command line: exit codes, messages that name the file, machine-readable output.

A command whose output the test only reads runs in this process (``grader_here``); a mistyped
command line runs as the student types it, in a process of its own.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml

from tests.helpers import grader_here, run_grader


def test_missing_rubric_is_a_usage_error_naming_the_file(root):
    proc = run_grader("check", "--rubric", "rubrics/nope.yaml")
    assert proc.returncode == 2
    assert "rubrics/nope.yaml" in proc.stderr and "--rubric" in proc.stderr


def test_invalid_rubric_names_the_key_path(root, tmp_path):
    bad = tmp_path / "bad.yaml"
    text = (root / "rubrics" / "chapter07.yaml").read_text(encoding="utf-8")
    bad.write_text(text.replace("assignment:", "asignment:", 1), encoding="utf-8")
    proc = run_grader("check", "--rubric", str(bad))
    assert proc.returncode == 2
    assert "asignment" in proc.stderr and "assignment" in proc.stderr


def test_missing_submission_is_a_usage_error(root):
    proc = run_grader("check", "no/such/folder")
    assert proc.returncode == 2
    assert "no/such/folder" in proc.stderr


def test_check_on_the_stubs_exits_0_and_names_not_implemented(root):
    proc = grader_here("check", "exercises/chapter07", "--lang", "en")
    assert proc.exit_code == 0, proc.stderr
    assert "not-implemented" in proc.stdout
    assert "✗" in proc.stdout


def test_grade_writes_a_yaml_report_with_hidden_tests(root, tmp_path):
    out = tmp_path / "r.yaml"
    proc = grader_here("grade", "examples/submissions/correct", "--out", str(out), "--seed", "7")
    assert proc.exit_code == 0, proc.stderr
    data = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert data["schema"] == 1 and data["seed"] == 7
    assert data["score"] == data["max_score"] > 0
    assert {t["suite"] for t in data["tests"]} == {"public", "hidden"}


def test_json_format_on_stdout_parses(root):
    proc = grader_here("check", "examples/submissions/correct", "--format", "json")
    assert proc.exit_code == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["score"] == data["max_score"]


def test_below_pass_mark_exits_1_when_the_rubric_asks(root, tmp_path):
    from tests.helpers import rubric_copy

    def edit(data: dict) -> None:
        assert data["report"]["fail_below_pass_mark"] is False
        data["report"]["fail_below_pass_mark"] = True

    rubric = rubric_copy(tmp_path, edit=edit)  # its paths made absolute, so it resolves the same folders
    proc = grader_here("check", "exercises/chapter07", "--rubric", str(rubric))
    assert proc.exit_code == 1, proc.stderr
    proc = grader_here("check", "examples/submissions/correct", "--rubric", str(rubric))
    assert proc.exit_code == 0, proc.stderr


def test_one_grade_call_writes_six_formats_that_agree(root, tmp_path, rubric):
    """`grader grade --out-dir` renders every format from the same graded report."""
    from tests.unit.report.test_writers import scores_of

    out = tmp_path / "all"
    proc = grader_here("grade", "examples/submissions/sqrt-d-model", "--out-dir", str(out), "--seed", "5",
                       "--format", "yaml")
    assert proc.exit_code == 0, proc.stderr
    from grader.report import SUFFIXES

    texts = {fmt: (out / f"report{suffix}").read_text(encoding="utf-8") for fmt, suffix in SUFFIXES.items()}
    assert len(texts) == 6
    seen = {fmt: scores_of(fmt, text) for fmt, text in texts.items()}
    reference = seen["yaml"]
    assert reference["total"][0] < reference["total"][1]  # the mistake costs points
    for fmt, scores in seen.items():
        assert scores["total"] == reference["total"], fmt
        assert scores["parts"] == reference["parts"], fmt
    assert "data:image/png;base64," in texts["html"]  # the plots came from the same run


def test_batch_prints_the_class_table(graded_class):
    """The run's graded class (the example submissions among them), as its batch printed it."""
    assert graded_class.returncode == 0, graded_class.stderr
    rows = {line.split("│")[1].strip(): line for line in graded_class.stdout.splitlines() if line.startswith("│")}
    assert {"correct", "sqrt-d-model", "untouched-stub"} <= set(rows)
    assert "sqrt-d-model" in rows["sqrt-d-model"].split("│")[-2]  # its mistake id, in the last column
    assert "not-implemented" in rows["untouched-stub"]
    assert (graded_class.out / "gradebook.csv").exists()


@pytest.mark.parametrize("args, english, japanese", [
    (("check", "--fromat", "md"), "No such option '--fromat'", "--fromat というオプションはありません（--format"),
    (("batch",), "Missing argument 'SOURCE'", "'SOURCE' が指定されていません"),
    (("batch", "src", "--out", "o", "--gradebook", "excel"), "Invalid value for '--gradebook'",
     "'--gradebook' には 'csv', 'canvas', 'moodle' のいずれかを指定してください"),
    (("batch", "src", "--out", "o", "-j", "two"), "Invalid value for '-j' / '--jobs'",
     "'-j' / '--jobs' の値が正しくありません（'two' is not a valid integer range）"),
    (("chekc",), "No such command 'chekc'", "chekc というコマンドはありません（check のことでしょうか）"),
])
def test_a_mistyped_command_line_is_said_in_both_languages_or_the_one_asked(root, english_left, args, english,
                                                                            japanese):
    """click's own usage errors: in English and Japanese when no language is asked for, only in
    the one asked for (--lang, $GRADER_LANG) otherwise; exit 2 and the help to read, every time."""
    import os
    from pathlib import Path

    def run(root, *args, env):  # the installed command, as a student types it
        return subprocess.run([str(Path(sys.executable).parent / "grader"), *args], cwd=root, capture_output=True,
                              text=True, timeout=300, env=env)

    env = {k: v for k, v in os.environ.items() if k != "GRADER_LANG"}
    both = run(root, *args, env=env)
    assert both.returncode == 2
    assert f"Error: {english}" in both.stderr and f"エラー: {japanese}" in both.stderr, both.stderr
    command = "grader" if args[0] == "chekc" else f"grader {args[0]}"
    assert f"{command} --help で確かめられます" in both.stderr and f"Try '{command} --help'" in both.stderr

    ja = run(root, *args, env={**env, "GRADER_LANG": "ja"})
    assert ja.returncode == 2 and f"エラー: {japanese}" in ja.stderr and "Error:" not in ja.stderr, ja.stderr
    assert ja.stderr.startswith(f"使い方: {command} ")
    assert english_left(ja.stderr) == []
    if args[0] != "chekc":  # (--lang belongs to a command: the group's own errors take $GRADER_LANG)
        flag = run(root, *args, "--lang", "ja", env=env)
        assert flag.returncode == 2 and "Error:" not in flag.stderr and f"エラー: {japanese}" in flag.stderr

    en = run(root, *args, env={**env, "GRADER_LANG": "en"})
    assert en.returncode == 2 and f"Error: {english}" in en.stderr and "エラー" not in en.stderr


def test_the_grading_imports_are_frozen_once_and_the_collector_is_back_on(root):
    """``grader grade``, ``check`` and ``validate`` import torch and pytest with the collector off
    and freeze them (about a fifth of a single grade's time): once per process, never again for a
    command run in-process after them, and the collector on for the student-facing rest."""
    code = """if True:
        import gc
        from grader.cli.shared import lasting_imports
        before = gc.get_freeze_count()
        with lasting_imports():
            import grader.grading.runner
        frozen = gc.get_freeze_count()
        garbage = [[i] for i in range(1000)]
        with lasting_imports():
            import grader.grading.runner
        print(before, frozen, gc.get_freeze_count(), gc.isenabled())
    """
    proc = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120)
    before, frozen, again, enabled = proc.stdout.split()
    assert int(before) == 0 and int(frozen) > 100_000  # torch alone makes ~10^6 objects
    assert again == frozen and enabled == "True"
