"""Gradescope as it runs: as root, and here with namespaces turned off (GRADER_SANDBOX=rlimits).

A hostile submission tries to read the reference solution, the hidden suites, the rubric, the
grader's environment and its parent's environment, and to put what it found into a visible
message. The autograder must give it nothing: the student's code runs as an unprivileged user
and the course files and results are root-only.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader.cli import main

ROOT = Path(__file__).resolve().parent.parent
RUBRIC = ROOT / "rubrics" / "chapter07.yaml"
SECRET = "grader-secret-token-3141"

pytestmark = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                                reason="Gradescope runs the autograder as root; this test must too")


def _hostile(source: Path) -> str:
    """scaling.py that reads what it must not and raises it in a visible message."""
    targets = {
        "reference": source / "solutions" / "chapter07" / "scaling.py",
        "hidden": next((source / "suites" / "chapter07" / "hidden").glob("test_*.py")),
        "rubric": source / "rubrics" / "chapter07.yaml",
    }
    return textwrap.dedent(f'''
        import os

        def _grab():
            found = []
            for label, path in {json.dumps({k: str(v) for k, v in targets.items()})}.items():
                try:
                    with open(path, encoding="utf-8") as fh:
                        found.append(label + "=READ:" + fh.read()[:400])
                except Exception as exc:
                    found.append(label + "=" + type(exc).__name__)
            found.append("env=" + ("LEAKED" if "{SECRET}" in repr(dict(os.environ)) else "clean"))
            opened = denied = 0
            for pid in [p for p in os.listdir("/proc") if p.isdigit()]:  # the grader's processes too
                try:
                    with open(f"/proc/{{pid}}/environ", "rb") as fh:
                        data = fh.read()
                    opened += 1
                    if b"{SECRET}" in data:
                        found.append("proc=LEAKED")
                except Exception:
                    denied += 1
            found.append(f"proc environ: {{opened}} read, {{denied}} denied")
            found.append("uid=" + str(os.getuid()))
            return " | ".join(found)

        def head_dim(d_model, n_heads):
            raise RuntimeError("EXFIL " + _grab())

        def scaling_factor(d_k):
            raise RuntimeError("EXFIL " + _grab())

        def scale_scores(scores, d_k):
            raise RuntimeError("EXFIL " + _grab())

        def attention_scores(q, k):
            raise RuntimeError("EXFIL " + _grab())

        def multihead_attention_scores(x, w_q, w_k, n_heads):
            raise RuntimeError("EXFIL " + _grab())
    ''')


def _as_nobody_can_read(path: Path) -> bool:
    """Whether user nobody can open ``path`` (a forked copy of this process switches to it)."""
    nobody = pwd.getpwnam("nobody")
    pid = os.fork()
    if pid == 0:  # the copy: become nobody, try, report by exit status only
        code = 2
        try:
            os.setgroups([])
            os.setresgid(nobody.pw_gid, nobody.pw_gid, nobody.pw_gid)
            os.setresuid(nobody.pw_uid, nobody.pw_uid, nobody.pw_uid)
            with open(path, "rb") as fh:
                fh.read(1)
            code = 0
        except OSError:
            code = 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def _public_python(base: Path) -> str:
    """An interpreter every user can read, as the Gradescope image's system Python is: this
    one, or a venv (in ``base``) over a system Python of the same version that sees this
    one's packages. (A Python inside a root-only home cannot be run as nobody at all.)"""
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    candidates = [sys.executable, getattr(sys, "_base_executable", sys.executable),
                  shutil.which(f"python{version}") or "", f"/usr/bin/python{version}"]
    for python in dict.fromkeys(c for c in candidates if c and Path(c).exists()):
        stdlib = subprocess.run([python, "-I", "-c", "import os; print(os.__file__)"], capture_output=True,
                                text=True, check=False).stdout.strip()
        if not stdlib or not _as_nobody_can_read(Path(stdlib)):
            continue
        if python == sys.executable:
            return python
        venv = base / "python"
        subprocess.run([python, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True)
        [site] = list((venv / "lib").glob("python*/site-packages"))
        paths = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
        (site / "course.pth").write_text("\n".join(paths) + "\n", encoding="utf-8")
        return str(venv / "bin" / "python")
    pytest.fail(f"needs a Python {version} that every user can read (as on Gradescope): install python{version}")


@pytest.mark.slow
def test_without_namespaces_a_submission_reads_none_of_the_secrets(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    built = CliRunner().invoke(main, ["gradescope", str(out), "--rubric", str(RUBRIC)])
    assert built.exit_code == 0, built.output
    assert "nobody" in built.output and "extra_data.sandbox" in built.output  # the level and how to check

    # A world-readable place, as /autograder is in the Gradescope image (pytest's own is root-only).
    base = Path(tempfile.mkdtemp(prefix="gradescope-root-"))
    try:
        os.chmod(base, 0o755)
        root = base / "autograder"
        source, submission = root / "source", root / "submission"
        source.mkdir(parents=True)
        submission.mkdir()
        with zipfile.ZipFile(out / "autograder.zip") as zf:
            zf.extractall(source)
        for path in [source, *source.rglob("*")]:
            os.chmod(path, 0o755 if path.is_dir() else 0o644)  # as unzip leaves them
        reference = source / "solutions" / "chapter07" / "scaling.py"
        assert _as_nobody_can_read(reference)  # the control: before the script, anyone could

        correct = ROOT / "examples" / "submissions" / "correct"
        for f in ("softmax.py", "variance.py", "answers.yaml"):
            shutil.copy(correct / f, submission / f)
        (submission / "scaling.py").write_text(_hostile(source), encoding="utf-8")

        python = _public_python(base)
        env = {**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_PYTHON": python,
               "GRADER_SANDBOX": "rlimits", "GRADER_TEST_SECRET": SECRET}
        env.pop("GITHUB_ACTIONS", None)
        env.pop("GITHUB_STEP_SUMMARY", None)
        run = subprocess.run(["bash", str(source / "run_autograder")], env=env, capture_output=True, text=True,
                             timeout=900, check=False)
        assert run.returncode == 0, run.stderr[-3000:]
        results_file = root / "results" / "results.json"
        text = results_file.read_text(encoding="utf-8")
        results = json.loads(text)
        keep = os.environ.get("GRADER_KEEP_SCREENSHOTS")  # (to show the report elsewhere)
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            shutil.copyfile(results_file, Path(keep) / "hostile-results.json")

        # graded at the weak level, as the unprivileged user
        assert results["extra_data"]["sandbox"]["level"] == "rlimits"
        assert results["extra_data"]["sandbox"]["user"].startswith("nobody"), results["extra_data"]["sandbox"]
        # the hostile code ran (its message is in the report, Markdown-escaped) and got nothing
        seen = "\n".join([results.get("output", ""), *(t.get("output", "") for t in results["tests"])])
        seen = seen.replace("\\", "")
        assert "EXFIL" in seen
        assert "reference=PermissionError" in seen and "hidden=PermissionError" in seen
        assert "rubric=PermissionError" in seen
        assert "env=clean" in seen and "LEAKED" not in seen and "READ:" not in seen
        assert f"uid={pwd.getpwnam('nobody').pw_uid}" in seen
        assert SECRET not in text
        for line in reference.read_text(encoding="utf-8").splitlines():
            if len(line.strip()) > 30:  # no line of the reference shows up anywhere
                assert line.strip().replace("\\", "") not in seen
        # the rest of the submission is still graded normally
        assert results["extra_data"]["parts"]["softmax"]["score"] == results["extra_data"]["parts"]["softmax"]["max_score"]
        # and after the script, root-only: nobody cannot read the course files or the results
        assert not _as_nobody_can_read(reference)
        assert not _as_nobody_can_read(results_file)
    finally:
        shutil.rmtree(base, ignore_errors=True)
