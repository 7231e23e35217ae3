"""``grader batch``: gradebook, resume, Ctrl-C, -j 1 = -j 2 (real processes)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from tests.helpers import EXAMPLES, FIXTURES, ROOT, read_gradebook, read_report, run_grader


# --------------------------------------------------------------------------- end to end


def _make_source(dest: Path, n: int) -> Path:
    kinds = [EXAMPLES / "correct", EXAMPLES / "divide-by-dk", EXAMPLES / "untouched-stub",
             FIXTURES / "broken-softmax", EXAMPLES / "notebook-student.ipynb", FIXTURES / "correct-zip.zip"]
    dest.mkdir(parents=True)
    for i in range(n):
        src = kinds[i % len(kinds)]
        name = f"s{i:02d}-{src.stem}"
        if src.is_dir():
            shutil.copytree(src, dest / name)
        else:
            shutil.copyfile(src, dest / f"{name}{src.suffix}")
    return dest


def _batch(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """The batch in English (its lines are asserted on; the course's first language is ja)."""
    proc = run_grader("batch", *args, "--no-progress", "--lang", "en", timeout=300)
    if check:
        assert proc.returncode in (0, 1), proc.stderr
    return proc


def _gradebook(out: Path) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = read_gradebook(out)
    return rows


def test_batch_writes_reports_gradebook_summary_and_resumes(graded_class, tmp_path):
    """Every submission gets a report and a gradebook row; --resume regrades only what changed."""
    n = len(graded_class.names)
    out = graded_class.out
    assert f"{n} graded" in graded_class.stderr
    rows = _gradebook(out)
    assert ["submission", "student_id", "name", "lms", "late", "extension", "automatic_score", "late_penalty",
            "adjustment", "score", "adjustment_reasons", "needs_review", "max_score", "passed", "part:scaling",
            "part:softmax", "part:variance", "part:quiz", "mistakes", "errors", "content_hash", "graded_at",
            "flags"] == list(rows[0])
    by_name = {r["submission"]: r for r in rows}
    assert n == len(by_name)
    full = by_name["correct"]
    assert full["score"] == full["max_score"]
    assert float(full["score"]) == sum(float(full[f"part:{p}"]) for p in ("scaling", "softmax", "variance", "quiz"))
    assert 0.0 == float(by_name["untouched-stub"]["score"])
    assert "not-implemented" in by_name["untouched-stub"]["mistakes"]
    assert "SyntaxError" in by_name["broken-softmax"]["errors"]
    assert float(by_name["divide-by-dk"]["score"]) < float(full["score"])
    report = read_report(out, "correct")
    assert full["content_hash"] == report["content_hash"]
    assert graded_class.seed == report["seed"]
    for name in ("summary.en.md", "summary.ja.md", "summary.en.html", "summary.ja.html",
                 "summary/score_histogram.png", "summary/test_pass_rate.png", "summary/mistakes.png"):
        assert (out / name).is_file(), name

    # Resume, in a copy of the class and its folder: nothing changed, nothing regraded.
    src, out = graded_class.copy_source(tmp_path / "src"), graded_class.copy(tmp_path / "out")
    before = {r["submission"]: r["graded_at"] for r in rows}
    time.sleep(1.1)  # graded_at has one-second resolution
    proc = _batch(str(src), "--out", str(out), *graded_class.args, "--resume")
    assert f"0 graded, {n} kept from before" in proc.stderr
    assert before == {r["submission"]: r["graded_at"] for r in _gradebook(out)}

    # Change one submission: only it is graded again.
    with (src / "correct" / "scaling.py").open("a", encoding="utf-8") as fh:
        fh.write("\n# edited\n")
    proc = _batch(str(src), "--out", str(out), *graded_class.args, "--resume")
    assert f"1 graded, {n - 1} kept from before" in proc.stderr
    after = {r["submission"]: r["graded_at"] for r in _gradebook(out)}
    assert [name for name in after if after[name] != before[name]] == ["correct"]


def test_one_and_two_jobs_give_the_same_grades(graded_class, tmp_path):
    """-j 1 and -j 2 grade identically for the same seed (only graded_at differs): the graded
    class (-j 2) graded again with -j 1."""
    i = graded_class.args.index("-j")
    one_job = (*graded_class.args[:i], "-j", "1", *graded_class.args[i + 2:])
    _batch(str(graded_class.source), "--out", str(tmp_path / "j1"), *one_job)
    strip = lambda rows: [{k: v for k, v in r.items() if k != "graded_at"} for r in rows]  # noqa: E731
    assert strip(_gradebook(tmp_path / "j1")) == strip(_gradebook(graded_class.out))


def test_ctrl_c_keeps_finished_reports_and_resume_finishes(tmp_path):
    """SIGINT mid-run: finished reports are whole, no .part files; --resume grades only the rest."""
    n = 12
    src = _make_source(tmp_path / "src", n)
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "grader", "batch", str(src), "--out", str(out),
                             "-j", "1", "--seed", "3", "--no-progress"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if len(list((out / "reports").glob("*.yaml"))) >= 2 if (out / "reports").is_dir() else False:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert 130 == proc.returncode, err
    assert "--resume" in err
    done = sorted((out / "reports").glob("*.yaml"))
    assert 2 <= len(done) < n
    for path in done:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert data["content_hash"] and data["tests"]
    assert [] == [p for p in out.rglob("*.part")]
    assert len(done) == len(_gradebook(out))

    resumed = _batch(str(src), "--out", str(out), "-j", "1", "--seed", "3", "--resume")
    assert f"{n - len(done)} graded, {len(done)} kept from before" in resumed.stderr
    assert n == len(_gradebook(out))
    assert n == len(list((out / "reports").glob("*.yaml")))


def _batch_workers() -> set[int]:
    """Every running batch worker started from this checkout (forked ones are nobody's child here)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            try:  # this checkout's workers only: other batches may run on the same machine
                here = os.readlink(entry / "cwd") == str(ROOT)
            except OSError:
                continue
            if b"grader.engines.batch_worker" in cmdline and here:
                found.add(int(entry.name))
    return found


@pytest.mark.alone
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
def test_workers_started_early_are_stopped_when_the_source_is_bad(tmp_path):
    """Workers start before the submissions are found; a bad source leaves none running."""
    from grader.workflows.batch import run_batch
    from grader.errors import UsageError
    from grader.spec.rubric.load import load_rubric

    before = _batch_workers()
    with pytest.raises(UsageError):
        run_batch(str(tmp_path / "no-such-folder"), str(tmp_path / "out"),
                  load_rubric(ROOT / "rubrics/chapter07.yaml"), jobs=2, allow_weak=True, progress=False)
    deadline = time.monotonic() + 10
    while _batch_workers() - before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _batch_workers() - before == set()


@pytest.mark.alone
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
def test_forked_workers_grade_and_leave_nothing_running(tmp_path):
    """With -j 2 the first worker forks the second: both grade, and both are gone at the end,
    also when there are fewer submissions than workers."""
    before = _batch_workers()
    src = _make_source(tmp_path / "src", 6)
    _batch(str(src), "--out", str(tmp_path / "out"), "-j", "2")
    rows = _gradebook(tmp_path / "out")
    assert len(rows) == 6
    logs = (tmp_path / "out" / ".logs" / "worker-0.log")
    assert logs.exists()
    one = tmp_path / "one"
    one.mkdir()
    shutil.copytree(EXAMPLES / "correct", one / "only")
    _batch(str(one), "--out", str(tmp_path / "out1"), "-j", "2")
    assert [(r["score"] == r["max_score"]) for r in _gradebook(tmp_path / "out1")] == [True]
    assert _batch_workers() - before == set()


def test_large_submissions_do_not_stall_the_pipes(tmp_path):
    """Chunks queued ahead of a worker (each far over a pipe's 64 KiB) while its reports flow
    back: neither side may block on a full pipe that the other is not reading."""
    src = tmp_path / "src"
    src.mkdir()
    padding = "# " + "x" * 98 + "\n"
    for i in range(6):
        dest = src / f"big{i}"
        shutil.copytree(EXAMPLES / "correct", dest)
        with (dest / "scaling.py").open("a", encoding="utf-8") as fh:
            fh.write(padding * 1500)  # ~150 KB of comment per submission
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "grader", "batch", str(src), "--out", str(out), "-j", "1",
                           "--no-progress"], cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    rows = _gradebook(out)
    assert len(rows) == 6 and all(r["score"] == r["max_score"] for r in rows)


def test_the_batchs_own_process_never_loads_torch(tmp_path):
    """Only the grading processes need torch: ``grader batch``'s own process discovers, writes
    reports in every format (an error report too; HTML pages, whose figures hook lives in the
    plug-in that imports torch, draw nothing for a report without plots), grades the validate
    corpus beside the class (reading the reference's answer key as data) and writes the gradebook
    without it, leaving the CPU to grading; ``grader publish`` writes the views again without it."""
    course = tmp_path / "course"
    for name in ("rubrics", "exercises", "suites", "solutions"):
        shutil.copytree(ROOT / name, course / name, ignore=shutil.ignore_patterns("__pycache__"))
    rubric = course / "rubrics" / "chapter07.yaml"
    text = rubric.read_text(encoding="utf-8")
    assert text.count("formats: [yaml]") == 1
    rubric.write_text(text.replace("formats: [yaml]", "formats: [yaml, json, gradescope, junit, markdown, html]"),
                      encoding="utf-8")
    src = tmp_path / "src"
    src.mkdir()
    shutil.copytree(EXAMPLES / "correct", src / "correct")
    (src / "broken.zip").write_bytes(b"not a zip")  # an entry that needs an error report
    probe = ("import atexit, runpy, sys\n"
             "atexit.register(lambda: print('TORCH', 'torch' in sys.modules, file=sys.stderr))\n"
             "sys.argv = ['grader', *sys.argv[1:]]\n"
             "runpy.run_module('grader', run_name='__main__', alter_sys=True)\n")
    out = tmp_path / "out"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}  # the validate corpus is graded too
    proc = subprocess.run([sys.executable, "-c", probe, "batch", str(src), "--out", str(out), "--rubric", str(rubric),
                           "--no-progress", "--no-table", "--lang", "en"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    assert "1 graded" in proc.stderr and "correct styles" in proc.stderr, proc.stderr
    assert "broken.zip" in (out / "gradebook.csv").read_text(encoding="utf-8")
    assert {p.suffix for p in (out / "reports").iterdir()} >= {".yaml", ".json", ".xml", ".md", ".html"}
    assert "TORCH False" in proc.stderr, proc.stderr
    published = subprocess.run([sys.executable, "-c", probe, "publish", str(out), "--rubric", str(rubric)],
                               cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    assert published.returncode == 0, published.stderr
    assert "TORCH False" in published.stderr, published.stderr
