"""``grader batch``: discovery, gradebook, resume, Ctrl-C, -j 1 = -j 2 (real processes)."""

from __future__ import annotations

import csv
import os
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
import yaml

from grader.ingest.discovery import find_submissions, student_id_of

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "submissions"
FIXTURES = ROOT / "tests" / "fixtures" / "submissions"


def _zip_folder(folder: Path, archive: zipfile.ZipFile, prefix: str) -> None:
    for f in sorted(folder.iterdir()):
        if f.is_file():
            archive.write(f, f"{prefix}{f.name}")


# --------------------------------------------------------------------------- discovery


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ("Taro Yamada_12345_assignsubmission_file_", "12345"),
        ("Hanako Sato_777_assignsubmission_onlinetext_", "777"),
        ("yamadataro_12345_67890_chapter07.zip", "12345"),
        ("yamadataro_LATE_12345_67890_chapter07.ipynb", "12345"),
        ("alice.zip", "alice"),
        ("bob", "bob"),
    ],
)
def test_student_id_comes_from_the_lms_naming(entry, expected):
    """Moodle and Canvas entry names carry the student id; other names are their own id."""
    assert expected == student_id_of(entry)


def test_folder_discovery_finds_folders_notebooks_zips_and_lists_the_rest(tmp_path):
    """Folders, notebooks and zips are found; OS junk is silent; anything else is listed."""
    src = tmp_path / "src"
    src.mkdir()
    shutil.copytree(EXAMPLES / "correct", src / "alice")
    shutil.copyfile(EXAMPLES / "notebook-student.ipynb", src / "bob.ipynb")
    shutil.copyfile(FIXTURES / "correct-zip.zip", src / "carol.zip")
    (src / ".DS_Store").write_bytes(b"\0\0\0\1Bud1")
    (src / "__MACOSX").mkdir()
    (src / "__MACOSX" / "._alice").write_bytes(b"junk")
    (src / "notes.txt").write_text("hello")
    (src / "empty").mkdir()
    (src / "bad.zip").write_bytes(b"not a zip")
    found = find_submissions(src, tmp_path / "out" / ".sources")
    assert ["alice", "bob", "carol"] == [f.submission.name for f in found.found]
    assert ["folder", "notebook", "zip"] == [f.submission.origin for f in found.found]
    listed = sorted(entry for entry, _ in found.unrecognised)
    assert ["empty", "notes.txt"] == listed
    # a zip that cannot be read is a submission that failed: it gets an error report
    assert [("bad", "bad", "bad.zip")] == [f[:3] for f in found.failed]
    assert "not a readable zip file" in found.failed[0][3]


def test_moodle_export_zip_takes_ids_from_the_names(tmp_path):
    """A Moodle export: one folder per student, id from the folder name, __MACOSX skipped."""
    export = tmp_path / "moodle.zip"
    with zipfile.ZipFile(export, "w") as zf:
        _zip_folder(EXAMPLES / "correct", zf, "Taro Yamada_12345_assignsubmission_file_/")
        _zip_folder(EXAMPLES / "divide-by-dk", zf, "Hanako Sato_23456_assignsubmission_file_/")
        zf.writestr("__MACOSX/Taro Yamada_12345_assignsubmission_file_/._scaling.py", b"junk")
        zf.writestr("Jiro Suzuki_34567_assignsubmission_file_/report.pdf", b"%PDF")
    found = find_submissions(export, tmp_path / "out" / ".sources")
    ids = {f.student_id: f.submission.name for f in found.found}
    assert {"12345": "Taro_Yamada_12345", "23456": "Hanako_Sato_23456"} == ids
    assert {"Taro Yamada", "Hanako Sato"} == {f.name for f in found.found}
    assert ["Jiro Suzuki_34567_assignsubmission_file_"] == [e for e, _ in found.unrecognised]


def test_canvas_export_zip_handles_zips_notebooks_and_flattened_files(tmp_path):
    """A Canvas export: student zips and notebooks, and loose files regrouped per student."""
    export = tmp_path / "canvas.zip"
    with zipfile.ZipFile(export, "w") as zf:
        zf.write(FIXTURES / "correct-zip.zip", "yamadataro_12345_67890_chapter07.zip")
        zf.write(EXAMPLES / "notebook-student.ipynb", "satohanako_23456_67891_chapter07.ipynb")
        for f in ("scaling.py", "softmax.py", "variance.py", "answers.yaml"):
            zf.write(EXAMPLES / "correct" / f, f"suzukiichiro_34567_6789{len(f)}_{f}")
        zf.writestr(".DS_Store", b"junk")
    found = find_submissions(export, tmp_path / "out" / ".sources")
    by_id = {f.student_id: f.submission for f in found.found}
    assert {"12345", "23456", "34567"} == set(by_id)
    assert "notebook" == by_id["23456"].kind
    assert 3 == len(by_id["34567"].modules)
    assert by_id["34567"].answers is not None
    assert [] == found.unrecognised


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
    proc = subprocess.run([sys.executable, "-m", "grader", "batch", *args, "--no-progress", "--lang", "en"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    if check:
        assert proc.returncode in (0, 1), proc.stderr
    return proc


def _gradebook(out: Path) -> list[dict[str, str]]:
    with (out / "gradebook.csv").open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.slow
def test_batch_writes_reports_gradebook_summary_and_resumes(tmp_path):
    """Every submission gets a report and a gradebook row; --resume regrades only what changed."""
    src = _make_source(tmp_path / "src", 6)
    out = tmp_path / "out"
    proc = _batch(str(src), "--out", str(out), "-j", "2", "--seed", "5")
    assert "6 graded" in proc.stderr
    rows = _gradebook(out)
    assert ["submission", "student_id", "name", "lms", "late", "score", "automatic_score", "adjustment",
            "adjustment_reasons", "max_score", "passed", "part:scaling", "part:softmax", "part:variance",
            "part:quiz", "late_penalty", "mistakes", "errors", "content_hash", "graded_at", "flags"] == list(rows[0])
    by_name = {r["submission"]: r for r in rows}
    assert 6 == len(by_name)
    full = by_name["s00-correct"]
    assert full["score"] == full["max_score"]
    assert float(full["score"]) == sum(float(full[f"part:{p}"]) for p in ("scaling", "softmax", "variance", "quiz"))
    assert 0.0 == float(by_name["s02-untouched-stub"]["score"])
    assert "not-implemented" in by_name["s02-untouched-stub"]["mistakes"]
    assert "SyntaxError" in by_name["s03-broken-softmax"]["errors"]
    assert float(by_name["s01-divide-by-dk"]["score"]) < float(full["score"])
    report = yaml.safe_load((out / "reports" / "s00-correct.yaml").read_text(encoding="utf-8"))
    assert full["content_hash"] == report["content_hash"]
    assert 5 == report["seed"]
    for name in ("summary.en.md", "summary.ja.md", "summary.en.html", "summary.ja.html",
                 "summary/score_histogram.png", "summary/test_pass_rate.png", "summary/mistakes.png"):
        assert (out / name).is_file(), name

    # Resume: nothing changed, nothing regraded.
    before = {r["submission"]: r["graded_at"] for r in rows}
    time.sleep(1.1)  # graded_at has one-second resolution
    proc = _batch(str(src), "--out", str(out), "-j", "2", "--seed", "5", "--resume")
    assert "0 graded, 6 kept from before" in proc.stderr
    assert before == {r["submission"]: r["graded_at"] for r in _gradebook(out)}

    # Change one submission: only it is graded again.
    with (src / "s00-correct" / "scaling.py").open("a", encoding="utf-8") as fh:
        fh.write("\n# edited\n")
    proc = _batch(str(src), "--out", str(out), "-j", "2", "--seed", "5", "--resume")
    assert "1 graded, 5 kept from before" in proc.stderr
    after = {r["submission"]: r["graded_at"] for r in _gradebook(out)}
    assert [n for n in after if after[n] != before[n]] == ["s00-correct"]


@pytest.mark.slow
def test_one_and_two_jobs_give_the_same_grades(tmp_path):
    """-j 1 and -j 2 grade identically for the same seed (only graded_at differs)."""
    src = _make_source(tmp_path / "src", 6)
    _batch(str(src), "--out", str(tmp_path / "j1"), "-j", "1", "--seed", "9")
    _batch(str(src), "--out", str(tmp_path / "j2"), "-j", "2", "--seed", "9")
    strip = lambda rows: [{k: v for k, v in r.items() if k != "graded_at"} for r in rows]  # noqa: E731
    assert strip(_gradebook(tmp_path / "j1")) == strip(_gradebook(tmp_path / "j2"))


@pytest.mark.slow
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


def test_ctrl_c_during_a_write_waits_for_its_end_whatever_thread_it_reaches():
    """A report being written is finished before Ctrl-C stops the batch, also while another
    thread runs (the batch loads matplotlib in one while it grades): the kernel hands a signal
    the main thread blocks to that thread, and Python then raises in the main thread at once."""
    import threading

    from grader.workflows.batch import _whole

    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    hold = threading.Event()
    other = threading.Thread(target=hold.wait, daemon=True)
    other.start()
    steps = []
    try:
        with pytest.raises(KeyboardInterrupt):
            with _whole():
                os.kill(os.getpid(), signal.SIGINT)
                for step in range(5):  # the write goes on: bytecode runs, time passes
                    time.sleep(0.02)
                    steps.append(step)
        assert steps == [0, 1, 2, 3, 4]
        with _whole():  # and a block without Ctrl-C raises nothing
            steps.append(5)
    finally:
        hold.set()
        other.join()
        signal.signal(signal.SIGINT, old)
    assert steps[-1] == 5


def test_weak_sandbox_is_refused_without_the_flag(tmp_path, monkeypatch):
    """Without namespaces, batch stops with a usage error unless --allow-weak-sandbox."""
    from grader.errors import UsageError
    from grader.workflows.batch import run_batch
    from grader.spec.rubric.load import load_rubric
    from grader.sandbox import backends

    monkeypatch.setattr(backends, "namespaces_available", lambda: (False, "no bwrap here"))
    src = _make_source(tmp_path / "src", 1)
    with pytest.raises(UsageError, match="allow-weak-sandbox"):
        run_batch(str(src), str(tmp_path / "out"), load_rubric(ROOT / "rubrics/chapter07.yaml"))
    assert not os.path.exists(tmp_path / "out" / "gradebook.csv")


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


@pytest.mark.slow
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


@pytest.mark.slow
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


def test_the_progress_bar_counts_the_class_not_the_corpus_graded_beside_it():
    """Reports of the validate corpus (graded beside the class for the item analysis) neither
    advance the bar nor enter its counts; the class's reports do."""
    from rich.console import Console

    from grader.engines.local_pool import Tally
    from grader.report.model import GradeReport

    def report(score: float) -> GradeReport:
        return GradeReport.from_dict({"assignment": "a", "submission": "s", "score": score, "max_score": 10, "passed": score >= 5,
                                      "tests": [], "errors": []})

    corpus = report(0)
    aside = {id(corpus)}
    tally = Tally(2, Console(file=open(os.devnull, "w")), False, aside=aside)
    tally.done(corpus)
    assert tally.bar.tasks[0].completed == 0 and tally.counts["below pass"] == 0
    tally.done(report(1))
    tally.done(report(9))
    assert tally.bar.tasks[0].completed == 2 and tally.counts["below pass"] == 1


@pytest.mark.slow
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
