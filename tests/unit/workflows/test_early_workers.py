"""How many grading workers a batch starts before it has found the submissions.

Each worker imports torch and starts a sandbox before it grades anything (about 1.3 s of CPU on
this kind of machine): a batch that can tell cheaply that fewer submissions wait than it has
CPUs starts no worker it would only retire unused.
"""

from __future__ import annotations

import os
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest

from grader.workflows.batch import _at_most, run_batch
from grader.report.outdir import corpus_recorded, write_corpus
from grader.engines.local_pool import WorkerProcess, start_early, workers_for
from grader.workflows.regrade import _reports_at_most
from grader.spec.rubric.load import load_rubric
from grader.ingest.corpus import corpus_digest

from tests.helpers import EXAMPLES, RUBRIC


@pytest.fixture
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user cache of this test's own: what the corpus's finding is known from starts empty."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    return cache


def _folder(dest: Path, names: list[str]) -> Path:
    dest.mkdir(parents=True)
    for name in names:
        shutil.copytree(EXAMPLES / name, dest / name)
    return dest


def test_a_folder_bounds_the_workers_by_its_entries_and_the_corpus(tmp_path: Path, own_cache: Path) -> None:
    rubric = load_rubric(RUBRIC)
    src = _folder(tmp_path / "src", ["correct", "divide-by-dk", "sqrt-d-model"])
    out = tmp_path / "out"
    assert _at_most(str(src), rubric, out, summary=False) == 3
    # with a summary, the validate corpus's styles are graded beside the class until recorded
    assert _at_most(str(src), rubric, out, summary=True) is None
    digest = corpus_digest(rubric)
    assert digest is not None and not corpus_recorded(out, digest)
    write_corpus(out, digest, 1, {}, ["01-minimal-checks"])
    assert corpus_recorded(out, digest)
    assert _at_most(str(src), rubric, out, summary=True) == 3
    # the user's cache answers for another folder of the same course
    assert _at_most(str(src), rubric, tmp_path / "elsewhere", summary=True) == 3
    # an export zip gives at most one submission per file its directory lists (nothing unpacked);
    # a missing source or a file that is no zip is discovery's to refuse
    export = tmp_path / "export.zip"
    with zipfile.ZipFile(export, "w") as zf:
        zf.writestr("a_1_assignsubmission_file_/", "")
        zf.writestr("a_1_assignsubmission_file_/scaling.py", "x = 1\n")
        zf.writestr("a_1_assignsubmission_file_/softmax.py", "x = 1\n")
        zf.writestr("b_2_assignsubmission_file_/work.zip", b"PK\x05\x06" + bytes(18))
    assert _at_most(str(export), rubric, out, summary=False) == 3
    assert _at_most(str(tmp_path / "no-such-folder"), rubric, out, summary=False) is None
    (tmp_path / "notes.zip").write_text("not a zip", encoding="utf-8")
    assert _at_most(str(tmp_path / "notes.zip"), rubric, out, summary=False) is None


def test_a_resume_takes_off_the_reports_already_there(tmp_path: Path, own_cache: Path) -> None:
    """--resume: the reports OUT holds are taken off the bound, so a resume with every report
    there starts no grading process (none imports torch); without --resume they count."""
    rubric = load_rubric(RUBRIC)
    src = _folder(tmp_path / "src", ["correct", "divide-by-dk", "sqrt-d-model"])
    out = tmp_path / "out"
    assert _at_most(str(src), rubric, out, summary=False, resume=True) == 3  # no OUT yet
    (out / "reports").mkdir(parents=True)
    for name in ("correct", "divide-by-dk"):
        (out / "reports" / f"{name}.yaml").write_text("{}\n", encoding="utf-8")
    (out / "reports" / "correct.md").write_text("a view, not a report\n", encoding="utf-8")
    assert _at_most(str(src), rubric, out, summary=False, resume=True) == 1
    assert _at_most(str(src), rubric, out, summary=False) == 3
    (out / "reports" / "sqrt-d-model.yaml").write_text("{}\n", encoding="utf-8")
    assert _at_most(str(src), rubric, out, summary=False, resume=True) == 0
    assert start_early({"op": "config", "rubric": str(RUBRIC)}, 2, out / ".logs", 0) == []


def test_a_small_batch_left_to_the_grader_starts_one_worker_for_every_eight_submissions(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    # left to the grader: one per CPU at most, one more than one only for every 8 submissions
    assert [workers_for(n, None) for n in (0, 1, 7, 15, 16, 23, 24, 32, 400)] == [1, 1, 1, 1, 2, 2, 3, 4, 4]
    assert workers_for(None, None) == 4  # not known: one per CPU, the spares retired later
    # -j N asked for: N, but never more than there are submissions
    assert [workers_for(n, 2) for n in (0, 1, 2, 3, 400, None)] == [1, 1, 2, 2, 2, 2]
    assert workers_for(5, 8) == 5


def test_a_regrade_is_bounded_by_the_reports_kept(tmp_path: Path) -> None:
    reports = tmp_path / "out" / "reports"
    reports.mkdir(parents=True)
    for name in ("alice", "bob.smith", "carol"):  # a dot in a name is still one student
        (reports / f"{name}.yaml").write_text("score: 1\n", encoding="utf-8")
        (reports / f"{name}.md").write_text("# report\n", encoding="utf-8")
    assert _reports_at_most(tmp_path / "out") == 3


@pytest.mark.slow
def test_a_batch_of_one_submission_starts_one_worker_and_grades_it(tmp_path: Path, own_cache: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[int] = []
    original = WorkerProcess.start_group.__func__  # type: ignore[attr-defined]

    def spy(cls: type[WorkerProcess], config: dict[str, Any], cpus: list[int], n: int, logs: Path) -> list[WorkerProcess]:
        started.append(n)
        return original(cls, config, cpus, n, logs)  # type: ignore[no-any-return]

    monkeypatch.setattr(WorkerProcess, "start_group", classmethod(spy))
    src = _folder(tmp_path / "src", ["correct"])
    result = run_batch(str(src), str(tmp_path / "out"), load_rubric(RUBRIC), jobs=2, progress=False, summary=False,
                       allow_weak=True)
    assert started == [1]
    assert result.graded == 1 and result.reports[0].score == result.reports[0].max_score > 0


@pytest.mark.slow
def test_a_default_batch_of_three_starts_one_worker_even_with_cpus_to_spare(
        tmp_path: Path, own_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    workers: list[WorkerProcess] = []  # every worker: started early, forked as a sibling, or by the pool
    original = WorkerProcess.__init__

    def spy(self: WorkerProcess, *args: Any, **kwargs: Any) -> None:
        workers.append(self)
        original(self, *args, **kwargs)

    monkeypatch.setattr(WorkerProcess, "__init__", spy)
    src = _folder(tmp_path / "src", ["correct", "divide-by-dk", "sqrt-d-model"])
    result = run_batch(str(src), str(tmp_path / "out"), load_rubric(RUBRIC), progress=False, summary=False,
                       allow_weak=True)
    assert len(workers) == 1
    assert result.graded == 3 and not any(r.errors for r in result.reports)
    assert sorted(r.score / r.max_score for r in result.reports)[-1] == 1.0
