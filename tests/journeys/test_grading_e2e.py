"""End to end: real submissions through the real worker, the suites and the report."""

from __future__ import annotations

import os
import yaml

import pytest

from grader.report.model import GradeReport, Status
from grader.grading.runner import grade
from grader.ingest.submission.load import load_submission


SEED = 20261129
CORRECT = [
    "solutions/chapter07",
    "examples/submissions/correct",
    "examples/submissions/notebook-student.ipynb",
    "tests/fixtures/submissions/correct-numpy",
    "tests/fixtures/submissions/correct-einsum",
    "tests/fixtures/submissions/correct-loops",
    "tests/fixtures/submissions/correct-functional",
    "tests/fixtures/submissions/correct-notebook.ipynb",
    "tests/fixtures/submissions/correct-zip.zip",
]
OTHERS = [
    "exercises/chapter07",
    "exercises/chapter07/chapter07.ipynb",
    "tests/fixtures/submissions/broken-softmax",
    "tests/fixtures/submissions/import-error",
]


#: A pytest plugin installed beside the grader, as pytest-randomly or pytest-cov would be: were it
#: loaded into a grading session, it would run no test at all and leave a mark.
_INSTALLED_PLUGIN = """
import pathlib

def pytest_collection_modifyitems(items):
    pathlib.Path(__file__).with_name("loaded").write_text("the grading session loaded me")
    items[:] = []
"""


@pytest.fixture(scope="module")
def installed_plugin(tmp_path_factory):
    """A folder on ``sys.path`` holding an installed distribution whose ``pytest11`` entry point
    names a plugin; yields the file the plugin writes if anything loads it."""
    import importlib
    import sys

    site = tmp_path_factory.mktemp("site")
    (site / "meddling_plugin.py").write_text(_INSTALLED_PLUGIN, encoding="utf-8")
    info = site / "meddling_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: meddling-plugin\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[pytest11]\nmeddling = meddling_plugin\n", encoding="utf-8")
    sys.path.insert(0, str(site))
    importlib.invalidate_caches()
    try:
        yield site / "loaded"
    finally:
        sys.path.remove(str(site))
        sys.modules.pop("meddling_plugin", None)


@pytest.fixture(scope="module")
def reports(root, rubric, installed_plugin):
    """Every submission above graded in ONE run, as a batch would, with another package's
    pytest plugin installed: {path: report}."""
    from importlib.metadata import entry_points

    assert "meddling" in {ep.name for ep in entry_points(group="pytest11")}  # pytest would autoload it
    paths = CORRECT + OTHERS
    subs = [load_submission(root / p) for p in paths]
    graded = grade(rubric, subs, seed=SEED)
    return dict(zip(paths, graded))


def test_no_installed_pytest_plugin_is_loaded_into_grading(reports, installed_plugin):
    assert not installed_plugin.exists()
    assert all(reports[p].score == reports[p].max_score > 0 for p in CORRECT)


def _part(report: GradeReport, part: str):
    return next(p for p in report.parts if p.id == part)


def _full(report: GradeReport, part: str) -> bool:
    p = _part(report, part)
    return p.max_score > 0 and p.score == p.max_score


@pytest.mark.parametrize("path", CORRECT)
def test_correct_solutions_in_every_style_earn_full_marks_and_no_mistake(reports, path):
    report = reports[path]
    failing = [(t.id, t.feedback.get("en")) for t in report.tests if t.status != Status.PASSED]
    assert failing == []
    assert report.score == report.max_score > 0
    assert [m.id for m in report.mistakes] == []
    assert report.errors == []


@pytest.mark.parametrize("path", ["exercises/chapter07", "exercises/chapter07/chapter07.ipynb"])
def test_untouched_stubs_earn_zero_and_are_named_not_implemented(reports, path):
    report = reports[path]
    assert report.score == 0
    assert {m.id for m in report.mistakes} == {"not-implemented"}
    assert report.errors == []  # a stub is a failure of the student's, not a grading problem


def test_a_syntax_error_costs_only_the_tests_of_that_file(reports):
    report = reports["tests/fixtures/submissions/broken-softmax"]
    assert _part(report, "softmax").score == 0
    assert all(_full(report, p) for p in ("scaling", "variance", "quiz"))
    assert any("softmax.py, line 8" in e and "SyntaxError" in e for e in report.errors)
    softmax_tests = [t for t in report.tests if t.part == "softmax"]
    assert {t.status for t in softmax_tests} == {Status.ERROR}
    assert all(t.file == "softmax.py" and t.line == 8 for t in softmax_tests)


def test_an_import_error_costs_only_the_tests_of_that_file(reports):
    report = reports["tests/fixtures/submissions/import-error"]
    assert _part(report, "variance").score == 0
    assert all(_full(report, p) for p in ("scaling", "softmax", "quiz"))
    assert any("variance.py, line" in e and "ModuleNotFoundError" in e for e in report.errors)


def test_the_report_carries_schema_1_fields_and_round_trips(reports):
    report = reports["examples/submissions/correct"]
    data = yaml.safe_load(yaml.safe_dump(report.to_dict(), allow_unicode=True))
    for key in ("schema", "assignment", "submission", "score", "max_score", "tests", "mistakes",
                "sandbox", "errors", "seed"):
        assert key in data
    assert data["schema"] == 1 and data["seed"] == SEED
    for test in data["tests"]:
        assert {"id", "part", "status", "score", "max_score", "visibility"} <= set(test)
        assert test["part"] in {"scaling", "softmax", "variance", "quiz"}
    assert data["sandbox"]["level"] in {"namespaces", "rlimits"}
    assert GradeReport.from_dict(data).to_dict() == report.to_dict()


def test_hidden_tests_run_alongside_public_ones(reports):
    suites = {t.suite for t in reports["solutions/chapter07"].tests}
    assert suites == {"public", "hidden"}


# --- trust boundary (grader contract, "Trust boundary") ---------------------------------------
# Values equal to everything, __torch_function__ subclasses, NaN and monkeypatched comparisons
# are graded as submissions, between clean neighbours, in tests/journeys/test_attacks.py.


def test_student_code_runs_in_another_process(root):
    """A function that reports its own pid shows the code ran elsewhere, and left no module here."""
    import sys

    from grader.sandbox.worker import Worker

    code = "import os\nMARK = 'student-was-here'\ndef head_dim(d_model, n_heads):\n    return os.getpid()\n"
    sub = {"kind": "folder", "modules": [{"name": "scaling", "filename": "scaling.py",
                                          "chunks": [{"code": code, "label": "scaling.py", "first_line": 1}]}]}
    with Worker(level="rlimits") as worker:
        session = worker.open(sub)
        pid = session.call("scaling", "head_dim", [768, 12], {})
        session.close()
    assert type(pid) is int and pid != os.getpid()
    assert not any(getattr(m, "MARK", None) == "student-was-here" for m in list(sys.modules.values()))


def test_same_seed_same_verdicts(root, rubric, reports):
    again = grade(rubric, [load_submission(root / "examples/submissions/sqrt-d-model")], seed=SEED)[0]
    twice = grade(rubric, [load_submission(root / "examples/submissions/sqrt-d-model")], seed=SEED)[0]
    assert [(t.id, t.status, t.score) for t in again.tests] == [(t.id, t.status, t.score) for t in twice.tests]
    assert again.score == twice.score


def test_the_bundled_untouched_stub_is_the_handed_out_stub(root):
    """examples/submissions/untouched-stub is a student who changed nothing: it must not drift."""
    example, stubs = root / "examples/submissions/untouched-stub", root / "exercises/chapter07"
    for name in ("scaling.py", "softmax.py", "variance.py", "answers.yaml"):
        assert (example / name).read_bytes() == (stubs / name).read_bytes(), name
