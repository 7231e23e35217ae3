"""Gradescope as it runs: as root, and here with namespaces turned off (GRADER_SANDBOX=rlimits).

A hostile submission tries to read the reference solution, the hidden suites, the rubric, the
results folder, the grader's environment and its parent's environment, to write into the
results, the course files, the grader's own package and the submission folder, and to signal
the grader's processes, and puts what it got into a visible message. The autograder must give it nothing:
the student's code runs as an unprivileged user and the course files and results are
root-only. With a Python that user cannot read, the autograder refuses to grade (fail closed)
instead of running the student's code as root.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.sandbox.uids import STUDENT_UIDS
from click.testing import CliRunner

from grader.cli import main
from tests.helpers import ROOT, RUBRIC
from tests.public_python import nobody_can_read as _as_nobody_can_read
from tests.public_python import private_python, public_python


SECRET = "grader-secret-token-3141"

pytestmark = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                                reason="Gradescope runs the autograder as root; this test must too")


def _hostile(root: Path) -> str:
    """scaling.py that reads, writes and signals what it must not, and raises what it got in a
    visible message (``WROTE:``/``READ:``/``SIGNALLED:`` mark a success)."""
    source = root / "source"
    reads = {
        "reference": source / "solutions" / "chapter07" / "scaling.py",
        "hidden": next((source / "suites" / "chapter07" / "hidden").glob("test_*.py")),
        "rubric": source / "rubrics" / "chapter07.yaml",
        # the grader's own stderr, open in results/ while it grades
        "results": root / "results" / "grader-stderr.txt",
    }
    writes = {  # the results, the course files, the grader's own package, the submission, the layout
        "results": root / "results" / "results.json",
        "results-new": root / "results" / "planted.txt",
        "source": source / "planted.txt",
        "package": source / "grader" / "planted.py",
        "submission": root / "submission" / "planted.txt",
        "layout": root / "planted.txt",
    }
    return textwrap.dedent(f'''
        import os

        def _grab():
            found = []
            for label, path in {json.dumps({k: str(v) for k, v in reads.items()})}.items():
                try:
                    with open(path, encoding="utf-8") as fh:
                        found.append(label + "=READ:" + fh.read()[:400])
                except Exception as exc:
                    found.append(label + "=" + type(exc).__name__)
            for label, path in {json.dumps({k: str(v) for k, v in writes.items()})}.items():
                try:
                    with open(path, "a", encoding="utf-8") as fh:
                        fh.write("planted by the submission")
                    found.append("write-" + label + "=WROTE:" + path)
                except Exception as exc:
                    found.append("write-" + label + "=" + type(exc).__name__)
            try:
                found.append("list-results=READ:" + ",".join(os.listdir({str(root / "results")!r})))
            except Exception as exc:
                found.append("list-results=" + type(exc).__name__)
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
            # every process of root (the zygote, the grader, the script): signal 0 asks the
            # kernel whether a signal would be delivered, without sending one
            refused = 0
            for pid in [int(p) for p in os.listdir("/proc") if p.isdigit()]:
                try:
                    with open(f"/proc/{{pid}}/status") as fh:
                        uid = [line.split()[1] for line in fh if line.startswith("Uid:")][0]
                except Exception:
                    continue
                if uid != "0":
                    continue
                try:
                    os.kill(pid, 0)
                    found.append(f"SIGNALLED:{{pid}}")
                except PermissionError:
                    refused += 1
                except ProcessLookupError:
                    pass
            found.append(f"signals refused={{refused}}")
            found.append("uid=" + str(os.getuid()))
            try:
                with open("marker-outside.txt", "w") as fh:  # its own scratch: allowed
                    fh.write("x")
                found.append("scratch=writable")
            except Exception as exc:
                found.append("scratch=" + type(exc).__name__)
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


def _layout(base: Path, autograder: Path) -> Path:
    """A Gradescope layout under ``base`` (world-readable, as /autograder is): the unzipped
    autograder in source/, the hostile submission in submission/; returns the root."""
    root = base / "autograder"
    source, submission = root / "source", root / "submission"
    source.mkdir(parents=True)
    submission.mkdir()
    with zipfile.ZipFile(autograder) as zf:
        zf.extractall(source)
    for path in [source, *source.rglob("*")]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)  # as unzip leaves them
    correct = ROOT / "examples" / "submissions" / "correct"
    for f in ("softmax.py", "variance.py", "answers.yaml"):
        shutil.copy(correct / f, submission / f)
    (submission / "scaling.py").write_text(_hostile(root), encoding="utf-8")
    return root


def _run_autograder(root: Path, python: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_PYTHON": python,
           "GRADER_SANDBOX": "rlimits", "GRADER_TEST_SECRET": SECRET}
    for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GRADER_WORKER_PYTHON"):
        env.pop(name, None)  # the worker runs the autograder's own Python, as on Gradescope
    return subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env, capture_output=True,
                          text=True, timeout=900, check=False)


def _planted(root: Path) -> list[Path]:
    return [p for p in root.rglob("*planted*")]


@pytest.fixture(scope="module")
def autograder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    built = CliRunner().invoke(main, ["gradescope", str(out), "--rubric", str(RUBRIC), "--lang", "en"])
    assert built.exit_code == 0, built.output
    assert "nobody" in built.output and "extra_data.sandbox" in built.output  # the level and how to check
    assert "refused" in built.output  # and that a Python nobody cannot read means no grading
    return out / "autograder.zip"


@pytest.fixture
def base() -> Iterator[Path]:
    # A world-readable place, as /autograder is in the Gradescope image (pytest's own is root-only).
    made = Path(tempfile.mkdtemp(prefix="gradescope-root-"))
    os.chmod(made, 0o755)
    try:
        yield made
    finally:
        shutil.rmtree(made, ignore_errors=True)


def test_a_python_nobody_cannot_read_means_no_grading(autograder: Path, base: Path) -> None:
    root = _layout(base, autograder)
    python = private_python(base)
    stdlib = subprocess.run([python, "-I", "-c", "import numpy, os; print(os.__file__); print(numpy.__file__)"],
                            capture_output=True, text=True, check=True).stdout.split()
    assert not all(_as_nobody_can_read(p) for p in stdlib)  # the control: a private Python

    run = _run_autograder(root, python)
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    # the student sees that grading did not finish; the instructor sees the cause and the fix
    assert results["score"] == 0.0
    assert results["tests"][0]["name"].startswith("Grading did not finish")
    instructors = results["tests"][1]["output"]
    assert results["tests"][1]["visibility"] == "hidden"
    assert "refusing to grade at the rlimits level: student code would run as root" in instructors
    assert "nobody cannot read Python's own files" in instructors
    assert "GRADER_WORKER_PYTHON" in instructors and "bubblewrap" in instructors
    assert "採点しません" in instructors  # in Japanese too: the language was not chosen
    # and the student's code never ran: nothing planted, nothing read
    assert "EXFIL" not in json.dumps(results)
    assert _planted(root) == []


def test_without_namespaces_a_submission_reads_writes_and_signals_nothing(autograder: Path, base: Path) -> None:
    root = _layout(base, autograder)
    source = root / "source"
    reference = source / "solutions" / "chapter07" / "scaling.py"
    assert _as_nobody_can_read(reference)  # the control: before the script, anyone could

    python = public_python(base)
    if python is None:
        pytest.fail(f"needs a Python {sys.version_info.major}.{sys.version_info.minor} that every user "
                    "can read (as on Gradescope): install it")
    run = _run_autograder(root, python)
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
    user = results["extra_data"]["sandbox"]["user"]
    uid = int(re.match(r"uid (\d+) ", user).group(1))  # a user id of this worker's own, no account's
    assert uid in STUDENT_UIDS and "a user of this grading worker alone" in user, user
    # the hostile code ran (its message is in the report, Markdown-escaped) and got nothing
    seen = "\n".join([results.get("output", ""), *(t.get("output", "") for t in results["tests"])])
    seen = seen.replace("\\", "")
    assert "EXFIL" in seen
    assert f"uid={uid}" in seen
    assert "reference=PermissionError" in seen and "hidden=PermissionError" in seen
    assert "rubric=PermissionError" in seen
    assert "results=PermissionError" in seen and "list-results=PermissionError" in seen  # nor the results
    assert "env=clean" in seen and "LEAKED" not in seen and "READ:" not in seen
    # it wrote nothing outside its scratch (where it could), signalled none of root's processes
    for label in ("results", "results-new", "source", "package", "submission", "layout"):
        assert f"write-{label}=PermissionError" in seen, label
    assert "WROTE:" not in seen and _planted(root) == []
    assert "scratch=writable" in seen
    assert "SIGNALLED:" not in seen
    refused = [int(n) for n in re.findall(r"signals refused=(\d+)", seen)]
    assert refused and min(refused) >= 3  # at least the zygote, the grader and the script
    assert SECRET not in text
    for line in reference.read_text(encoding="utf-8").splitlines():
        if len(line.strip()) > 30:  # no line of the reference shows up anywhere
            assert line.strip().replace("\\", "") not in seen
    # the rest of the submission is still graded normally
    assert results["extra_data"]["parts"]["softmax"]["score"] == results["extra_data"]["parts"]["softmax"]["max_score"]
    # and after the script, root-only: nobody cannot read the course files or the results
    assert not _as_nobody_can_read(reference)
    assert not _as_nobody_can_read(results_file)


def test_setup_sh_checks_that_nobody_can_import_python(autograder: Path, base: Path) -> None:
    """The image build stops with a reason where nobody cannot import numpy and torch."""
    with zipfile.ZipFile(autograder) as zf:
        setup = zf.read("setup.sh").decode("utf-8")
    check = next(line for line in setup.splitlines() if "runuser -u nobody" in line)
    public, private = public_python(base), private_python(base)
    assert public is not None
    for python, ok in ((public, True), (private, False)):
        line = check.replace('"$(command -v python3)"', python)
        assert line != check
        script = f"{line}\n  echo refused; exit 1\nfi\necho ok\n"
        run = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=False)
        assert (run.returncode == 0) == ok, (python, run.stdout, run.stderr)
