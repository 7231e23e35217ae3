"""The fail-closed rule outside namespaces, run as the two kinds of grader that meet it.

Outside namespaces student code runs as the grader's own user, unless that user is root: then
each child becomes the unprivileged user ``nobody`` (uid 65534) before it runs anything of the
submission, or, where ``nobody`` cannot read the Python that would run it, nothing is graded.

* A grader that is not root (an instructor's own account) can read the hidden suites and the
  reference (it must, to grade with them) and would hand them, the course files and the
  grader's own package to every submission: ``grader grade`` refuses, naming the cause and the
  fix in English and Japanese. ``grader check`` (public suites only: the student's own code on
  the student's own machine) still runs, with the weak-level warning. These tests run the real
  command as the user ``nobody`` (the machine's tests run as root), with an interpreter every
  user can read.
* A grader that is root, with the course in a root-only folder (as in root's home): at the
  ``subprocess`` level a hostile submission graded by ``grader grade`` runs as ``nobody`` and
  reads, writes and signals nothing of root's; with a Python ``nobody`` cannot read, ``grader
  grade`` at that level and ``grader batch --allow-weak-sandbox`` at the ``rlimits`` level refuse
  (exit 2) before any student code runs, and the batch writes no report. The Gradescope layout,
  root at the ``rlimits`` level, is in ``test_gradescope_root.py``.
"""

from __future__ import annotations

import csv
import json
import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from grader.sandbox.uids import STUDENT_UIDS
from tests.helpers import ROOT
from tests.public_python import nobody_can_read, private_python, public_python


pytestmark = pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0,
                                reason="switches to the user nobody to be a grader that is not root")


@pytest.fixture(scope="module")
def pythons() -> Iterator[SimpleNamespace]:
    """In a world-readable folder: an interpreter every user can read (``public``), one whose
    own files nobody cannot read (``private``), and ``base``, the folder itself."""
    base = Path(tempfile.mkdtemp(prefix="grader-fail-closed-"))
    os.chmod(base, 0o755)
    try:
        public = public_python(base)
        if public is None or not nobody_can_read(ROOT / "rubrics" / "chapter07.yaml"):
            pytest.fail("needs a Python and a checkout that every user can read")
        yield SimpleNamespace(base=base, public=public, private=private_python(base))
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def as_nobody(pythons: SimpleNamespace) -> tuple[str, Path]:
    """An interpreter nobody can run, and a folder of nobody's to work in."""
    work = pythons.base / "work"
    work.mkdir()
    shutil.copytree(ROOT / "examples" / "submissions" / "correct", work / "correct")
    nobody = pwd.getpwnam("nobody")
    for path in [work, *work.rglob("*")]:
        os.chown(path, nobody.pw_uid, nobody.pw_gid)
    return pythons.public, work


def _run_as_nobody(python: str, work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    nobody = pwd.getpwnam("nobody")

    def become() -> None:
        os.setgroups([])
        os.setresgid(nobody.pw_gid, nobody.pw_gid, nobody.pw_gid)
        os.setresuid(nobody.pw_uid, nobody.pw_uid, nobody.pw_uid)

    env = {"PATH": "/usr/bin:/bin", "HOME": str(work), "LANG": "C.UTF-8", "GRADER_SANDBOX": "rlimits",
           "TMPDIR": str(work), "PYTHONPATH": str(ROOT)}  # the grader as the course checkout has it
    return subprocess.run([python, "-m", "grader", *args, "--rubric", str(ROOT / "rubrics" / "chapter07.yaml")],
                          cwd=work, env=env, preexec_fn=become, capture_output=True, text=True, timeout=600,
                          check=False)


def test_grade_as_a_user_who_can_read_the_hidden_suites_is_refused(as_nobody: tuple[str, Path]) -> None:
    python, work = as_nobody
    run = _run_as_nobody(python, work, "grade", str(work / "correct"))
    assert run.returncode == 2, (run.stdout[-2000:], run.stderr[-2000:])
    err = " ".join(run.stderr.split())
    assert "refusing to grade at the rlimits level: student code would run as your user (nobody, uid 65534)" in err
    assert "suites" in err and "hidden" in err  # what it could read
    assert "bubblewrap" in err and "as root" in err  # the fix
    assert "採点しません" in err  # and in Japanese: no language was chosen
    assert "score" not in run.stdout.lower()  # nothing was graded


def test_check_of_ones_own_code_still_runs_with_the_warning(as_nobody: tuple[str, Path]) -> None:
    python, work = as_nobody
    run = _run_as_nobody(python, work, "check", str(work / "correct"), "--lang", "en")
    assert run.returncode == 0, (run.stdout[-2000:], run.stderr[-2000:])
    assert "rlimits" in run.stdout + run.stderr


# --------------------------------------------------------------------------- the grader is root


@pytest.fixture
def course() -> Iterator[SimpleNamespace]:
    """Root's course in a root-only folder (as in root's home), root's results folder beside it
    (root-owned, readable by all), and two students' submissions, the first one hostile."""
    made = Path(tempfile.mkdtemp(prefix="grader-as-root-"))
    os.chmod(made, 0o755)
    try:
        home = made / "root-home"
        home.mkdir(mode=0o700)
        course = home / "course"
        for top in ("rubrics", "exercises", "solutions", "suites"):
            shutil.copytree(ROOT / top, course / top, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        results = made / "results"
        results.mkdir(mode=0o755)
        src = made / "submissions"
        for name in ("mallory", "alice"):
            shutil.copytree(ROOT / "examples" / "submissions" / "correct", src / name)
        paths = SimpleNamespace(rubric=course / "rubrics" / "chapter07.yaml", course=course, results=results,
                                src=src, base=made)
        (src / "mallory" / "scaling.py").write_text(_hostile(paths), encoding="utf-8")
        yield paths
    finally:
        shutil.rmtree(made, ignore_errors=True)


def _hostile(paths: SimpleNamespace) -> str:
    """scaling.py that reads root's course files, writes into root's folders and signals root's
    processes, and raises what it got in a visible message (``READ:``, ``WROTE:``,
    ``SIGNALLED:`` mark a success); it also says which user it ran as."""
    reads = {"reference": paths.course / "solutions" / "chapter07" / "scaling.py",
             "hidden": paths.course / "suites" / "chapter07" / "hidden" / "test_scaling.py",
             "rubric": paths.rubric}
    writes = {"course": paths.course / "planted.txt", "results": paths.results / "planted.txt"}
    return textwrap.dedent(f'''
        import os

        def _grab():
            found = ["uid=" + str(os.getuid())]
            for label, path in {json.dumps({k: str(v) for k, v in reads.items()})}.items():
                try:
                    with open(path, encoding="utf-8") as fh:
                        found.append(label + "=READ:" + fh.read()[:200])
                except Exception as exc:
                    found.append(label + "=" + type(exc).__name__)
            for label, path in {json.dumps({k: str(v) for k, v in writes.items()})}.items():
                try:
                    with open(path, "a", encoding="utf-8") as fh:
                        fh.write("planted by the submission")
                    found.append("write-" + label + "=WROTE:" + path)
                except Exception as exc:
                    found.append("write-" + label + "=" + type(exc).__name__)
            refused = 0  # signal 0 to every process of root: would a signal be delivered?
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


def _as_root(level: str, python: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``grader ARGS`` as root, as an instructor runs it, at sandbox ``level`` with ``python``
    running the students' code."""
    env = {**os.environ, "GRADER_SANDBOX": level, "GRADER_WORKER_PYTHON": python}
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=900, check=False)


def _planted(paths: SimpleNamespace) -> list[Path]:
    return [p for p in paths.base.rglob("*planted*")]


def _refusal(run: subprocess.CompletedProcess[str], level: str) -> None:
    """The command stopped with exit status 2, naming the cause and the fix (in English)."""
    assert run.returncode == 2, (run.stdout[-2000:], run.stderr[-3000:])
    err = " ".join(run.stderr.split())
    assert f"refusing to grade at the {level} level: student code would run as root" in err, err
    assert "the unprivileged user nobody cannot read Python's own files" in err, err  # the cause
    assert "GRADER_WORKER_PYTHON" in err and "bubblewrap" in err, err  # and the fixes
    assert "Traceback" not in run.stderr


def test_as_root_at_the_subprocess_level_student_code_runs_as_nobody(
        pythons: SimpleNamespace, course: SimpleNamespace) -> None:
    assert nobody_can_read(pythons.public) and not nobody_can_read(course.rubric)  # the controls
    run = _as_root("subprocess", pythons.public, "grade", str(course.src / "mallory"), "--rubric",
                   str(course.rubric), "--format", "json", "--lang", "en")
    assert run.returncode in (0, 1), run.stderr[-3000:]
    report = json.loads(run.stdout)
    assert report["sandbox"]["level"] == "subprocess"
    user = report["sandbox"]["enforced"]["user"]
    uid = int(re.match(r"uid (\d+) ", user).group(1))  # a user id of this worker's own, no account's
    assert uid in STUDENT_UIDS and "a user of this grading worker alone" in user, user
    seen = json.dumps(report["tests"], ensure_ascii=False)
    assert "EXFIL" in seen  # the hostile code ran, and got nothing
    assert f"uid={uid}" in seen
    for label in ("reference", "hidden", "rubric"):
        assert f"{label}=PermissionError" in seen, label
    for label in ("course", "results"):
        assert f"write-{label}=PermissionError" in seen, label
    assert "READ:" not in seen and "WROTE:" not in seen and _planted(course) == []
    assert "SIGNALLED:" not in seen
    refused = [int(n) for n in re.findall(r"signals refused=(\d+)", seen)]
    assert refused and min(refused) >= 1  # at least the grader that started it
    # the rest of the submission is graded as usual
    softmax = next(p for p in report["parts"] if p["id"] == "softmax")
    assert softmax["score"] == softmax["max_score"]


def test_as_root_at_the_subprocess_level_a_python_nobody_cannot_read_means_no_grading(
        pythons: SimpleNamespace, course: SimpleNamespace) -> None:
    stdlib = subprocess.run([pythons.private, "-I", "-c", "import os; print(os.__file__)"], capture_output=True,
                            text=True, check=True).stdout.strip()
    assert not nobody_can_read(stdlib)  # the control: a private Python
    run = _as_root("subprocess", pythons.private, "grade", str(course.src / "mallory"), "--rubric",
                   str(course.rubric), "--format", "json", "--lang", "en")
    _refusal(run, "subprocess")
    assert "EXFIL" not in run.stdout + run.stderr and '"score"' not in run.stdout  # nothing of it ran
    assert _planted(course) == []


def test_batch_as_root_allowing_the_weak_sandbox_with_a_python_nobody_cannot_read_grades_nobody(
        pythons: SimpleNamespace, course: SimpleNamespace) -> None:
    out = course.results / "chapter07"
    run = _as_root("rlimits", pythons.private, "batch", str(course.src), "--out", str(out), "--rubric",
                   str(course.rubric), "--allow-weak-sandbox", "-j", "1", "--no-progress", "--lang", "en")
    _refusal(run, "rlimits")
    assert "--allow-weak-sandbox" in run.stderr  # the command to run again, once fixed
    # no student was graded: no report, no graded row, and the hostile code never ran
    for folder in (out / "reports", out / ".cache" / "reports"):
        assert not folder.exists() or not any(folder.iterdir()), sorted(folder.iterdir())
    assert not list(out.rglob("*.yaml"))
    if (out / "gradebook.csv").exists():
        with (out / "gradebook.csv").open(encoding="utf-8-sig", newline="") as fh:
            assert list(csv.DictReader(fh)) == []
    assert "EXFIL" not in run.stdout + run.stderr and _planted(course) == []


#: scaling.py of a student who, while graded, looks for other students' files in the temporary folder (where
#: every worker's scratch folder is) for a few seconds, and prints what it read and how often
#: it was refused
_PEEKER = '''
import glob
import os
import time

_TOP = {top!r}  # the grader's temporary folder, where every worker's scratch folder is
_mine = os.path.realpath(os.environ.get("TMPDIR") or os.getcwd())
_seen, _denied = [], 0
_until = time.monotonic() + 8
while time.monotonic() < _until and not _seen:
    # every worker's scratch folder (its own TMPDIR is its scratch)
    for folder in glob.glob(os.path.join(_TOP, "grader-scratch-*")) + glob.glob(os.path.join(_TOP, "grader-spawn-*")):
        if os.path.realpath(folder) == _mine:
            continue
        try:
            os.listdir(folder)
        except OSError:
            _denied += 1
            continue
        for name in glob.glob(os.path.join(folder, "**", "*.py"), recursive=True):
            try:
                with open(name, encoding="utf-8") as fh:
                    _seen.append(os.path.basename(name) + ":" + fh.read(60))
            except OSError:
                _denied += 1
    time.sleep(0.1)
print("PEEKED:" + repr(_seen[:40]) if _seen else "PEEKED: nothing", "DENIED:" + str(_denied))
'''


def test_in_a_batch_as_root_no_student_reads_another_students_files(
        pythons: SimpleNamespace, course: SimpleNamespace) -> None:
    """grader batch -j 2 at the rlimits level, as root: the two workers' students run as two
    different unprivileged users, so what one student's code finds of another student's
    submission in the other worker's scratch folder, while both are graded, it cannot open."""
    src = course.base / "class"
    marker = "# HONEST-WORK-OF-ALICE-7f3a"
    for k in range(8):  # honest work, graded on the other worker while the peeker looks
        shutil.copytree(ROOT / "examples" / "submissions" / "correct", src / f"alice{k}")
        path = src / f"alice{k}" / "scaling.py"
        path.write_text(marker + "\nimport time\ntime.sleep(1)\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    shutil.copytree(ROOT / "examples" / "submissions" / "correct", src / "aaa-peeker")
    path = src / "aaa-peeker" / "scaling.py"
    source = _PEEKER.replace("{top!r}", repr(tempfile.gettempdir()))
    path.write_text(source + path.read_text(encoding="utf-8"), encoding="utf-8")
    out = course.results / "class"
    run = _as_root("rlimits", pythons.public, "batch", str(src), "--out", str(out), "--rubric", str(course.rubric),
                   "--allow-weak-sandbox", "-j", "2", "--no-progress", "--no-table", "--lang", "en")
    assert run.returncode in (0, 1), run.stderr[-3000:]
    peeker = (out / "reports" / "aaa-peeker.yaml").read_text(encoding="utf-8")
    assert "PEEKED" in peeker and "DENIED:" in peeker  # it ran and looked
    assert int(re.search(r"DENIED:(\d+)", peeker).group(1)) > 0  # and found the other worker's files shut
    assert marker not in peeker, peeker[:3000]
    for report in (out / "reports").glob("alice*.yaml"):  # the honest work was graded
        assert "PEEKED" not in report.read_text(encoding="utf-8")
