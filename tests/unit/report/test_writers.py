"""The six report writers: pure functions of one redacted report that agree on every score."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
import yaml

from grader.report import SUFFIXES, render
from grader.report.markdown import ci_annotations, source_locator
from grader.report.model import CaseOutcome, GradeReport, Mistake, PartScore, Status
from grader.report.redact import redact
from grader.spec.rubric.model import HiddenDetail, Plugin, ReportOptions

from tests.helpers import ROOT, TESTS


SCHEMAS = TESTS / "schemas"
FORMATS = ("yaml", "json", "gradescope", "junit", "markdown", "html")


def make_report(**changes: Any) -> GradeReport:
    """A small report with every status, a hidden suite, a mistake and plot data."""
    t = lambda id, part, status, score, max_score=1.0, **kw: CaseOutcome(  # noqa: E731
        id=id, part=part, status=status, score=score, max_score=max_score,
        title={"en": f"title of {id}", "ja": f"{id} の題"}, **kw)
    tests = [
        t("public/test_scaling.py::test_head_dim[768-12]", "scaling", Status.PASSED, 1.0),
        t("public/test_scaling.py::test_scaling_factor[768-12]", "scaling", Status.FAILED, 0.0,
          feedback={"en": "scaling_factor(768, 12) returned 27.7128; expected 8.",
                    "ja": "scaling_factor(768, 12) の戻り値は 27.7128 でしたが、期待値は 8 です。"},
          expected="8", actual="27.7128", function="scaling_factor"),
        t("hidden/test_scaling.py::test_secret_case", "scaling", Status.FAILED, 0.0,
          visibility="hidden", suite="hidden",
          feedback={"en": "SECRET-INPUT 12345 gave 3", "ja": "SECRET-INPUT 12345 で 3"},
          expected="SECRET-EXPECTED", actual="3"),
        t("hidden/test_scaling.py::test_other_secret", "scaling", Status.PASSED, 1.0,
          visibility="hidden", suite="hidden"),
        t("public/test_softmax.py::test_softmax_large", "softmax", Status.ERROR, 0.0,
          feedback={"en": "softmax.py, line 3: NameError", "ja": "softmax.py 3 行目: NameError"},
          file="softmax.py", line=3),
        t("public/test_softmax.py::test_slow", "softmax", Status.TIMEOUT, 0.0),
        t("hidden/test_variance.py::test_scaled[64]", "variance", Status.PASSED, 2.0, 2.0,
          visibility="after_due_date", suite="hidden"),
        t("public/test_quiz.py::test_skip", "quiz", Status.SKIPPED, 0.0, 0.5),
    ]
    parts = [
        PartScore("scaling", 2.0, 4.0, {"en": "Scaling", "ja": "スケーリング"}),
        PartScore("softmax", 0.0, 2.0, {"en": "Softmax", "ja": "Softmax"}),
        PartScore("variance", 2.0, 2.0, {"en": "Variance", "ja": "分散"}),
        PartScore("quiz", 0.0, 0.5, {"en": "Quiz", "ja": "クイズ"}),
    ]
    fields: dict[str, Any] = dict(
        assignment="chapter07", submission="alice <&> \"x\"", score=4.0, max_score=8.5,
        tests=tests, parts=parts,
        mistakes=[Mistake("sqrt-d-model", "scaling",
                          {"en": "You divided by sqrt(768) = 27.71.", "ja": "√768 = 27.71 で割っています。"},
                          {"factor": 27.7128}, function="scaling_factor")],
        sandbox={"level": "namespaces"}, errors=[], seed=42, graded_at="2026-01-01T00:00:00+00:00",
        pass_mark=60.0, passed=False, output="student printed SECRET-INPUT 12345",
        plots={
            "softmax": {"d_k": 64, "scores": [9.0, -3.0, 14.0, 1.0],
                        "student_unscaled": [0.0067, 0.0, 0.9933, 0.0],
                        "student_scaled": [0.3, 0.05, 0.55, 0.1],
                        "reference_unscaled": [0.0067, 0.0, 0.9933, 0.0],
                        "reference_scaled": [0.3, 0.06, 0.55, 0.09]},
            "variance": {"d_k": [1, 4, 16, 64], "student": [1.0, 4.1, 15.8, 63.0],
                         "scaled": [1.0, 1.02, 0.99, None],
                         "reference": [1.0, 4.0, 16.2, 64.5], "reference_scaled": [1.0, 1.0, 1.01, 1.0]},
        },
    )
    fields.update(changes)
    return GradeReport(**fields)


#: a reviewer's comment on two lines (grader review), its text as hostile as a reviewer may paste
COMMENT = {"n": 3, "file": "scaling.py", "start": 2, "end": 3, "lines": ["def f(x):", "    return x / 64"],
           "text": "<b>why</b> 64? [x](javascript:alert(1)) √d_k で割りましょう", "by": "tanaka",
           "at": "2026-12-01T10:00:00+00:00"}


class _Rubric:
    """The parts of a rubric the writers read: its report options, and a plug-in with no figures."""

    def __init__(self, **options: Any) -> None:
        self.report = ReportOptions(**options)
        self.plugin = Plugin()


# --------------------------------------------------------------------------- parsing back


class _Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if "data-score" in a:
            self.rows.append(a)


def scores_of(fmt: str, text: str) -> dict[str, Any]:
    """Total, part and per-test scores read back from one rendered format."""
    if fmt in ("yaml", "json"):
        d = yaml.safe_load(text) if fmt == "yaml" else json.loads(text)
        return {"total": (d["score"], d["max_score"]),
                "parts": [(p["score"], p["max_score"]) for p in d["parts"] if p["max_score"]],
                "tests": [(t["score"], t["max_score"]) for t in d["tests"]]}
    if fmt == "gradescope":
        d = json.loads(text)
        extra = d["extra_data"]
        return {"total": (d["score"], extra["max_score"]),
                "parts": [(p["score"], p["max_score"]) for p in extra["parts"].values() if p["max_score"]],
                "tests": [(t["score"], t["max_score"]) for t in d["tests"] if "extra_data" in t]}
    if fmt == "junit":
        root = ET.fromstring(text)
        parts, tests = [], []
        for suite in root.iter("testsuite"):
            props = {p.get("name"): p.get("value") for p in suite.iter("property")}
            if "score" not in props:
                continue
            parts.append((float(props["score"]), float(props["max_score"])))
            for case in suite.iter("testcase"):
                s, m = props[f"score:{case.get('name')}"].split("/")
                tests.append((float(s), float(m)))
        return {"total": (sum(p[0] for p in parts), sum(p[1] for p in parts)),
                "parts": [p for p in parts if p[1]], "tests": tests}
    if fmt == "markdown":
        total = re.search(r"\*\*[^*]*: ([\d.]+) / ([\d.]+)\*\*", text)
        assert total is not None
        tables = text.split("\n### ")
        rows = lambda chunk: [(float(a), float(b)) for a, b in re.findall(r"\| ([\d.]+) / ([\d.]+) \|$", chunk, re.M)]  # noqa: E731
        tests_chunk = next(c for c in tables if c.startswith(("テスト", "Tests")))
        return {"total": (float(total[1]), float(total[2])), "parts": rows(tables[0]),
                "tests": rows(tests_chunk)}
    if fmt == "html":
        cells = _Cells()
        cells.feed(text)
        pick = lambda key: [(float(r["data-score"]), float(r["data-max-score"])) for r in cells.rows if key in r]  # noqa: E731
        [total] = [(float(r["data-score"]), float(r["data-max-score"])) for r in cells.rows
                   if "data-part" not in r and "data-test" not in r]
        return {"total": total, "parts": pick("data-part"), "tests": pick("data-test")}
    raise AssertionError(fmt)


def assert_formats_agree(report: GradeReport, rubric: Any) -> dict[str, str]:
    texts = {fmt: render(report, fmt, rubric=rubric, lang="ja") for fmt in FORMATS}
    read = {fmt: scores_of(fmt, text) for fmt, text in texts.items()}
    expected = read["yaml"]
    for fmt in FORMATS:
        assert expected == read[fmt], fmt
    return texts


# --------------------------------------------------------------------------- agreement


@pytest.mark.parametrize("detail", list(HiddenDetail))
def test_all_six_formats_agree_on_every_score(detail: HiddenDetail) -> None:
    """Total, part and per-test scores read back from each format are identical."""
    report = make_report()
    rubric = _Rubric(hidden_tests=detail)
    assert_formats_agree(report, rubric)
    shown = redact(report, rubric.report)
    assert (shown.score, shown.max_score) == (4.0, 8.5)
    assert sum(t.max_score for t in shown.tests) == 8.5


def test_rounding_applies_to_every_format() -> None:
    """Scores are rounded once, before any writer."""
    report = make_report(score=4.33333, max_score=8.5)
    report.parts[0].score = 2.33333
    texts = assert_formats_agree(report, _Rubric(rounding=1))
    assert json.loads(texts["json"])["score"] == 4.3


# --------------------------------------------------------------------------- redaction


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("detail", [HiddenDetail.NONE, HiddenDetail.PASS_FAIL])
def test_no_format_leaks_hidden_feedback(fmt: str, detail: HiddenDetail) -> None:
    """Hidden tests' feedback, values and the student's output never reach a student format."""
    text = render(make_report(), fmt, rubric=_Rubric(hidden_tests=detail))
    assert "SECRET" not in text
    if detail == HiddenDetail.NONE:
        assert "test_secret_case" not in text and "test_other_secret" not in text


def test_pass_fail_keeps_names_and_status() -> None:
    shown = redact(make_report(), ReportOptions(hidden_tests=HiddenDetail.PASS_FAIL))
    secret = next(t for t in shown.tests if t.id.endswith("test_secret_case"))
    assert (Status.FAILED, {}, None) == (secret.status, secret.feedback, secret.expected)


def test_none_keeps_one_summary_per_part() -> None:
    shown = redact(make_report(), ReportOptions(hidden_tests=HiddenDetail.NONE))
    summaries = [t for t in shown.tests if t.suite == "hidden"]
    assert [("hidden/scaling", 1.0, 2.0, "hidden"), ("hidden/variance", 2.0, 2.0, "after_due_date")] == [
        (t.id, t.score, t.max_score, t.visibility) for t in summaries]


def test_full_and_instructor_keep_everything() -> None:
    report = make_report()
    assert report.to_dict() == redact(report, ReportOptions(hidden_tests=HiddenDetail.NONE), "instructor").to_dict()
    assert report.to_dict() == redact(report, ReportOptions()).to_dict()
    with pytest.raises(ValueError, match="audience"):
        redact(report, None, "teacher")


def test_languages_limit_the_text() -> None:
    """language: en drops the Japanese text from every format."""
    for fmt in FORMATS:
        text = render(make_report(), fmt, rubric=_Rubric(languages=("en",)), lang="en")
        assert "期待値は 8" not in text, fmt
    assert "期待値は 8" in render(make_report(), "markdown", rubric=_Rubric(), lang="en")


def test_redact_leaves_the_input_alone() -> None:
    report = make_report()
    before = report.to_dict()
    redact(report, ReportOptions(hidden_tests=HiddenDetail.NONE, rounding=0))
    assert before == report.to_dict()


def test_unknown_format_is_a_usage_error() -> None:
    from grader.errors import UsageError

    with pytest.raises(UsageError, match="unknown report format"):
        render(make_report(), "pdf")
    assert set(FORMATS) == set(SUFFIXES)


# --------------------------------------------------------------------------- schemas


def test_junit_validates_against_the_xsd() -> None:
    xmlschema = pytest.importorskip("xmlschema")
    schema = xmlschema.XMLSchema(str(SCHEMAS / "junit.xsd"))
    for report in (make_report(), make_report(errors=["scaling.py, line 1: SyntaxError"], tests=[]),
                   make_report(comments=[COMMENT])):
        text = render(report, "junit")
        schema.validate(text)
        root = ET.fromstring(text)
        assert int(root.get("tests", "0")) == len(list(root.iter("testcase")))
    failure = ET.fromstring(render(make_report(), "junit", lang="en")).find(".//failure")
    assert failure is not None and "returned 27.7128" in failure.get("message", "")


def test_gradescope_validates_against_the_spec_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((SCHEMAS / "gradescope-results.json").read_text(encoding="utf-8"))
    for report in (make_report(), make_report(errors=["the worker crashed"], tests=[]), make_report(comments=[COMMENT])):
        jsonschema.validate(json.loads(render(report, "gradescope")), schema)
    d = json.loads(render(make_report(errors=["the worker crashed"]), "gradescope"))
    assert d["tests"][-1]["visibility"] == "visible" and "crashed" in d["tests"][-1]["output"]
    assert {"visible", "hidden", "after_due_date"} == {t["visibility"] for t in d["tests"]}


# --------------------------------------------------------------------------- markdown / annotations


def test_annotations_point_at_the_students_function(tmp_path: Path) -> None:
    (tmp_path / "scaling.py").write_text("import math\n\n\ndef head_dim(a, b):\n    pass\n\n\ndef scaling_factor(a, b):\n    return 1\n")
    (tmp_path / "softmax.py").write_text("x\n")
    locate = source_locator({"scaling": "scaling.py", "softmax": "softmax.py"}, tmp_path, "ex/ch7")
    shown = redact(make_report(), ReportOptions(hidden_tests=HiddenDetail.NONE))
    lines = ci_annotations(shown, None, "en", locate=locate)
    assert any(line.startswith("::error file=ex/ch7/scaling.py,line=8,") and "27.7128" in line for line in lines)
    assert any(line.startswith("::error file=ex/ch7/softmax.py,line=3,") for line in lines)
    assert all("\n" not in line and "SECRET" not in line for line in lines)


def test_markdown_escapes_table_cells() -> None:
    report = make_report()
    report.tests[0].title = {"en": "a | b\nc"}
    text = render(report, "markdown", lang="en")
    assert "a \\| b c" in text


# --------------------------------------------------------------------------- html


def test_html_is_self_contained_with_two_plots() -> None:
    from grader.spec.rubric.load import load_rubric

    chapter07 = load_rubric(ROOT / "rubrics" / "chapter07.yaml")  # its figures hook
    text = render(make_report(), "html", rubric=chapter07, lang="ja")
    assert text.count("data:image/png;base64,") == 2
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", text)
    assert "<script" not in text
    assert "alice &lt;&amp;&gt;" in text  # the submission name is escaped
    assert 'lang="ja"' in text and "Score" in text and "得点" in text


def test_html_without_plot_data_still_renders() -> None:
    text = render(make_report(plots={}), "html")
    assert "data:image/png" not in text and "<table" in text


def test_the_headline_names_a_mistake_found_in_two_parts_once() -> None:
    """√d_model in the code and in the quiz answer is one central mistake: the verdict, the job
    summary's first sentence and the HTML headline each name it once, in both languages."""
    from io import StringIO

    from rich.console import Console

    from grader.report import terminal
    from grader.report.html import render as html_render
    from grader.report.markdown import render as md_render
    from grader.report.text import verdict

    both = [
        Mistake("sqrt-d-model", "scaling", {"en": "CODE divides by 27.71.", "ja": "CODE は 27.71 で割っています。"},
                function="scaling_factor", central=True),
        Mistake("sqrt-d-model", "quiz", {"en": "QUIZ answer 64 = √4096.", "ja": "QUIZ の答え 64 = √4096。"},
                function="divisor-4096-32", central=True),
    ]
    report = make_report(mistakes=both, passed=True, score=8.0)
    assert verdict(report, ["en"]) == "passed, but with the central mistake sqrt-d-model"
    assert verdict(report, ["ja"]) == "合格。ただし核心の間違い sqrt-d-model があります"
    assert verdict(report, ["en"], quote="`") == "passed, but with the central mistake `sqrt-d-model`"
    for lang in ("en", "ja"):
        text = md_render(report, ReportOptions(languages=[lang]), lang)
        [outcome] = [x for x in text.splitlines() if x.startswith("> ")]
        assert outcome.count("sqrt-d-model") == 1, outcome
        assert "CODE" in outcome and "QUIZ" in outcome  # what it says in each part is kept
        score_line = next(x for x in text.splitlines() if x.startswith("**"))
        assert score_line.count("sqrt-d-model") == 1, score_line
        out = StringIO()
        terminal.show(report, Console(file=out, width=200, color_system=None), lang)
        [total] = [x for x in out.getvalue().splitlines() if "4.0 / 8.5" in x or "8 / 8.5" in x]
        assert total.count("sqrt-d-model") == 1, total
    page = html_render(report, _Rubric(languages=["en", "ja"]).report)
    headline = page.split('id="score"', 1)[1].split("</p>", 1)[0]
    assert headline.count("sqrt-d-model") == 2, headline  # once per language
