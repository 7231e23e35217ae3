"""The adversarial suite: every applicable row of the attack catalogue, as a submission.

Each attack (written from ``tests/fixtures/attacks/make_fixtures.py`` into a temporary folder) is a correct submission with one hostile
part (see ``attack.yaml`` there and ``docs/security.md``). All attacks of one configuration
are graded in ONE ``grade()`` call on ONE worker, each between two copies of a clean
submission: ``[clean, attack1, clean, attack2, clean, ...]``. For every attack the tests check:

* the attacked tests score zero (``expect: zero``), or the report is exactly the clean one
  (``expect: same``: the hostile part gained nothing and its probe found nothing);
* everything the attack did not touch keeps full marks;
* the clean submissions before and after it are graded exactly as the clean one alone;
* no process the submission started is alive once its report is out;
* no secret (a ``GITHUB_TOKEN`` in the grader's environment, hidden-suite or solution text)
  reaches its report;
* and, for the whole run, no file appeared outside the scratch space and no process outlived it.

Configurations: ``namespaces`` (bubblewrap + seccomp), ``noseccomp`` (namespaces with the
seccomp filter off, so the zygote's own watch and sweep are what stop processes),
``rlimits`` (the weak fallback; only the attacks that do not depend on isolation) and
``subprocess`` (the Windows fallback, one fresh process per submission; the crash, time,
output and channel attacks).
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import secrets
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from grader.report.model import GradeReport
from grader.spec.rubric.load import load_rubric
from grader.grading.runner import grade
from grader.sandbox import backends
from grader.sandbox.spawn import worker_for
from grader.ingest.submission.load import load_submission

from tests.helpers import ROOT, TESTS, descendants, zygote_pid


pytestmark = pytest.mark.sandbox


def _generated_attacks() -> Path:
    """Write every attack submission (reference code plus one hostile block) into a temp dir."""
    source = TESTS / "fixtures" / "attacks" / "make_fixtures.py"
    spec = importlib.util.spec_from_file_location("attack_fixtures", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    target = Path(tempfile.mkdtemp(prefix="grader-attacks-"))
    atexit.register(shutil.rmtree, target, ignore_errors=True)
    return module.write_fixtures(target)


ATTACKS_DIR = _generated_attacks()
SEED = 424242
TOKEN = "ghp_" + secrets.token_hex(18)
#: lines that exist only in the hidden suites, the reference and the rubric
SECRET_TEXT = [
    (ROOT / "suites" / "chapter07" / "hidden" / "test_variance.py", "A correct solution fails a 5-SE check"),
    (ROOT / "solutions" / "chapter07" / "scaling.py", "Reference for scaling.py"),
    (ROOT / "rubrics" / "chapter07.yaml", "Rubric for chapter 7"),
]
#: in the environment of every process of the subprocess level (its HOME is its own scratch)
SPAWN_MARKER = "HOME=" + os.path.join(tempfile.gettempdir(), "grader-spawn-")
#: the chapter's rubric's limits, with a per-call limit short enough for the hanging attacks
#: (each hanging function waits it once) and long enough for a clean call on a busy machine
LIMITS = {"per_call_s": 5, "per_submission_s": 120, "memory_mb": 1024, "cpu_s": 20,
          "file_size_mb": 16, "scratch_mb": 64, "output_kb": 64, "processes": 1}


def _meta(name: str) -> dict[str, Any]:
    return yaml.safe_load((ATTACKS_DIR / name / "attack.yaml").read_text(encoding="utf-8"))


ALL_ATTACKS = sorted(p.name for p in ATTACKS_DIR.iterdir() if (p / "attack.yaml").exists())


def _attacks_for(level: str) -> list[str]:
    return [name for name in ALL_ATTACKS if level in _meta(name)["levels"]]


def _batch_for(level: str) -> list[str]:
    """The attacks in grading order; one with ``repeat: 2`` comes twice."""
    out = []
    for name in _attacks_for(level):
        out += [name] * int(_meta(name).get("repeat", 1))
    return out


def _namespaces_or_skip() -> None:
    ok, why = backends.namespaces_available()
    if not ok:
        if os.environ.get("CI"):
            pytest.fail(f"CI must be able to build the namespace sandbox: {why}")
        pytest.skip(why)


# --------------------------------------------------------------------------- processes


def _ns_of(pid: int) -> str:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return ""


def _in_namespaces(namespaces: set[str]) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and _ns_of(int(entry)) in namespaces:
            out.append(int(entry))
    return out


def _with_env_marker(marker: str) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                if marker.encode() in fh.read():
                    out.append(int(entry))
        except OSError:
            continue
    return out


# --------------------------------------------------------------------------- files


def _marker_files() -> set[str]:
    """Files named like the attacks' markers wherever an escaped write could land."""
    names = ("PWNED", "LEFT_")
    found: set[str] = set()
    flat = {"/", "/usr", "/etc", "/opt", "/run", "/root", "/home", "/var/tmp", "/dev/shm",
            tempfile.gettempdir(), os.path.expanduser("~"), sys.prefix, sys.base_prefix,
            os.path.dirname(sys.executable), os.path.dirname(os.__file__)}
    flat.update(p for p in sys.path if p and os.path.isdir(p))
    path = os.path.abspath(sys.executable)
    while path != "/":
        path = os.path.dirname(path)
        flat.add(path)
    for folder in flat:
        try:
            found.update(os.path.join(folder, e) for e in os.listdir(folder) if e.startswith(names))
        except OSError:
            pass
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in (".git", ".venv", "node_modules")]
        found.update(os.path.join(folder, f) for f in files + dirs if f.startswith(names))
    return found


# --------------------------------------------------------------------------- runs


@dataclass
class Run:
    """One grade() call over [clean, a1, clean, a2, clean, ...] and what was seen during it."""

    level: str
    names: list[str]
    reports: list[GradeReport] = field(default_factory=list)
    leftovers: list[list[int]] = field(default_factory=list)  # per report, processes still alive
    after_run: list[str] = field(default_factory=list)
    restarts: int = 0
    seconds: float = 0.0

    def _index(self, name: str) -> int:
        """Position of the attack's LAST report (an attack graded twice sees its own traces)."""
        return 2 * (len(self.names) - 1 - self.names[::-1].index(name)) + 1

    def triplet(self, name: str) -> tuple[GradeReport, GradeReport, GradeReport]:
        i = self._index(name)
        return self.reports[i - 1], self.reports[i], self.reports[i + 1]

    def leftovers_of(self, name: str) -> list[int]:
        return [pid for i, name_i in enumerate(self.names) if name_i == name
                for pid in self.leftovers[2 * i + 1] + self.leftovers[2 * i + 2]]


@pytest.fixture(scope="module")
def attack_rubric(tmp_path_factory: pytest.TempPathFactory):
    """The chapter's rubric with short limits, its relative paths made absolute."""
    src = ROOT / "rubrics" / "chapter07.yaml"
    data = yaml.safe_load(src.read_text(encoding="utf-8"))
    base = src.parent
    for key in ("exercises", "reference"):
        data[key] = str((base / data[key]).resolve())
    for suite in data["suites"].values():
        suite["path"] = str((base / suite["path"]).resolve())
    for key, value in data.get("plugin", {}).items():  # the chapter's plug-in, where it is
        if key != "notebook":
            data["plugin"][key] = str((base / value).resolve())
    data["limits"] = dict(LIMITS)
    out = tmp_path_factory.mktemp("rubric") / "chapter07.yaml"
    out.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return load_rubric(out)


@pytest.fixture(scope="module")
def environment_with_secret():
    """A token in the grader's own environment, as CI would have."""
    old = os.environ.get("GITHUB_TOKEN")
    os.environ["GITHUB_TOKEN"] = TOKEN
    try:
        yield TOKEN
    finally:
        if old is None:
            os.environ.pop("GITHUB_TOKEN", None)
        else:
            os.environ["GITHUB_TOKEN"] = old


@pytest.fixture(scope="module")
def markers_before() -> set[str]:
    return _marker_files()


def _grade_run(level: str, rubric: Any, names: list[str], **worker_args: Any) -> Run:
    clean = load_submission(ATTACKS_DIR / "clean")
    subs = [clean]
    for name in names:
        subs += [load_submission(ATTACKS_DIR / name), clean]
    worker = worker_for("namespaces" if level == "noseccomp" else level, limits=rubric.limits,
                        seccomp=False if level == "noseccomp" else None, **worker_args)
    run = Run(level, names)
    namespaces: set[str] = set()
    markers: set[str] = set()
    before = descendants(os.getpid())

    def on_report(report: GradeReport) -> None:
        if worker.level == "subprocess":  # the submission's own process is gone; only the spare may live
            spare = {worker._spare.proc.pid} if worker._spare is not None else set()
            alive = (descendants(os.getpid()) - before) | set(_with_env_marker(SPAWN_MARKER))
            run.leftovers.append(sorted(p for p in alive - spare if _describe(p)))
            return
        zygote = zygote_pid(worker)
        if worker.level == "namespaces":  # the sandbox's own pid namespace
            namespaces.add(_ns_of(zygote))
        elif worker._launch is not None:  # the environment every rlimits process inherits
            markers.add(f"HOME={worker._launch.scratch}")
        run.leftovers.append(sorted(descendants(zygote)))

    t0 = time.monotonic()
    worker.start()
    try:
        run.reports = grade(rubric, subs, suites=("hidden",), seed=SEED, worker=worker, on_report=on_report)
        run.restarts = worker.restarts
    finally:
        worker.stop()
    run.seconds = time.monotonic() - t0
    time.sleep(0.2)
    namespaces.discard("")
    if worker.level == "subprocess":
        markers.add(SPAWN_MARKER)
    stray = descendants(os.getpid()) - before
    stray.update(_in_namespaces(namespaces))
    for marker in markers:
        stray.update(_with_env_marker(marker))
    run.after_run = [_describe(pid) for pid in sorted(stray) if _describe(pid)]
    return run


def _describe(pid: int) -> str:
    """``pid: cmdline`` of a live process, or "" if it has gone (or is a zombie being reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            if fh.read().rsplit(")", 1)[1].split()[0] == "Z":
                return ""
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return f"{pid}: " + fh.read().replace(b"\0", b" ").decode("utf-8", "replace")[:200]
    except (OSError, IndexError):
        return ""


@pytest.fixture(scope="module")
def runs(attack_rubric, environment_with_secret, markers_before):
    """Lazily graded configurations: {level: Run} plus the clean submission graded alone."""
    cache: dict[str, Any] = {}

    def get(level: str) -> tuple[Run, GradeReport]:
        if level not in cache:
            if level in ("namespaces", "noseccomp"):
                _namespaces_or_skip()
            alone = _grade_run(level, attack_rubric, [])
            run = _grade_run(level, attack_rubric, _batch_for(level))
            cache[level] = (run, alone.reports[0])
        return cache[level]

    return get


# --------------------------------------------------------------------------- checks


def _key(report: GradeReport) -> list[tuple[str, str, float]]:
    return [(t.id, t.status.value, t.score) for t in report.tests]


def _visible_text(report: GradeReport) -> str:
    return yaml.safe_dump(report.to_dict(), allow_unicode=True)


def _check(run: Run, clean: GradeReport, name: str) -> None:
    meta = _meta(name)
    expect = meta["levels"][run.level]
    before, attacked, after = run.triplet(name)
    why = f"{name} at {run.level}: errors={attacked.errors} output={attacked.output[-1500:]!r}"

    # the neighbours are graded exactly as the clean submission alone
    assert _key(before) == _key(clean), f"the clean submission before {name} changed"
    assert _key(after) == _key(clean), f"the clean submission after {name} changed"
    assert clean.score == clean.max_score > 0

    if meta.get("enforced_same"):  # what the report says was in force is what was in force
        enforced = attacked.sandbox.get("enforced") or {}
        assert set(enforced) == set(clean.sandbox.get("enforced") or {}), why
        assert "FORGED" not in str(enforced) and enforced.get("address_space_bytes", 2) > 1, why
    if expect == "same":
        assert _key(attacked) == _key(clean), why
    else:
        patterns = meta["attacked"]
        hit = [t for t in attacked.tests if any(p in t.id for p in patterns)]
        assert hit, f"no test matches {patterns}"
        assert [(t.id, t.score) for t in hit if t.score != 0] == [], why
        untouched = {t.id: (t.status.value, t.score) for t in clean.tests if not any(p in t.id for p in patterns)}
        got = {t.id: (t.status.value, t.score) for t in attacked.tests if t.id in untouched}
        assert got == untouched, why
        for part in attacked.parts:  # whole parts the attack did not reach keep full marks
            if not any(t.part == part.id for t in hit):
                assert part.score == part.max_score, f"{part.id}: {why}"
    if expect == meta["expect"]:
        for text in meta.get("output", []):
            assert text in attacked.output, f"{text!r} not printed: {why}"

    assert run.leftovers_of(name) == [], f"processes outlived the grading of {name}"

    visible = _visible_text(attacked)
    assert TOKEN not in visible
    for path, text in SECRET_TEXT:
        assert text in path.read_text(encoding="utf-8")  # the marker is real...
        assert text not in visible  # ...and never reaches the report
    assert attacked.sandbox.get("level") == ("namespaces" if run.level == "noseccomp" else run.level)


@pytest.mark.parametrize("name", _attacks_for("namespaces"))
def test_attack_in_namespaces(runs, name):
    run, clean = runs("namespaces")
    _check(run, clean, name)


@pytest.mark.parametrize("name", _attacks_for("noseccomp"))
def test_attack_in_namespaces_without_seccomp(runs, name):
    run, clean = runs("noseccomp")
    _check(run, clean, name)


@pytest.mark.parametrize("name", _attacks_for("rlimits"))
def test_attack_in_rlimits_fallback(runs, name):
    run, clean = runs("rlimits")
    _check(run, clean, name)


@pytest.mark.parametrize("name", _attacks_for("subprocess"))
def test_attack_in_subprocess_fallback(runs, name):
    run, clean = runs("subprocess")
    _check(run, clean, name)


@pytest.mark.parametrize("level", ["namespaces", "noseccomp", "rlimits", "subprocess"])
def test_nothing_outlives_the_run_and_the_zygote_never_needed_a_restart(runs, level):
    run, _ = runs(level)
    assert run.after_run == []
    assert run.restarts == 0
    assert len(run.reports) == 2 * len(run.names) + 1


def test_no_file_appears_outside_the_scratch_space(runs, markers_before):
    for level in ("namespaces", "noseccomp"):
        runs(level)
    assert _marker_files() - markers_before == set()


def test_every_attack_runs_somewhere():
    for name in ALL_ATTACKS:
        meta = _meta(name)
        assert meta["levels"], name
        assert meta["expect"] in ("zero", "same"), name
        assert meta["row"], name
        if "zero" in meta["levels"].values():
            assert meta.get("attacked"), name
