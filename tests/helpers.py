"""What the tests share: the project's paths, running the grader, copies of the course, reading
what a batch wrote, and the processes a test must find gone.

A test imports these by name (``from tests.helpers import ROOT, run_grader``); each was written
once per file before. Fixtures that build something once per run (``graded_class``,
``release_venv``) are in ``tests/conftest.py``.
"""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import yaml

#: The checkout: every path a test names starts here, wherever the test file sits below tests/.
ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
#: The example submissions the README grades (correct, divide-by-dk, sqrt-d-model, ...).
EXAMPLES = ROOT / "examples" / "submissions"
#: The tests' own submissions (broken-softmax, correct-zip.zip, the correct styles, ...).
FIXTURES = TESTS / "fixtures" / "submissions"
GOLDEN = TESTS / "golden"
#: Chapter 7's rubric and the correct styles of its validate corpus.
RUBRIC = ROOT / "rubrics" / "chapter07.yaml"
CORRECT_STYLES = ROOT / "suites" / "chapter07" / "correct"
#: The folders of a course: what ``course_copy`` copies.
COURSE = ("rubrics", "exercises", "suites", "solutions")


# --------------------------------------------------------------------------- running the grader


def run_grader(*args: str | os.PathLike[str], cwd: Path | str = ROOT, env: dict[str, str] | None = None,
               timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """``python -m grader ARGS`` as a process of its own, its output captured as text.

    A grading command (batch, grade, check, validate, regrade) run this way makes its test a
    journey: it belongs in tests/journeys/ (see tests/conftest.py)."""
    return subprocess.run([sys.executable, "-m", "grader", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, env=env, check=False)


def grader_here(*args: str | os.PathLike[str], cwd: Path | str = ROOT, env: dict[str, str] | None = None) -> Any:
    """``grader ARGS`` run in this process by click's ``CliRunner``, in ``cwd``: for a journey that
    reads what a command wrote or printed, without a process of its own (and its second import
    of torch). Returns click's ``Result`` (``exit_code``, ``stdout``, ``stderr``)."""
    from click.testing import CliRunner

    from grader.cli import main

    here = Path.cwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, [str(a) for a in args], env=env)
    finally:
        os.chdir(here)


# --------------------------------------------------------------------------- copies of the course


def course_copy(dest: Path, *, chapters: tuple[str, ...] | None = None) -> Path:
    """A copy of the course at ``dest`` (rubrics, exercises, suites, solutions), which a test
    may change; ``chapters`` copies those chapters only. Returns ``dest``."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for top in COURSE:
        if chapters is None:
            if not (dest / top).exists():
                shutil.copytree(ROOT / top, dest / top, ignore=ignore)
            continue
        for chapter in chapters:
            if top == "rubrics":
                (dest / top).mkdir(parents=True, exist_ok=True)
                shutil.copyfile(ROOT / top / f"{chapter}.yaml", dest / top / f"{chapter}.yaml")
            else:
                shutil.copytree(ROOT / top / chapter, dest / top / chapter, ignore=ignore)
    return dest


#: The hidden test a term's journeys break (it then fails everyone) and regrade once fixed.
FIXED_TEST = "hidden/test_scaling.py::test_head_dim_random_pairs"


def course_with_a_wrong_test(dest: Path, due: str) -> Path:
    """A copy of the course at ``dest`` whose hidden :data:`FIXED_TEST` is wrong (it fails every
    submission, whatever fixtures the test takes), its chapter-7 rubric due on ``due``. Returns
    the rubric."""
    course_copy(dest)
    test = dest / "suites" / "chapter07" / "hidden" / "test_scaling.py"
    text = test.read_text(encoding="utf-8")
    heads = re.findall(r"^def test_head_dim_random_pairs\(.*\):\n", text, flags=re.M)
    assert len(heads) == 1, heads
    test.write_text(text.replace(heads[0], heads[0] + '    assert False, "a wrong test"\n'), encoding="utf-8")
    rubric = dest / "rubrics" / "chapter07.yaml"
    rubric.write_text(rubric.read_text(encoding="utf-8") + f"\ndue: {due}\n", encoding="utf-8")
    return rubric


def rubric_copy(tmp_path: Path, edit: Any = None, **changes: Any) -> Path:
    """The chapter's rubric written into ``tmp_path``, its paths made absolute, then changed.

    ``changes`` replace top-level keys; ``edit(data)`` may change the parsed YAML in place.
    """
    data = yaml.safe_load(RUBRIC.read_text(encoding="utf-8"))
    for key in ("exercises", "reference"):
        data[key] = str((RUBRIC.parent / data[key]).resolve())
    for suite in data["suites"].values():
        suite["path"] = str((RUBRIC.parent / suite["path"]).resolve())
    for key, value in data.get("plugin", {}).items():
        if key != "notebook":
            data["plugin"][key] = str((RUBRIC.parent / value).resolve())
    data.update(changes)
    if edit is not None:
        edit(data)
    path = tmp_path / "course.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


# --------------------------------------------------------------------------- what a batch wrote


def read_gradebook(out: Path, by: str | None = None) -> Any:
    """``OUT/gradebook.csv`` (or the CSV file ``out``) as its rows, or as a dict of the rows by
    the column ``by`` (``"student_id"``, ``"submission"``)."""
    path = out / "gradebook.csv" if out.is_dir() else out
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"))))
    return rows if by is None else {row[by]: row for row in rows}


def read_report(out: Path, name: str) -> dict[str, Any]:
    """The record ``OUT/reports/<name>.yaml`` of one submission, as plain data."""
    loaded: dict[str, Any] = yaml.safe_load((out / "reports" / f"{name}.yaml").read_text(encoding="utf-8"))
    return loaded


def files_of(folder: Path) -> dict[str, bytes]:
    """The files directly in ``folder``, by name (what a student uploads, one by one)."""
    return {f.name: f.read_bytes() for f in sorted(folder.iterdir()) if f.is_file()}


def zip_bytes(files: dict[str, bytes], prefix: str = "") -> bytes:
    """A zip holding ``files``, each named with ``prefix``."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(prefix + name, data)
    return buf.getvalue()


# --------------------------------------------------------------------------- processes


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie has ended: only its parent has not looked yet)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _parents() -> dict[int, list[int]]:
    """Each running process's children, by the parent's pid (from /proc)."""
    kids: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            kids.setdefault(ppid, []).append(int(entry.name))
    return kids


def children(pid: int) -> set[int]:
    """The processes ``pid`` started that run now."""
    return set(_parents().get(pid, []))


def descendants(pid: int) -> set[int]:
    """Every process under ``pid`` now."""
    kids = _parents()
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in kids.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def zygote_pid(worker: Any) -> int:
    """The pid on the host of a sandbox ``Worker``'s zygote (under bwrap, pid 1 of its own namespace)."""
    assert worker.proc is not None
    if worker.level != "namespaces":
        return int(worker.proc.pid)
    for pid in [worker.proc.pid, *sorted(descendants(worker.proc.pid))]:
        try:
            with open(f"/proc/{pid}/status") as fh:
                for line in fh:
                    if line.startswith("NSpid:") and line.split()[-1] == "1" and len(line.split()) > 2:
                        return int(pid)
        except OSError:
            continue
    raise AssertionError("no zygote found under the bwrap process")


# --------------------------------------------------------------------------- the browser


def chromium() -> str | None:
    """The headless browser the page tests drive, or None."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def headless(browser: str, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """One run of ``browser`` headless with a profile of its own (``--dump-dom``, ``--screenshot=``)."""
    return subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", *args],
        capture_output=True, text=True, timeout=120, check=False,
    )
