"""What ``grader batch``, ``check`` and ``validate`` print on the terminal, asked for in Japanese:
every line the grader words itself is Japanese, whole, with no English sentence of its left in
it (``english_left``) and nothing of one sentence spliced into another.

Each test runs the real command (``--lang ja``, or the course's first language, ja).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.ctrl_c import DUMPING_ENV, ctrl_c
from tests.helpers import EXAMPLES, ROOT, RUBRIC, course_copy


def _flat(text: str) -> str:
    return " ".join(text.split())


# --------------------------------------------------------------------------- a misspelt rubric


@pytest.mark.parametrize(("wrong", "right", "said"), [
    ("file: scaling.py", "file: scalling.py",
     "rubrics/chapter07.yaml: parts[0].file: 'scalling.py' は exercises/chapter07 にも solutions/chapter07 にも"
     "ありません。'scaling.py' のことですか。file: scaling.py と書いてください"),
    ("functions: [head_dim,", "functions: [head_dims,",
     "rubrics/chapter07.yaml: parts[0].functions[0]: 'head_dims' は exercises/chapter07/scaling.py にも "
     "solutions/chapter07/scaling.py にも定義されていません。'head_dim' のことですか。head_dim と書いてください"),
    ("hooks: ../suites/chapter07/plugin/hooks.py", "hooks: ../suites/chapter07/plugin/hook.py",
     "rubrics/chapter07.yaml: plugin.hooks: ファイルが見つかりません: suites/chapter07/plugin/hook.py（ルーブリックの"
     "フォルダから見て '../suites/chapter07/plugin/hook.py'）。'hooks.py' のことですか。"
     "hooks: ../suites/chapter07/plugin/hooks.py と書いてください"),
])
def test_a_misspelt_rubric_name_is_said_in_japanese_by_check_batch_and_validate(tmp_path, english_left, wrong,
                                                                                right, said):
    """The problem and its fix are each one Japanese sentence: the fix is not taken into the
    problem's last slot (it was: "'softmx.py' は X and Y; did you mean …? write file: … の
    どちらにもありません")."""
    course = course_copy(tmp_path / "course")
    (course / "rubrics" / "chapter08.yaml").unlink()
    rubric = course / "rubrics" / "chapter07.yaml"
    rubric.write_text(rubric.read_text(encoding="utf-8").replace(wrong, right, 1), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "GRADER_LANG"}
    for args, lang in ((["check", "exercises/chapter07", "--lang", "ja"], {}),
                       (["batch", "exercises", "--out", "out", "--lang", "ja"], {}),
                       (["validate"], {"GRADER_LANG": "ja"})):  # validate has no --lang: $GRADER_LANG
        proc = subprocess.run([sys.executable, "-m", "grader", *args, "--rubric", "rubrics/chapter07.yaml"],
                              cwd=course, capture_output=True, text=True, timeout=300, env={**env, **lang})
        text = _flat(proc.stderr)
        assert proc.returncode == 2, (args, proc.stderr)
        assert text == f"エラー: {said}", (args, text)
        assert english_left(text) == [], (args, text)
        for word in ("neither", "did you mean", "write", "not found"):
            assert word not in text, (args, word, text)
    # in English, the folders are "neither X nor Y"
    proc = subprocess.run([sys.executable, "-m", "grader", "check", "exercises/chapter07", "--lang", "en",
                           "--rubric", "rubrics/chapter07.yaml"], cwd=course, capture_output=True, text=True,
                          timeout=300, env=env)
    text = _flat(proc.stderr)
    if wrong.startswith("file:"):
        assert "'scalling.py' is in neither exercises/chapter07 nor solutions/chapter07; did you mean" in text, text
    elif wrong.startswith("functions:"):
        assert ("'head_dims' is defined in neither exercises/chapter07/scaling.py nor "
                "solutions/chapter07/scaling.py; did you mean 'head_dim'? write head_dim") in text, text
    assert " and " not in text.split(": ", 1)[1], text


# --------------------------------------------------------------------------- the batch's own lines


def _source(dest: Path) -> Path:
    """One submission to grade, one empty upload, one file that is no submission, one broken zip."""
    shutil.copytree(EXAMPLES / "correct", dest / "alice")
    (dest / "empty").mkdir()
    (dest / "readme.txt").write_text("hello\n", encoding="utf-8")
    (dest / "broken.zip").write_bytes(b"PK\x03\x04 not a zip at all")
    return dest


def test_the_batch_says_its_lines_in_japanese(tmp_path, english_left):
    """--lang ja, then --resume in the course's first language (ja), then --lang en: the lines
    the batch words itself (why an entry is not graded, the progress bar, the resume, the last
    line with its counts) in the language asked for."""
    src, out = _source(tmp_path / "src"), tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if k != "GRADER_LANG"}

    def batch(*args: str) -> str:
        proc = subprocess.run([sys.executable, "-m", "grader", "batch", str(src), "--out", str(out), "--rubric",
                               str(RUBRIC), "-j", "1", "--no-table", *args], cwd=tmp_path, capture_output=True,
                              text=True, timeout=600, env=env)
        assert proc.returncode in (0, 1), proc.stderr
        return _flat(proc.stderr)

    first = batch("--lang", "ja")  # with the progress bar: not a terminal, it is drawn once at the end
    assert "empty: 採点していません: 提出物が空です（ファイルがありません）" in first, first
    assert "readme.txt: 採点していません: フォルダ・ノートブック・zip のいずれでもありません" in first, first
    assert "読み取れません: broken.zip: zip ファイルとして読み取れません（" in first, first
    assert "zip を作り直してください（エラーのレポートを書きました）" in first, first
    assert "採点中" in first and "1/1 合格点未満 0 エラー 0 時間切れ 0" in first and "残り" in first, first
    assert ("1 件を採点、0 件は前回の採点のまま、2 件は採点なし（空の提出: 1、提出物ではないもの: 1）、"
            "1 件は読み取れず（エラーのレポートを書きました）、") in first, first
    assert f"秒。成績表: {out / 'gradebook.csv'}" in first, first
    # the gradebook's reasons (kept in both of the rubric's languages) in Japanese only
    assert "empty には成績がありません: 提出物が空です（ファイルがありません）" in first, first
    assert "the upload is empty" not in first, first

    again = batch("--resume", "--no-progress")  # the course's first language: ja
    assert "再開: このルーブリックで採点済みの提出物 1 件は採点し直しません" in again, again
    assert "0 件を採点、1 件は前回の採点のまま、2 件は採点なし（空の提出: 1、提出物ではないもの: 1）" in again, again

    for text in (first, again):
        assert english_left(text) == [], text
        for word in ("graded", "kept from before", "not graded", "unreadable", "cannot read", "gradebook:",
                     "resume:", "below pass", "timeouts", "ETA", "submission(s)", "empty upload"):
            assert word not in text, (word, text)

    english = batch("--resume", "--no-progress", "--lang", "en")
    assert "resume: 1 submission(s) already graded with this rubric; skipped" in english, english
    assert ("0 graded, 1 kept from before, 2 not graded (empty upload: 1, not a submission: 1), "
            "1 unreadable (error reports written), in ") in english, english
    assert "empty: not graded: the upload is empty: no files in it" in english, english
    assert "no grade for empty: the upload is empty: no files in it" in english, english
    assert "提出物" not in english, english


def test_an_interrupted_batch_says_so_in_japanese(tmp_path, monkeypatch, english_left):
    """Ctrl-C: the line naming what is kept and the command that finishes the batch, in Japanese."""
    from click.testing import CliRunner

    from grader import cli

    from grader.workflows import batch

    from grader.engines import local_pool as pool

    monkeypatch.setattr(pool.WorkerProcess, "start_group", staticmethod(lambda *a, **k: []))
    monkeypatch.setattr(batch._Batch, "_grade", lambda self, *a, **k: (True, None))
    src = tmp_path / "src"
    shutil.copytree(EXAMPLES / "correct", src / "alice")
    out = tmp_path / "out"
    result = CliRunner().invoke(cli.main, ["batch", str(src), "--out", str(out), "--rubric", str(RUBRIC),
                                           "--no-progress", "--allow-weak-sandbox", "--lang", "ja"])
    said = _flat(result.stderr)
    assert result.exit_code == 130, said
    assert (f"中断しました: 1 件中 0 件を採点して {out} に残しました。続きは次のコマンドで: grader batch {src} "
            f"--out {out} --rubric {RUBRIC} --lang ja") in said, said
    assert "--resume" in said and "0 件を採点、0 件は前回の採点のまま、0 件は採点なし、" in said, said
    assert english_left(said) == [] and "interrupted:" not in said and "finish with" not in said, said


@pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0,
                    reason="as root, the rlimits level refuses a Python the user nobody cannot read")
def test_a_refused_batch_says_why_in_japanese_whole(english_left):
    """The refusal sits inside three sentences that wrap it (the worker stopped, the sandbox did
    not start, the reports kept and the command to run again): each is Japanese, and the
    refusal's own brackets do not end the first of them (it was cut at its first "(")."""
    from tests.public_python import private_python

    base = Path(tempfile.mkdtemp(prefix="grader-refused-"))
    os.chmod(base, 0o755)  # the worker's interpreter is made here: a place every user can read
    try:
        src, out = base / "src", base / "out"
        shutil.copytree(EXAMPLES / "correct", src / "alice")
        env = {k: v for k, v in os.environ.items() if k not in ("GRADER_WORKER_PYTHON", "GRADER_LANG")}
        env.update(GRADER_SANDBOX="rlimits", GRADER_WORKER_PYTHON=private_python(base))
        proc = subprocess.run([sys.executable, "-m", "grader", "batch", str(src), "--out", str(out), "--rubric",
                               str(RUBRIC), "--allow-weak-sandbox", "--no-progress", "-j", "1", "--lang", "ja"],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    said = _flat(proc.stderr)
    assert proc.returncode == 2, said
    assert "警告: 指定により弱いサンドボックスで採点しました: rlimits のみで、名前空間による隔離はありません" in said, said
    assert ("採点システムのエラー: 採点用プロセスが停止しました: サンドボックスが起動しませんでした: rlimits レベルでは"
            "採点しません: 学生のコードが root として動くことになり、しかも権限のないユーザー nobody が ") in said, said
    assert "にある Python 自身のファイルを読めません。Python、torch、採点システムをすべてのユーザーが" in said, said
    assert "bubblewrap）が動くようにしてください（ログ: " in said, said
    assert f"（終わったレポート 0 件は {out} に残してあります。原因を直してから、もう一度実行してください: grader batch" in said
    assert said.endswith("--resume）"), said
    assert english_left(said) == [], said
    for word in ("refusing", "Install Python", "did not start", "worker stopped", "finished reports", "warning"):
        assert word not in said, (word, said)


# --------------------------------------------------------------------------- check --watch


def test_watch_says_an_unreadable_save_in_japanese(tmp_path, english_left):
    """A notebook caught half-written: check --watch --lang ja says so in Japanese, label too."""
    work = tmp_path / "work"
    work.mkdir()
    notebook = work / "notebook-student.ipynb"
    shutil.copyfile(EXAMPLES / "notebook-student.ipynb", notebook)
    env = {**{k: v for k, v in os.environ.items() if k != "GRADER_LANG"}, **DUMPING_ENV}
    proc = subprocess.Popen([sys.executable, "-m", "grader", "check", "--watch", notebook.name, "--lang", "ja",
                             "--rubric", str(RUBRIC)], cwd=work, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    stdout = proc.stdout
    assert stdout is not None
    os.set_blocking(stdout.fileno(), False)
    seen = b""

    def drain() -> str:
        nonlocal seen
        chunk = stdout.read() or b""
        seen += chunk
        return chunk.decode("utf-8", "replace")

    def wait_for(needle: str, timeout: float = 300) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and proc.poll() is None:
            drain()
            if needle in seen.decode("utf-8", "replace"):
                return
            time.sleep(0.1)
        raise AssertionError(f"{needle!r} never appeared:\n{seen.decode('utf-8', 'replace')[-3000:]}")

    try:
        wait_for("を監視しています")
        mark = len(seen)
        notebook.write_text('{"cells": [\n', encoding="utf-8")
        wait_for("Jupyter で開いて保存し直してください")
    finally:
        ctrl_c(proc, drain)  # stops the warm checker too
    said = _flat(seen[mark:].decode("utf-8", "replace"))
    assert "エラー: notebook-student.ipynb: ノートブックを読み取れません（NotJSONError: " in said, said
    assert english_left(said) == [] and "error:" not in said and "cannot read" not in said, said
