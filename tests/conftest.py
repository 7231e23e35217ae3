"""Shared fixtures and options for the project's own tests, and how pytest-xdist shares them out.

The tests mirror the package: ``unit/<subpackage>/test_<module>.py`` tests one module and starts
no grading command; ``journeys/`` runs the grader end to end, and its conftest marks every test
there ``slow`` and holds what the journeys share (``graded_class``, ``release_venv``);
``fitness/`` holds the house rules. Shared helpers are in ``tests/helpers.py``.

``make test`` runs ``pytest -n JOBS --dist loadgroup`` (JOBS: the cores and one more): the tests
are dealt out to the workers one at a time, except for the groups below, each of which one worker
runs start to finish:

* ``TOGETHER``: a test module whose tests share a module- or class-scoped fixture (a graded
  batch, a built release, a running sandbox worker), so that the fixture is built once, or
  modules that must not run beside each other (one looks for processes and files the others'
  sandboxes leave);
* ``RELEASE_VENV``: the journeys that install a release on top of the run's one
  ``release_venv``, so that one worker builds it while the other runs other tests.

Groups are dealt out first, the slowest first, so that no long group starts last. Collection
fails, naming the fix, when a test module outside ``TOGETHER`` shares such a fixture.

Tests marked ``alone`` look at every process of this checkout (no batch worker may be left):
``make test`` runs them after the others, in one process.

``make quick`` leaves out the tests marked ``slow``: a test that runs a grading command of the
grader (``GRADING_COMMANDS``) as a process of its own, and it grades, fails unless it is marked.
Every grading process the tests start is counted, and the run prints the total at its end.
"""

from __future__ import annotations

import io
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ROOT

#: The tests that install a release on top of ``release_venv`` (a module, or one test of one).
RELEASE_VENV = ("tests/journeys/test_release_journey.py",
                "tests/journeys/test_course.py::test_chapter08_release_installed_as_its_readme_says")

#: Groups of modules run by one worker, the slowest first: a module whose tests share a module-
#: or class-scoped fixture, or modules that must not run at the same time.
TOGETHER: tuple[str | tuple[str, ...], ...] = (
    # the attacks look for stray processes and marker files anywhere, as the hostile batch and
    # the subprocess level might leave them
    ("tests/journeys/test_attacks.py", "tests/journeys/test_hostile_batch.py", "tests/unit/sandbox/test_subprocess_level.py",
     "tests/journeys/test_subprocess_level.py"),
    "tests/journeys/test_cluster.py",
    "tests/journeys/test_publish.py",
    "tests/journeys/test_class_pages.py",
    "tests/journeys/test_gradescope_root.py",
    "tests/journeys/test_grading_e2e.py",
    "tests/unit/report/test_fastyaml.py",
    "tests/journeys/test_gradescope.py",
    "tests/journeys/test_golden.py",
    "tests/unit/grading/test_diagnosis.py",
    "tests/unit/kit/test_quiz_input.py",
    "tests/unit/grading/test_diagnosis_wording.py",
    "tests/unit/grading/test_collector.py",
    "tests/unit/sandbox/test_worker.py",
    "tests/unit/prepare/test_release.py",
    "tests/unit/ingest/test_work_choice.py",
    "tests/unit/test_sink_properties.py",
    "tests/journeys/test_fail_closed.py",
    # one pull and batch of a Moodle class, shared by the module's tests
    "tests/journeys/test_moodle_api.py",
    "tests/journeys/test_blind.py",
    "tests/journeys/test_variants_journey.py",
)


_GROUP_OF_MODULE = {m: (g if isinstance(g, str) else g[0]) for g in TOGETHER for m in ((g,) if isinstance(g, str) else g)}


def group_of(nodeid: str) -> str:
    """The group a test runs in: ``release-venv``, a ``TOGETHER`` group (named by its first
    module), or its own id (no group)."""
    if any(nodeid == t or nodeid.startswith(t + "::") for t in RELEASE_VENV):
        return "release-venv"
    return _GROUP_OF_MODULE.get(nodeid.split("::", 1)[0], nodeid)


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C reaches the processes the tests start, as it does a student's terminal.

    A shell starts a background job (``make test &``, a runner's script) with SIGINT ignored;
    every process below inherits that, Python then installs no handler of its own, and the tests
    that press Ctrl-C on a batch or a watcher would wait for an exit that never comes. A Python
    handler is not inherited across exec: the processes started from here begin with the default.

    And from here on, the grading commands the tests start are noted (``pytest_runtest_call``).
    """
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    _note_grading_commands()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-goldens", action="store_true", default=False,
                     help="Rewrite tests/golden/* from the current output instead of comparing.")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Collection fails when a test would break its group's promise (see the docstring)."""
    wrong = []
    for item in items:
        group = group_of(item.nodeid)
        info = getattr(item, "_fixtureinfo", None)
        shared = [name for name, defs in (info.name2fixturedefs.items() if info else ())
                  if defs and defs[-1].scope in ("module", "class")]
        if shared and group == item.nodeid:
            wrong.append(f"{item.nodeid} shares the {shared[0]} fixture (scope {info.name2fixturedefs[shared[0]][-1].scope}): "
                         "add its module to TOGETHER in tests/conftest.py")
    if wrong:
        raise pytest.UsageError("\n".join(dict.fromkeys(wrong)))


#: The grader's commands that grade: run as a process of its own, each starts a grading process
#: that imports torch and a sandbox that imports it again (~2.5 s of CPU before the first test).
GRADING_COMMANDS = frozenset({"batch", "grade", "check", "validate", "regrade"})
#: The markers ``make quick`` leaves out; a test that grades in a process of its own carries one.
NOT_QUICK = ("slow", "install", "browser", "alone")


def grading_command(args: Any) -> str | None:
    """``"grader batch"`` (say) where ``args`` runs a grading command of the grader, else None:
    ``python -m grader CMD …`` or a ``grader`` script (a release's included), not for its help."""
    argv = [os.fspath(a) for a in args] if isinstance(args, (list, tuple)) else [os.fspath(args)]
    if "--help" in argv:
        return None
    for i, arg in enumerate(argv[:-1]):
        named = ((arg == "grader" and i > 0 and argv[i - 1] == "-m")
                 or (os.path.basename(arg) == "grader" and (i == 0 or os.path.basename(argv[i - 1]).startswith("python"))))
        if named and argv[i + 1] in GRADING_COMMANDS:
            return f"grader {argv[i + 1]}"
    return None


def grading_process(args: Any) -> str | None:
    """What kind of grading process ``args`` starts, or None: a grading command (``"grader batch"``,
    say), ``"batch worker"`` (a batch's or a watcher's worker, started in this process by
    ``run_batch`` or the warm checker) or ``"sandbox"`` (a zygote, started here by an in-process
    grading). Each of them imports torch."""
    command = grading_command(args)
    if command is not None:
        return command
    argv = [os.fspath(a) for a in args] if isinstance(args, (list, tuple)) else [os.fspath(args)]
    if "grader.engines.batch_worker" in argv:
        return "batch worker"
    if any(arg.endswith("zygote.py") and argv[i - 1] == "-I" for i, arg in enumerate(argv[1:], 1)):
        return "sandbox"  # python -I .../zygote.py (not bubblewrap's probe, which binds the file)
    return None


#: The grading commands the running test started (its setup included), with their processes.
_STARTED: list[tuple[str, subprocess.Popen[Any]]] = []
#: Every grading process this pytest process started, by kind (``grading_process``).
STARTED_HERE: Counter[str] = Counter()
#: What the running test started (its setup and teardown included): noted in the JUnit file.
_THIS_TEST: Counter[str] = Counter()
#: The run's total, summed over the xdist workers by the controller (``pytest_testnodedown``).
_TOTAL = pytest.StashKey[Counter[str]]()


def _note_grading_commands() -> None:
    """From now on, every ``subprocess.Popen`` of a grading process is counted in ``STARTED_HERE``,
    and one of a grading command is noted in ``_STARTED`` for the guard."""
    init = subprocess.Popen.__init__

    def __init__(popen: subprocess.Popen[Any], args: Any, *rest: Any, **kwargs: Any) -> None:
        init(popen, args, *rest, **kwargs)
        kind = grading_process(args)
        if kind is not None and kind.startswith("grader "):
            _STARTED.append((kind, popen))  # counted by _tally, once it is known whether it graded
        elif kind is not None:
            STARTED_HERE[kind] += 1
            _THIS_TEST[kind] += 1

    subprocess.Popen.__init__ = __init__  # type: ignore[method-assign]


def _tally() -> None:
    """Count the grading commands noted so far, once each, and forget them: a command refused
    with a usage or rubric error (exit 2, before it imports anything heavy) apart."""
    for command, popen in _STARTED:
        kind = "refused" if popen.poll() == 2 else command
        STARTED_HERE[kind] += 1
        _THIS_TEST[kind] += 1
    _STARTED.clear()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """An xdist worker hands its count to the controller (``pytest_testnodedown``)."""
    _tally()
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["grading_processes"] = dict(STARTED_HERE)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    total = node.config.stash.setdefault(_TOTAL, Counter())
    total.update(getattr(node, "workeroutput", {}).get("grading_processes", {}))


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """The run's cost, at its end: how many grading processes the tests started (each imports
    torch), the grading commands first, summed over the xdist workers."""
    total = config.stash.get(_TOTAL, None)
    if total is None:
        total = STARTED_HERE
    commands = {kind: n for kind, n in sorted(total.items()) if kind.startswith("grader ")}
    terminalreporter.write_sep("-", (
        f"grading processes started: {sum(commands.values())} grading commands"
        + (f" ({', '.join(f'{kind.split()[1]} {n}' for kind, n in commands.items())})" if commands else "")
        + f" and {total['refused']} refused at once (exit 2); in the test processes, {total['batch worker']}"
        f" batch workers and {total['sandbox']} sandboxes"))


def _cpu_s() -> float:
    """The CPU seconds this process and its finished children have used (user and system)."""
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


#: When the running test began, in ``_cpu_s``.
_CPU_AT_SETUP = pytest.StashKey[float]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Any:
    _tally()  # (what was started between two tests counts for the run, not for either)
    _THIS_TEST.clear()
    item.stash[_CPU_AT_SETUP] = _cpu_s()
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Any:
    """The grading processes a test started go into its JUnit record (``grading_processes``)."""
    result = yield
    _tally()
    # the CPU the test cost (its fixtures' and its processes' once they are waited for): on two
    # cores the suite's time is its CPU, so this, not the wall time, says which test to make cheaper
    item.user_properties.append(("cpu_s", f"{_cpu_s() - item.stash.get(_CPU_AT_SETUP, _cpu_s()):.1f}"))
    if _THIS_TEST:
        item.user_properties.append(("grading_processes", ", ".join(f"{k} {n}" for k, n in sorted(_THIS_TEST.items()))))
    _THIS_TEST.clear()
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    """``make quick`` stays quick: a test that grades in a process of its own (or whose fixture
    does) fails unless a marker leaves it out of ``make quick`` (``slow``, most often)."""
    result = yield
    # (exit 0 or 1: it graded; a usage or rubric error, or a signal, is no grading run)
    graded = sorted({command for command, popen in _STARTED if popen.returncode in (0, 1)})
    if graded and not any(item.get_closest_marker(name) for name in NOT_QUICK):
        raise AssertionError(f"{item.nodeid} runs {', '.join(graded)}, which grades in processes of its own: "
                             "mark it @pytest.mark.slow so that make quick leaves it out")
    return result


try:
    from xdist.scheduler import LoadScopeScheduling
except ImportError:  # pytest-xdist is a test extra; without it the tests run in one process
    pass
else:
    class _GroupScheduling(LoadScopeScheduling):
        """xdist's scope scheduling with ``group_of`` as the scope, the groups dealt first."""

        _first = ("release-venv", *(g if isinstance(g, str) else g[0] for g in TOGETHER))

        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid)

        def _assign_work_unit(self, node: Any) -> None:
            for scope in reversed(self._first):
                if scope in self.workqueue:
                    self.workqueue.move_to_end(scope, last=False)
            super()._assign_work_unit(node)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
        if config.getvalue("dist") == "loadgroup":
            return _GroupScheduling(config, log)
        return None


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def rubric():
    from grader.spec.rubric.load import load_rubric

    return load_rubric(ROOT / "rubrics" / "chapter07.yaml")


@pytest.fixture(scope="session")
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))


@pytest.fixture(scope="session", autouse=True)
def worker_python() -> Iterator[None]:
    """Run as root, the rlimits and subprocess levels refuse to grade where the unprivileged user
    nobody cannot read this interpreter (a Python under a root-only home): their workers then
    get one every user can read (``GRADER_WORKER_PYTHON``), with this one's packages."""
    if os.name != "posix" or os.geteuid() != 0 or os.environ.get("GRADER_WORKER_PYTHON"):
        yield
        return
    from tests.public_python import public_python

    base = Path(tempfile.mkdtemp(prefix="grader-worker-python-"))
    os.chmod(base, 0o755)
    try:
        python = public_python(base)
        if python is not None and python != sys.executable:
            os.environ["GRADER_WORKER_PYTHON"] = python
        yield
    finally:
        os.environ.pop("GRADER_WORKER_PYTHON", None)
        shutil.rmtree(base, ignore_errors=True)


def _english_left(text: str) -> list[str]:
    """The grader's own English sentences (fixed parts of three words or more) found in ``text``:
    a Japanese page must show each of them in Japanese. Student text cannot trip it up unless
    it quotes the grader word for word."""
    import re
    import string

    from grader.i18n import messages
    from grader.report import text as _text

    fixed: set[str] = set()
    english = [*messages.table(), *(w["en"] for w in _text.LABELS.values())]
    for sentence in english:
        for literal, *_ in string.Formatter().parse(sentence):
            chunk = " ".join(literal.split())
            if len(chunk.split()) >= 3 and re.search(r"[a-z]{3,} [a-z]{3,}", chunk):
                fixed.add(chunk)
    flat = " ".join(text.replace("\\", "").split())
    return sorted(chunk for chunk in fixed if chunk in flat)


def _japanese_outputs(outdir: Path, rubric: Any = None) -> dict[str, str]:
    """Everything a batch's folder shows in Japanese, by what it is: its Japanese pages (the
    summary, the gradebook page, the similarity page) and each report as a Japanese reader sees
    it (Markdown, HTML, the terminal), rendered for a course in Japanese alone (``language: ja``),
    so that any English in them is English a Japanese reader was left with."""
    import dataclasses
    import html

    from rich.console import Console

    from grader.report.outdir import read_record
    from grader.report import render
    from grader.report.model import GradeReport
    from grader.report.terminal import show

    if rubric is not None:
        rubric = dataclasses.replace(rubric, report=dataclasses.replace(rubric.report, languages=("ja",)))
    shown = {page.name: html.unescape(page.read_text(encoding="utf-8"))
             for page in sorted(outdir.glob("*.ja.*")) if page.suffix in (".md", ".html")}
    for path in sorted((outdir / "reports").glob("*.yaml")):
        data = read_record(path)
        if data is None:
            continue
        report = GradeReport.from_dict(data)
        for fmt in ("markdown", "html"):
            shown[f"{path.stem} ({fmt})"] = html.unescape(render(report, fmt, rubric=rubric, lang="ja"))
        console = Console(record=True, width=200, file=io.StringIO())
        show(report, console, "ja")
        shown[f"{path.stem} (terminal)"] = console.export_text()
    return shown


@pytest.fixture(scope="session")
def japanese_outputs():
    """``japanese_outputs(outdir, rubric) -> {what: text}``: a batch's every Japanese output."""
    return _japanese_outputs


@pytest.fixture(scope="session")
def english_left():
    """``english_left(text) -> [English sentence fragments of the grader's found in text]``."""
    return _english_left
