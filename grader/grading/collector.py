"""The pytest plugin that turns suites into graded outcomes, for one or many submissions.

One pytest session grades any number of submissions: the suites are collected once, and the
plugin's own run loop (``pytest_runtestloop``) runs every collected test for the first
submission, then again for the next, and so on; ``GradingState.more`` may hand it further
submissions while it runs, so a batch worker keeps one session for its whole life. When a
submission's last test has run, its session is diagnosed, closed, and handed to
``GradingState.on_done``. Collection, assertion rewriting and plugin set-up are therefore
paid once per worker, not once per submission.

Outcomes come from hooks (``pytest_runtest_makereport``), never from pytest's text output.

Sections: the state (:class:`SubmissionRun`, :class:`GradingState`); fixtures (``student``,
``ref``, ``rng``, ``answers``, ``grading_seed``); collection (test ids, parts, scores); running
(the run loop, the fast path that calls a test without pytest's fixture machinery, verdicts).
"""

from __future__ import annotations

import builtins
import copy
import hashlib
import time
import types
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pluggy
import pytest

from grader.errors import WorkerCrashed
from grader.i18n.messages import said
from grader.report.model import CaseOutcome, Status
from grader.sandbox.session import Echoed, Session
from grader.sandbox.session import StudentTimeout, StudentUnavailable
from grader.sandbox.wire import WireValue
from grader.kit.asserts import ANSWER_KEY, Mismatch, take_notes
from grader.sandbox.session import StudentRaised
from grader.spec.variants import Variant

if TYPE_CHECKING:
    from grader.ingest.submission.model import Submission
    from grader.spec.rubric.model import Rubric

SUB_PARAM = "grader_submission"
_EXCEPTION_GROUPS = getattr(builtins, "BaseExceptionGroup", ())  # Python 3.11+
STATE = pytest.StashKey["GradingState"]()
_OUTCOME = pytest.StashKey[CaseOutcome]()  # this submission's verdict on the item
_TEMPLATE = pytest.StashKey[CaseOutcome]()  # the item's verdict before it has run
_INDEX = pytest.StashKey[int]()
_FAST = pytest.StashKey["tuple[tuple[str, str], ...] | None"]()
#: The plugin's own fixtures, which the fast path computes without pytest's machinery.
_OWN = frozenset({"student", "ref", "rng", "answers", "grading_seed", "variant", "answer_key", SUB_PARAM})
#: The fixtures through which a test reads the student's variant.
READS_VARIANT = frozenset({"variant", "answer_key"})
_STATE_HOLDER: list["GradingState | None"] = [None]  # for hooks that get no config


@dataclass
class SubmissionRun:
    """What the plugin keeps about one submission while its tests run."""

    index: int
    submission: Submission
    #: the quiz answers as plain data (an ``UnreadableAnswers`` when the file could not be read)
    answers: dict[str, object]
    outcomes: list[CaseOutcome] = field(default_factory=list)
    session: Session | None = None
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # remarks of checks that passed (grader.kit.asserts)
    started: float = field(default_factory=time.monotonic)
    done: bool = False


@dataclass
class GradingState:
    """Everything the fixtures and hooks share; registered as a plugin object.

    Args:
        rubric: the loaded rubric.
        submissions: what to grade, in order.
        open_session: ``submission -> Session`` (a child of a warm worker).
        suite_dirs: ``{suite name: folder}`` of the suites being run.
        reference: namespace with one module per code part (``reference.<part>``) and ``answers_key``,
            or None when grading without the reference (``grader check``).
        seed: this grading run's seed.
        answers: ``index -> quiz answers`` (plain data) of the submission at that index.
        on_done: called with each finished ``SubmissionRun`` (diagnose, report, write).
        more: called when every submission so far is graded; returns further submissions
            (appended to ``submissions``) or None/empty to end the session.
    """

    rubric: Rubric
    #: None once graded: a long session holds nothing it has finished with
    submissions: list[Submission | None]
    open_session: Callable[[Submission], Session]
    suite_dirs: dict[str, Path]
    reference: types.SimpleNamespace | None
    seed: int
    answers: Callable[[int], dict[str, object]]
    on_done: Callable[[SubmissionRun], None]
    answer_key: dict[str, object] | None = None
    more: Callable[[], list[Submission] | None] | None = None
    runs: dict[int, SubmissionRun] = field(default_factory=dict)
    current: int | None = None
    interrupted: bool = False
    collect_errors: list[str] = field(default_factory=list)
    #: ``test id -> run it?``; None runs every test (``grader regrade`` runs a few)
    select: Callable[[str], bool] | None = None
    #: run only the tests that read the student's variant (``grader variants check``)
    variant_only: bool = False

    # -- pytest hooks on the state object -------------------------------------------------
    def pytest_configure(self, config: pytest.Config) -> None:
        config.stash[STATE] = self
        _STATE_HOLDER[0] = self
        config.stash[ANSWER_KEY] = self.answer_key or {}
        config.addinivalue_line("markers", "part(id): the rubric part a test module belongs to")

    def run_for(self, index: int) -> SubmissionRun:
        run = self.runs.get(index)
        if run is None:
            submission = self.submissions[index]
            if submission is None:
                raise KeyError(f"submission #{index} is graded already")
            run = SubmissionRun(index, submission, self.answers(index))
            self.runs[index] = run
        if self.current is not None and self.current != index:
            self.finish(self.current)
        self.current = index
        return run

    def answer_key_for(self, run: SubmissionRun) -> dict[str, object]:
        """The reference's answer key, its numeric answers those of the run's variant where it has one."""
        if self.reference is None:
            pytest.fail("this test needs the reference solution, which is not available here")
        key = dict(self.reference.answers_key)
        if run.submission.variant is not None and self.rubric.variants is not None:
            key.update(Variant.from_data(run.submission.variant).quiz_key(self.rubric.variants))
        return key

    def session_for(self, index: int) -> Session:
        run = self.run_for(index)
        if run.session is None:
            run.session = self.open_session(run.submission)
        return run.session

    def finish(self, index: int) -> None:
        run = self.runs.get(index)
        if run is None or run.done:
            return
        run.done = True
        if self.current == index:
            self.current = None
        try:
            self.on_done(run)
        finally:
            # A long batch session must not hold on to what it has finished with.
            del self.runs[index]
            self.submissions[index] = None

    def fetch_more(self) -> bool:
        """Ask ``more`` for further submissions; False when there are none."""
        if self.more is None:
            return False
        extra = self.more()
        if not extra:
            return False
        self.submissions.extend(extra)
        return True


# --------------------------------------------------------------------------------------------
# Fixtures (module-level, so registering this module registers them)


class StudentFunction:
    """``student.<part>.<function>``: called, it runs in the sandbox and returns plain data."""

    def __init__(self, state: GradingState, index: int, part: str, func: str) -> None:
        self._state, self._index, self._part = state, index, part
        self.__name__ = func  # what describe_call names it by

    def __call__(self, *args: object, **kwargs: object) -> WireValue:
        __tracebackhide__ = True
        return self._state.session_for(self._index).call(self._part, self.__name__, list(args), kwargs)

    def args_after(self, *args: object, **kwargs: object) -> Echoed:
        """``(value, arguments as the call left them)``: did the function change its input?"""
        __tracebackhide__ = True
        return self._state.session_for(self._index).call(self._part, self.__name__, list(args), kwargs,
                                                         echo_args=True)


class _Part:
    __slots__ = ("_state", "_index", "_part")

    def __init__(self, state: GradingState, index: int, part: str) -> None:
        self._state, self._index, self._part = state, index, part

    def __getattr__(self, func: str) -> StudentFunction:
        if func.startswith("__"):
            raise AttributeError(func)
        return StudentFunction(self._state, self._index, self._part, func)


class StudentProxy:
    """``student.<part>.<function>(...)``: calls into the sandboxed worker."""

    def __init__(self, state: GradingState, index: int) -> None:
        self._state, self._index = state, index

    def __getattr__(self, part: str) -> _Part:
        if part.startswith("__"):
            raise AttributeError(part)
        return _Part(self._state, self._index, part)


@pytest.fixture(autouse=True)
def grader_submission() -> int:
    """Index of the submission under test (the run loop sets it before each test)."""
    current = _state().current
    return 0 if current is None else int(current)


def _state() -> GradingState:
    # Fixtures read the state from here rather than through ``request``: pytest builds a new
    # FixtureDef for ``request`` on every use, a cost batches pay per test and submission.
    state = _STATE_HOLDER[0]
    assert state is not None, "the grader plugin is not configured"
    return state


@pytest.fixture
def student(grader_submission: int) -> StudentProxy:
    """The student's functions, called by name in the sandbox."""
    state = _state()
    state.run_for(grader_submission)
    return StudentProxy(state, grader_submission)


@pytest.fixture
def ref() -> types.SimpleNamespace:
    """The reference solution (trusted; hidden suites only)."""
    reference = _state().reference
    if reference is None:
        pytest.fail("this test needs the reference solution, which is not available here")
    return reference


@pytest.fixture
def grading_seed() -> int:
    """This grading run's seed (recorded in the report)."""
    return int(_state().seed)


def _rng_for(seed: int, test_id: str) -> np.random.Generator:
    digest = hashlib.sha256(f"{seed}:{test_id}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> np.random.Generator:
    """A generator seeded from the grading seed and the test's own id."""
    test_id = request.node.stash.get(_OUTCOME, None)
    return _rng_for(_state().seed, test_id.id if test_id is not None else request.node.name)


def _memory_limit_mb() -> int | str:
    """The rubric's memory limit per submission, for messages ("?" outside a grading run)."""
    try:
        return _state().rubric.limits.memory_mb
    except Exception:  # noqa: BLE001 - a message must not fail for want of a number
        return "?"


def variant_values(run: SubmissionRun) -> dict[str, object] | None:
    """The student's own numbers (their variant's values), or None: the chapter's own numbers."""
    variant = run.submission.variant
    values = variant.get("values") if variant else None
    return dict(values) if isinstance(values, dict) else None


@pytest.fixture
def variant(grader_submission: int) -> dict[str, object] | None:
    """The student's own numbers (``{"d_model": 512, "n_heads": 8, "d_k": 64, ...}``), or None."""
    return variant_values(_state().run_for(grader_submission))


@pytest.fixture
def answer_key(grader_submission: int) -> dict[str, object]:
    """The quiz's answer key for this student: the reference's, with their variant's numbers."""
    return _state().answer_key_for(_state().run_for(grader_submission))


@pytest.fixture
def answers(grader_submission: int) -> dict[str, object]:
    """The student's quiz answers as plain data ({} when there are none)."""
    return _state().run_for(grader_submission).answers


# --------------------------------------------------------------------------------------------
# Collection


def _test_id(item: pytest.Item, state: GradingState) -> tuple[str, str]:
    path = Path(str(item.path))
    suite_name, rel = "", path.name
    for name, folder in state.suite_dirs.items():
        try:
            rel = path.relative_to(folder).as_posix()
            suite_name = name
            break
        except ValueError:
            continue
    name = getattr(item, "originalname", item.name)
    callspec = getattr(item, "callspec", None)
    params = callspec.id if callspec is not None else ""
    test_id = f"{suite_name}/{rel}::{name}" + (f"[{params}]" if params else "")
    return suite_name, test_id


def _part_of(item: pytest.Item) -> str:
    marker = item.get_closest_marker("part")
    if marker is not None and marker.args:
        return str(marker.args[0])
    stem = Path(str(item.path)).stem
    return stem.removeprefix("test_").split("_")[0]


def _titles(item: pytest.Item) -> dict[str, str]:
    doc = (getattr(item, "obj", None).__doc__ or "") if hasattr(item, "obj") else ""
    lines = [ln.strip() for ln in doc.strip().splitlines() if ln.strip()]
    en = lines[0] if lines else getattr(item, "originalname", item.name)
    ja = next((ln[3:].strip() for ln in lines if ln.startswith("ja:")), en)
    return {"en": en, "ja": ja}


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.failed:
        state = _STATE_HOLDER[0]
        if state is not None:
            state.collect_errors.append(f"{report.nodeid}: {str(report.longrepr)[-1500:]}")


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    state = config.stash[STATE]
    dropped: list[pytest.Item] = []
    for item in list(items):
        suite, test_id = _test_id(item, state)
        if state.select is not None and not state.select(test_id):
            dropped.append(item)
            continue
        if state.variant_only and not READS_VARIANT & set(getattr(item, "fixturenames", ())):
            dropped.append(item)
            continue
        part = _part_of(item)
        item.stash[_TEMPLATE] = CaseOutcome(
            id=test_id,
            part=part,
            status=Status.SKIPPED,
            max_score=float(state.rubric.points_for(test_id)),
            visibility=_visibility(state.rubric, suite),
            suite=suite,
            title=_titles(item),
        )
        item.stash[_FAST] = _fast_plan(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        gone = set(map(id, dropped))
        items[:] = [item for item in items if id(item) not in gone]


def _visibility(rubric: Rubric, suite: str) -> str:
    try:
        return str(rubric.suite(suite).visibility.value)
    except Exception:  # noqa: BLE001 - a suite the rubric does not list
        return "visible"


# --------------------------------------------------------------------------------------------
# Running


@pytest.hookimpl(tryfirst=True, specname="pytest_runtest_makereport")
def pytest_runtest_makereport_short(item: pytest.Item, call: pytest.CallInfo[None]) -> pytest.TestReport | None:
    """A failed test's report with a one-line longrepr.

    Verdicts come from the exception itself (``_judge``), so pytest's full failure repr,
    which re-parses each traceback frame's source file with ``ast`` (about half the time of
    a batch), is never needed. Skips and passes take pytest's own path.
    """
    excinfo = call.excinfo
    if excinfo is None or call.when == "collect" or isinstance(excinfo.value, pytest.skip.Exception):
        return None
    if isinstance(excinfo.value, _EXCEPTION_GROUPS):
        return None
    text = f"{excinfo.typename}: {str(excinfo.value)[:500]}"
    return pytest.TestReport(
        item.nodeid, item.location, dict.fromkeys(item.keywords, 1), "failed", text, call.when,
        duration=call.duration, start=call.start, stop=call.stop, user_properties=item.user_properties,
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                              ) -> Generator[None, pluggy.Result[pytest.TestReport], None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    case = item.stash.get(_OUTCOME, None)
    if case is None:
        return
    state = item.config.stash[STATE]
    run = state.run_for(item.stash[_INDEX])
    if call.when == "setup":
        take_notes()  # nothing an earlier test left belongs to this one
    if call.when == "setup" and report.failed:
        _judge(case, call.excinfo.value if call.excinfo else None, run, setup=True)
    elif call.when == "setup" and report.skipped:
        case.status = Status.SKIPPED
        case.feedback = {"en": str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else "skipped",
                         "ja": "スキップされました"}
    elif call.when == "call":
        case.duration_s = round(call.duration, 4)
        if report.passed:
            case.status = Status.PASSED
            case.score = case.max_score
            _keep_notes(run)
        elif report.skipped:
            case.status = Status.SKIPPED
        else:
            _judge(case, call.excinfo.value if call.excinfo else None, run, setup=False)
    if call.when == "teardown":
        run.outcomes.append(case)


def _keep_notes(run: SubmissionRun) -> None:
    """The remarks of the checks of a test that passed join the report's notes (once each)."""
    for note in take_notes():
        if note not in run.notes:
            run.notes.append(note)


def _ja(exc: BaseException) -> str:
    """The grader's own wording of ``exc`` in Japanese (see :mod:`grader.i18n.messages`)."""
    from grader.i18n.messages import translate

    return translate(str(exc), "ja")


def _judge(case: CaseOutcome, exc: BaseException | None, run: SubmissionRun, *, setup: bool) -> None:
    case.score = 0.0
    if isinstance(exc, StudentTimeout):
        case.status = Status.TIMEOUT
        case.feedback = {
            "en": f"Time limit: {exc}.",
            "ja": f"制限時間を超えました: {_ja(exc)}。無限ループや非常に重い計算がないか確認してください。",
        }
    elif isinstance(exc, StudentUnavailable):
        case.status = Status.ERROR
        case.file, case.line = exc.file or None, exc.line or None
        case.feedback = {
            "en": f"Could not run: {exc}.",
            "ja": f"実行できませんでした: {_ja(exc)}。",
        }
    elif isinstance(exc, WorkerCrashed):
        case.status = Status.ERROR
        case.feedback = {
            "en": f"Your code stopped the grading process: {exc}.",
            "ja": f"採点用プロセスが停止しました: {_ja(exc)}。",
        }
    elif isinstance(exc, StudentRaised):
        case.status = Status.FAILED
        where = f" ({exc.where})" if exc.where else ""
        if exc.where:
            file, _, line = exc.where.partition(", line ")
            case.file = file or None
            case.line = int(line) if line.isdigit() else None
        if exc.type_name == "NotImplementedError":
            case.feedback = {
                "en": f"Not implemented yet: the function still raises NotImplementedError{where}.",
                "ja": f"未実装です: 関数がまだ NotImplementedError を送出しています{where}。",
            }
        elif exc.type_name == "MemoryError" or "MemoryError" in exc.bases:
            limit = _memory_limit_mb()
            case.feedback = {
                "en": f"Your function ran out of memory (limit {limit} MiB): it raised MemoryError{where}.",
                "ja": f"関数の実行中にメモリが足りなくなりました（上限 {limit} MiB、MemoryError）{where}。",
            }
        else:
            case.feedback = {
                "en": f"Your function raised {exc.type_name}: {exc.message}{where}.",
                "ja": f"関数が例外 {exc.type_name} を送出しました: {exc.message}{where}。",
            }
    elif isinstance(exc, Mismatch):
        case.status = Status.FAILED
        case.expected, case.actual = exc.expected, exc.actual
        en, ja = exc.rationale.get("en", str(exc)), exc.rationale.get("ja", str(exc))
        if exc.help:
            en, ja = f"{en} {exc.help.get('en', '')}".strip(), f"{ja} {exc.help.get('ja', '')}".strip()
        case.feedback = {"en": en, "ja": ja}
    elif isinstance(exc, AssertionError):
        case.status = Status.FAILED
        text = str(exc).split("\n")[0][:500] or "the check did not hold"
        case.feedback = {"en": f"Check failed: {text}", "ja": f"確認に失敗しました: {text}"}
    else:
        # A test raised something no helper anticipated: the student still fails the test,
        # but the instructor must hear about it, since it may be a fault in the suite.
        case.status = Status.ERROR if setup else Status.FAILED
        name = type(exc).__name__ if exc is not None else "unknown error"
        case.feedback = {
            "en": f"The test could not check your result ({name}: {str(exc)[:300]}).",
            "ja": f"結果を確認できませんでした ({name}: {str(exc)[:300]})。",
        }
        run.errors.append(said("test_itself_raised", test=case.id, name=name, what=str(exc)[:300]))


def _fast_plan(item: pytest.Item) -> tuple[tuple[str, str], ...] | None:
    """How to call ``item`` without pytest's per-test protocol, or None to use pytest's.

    A plan is possible when every fixture the test needs is either a direct parameter or one
    of the plugin's own (``student``, ``ref``, ``rng``, ``answers``, ``grading_seed``) and it
    carries no skip/xfail/usefixtures mark. Pytest's set-up, call and teardown with their
    reports and hooks cost about 0.3 ms per test, which a batch pays per test and per
    submission; the fast path calls the test function directly and judges its exception
    with the same ``_judge`` as the hooks do.
    """
    if not isinstance(item, pytest.Function) or type(item) is not pytest.Function:
        return None
    if any(True for m in item.iter_markers() if m.name in ("skip", "skipif", "xfail", "usefixtures")):
        return None
    info = item._fixtureinfo
    params = getattr(getattr(item, "callspec", None), "params", {})
    for name in info.names_closure:
        if name in _OWN or name == "request":
            continue
        defs = info.name2fixturedefs.get(name) or ()
        if name in params and all(type(d).__name__ == "DirectParamFixtureDef" for d in defs):
            continue
        return None  # a fixture of the suite's own: let pytest run it
    plan = []
    for name in info.argnames:
        plan.append((name, "own" if name in _OWN else "param"))
    return tuple(plan)


def _fill(plan: tuple[tuple[str, str], ...], params: dict[str, object], state: GradingState,
          run: SubmissionRun, index: int, case: CaseOutcome) -> dict[str, object]:
    """The fast path's fixture values, as the fixtures above would give them."""
    kwargs: dict[str, object] = {}
    for name, kind in plan:
        if kind == "param":
            kwargs[name] = params[name]
        elif name == "student":
            kwargs[name] = StudentProxy(state, index)
        elif name == "ref":
            if state.reference is None:
                pytest.fail("this test needs the reference solution, which is not available here")
            kwargs[name] = state.reference
        elif name == "rng":
            kwargs[name] = _rng_for(state.seed, case.id)
        elif name == "answers":
            kwargs[name] = run.answers
        elif name == "grading_seed":
            kwargs[name] = int(state.seed)
        elif name == "variant":
            kwargs[name] = variant_values(run)
        elif name == "answer_key":
            kwargs[name] = state.answer_key_for(run)
        else:
            kwargs[name] = index
    return kwargs


def _run_fast(item: pytest.Item, plan: tuple[tuple[str, str], ...], state: GradingState) -> None:
    index = item.stash[_INDEX]
    case = item.stash[_OUTCOME]
    run = state.run_for(index)
    params = getattr(getattr(item, "callspec", None), "params", {})
    start = time.perf_counter()
    try:
        kwargs = _fill(plan, params, state, run, index, case)
    except pytest.fail.Exception as exc:  # a fixture that cannot be built: not the student's fault
        _judge(case, exc, run, setup=True)
        run.outcomes.append(case)
        return
    take_notes()
    try:
        item.obj(**kwargs)  # type: ignore[attr-defined]
    except (KeyboardInterrupt, pytest.exit.Exception):
        raise
    except pytest.skip.Exception as exc:
        case.status = Status.SKIPPED
        case.feedback = {"en": str(exc) or "skipped", "ja": "スキップされました"}
    except BaseException as exc:  # noqa: BLE001 - whatever the test raised is judged
        _judge(case, exc, run, setup=False)
    else:
        case.status = Status.PASSED
        case.score = case.max_score
        _keep_notes(run)
    case.duration_s = round(time.perf_counter() - start, 4)
    run.outcomes.append(case)


@pytest.hookimpl(tryfirst=True, specname="pytest_runtest_protocol")
def pytest_runtest_protocol_fast(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    plan = item.stash.get(_FAST, None)
    if plan is None:
        return None
    _run_fast(item, plan, item.config.stash[STATE])
    return True


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> bool | None:
    """Run every collected test for each submission in turn, asking for more at the end.

    Tests with a fast plan are called directly; the others go through pytest's own
    protocol, torn down completely after each submission so that no fixture value (of any
    scope) carries one submission's results into the next.
    """
    state = session.config.stash.get(STATE, None)
    if state is None:
        return None
    if session.testsfailed and not session.config.option.continue_on_collection_errors:
        raise session.Interrupted(f"{session.testsfailed} error(s) during collection")
    if session.config.option.collectonly:
        return True
    items = list(session.items)
    # For pytest's protocol, the next item is the next one that also goes through it.
    slow_next: list[pytest.Item | None] = [None] * len(items)
    following: pytest.Item | None = None
    for pos in range(len(items) - 1, -1, -1):
        slow_next[pos] = following
        if items[pos].stash.get(_FAST, None) is None:
            following = items[pos]
    ran_slow: set[int] = set()
    index = 0
    while index < len(state.submissions) or state.fetch_more():
        state.run_for(index)
        for pos, item in enumerate(items):
            item.stash[_INDEX] = index
            item.stash[_OUTCOME] = copy.copy(item.stash[_TEMPLATE])
            plan = item.stash.get(_FAST, None)
            if plan is not None:
                _run_fast(item, plan, state)
                continue
            if pos in ran_slow:
                item._initrequest()  # type: ignore[attr-defined]  # fresh fixture values
            ran_slow.add(pos)
            item.ihook.pytest_runtest_protocol(item=item, nextitem=slow_next[pos])
            if session.shouldfail:
                raise session.Failed(session.shouldfail)
            if session.shouldstop:
                raise session.Interrupted(session.shouldstop)
        state.finish(index)
        index += 1
    return True


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    state = session.config.stash.get(STATE, None)
    if state is None:
        return
    if exitstatus == pytest.ExitCode.INTERRUPTED:
        state.interrupted = True
        return
    for index in list(state.runs):
        state.finish(index)
