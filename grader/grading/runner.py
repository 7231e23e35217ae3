"""Rubric + submissions → graded reports.

:func:`grade` runs one pytest session over any number of submissions (see
:mod:`grader.grading.collector`), with the student's code in a warm sandboxed worker and the suites,
reference and scores here. ``grader check``, ``grader grade``, ``grader validate`` and each
worker of ``grader batch`` all come through it.

Example::

    rubric = load_rubric("rubrics/chapter07.yaml")
    [report] = grade(rubric, [load_submission("examples/submissions/correct")])
    report.score, report.max_score
"""

from __future__ import annotations

import importlib.util
import secrets
import sys
import time
import types
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import yaml

from grader.grading import collector as _plugin
from grader.i18n.messages import said
from grader import sinks
from grader.spec.assignment import answer_key
from grader.errors import GraderError, SandboxRefused
from grader.report.contain import contain, lines, now
from grader.report.model import CaseOutcome, GradeReport, Mistake, score_parts
from grader.sandbox import backends, wire
from grader.spec.fingerprint import rubric_fingerprint
from grader.spec.variants import personal_variant
from grader.sandbox.level import choose_level, require_other_user, weak_warning
from grader.sandbox.limits import Limits
from grader.package_data import PACKAGE_DIR
from grader.sandbox.spawn import worker_for
from grader.sandbox.worker import Worker
import grader.safeyaml as safeyaml

if TYPE_CHECKING:
    from grader.sandbox.session import Session
    from grader.spec.rubric.model import Rubric
    from grader.spec.assignment import Assignment
    from grader.ingest.submission.model import Submission

SUITE_INI = PACKAGE_DIR / "suite.ini"
_UNUSED_PLUGINS = (
    "cacheprovider", "terminal", "logging", "junitxml", "unraisableexception", "threadexception",
    "faulthandler", "stepwise", "doctest", "pastebin", "setuponly", "setupplan", "legacypath",
    "tmpdir", "recwarn", "warnings", "unittest", "subtests",
)
#: What every pytest session of the grader's suites is started with. No plugin another package
#: installed (pytest-randomly would reseed and reorder, pytest-cov trace, xdist and hypothesis
#: register options) is loaded: a grade depends on the rubric and the submission alone, and each
#: session starts ~0.8 s sooner where the test tools are installed. Then the plugins of pytest's
#: own that a grading session never uses; several wrap every test phase, and unraisableexception
#: runs gc.collect() over torch's objects at the end (~0.1 s).
SESSION_ARGS = ("--disable-plugin-autoload", *(arg for name in _UNUSED_PLUGINS for arg in ("-p", f"no:{name}")))
MAX_ANSWERS_BYTES = 64 * 1024
MAX_ANSWER_NODES = 5000


# --------------------------------------------------------------------------- sandbox level


# --------------------------------------------------------------------------- reference


def load_reference(folder: Path | None, parts: Sequence[str],
                   quiz_file: str | None = "answers.yaml") -> types.SimpleNamespace | None:
    """Import the reference solution here, in the trusted process, under private names.

    ``parts`` are the code parts (``<part>.py`` each); ``quiz_file`` holds the answer key.
    """
    if folder is None:
        return None
    ns = types.SimpleNamespace()
    saved = list(sys.path)
    sys.path.insert(0, str(folder))
    try:
        for part in parts:
            path = folder / f"{part}.py"
            if not path.exists():
                raise GraderError(said("reference_has_no_py", path=path, part=part))
            name = f"_grader_reference_{part}"
            spec = importlib.util.spec_from_file_location(name, path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            setattr(ns, part, module)
    finally:
        sys.path[:] = saved
    ns.answers_key = answer_key(folder, quiz_file)
    return ns


def forget_other_suites(folders: Iterable[str | Path]) -> None:
    """Drop imported test modules that another assignment's suites left under these names.

    Suite folders are packages (``public``, ``hidden``), so their modules are imported as
    ``public.test_quiz``: after one assignment was graded in this process, another's
    ``public/test_quiz.py`` would otherwise be collected as the first one's module.
    """
    for folder in folders:
        path = Path(folder).resolve()
        for name in [n for n in sys.modules if n == path.name or n.startswith(path.name + ".")]:
            file = getattr(sys.modules[name], "__file__", None)
            if file is None or path not in Path(file).resolve().parents:
                del sys.modules[name]


def reference_for(rubric: Rubric) -> types.SimpleNamespace | None:
    """The rubric's reference, loaded with the parts its assignment declares."""
    from grader.spec.assignment import assignment_of

    a = assignment_of(rubric)
    return load_reference(rubric.reference, [p.id for p in a.code_parts], a.quiz_file)


def plot_data(rubric: Rubric, session: Session, reference: object) -> tuple[dict[str, object], list[str]]:
    """The student's values for the report's figures, from the assignment's ``plot_data`` hook,
    bounded where they are kept (:func:`grader.sinks.bound`: whatever the student's functions
    returned, a report stays small); returns ``(plots, notes)``, a note naming what was left out."""
    from grader.spec.assignment import assignment_of

    raw = assignment_of(rubric).hooks.plot_data(session, reference)
    kept, left_out = sinks.bound(sinks.clean(raw) if isinstance(raw, dict) else {})
    notes = []
    if left_out:
        shown = ", ".join(sinks.cap(w, 120) for w in left_out[:5])
        if len(left_out) > 5:
            shown += f" (+{len(left_out) - 5})"
        notes.append(said("plot_data_left_out", what=shown))
    return kept if isinstance(kept, dict) else {}, notes


# --------------------------------------------------------------------------- quiz answers


def parse_answers(text: str | None) -> tuple[dict[str, object], str | None]:
    """Student quiz YAML → plain dict, or ``({}, problem)``. Data only: never code.

    Keys and string answers are NFKC-normalised: ``ｂ`` is ``b``, ``１２８`` is ``128``.
    """
    if not text:
        return {}, None
    if len(text.encode("utf-8")) > MAX_ANSWERS_BYTES:
        return {}, said("answers_yaml_larger_than", kib=MAX_ANSWERS_BYTES // 1024)
    try:
        data = safeyaml.load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", exc)
        if mark:
            return {}, said("answers_yaml_valid_yaml", line=mark.line + 1, column=mark.column + 1, problem=problem)
        return {}, said("answers_yaml_valid_yaml_2", problem=problem)
    except Exception as exc:  # noqa: BLE001 - a constructor's own error (an impossible date,
        # an int over Python's digit limit, !!float abc, deep nesting): the file is the
        # student's, so only the quiz is lost, with the reason.
        text = " ".join(str(exc).split())[:200] or type(exc).__name__
        return {}, said("answers_yaml_could_read", why=f"{type(exc).__name__}: {text}")
    if data is None:
        return {}, None
    if not isinstance(data, dict):
        return {}, said("answers_yaml_must_map")
    budget = [MAX_ANSWER_NODES]

    def plain(value: object, depth: int = 0) -> object:
        budget[0] -= 1
        if budget[0] < 0 or depth > 6:
            raise ValueError("too large")
        if type(value) is str:
            # As people type: full-width letters and digits, ideographic spaces (an IME).
            return unicodedata.normalize("NFKC", value)
        if value is None or type(value) in (bool, int, float):
            return value
        if isinstance(value, dict):
            return {unicodedata.normalize("NFKC", str(k)): plain(v, depth + 1) for k, v in value.items()}
        if isinstance(value, list):
            return [plain(v, depth + 1) for v in value]
        return str(value)

    try:
        answers = plain(data)
        return answers if isinstance(answers, dict) else {}, None  # (a dict, as data is)
    except (ValueError, RecursionError):
        return {}, said("answers_yaml_too_deeply")


# --------------------------------------------------------------------------- grading


def grade(
    rubric: Rubric | Assignment,
    submissions: Sequence[Submission],
    *,
    suites: Sequence[str] = ("public", "hidden"),
    seed: int | None = None,
    level: str | None = None,
    allow_weak: bool = True,
    worker: Worker | None = None,
    on_report: Callable[[GradeReport], None] | None = None,
    diagnose: bool = True,
    want_plots: bool | Callable[[Submission], bool] = False,
    more: Callable[[], Sequence[Submission] | None] | None = None,
    students: bool = True,
    select: Callable[[str], bool] | None = None,
    variant_only: bool = False,
) -> list[GradeReport]:
    """Grade ``submissions`` against the assignment's ``suites``; one report each, in order.

    Args:
        rubric: the assignment (:func:`grader.spec.assignment.assignment_of`), or its loaded
            :class:`grader.spec.rubric.model.Rubric`.
        submissions: :class:`grader.ingest.submission.model.Submission` objects.
        suites: which suites to run ("public" for ``grader check``).
        seed: the grading seed; a fresh random one when None (recorded in each report).
        level: "namespaces", "rlimits" or "subprocess"; the strongest available when None.
        allow_weak: whether falling back to rlimits is acceptable.
        worker: a running worker to reuse (its level wins over ``level``).
        on_report: called with each report as soon as it is complete.
        diagnose: run the mistake diagnosis (needs the reference for most mistakes).
        want_plots: gather the student's values for the HTML report's plots (or a function
            of the submission saying whether to, e.g. per check of a long-lived session).
        more: called once every submission so far is graded; returns further submissions
            for the same session, or None/empty to end it (``grader batch`` workers). With
            ``more``, reports are handed to ``on_report`` only and not kept: the return
            value is empty, so a long session holds nothing it has finished with.
        students: the submissions are students' code. Then, at a weak level, a grader that
            is not root and can read the hidden suites or the reference refuses
            (:func:`grader.sandbox.level.require_other_user`); ``grader validate`` passes
            False for the course's own reference, mutants and fixtures.

    Raises:
        SandboxRefused: student code would run as a user that can read the course's secrets,
            or as root where no unprivileged user can be had (nothing is graded).
        select: test id -> whether to run it (``grader regrade``); every test when None.
        variant_only: run only the tests that read the student's variant (the ``variant`` or
            ``answer_key`` fixture): ``grader variants check`` proves each variant with them,
            every other test giving the same result in every variant.
    """
    from grader.spec.assignment import Assignment, assignment_of

    if not submissions and more is None:
        return []
    assignment = rubric if isinstance(rubric, Assignment) else assignment_of(rubric)
    # A student's personal release holds their own variant beside its rubric: every check of
    # theirs (grader check, the notebook's check cell, their CI) grades with it.
    personal = personal_variant(Path(assignment.rubric.file), assignment.rubric.assignment)
    if personal is not None:
        submissions = [s if s.variant is not None else s.with_variant(personal) for s in submissions]
        if more is not None:
            given = more

            def more() -> Sequence[Submission] | None:
                return [s if s.variant is not None else s.with_variant(personal) for s in given() or []]
    own_worker = worker is None
    if worker is None:
        chosen, warning = choose_level(allow_weak=allow_weak, prefer=level)
        worker = worker_for(chosen, limits=assignment.rubric.limits)
    else:
        warning = weak_warning(worker.level)
    if students:
        private = [Path(assignment.rubric.suite(name).path) for name in suites if name != "public"]
        if "hidden" in suites and assignment.rubric.reference:
            private.append(Path(assignment.rubric.reference))
        try:
            require_other_user(worker.level, private)
        except SandboxRefused:
            if own_worker:
                worker.stop()
            raise
    grading = _Grading(assignment, worker, warning, suites=suites, seed=seed, on_report=on_report,
                       diagnose=diagnose, want_plots=want_plots, keep=more is None, select=select,
                       variant_only=variant_only)
    try:
        if own_worker:
            worker.start()
        return grading.run(list(submissions), more)
    finally:
        if own_worker:
            worker.stop()


class _Grading:
    """One pytest session over some submissions: what the plugin calls back into."""

    def __init__(self, assignment: Assignment, worker: Worker, warning: str, *, suites: Sequence[str],
                 seed: int | None, on_report: Callable[[GradeReport], None] | None, diagnose: bool,
                 want_plots: bool | Callable[[Submission], bool], keep: bool,
                 select: Callable[[str], bool] | None = None, variant_only: bool = False) -> None:
        rubric = assignment.rubric
        self.rubric, self.worker, self.warning, self.suites = rubric, worker, warning, tuple(suites)
        self.seed = secrets.randbelow(2**31) if seed is None else int(seed)
        self.on_report, self.diagnose, self.want_plots, self.keep = on_report, diagnose, want_plots, keep
        self.select, self.variant_only = select, variant_only
        self.suite_dirs = {name: Path(rubric.suite(name).path) for name in suites}
        self.reference = reference_for(rubric) if "hidden" in suites and rubric.reference else None
        self.fingerprint = rubric_fingerprint(rubric, suites)
        self.limits = Limits.of(rubric.limits)
        self.answer_problems: dict[int, str | None] = {}
        self.reports: dict[int, GradeReport] = {}
        self.produced: set[int] = set()
        self.submissions: list[Submission | None] = []  # the plugin's list: None once graded
        self.refused: SandboxRefused | None = None

    def answers_of(self, index: int) -> dict[str, object]:
        submission = self.submissions[index]
        parsed, self.answer_problems[index] = parse_answers(submission.answers if submission is not None else None)
        if self.answer_problems[index]:
            # Every quiz test then says the file cannot be read, not "no answer yet".
            from grader.i18n.messages import translate
            from grader.kit.asserts import UnreadableAnswers

            problem = self.answer_problems[index] or ""
            return UnreadableAnswers(problem, translate(problem, "ja"))
        return parsed

    def open_session(self, sub: Submission) -> Session:
        if self.refused is not None:
            raise self.refused
        try:
            if not self.worker.alive():
                self.worker.start()
            return self.worker.open(sub, self.limits)
        except SandboxRefused as exc:  # fail closed: no submission is graded, the session ends
            self.refused = exc
            pytest.exit(str(exc), returncode=int(pytest.ExitCode.USAGE_ERROR))
            raise

    def _plots_wanted(self, sub: Submission) -> bool:
        return self.want_plots if isinstance(self.want_plots, bool) else self.want_plots(sub)

    def on_done(self, run: _plugin.SubmissionRun) -> None:
        from grader.grading import diagnosis

        mistakes = []
        if self.diagnose:
            try:
                session = run.session = run.session or self.open_session(run.submission)
                mistakes = diagnosis.diagnose(run, session, self.reference, self.rubric)
            except Exception as exc:  # noqa: BLE001 - diagnosis must never lose a grade
                run.errors.append(said("diagnosis_stopped_early", what=f"{type(exc).__name__}: {exc}"))
        plots: dict[str, object] = {}
        plot_notes: list[str] = []
        if self._plots_wanted(run.submission):
            try:
                session = run.session = run.session or self.open_session(run.submission)
                plots, plot_notes = plot_data(self.rubric, session, self.reference)
            except Exception as exc:  # noqa: BLE001 - a missing plot must never lose a grade
                run.errors.append(said("plot_data_collected", what=f"{type(exc).__name__}: {exc}"))
        output = run.session.close() if run.session is not None else ""
        report = build_report(
            self.rubric, run, mistakes, seed=self.seed, suites=self.suites, level=self.worker.level,
            warning=self.warning, fingerprint=self.fingerprint, output=output,
            answers_problem=self.answer_problems.pop(run.index, None),
        )
        report.plots = plots
        if plot_notes:
            report.notes = lines(report.notes + plot_notes)
        self.produced.add(run.index)
        if self.keep:
            self.reports[run.index] = report
        if self.on_report is not None:
            self.on_report(report)

    def run(self, submissions: list[Submission | None],
            more: Callable[[], Sequence[Submission] | None] | None) -> list[GradeReport]:
        rubric, reference = self.rubric, self.reference
        state = _plugin.GradingState(
            rubric=rubric,
            submissions=submissions,
            open_session=self.open_session,
            suite_dirs=self.suite_dirs,
            reference=reference,
            seed=self.seed,
            answers=self.answers_of,
            on_done=self.on_done,
            answer_key=(reference.answers_key if reference is not None else _public_quiz_ids(rubric)),
            more=(lambda: list(more() or [])) if more is not None else None,
            select=self.select,
            variant_only=self.variant_only,
        )
        self.submissions = state.submissions
        args = [str(p) for p in self.suite_dirs.values()] + [
            "-c", str(SUITE_INI),
            "--rootdir", str(Path(rubric.file).resolve().parent.parent),
            "--import-mode=importlib",
            "--noconftest",
            "-s",
            *SESSION_ARGS,
        ]
        forget_other_suites(self.suite_dirs.values())
        exit_code = pytest.main(args, plugins=[_plugin, state])
        if self.refused is not None:
            raise self.refused
        if state.collect_errors:
            raise GraderError("the test suites could not be collected:\n" + "\n".join(state.collect_errors))
        if exit_code == pytest.ExitCode.INTERRUPTED or state.interrupted:
            raise KeyboardInterrupt
        missing = [i for i in range(len(state.submissions)) if i not in self.produced]
        if missing:
            names = [getattr(state.submissions[i], "name", f"#{i}") for i in missing]
            raise GraderError(said("no_report_produced_pytest", what=', '.join(names), code=exit_code))
        return [self.reports[i] for i in sorted(self.reports)]


def _public_quiz_ids(rubric: Rubric) -> dict[str, object]:
    """Question ids from the blank exercise quiz, for the public well-formedness test."""
    blank = Path(rubric.exercises) / "answers.yaml"
    if not blank.exists():
        return {}
    data = safeyaml.load(blank.read_text(encoding="utf-8")) or {}
    return {str(k): {} for k in data} if isinstance(data, dict) else {}


def build_report(
    rubric: Rubric,
    run: _plugin.SubmissionRun,
    mistakes: list[Mistake],
    *,
    seed: int,
    suites: Sequence[str],
    level: str,
    warning: str,
    fingerprint: str,
    output: str,
    answers_problem: str | None,
) -> GradeReport:
    """Score the outcomes of one submission and gather everything the writers need."""
    sub = run.submission
    session = run.session
    errors: list[str] = []
    if session is not None:
        for name, status in sorted(session.load_report.items()):
            if isinstance(status, dict) and not status.get("ok"):
                cell_errors = status.get("cell_errors")
                for err in cell_errors if isinstance(cell_errors, list) and cell_errors else [status.get("error")]:
                    errors.append(_load_error_text(name, err if isinstance(err, dict) else {}))
        errors += session.events
    errors += run.errors
    if answers_problem:
        errors.append(answers_problem)
    order = {part.id: i for i, part in enumerate(rubric.parts)}
    tests: list[CaseOutcome] = sorted(run.outcomes, key=lambda t: order.get(t.part, len(order)))
    # The rubric's central mistakes lead every view: a passing score must not hide them.
    central = {o.id for o in getattr(rubric, "mistakes", ()) if getattr(o, "central", False)}
    for m in mistakes:
        m.central = m.id in central
    mistakes = sorted(mistakes, key=lambda m: not m.central)
    credit = {m.part: 0.0 for m in mistakes}
    for m in mistakes:
        credit[m.part] = credit.get(m.part, 0.0) + float(getattr(m, "partial_credit", 0.0) or 0.0)
    parts = score_parts(rubric, tests, credit)
    rounding = int(rubric.report.rounding)
    score = round(sum(p.score for p in parts), rounding)
    max_score = round(sum(p.max_score for p in parts), rounding)
    pass_mark = float(rubric.report.pass_mark)
    passed = max_score > 0 and score * 100.0 >= pass_mark * max_score
    limits = Limits.of(rubric.limits).to_dict()
    sandbox = {"level": level, "limits": limits, "isolation": backends.describe(level)}
    if session is not None and getattr(session, "enforced", None):
        sandbox["enforced"] = dict(session.enforced)  # what the worker actually applied
    if warning:
        sandbox["warning"] = warning
    return contain(GradeReport(
        assignment=rubric.assignment,
        submission=sub.name,
        score=score,
        max_score=max_score,
        tests=tests,
        parts=parts,
        mistakes=mistakes,
        sandbox=sandbox,
        errors=errors,
        seed=seed,
        graded_at=now(),
        content_hash=sub.content_hash,
        rubric_hash=fingerprint,
        origin=sub.origin,
        pass_mark=pass_mark,
        passed=passed,
        suites=list(suites),
        notes=[*sub.notes, *getattr(run, "notes", ()), *_variant_note(rubric, sub.variant)],
        output=output,
        languages=list(rubric.report.languages),
        duration_s=time.monotonic() - run.started,
        variant=dict(sub.variant or {}),
    # (the worker already keeps output_kb and says how much it dropped: this is a backstop)
    ), output_max=int(limits["output_kb"]) * 2048 + 4096 if "output_kb" in limits else None)


def _variant_note(rubric: Rubric, variant: dict[str, object] | None) -> list[str]:
    """The report's note of the student's own numbers: the drawn parameters where the rubric
    declares them (never what the quiz asks them to work out), else the variant's id alone."""
    if not variant:
        return []
    values = variant.get("values")
    params = [name for name, _ in rubric.variants.params] if rubric.variants is not None else []
    shown = ", ".join(f"{k} = {values[k]}" for k in params if isinstance(values, dict) and k in values)
    if shown:
        return [said("variant_note", id=str(variant.get("id", ""))[:40], numbers=shown)]
    return [said("variant_note_id", id=str(variant.get("id", ""))[:40])]


def _load_error_text(module: str, err: wire.Frame) -> str:
    """One load error (as the child reported it: each field checked here) in a sentence."""
    where = str(err.get("file") or f"{module}.py")
    what = f"{err.get('type', 'Error')}: {err.get('message', '')}".strip()
    if err.get("line"):
        if module == "notebook":
            return said("cell_s_later_lines_at", where=where, line=err["line"], what=what)
        return said("tests_need_py_could_at", where=where, line=err["line"], what=what, module=module)
    if module == "notebook":
        return said("cell_s_later_lines", where=where, what=what)
    return said("tests_need_py_could", where=where, what=what, module=module)
