"""Property tests: hostile strings pushed through every writer and the terminal view.

The strings mix control characters, ANSI/OSC sequences, lone surrogates, non-characters, rich
markup, Markdown/HTML, formula prefixes and, sometimes, 10 MB values. Each goes where a
submission can put it (feedback, expected/actual, errors, notes, printed output, a mistake's
message, the submission's name) and through the trust boundary (``grader.report.contain``), as in a
real grading run. Every output must parse with its real parser (yaml, json, XML against the
JUnit schema, csv, html, Markdown rendered as GitHub does) and hold no raw escape sequence,
no live formula, no tag or link of the student's.
"""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader import sinks
from grader.outputs.gradebook import GradebookRow, write_gradebook
from grader.report import SUFFIXES, render
from grader.report.model import CaseOutcome, GradeReport, Mistake, PartScore, Status
from grader.spec.rubric.load import load_rubric
from grader.report.contain import contain

from tests.helpers import ROOT


RUBRIC = load_rubric(ROOT / "rubrics" / "chapter07.yaml")
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

FRAGMENTS = [
    "\x1b]52;c;cm0gLXJmIH4=\x07", "\x1b[2J\x1b[H", "\x1b[32mScore 119/119\x1b[0m", "\x1b]8;;https://evil.example\x1b\\x\x1b]8;;\x1b\\",
    "\x9b31m", "\r", "\x00", "\x7f", "\x85", "\u2028", "\u202e", "\ud800", "\udfff", "\ufffe", "\uffff",
    "[/x]", "[link=https://evil.example]click[/link]", "[conceal]s[/conceal]", "[bold red]",
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "[a](https://evil.example)",
    "**b**", "`c`", "| cell |", "# h", "\n- item", "&amp;", "]]>", "<!--",
    "=HYPERLINK(\"https://evil.example\",\"x\")", "+1+1", "-2+3", "@SUM(A1)", "\t=1", "＝1",
    "::error::forged", "%0A", "日本語", "x", " ",
]
_pieces = st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=20),
                    st.text(st.characters(min_codepoint=0, max_codepoint=0x2FFFF, categories=None), max_size=10))
HOSTILE = st.lists(_pieces, max_size=8).map("".join)
#: now and then a value of 10 MB (what the caps are for)
BIG = st.one_of(HOSTILE, HOSTILE.map(lambda s: (s or "\x1b[2J") * (10_000_000 // max(1, len(s or "\x1b[2J")))))

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                           HealthCheck.data_too_large])
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def _report(name, feedback, value, error, note, output, message):
    tests = [
        CaseOutcome(id="public/test_scaling.py::test_scaling_factor[768-12]", part="scaling",
                    status=Status.FAILED, max_score=1.0, title={"en": "t", "ja": "t"},
                    feedback={"en": feedback, "ja": feedback}, expected=value, actual=value,
                    file=name, function=name),
        CaseOutcome(id="hidden/test_quiz.py::test_quiz_answer[q]", part="quiz", status=Status.ERROR,
                    max_score=1.0, visibility="hidden", suite="hidden", feedback={"en": error}),
    ]
    return GradeReport(
        assignment="chapter07", submission=name, score=0.0, max_score=2.0, tests=tests,
        parts=[PartScore("scaling", 0.0, 1.0, {"en": "S", "ja": "S"}), PartScore("quiz", 0.0, 1.0)],
        mistakes=[Mistake("sqrt-d-model", "scaling", {"en": message, "ja": message}, {"x": value})],
        sandbox={"level": "namespaces", "enforced": {"processes": value}}, errors=[error, name],
        seed=1, graded_at="2026-01-01T00:00:00+00:00", notes=[note], output=output,
        languages=["ja", "en"])


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.bad = []

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "img", "iframe", "object"):
            self.bad.append(tag)
        for key, value in attrs:
            if key.startswith("on") or "evil.example" in (value or ""):
                self.bad.append(f"{tag} {key}={value}")


@pytest.fixture(scope="module")
def xsd():
    xmlschema = pytest.importorskip("xmlschema")
    return xmlschema.XMLSchema(str(ROOT / "tests" / "schemas" / "junit.xsd"))


@SETTINGS
@given(name=HOSTILE, feedback=BIG, value=HOSTILE, error=BIG, note=HOSTILE, output=BIG, message=HOSTILE)
def test_every_writer_parses_and_holds_nothing_raw(xsd, name, feedback, value, error, note, output, message):
    from markdown_it import MarkdownIt

    report = contain(_report(name, feedback, value, error, note, output, message), output_max=256 * 1024)
    assert len(report.tests[0].feedback["en"].encode()) <= sinks.VALUE_MAX
    for fmt in SUFFIXES:
        for audience in ("student", "instructor"):
            text = render(report, fmt, rubric=RUBRIC, audience=audience)
            text.encode("utf-8")  # valid Unicode: no lone surrogate survived
            assert len(text) < 2_000_000, fmt  # capped where the text entered
            if fmt == "yaml":
                back = yaml.load(text, Loader=_Loader)  # noqa: S506 - a safe loader
                assert back["tests"][0]["feedback"]["en"] == report.tests[0].feedback["en"]
                assert not RAW.search(text.replace("\n", "").replace("\t", ""))
            elif fmt == "json":
                back = json.loads(text)
                assert back["tests"][0]["feedback"]["en"] == report.tests[0].feedback["en"]
            elif fmt == "gradescope":
                back = json.loads(text)
                for t in back["tests"]:
                    assert not RAW.search(t["output"].replace("\n", "").replace("\t", "")), t["output"]
            elif fmt == "junit":
                xsd.validate(ET.fromstring(text.encode("utf-8")))
                assert "\x1b" not in text and "\x07" not in text
            elif fmt == "html":
                page = _Page()
                page.feed(text)
                page.close()
                assert page.bad == []
                assert not RAW.search(text.replace("\n", "").replace("\t", ""))
            elif fmt == "markdown":
                page = _Page()
                page.feed(MarkdownIt("commonmark", {"html": True}).enable("table").render(text))
                page.close()
                assert page.bad == []
                assert not RAW.search(text.replace("\n", ""))


_RICH_SGR = re.compile(r"\x1b\[[0-9;]*m")


@SETTINGS
@given(name=HOSTILE, feedback=BIG, value=HOSTILE, error=HOSTILE, note=HOSTILE, output=BIG, message=HOSTILE)
def test_the_terminal_view_shows_everything_as_text(name, feedback, value, error, note, output, message):
    from rich.console import Console

    from grader.report.terminal import show, show_many

    report = contain(_report(name, feedback, value, error, note, output, message), output_max=256 * 1024)
    console = Console(file=io.StringIO(), force_terminal=True, color_system="truecolor", width=120,
                      highlight=False)
    show(report, console, "en", verbose=True)  # never raises: no markup is parsed
    show_many([report], console, "ja")
    text = _RICH_SGR.sub("", console.file.getvalue())  # the view's own colours
    assert not RAW.search(text.replace("\n", "")), repr(RAW.search(text.replace("\n", "")))


@settings(max_examples=200, deadline=None)
@given(cells=st.lists(st.one_of(HOSTILE, st.integers(), st.floats(allow_nan=False), st.none()), min_size=1, max_size=6))
def test_gradebook_cells_read_back_and_are_never_formulas(tmp_path_factory, rubric, cells):
    path = tmp_path_factory.mktemp("gb") / "gradebook.csv"
    row = dict(zip(["submission", "student_id", "mistakes", "errors", "content_hash", "graded_at"], cells))
    own = {k: v for k, v in row.items() if k in ("submission", "student_id", "errors")}
    write_gradebook(path, [GradebookRow(**{"submission": "", "student_id": "", **own},
                                        cells={k: v for k, v in row.items() if k not in own})], rubric)
    for lang in rubric.report.languages:  # the page written from it: text only, nothing raw
        text = (path.parent / f"gradebook.{lang}.html").read_text(encoding="utf-8")
        page = _Page()
        page.feed(text)
        page.close()
        assert page.bad == []
        assert not RAW.search(text.replace("\n", "").replace("\t", ""))
    with open(path, newline="", encoding="utf-8") as fh:  # (UTF-8: a surrogate would not encode)
        [back] = list(csv.DictReader(fh))
    for key, value in row.items():
        if isinstance(value, str):
            assert back[key] == sinks.csv_cell(value)
            stripped = back[key].lstrip(" \u3000")
            assert not stripped or stripped[0] not in "=+-@\t\r＝＋－＠" or back[key].startswith("'"), back[key]
            assert not RAW.search(back[key].replace("\n", "").replace("\t", ""))
        elif value is not None:  # a number stays a number (the gradebook may write 0.0 as 0)
            assert float(back[key]) == float(value), (back[key], value)


@settings(max_examples=300, deadline=None)
@given(s=HOSTILE)
def test_each_sink_function(s):
    assert not RAW.search(sinks.terminal(s).replace("\n", "").replace("\t", ""))
    root = ET.Element("x", a=sinks.xml(s))
    root.text = sinks.xml(s)
    ET.fromstring(ET.tostring(root, encoding="unicode").encode("utf-8"))
    json.loads(json.dumps(sinks.unicode(s), ensure_ascii=False).encode("utf-8"))
    assert "\n" not in sinks.markdown(s)
    page = _Page()
    page.feed(f"<p>{sinks.html(s)}</p>")
    assert page.bad == []
    capped = sinks.cap(s * 100, 500)
    assert len(capped.encode("utf-8", "surrogatepass")) <= 500


@SETTINGS
@given(HOSTILE, st.integers(min_value=0, max_value=10**9))
def test_a_student_name_as_a_zip_folder_holds_nothing_invisible(name, participant):
    """Moodle feedback-zip folders (and every name :func:`sinks.file_name` makes) from any name:
    one component, no control, DEL, C1, bidi or zero-width character, within the length cap,
    and still mapped to the participant as Moodle's zip importer splits it."""
    from grader.outputs.lms_gradebooks import moodle_folder

    for made in (sinks.file_name(name), moodle_folder(name, str(participant))):
        assert not re.search("[\x00-\x1f\x7f-\x9f\u00ad\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060-\u2069"
                             "\ud800-\udfff\ufeff\ufffe\uffff/\\\\]", made), ascii(made)
        assert made not in (".", "..")
    assert len(sinks.file_name(name).encode("utf-8")) <= sinks.NAME_MAX
    info = moodle_folder(name, str(participant)).split("_", 4)
    assert info[1] == str(participant) and (info[2], info[3]) == ("assignsubmission", "file")
