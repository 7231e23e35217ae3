"""A batch of correct submissions plus one entry of each hostile class, graded as an instructor
grades it (``run_batch``, two workers), beside the same batch without the hostile entries.

The entries come from ``tests/fixtures/attacks/make_fixtures.py`` (``INGEST``): corrupt
compressed members, duplicate members, symbolic links (an entry, a file in a folder, a zip
member), exotic coding cookies, answers.yaml values whose YAML constructor raises, a broken
notebook whose error looks like rich markup, formula-like names, exceptions carrying escape
sequences, markup and lone surrogates, printed escape sequences, a return value that would make
a 40 MB message, and entries whose report names collide. What must hold:

* the batch finishes and every entry has a report (YAML, the batch's record) and a gradebook row;
* each correct submission is graded exactly as in the batch without the hostile entries;
* each hostile entry's report gives a plain reason;
* every report, rendered in every format, parses with its real parser, holds no raw escape
  sequence, and is small; no gradebook cell is a live formula;
* the terminal view shows every hostile report without interpreting any of it.
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from grader.workflows.batch import run_batch
from grader.report import SUFFIXES, render
from grader.report.model import GradeReport
from grader.spec.rubric.load import load_rubric

from tests.helpers import ROOT, RUBRIC, read_gradebook


_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
RAW_ESCAPES = ("\x1b", "\x07", "\x9b", "\ufffe", "\uffff")


def _fixtures():
    source = ROOT / "tests" / "fixtures" / "attacks" / "make_fixtures.py"
    spec = importlib.util.spec_from_file_location("attack_fixtures_ingest", source)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


FIX = _fixtures()


@pytest.fixture(scope="module")
def batches(tmp_path_factory):
    where = tmp_path_factory.mktemp("hostile-batch")
    hostile, clean = FIX.write_batch(where)
    rubric = load_rubric(RUBRIC)
    out = {}
    for name, src in (("clean", clean), ("hostile", hostile)):
        started = time.monotonic()
        result = run_batch(str(src), str(where / f"out-{name}"), rubric, jobs=2, allow_weak=True,
                           progress=False, seed=1234)
        out[name] = (result, where / f"out-{name}", time.monotonic() - started)
    # Figures for the record, not a check: the machine's speed is not the subject here.
    print(f"\nbatch without hostile entries: {out['clean'][2]:.1f} s; with them: {out['hostile'][2]:.1f} s")
    return rubric, hostile, out


def _reports(outdir: Path) -> dict[str, GradeReport]:
    reports = {}
    for path in sorted((outdir / "reports").glob("*.yaml")):
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)  # noqa: S506 - safe
        reports[path.stem] = GradeReport.from_dict(data)
    return reports


def _report_name(entry: str) -> str:
    from grader.ingest.lms import disk_name  # how grader batch names an entry's reports

    return disk_name(entry[: -len(Path(entry).suffix)] if entry.endswith((".zip", ".ipynb")) else entry, "")


def _signature(report: GradeReport) -> tuple:
    return (report.score, report.max_score, [(p.id, p.score, p.max_score) for p in report.parts],
            [(t.id, t.status.value, t.score) for t in report.tests], sorted(m.id for m in report.mistakes))


def test_every_entry_has_a_report_and_a_gradebook_row(batches):
    _, hostile, out = batches
    result, outdir, _ = out["hostile"]
    assert not result.interrupted
    reports = _reports(outdir)
    entries = sorted(e.name for e in hostile.iterdir())
    assert len(reports) == len(entries), (sorted(reports), entries)
    rows = read_gradebook(outdir)
    assert len(rows) == len(entries)
    assert {r["submission"] for r in rows} == set(reports)
    for name in FIX.INGEST:
        assert _report_name(name) in reports, name


def test_the_japanese_summary_says_every_reason_in_japanese(batches, english_left):
    """Entries not graded and unreadable ones are listed in the Japanese summary in Japanese."""
    _, _, out = batches
    text = (out["hostile"][1] / "summary.ja.md").read_text(encoding="utf-8")
    assert english_left(text) == []


def test_every_japanese_output_of_the_hostile_batch_holds_no_english_sentence(batches, english_left,
                                                                              japanese_outputs):
    """The summary, the gradebook page and every report (Markdown, HTML, terminal) in Japanese:
    none of the grader's English sentences or labels is left in them, whatever the entry did."""
    rubric, _, out = batches
    shown = japanese_outputs(out["hostile"][1], rubric)
    assert len(shown) > 3 * len(list((out["hostile"][1] / "reports").glob("*.yaml")))
    left = {what: found for what, text in shown.items() if (found := english_left(text))}
    assert left == {}


def test_colliding_names_get_distinct_reports_and_a_note(batches):
    _, _, out = batches
    reports = _reports(out["hostile"][1])
    assert {"collide", "collide-2", "collide-3"} <= set(reports)
    noted = [r for r in reports.values() if any("also named 'collide'" in n for n in r.notes)]
    assert len(noted) == 1  # the zip, renamed: the folders kept their own names
    for name in ("collide", "collide-2", "collide-3"):
        assert reports[name].score == reports[name].max_score > 0


def test_correct_submissions_are_graded_exactly_as_without_the_hostile_ones(batches):
    _, _, out = batches
    alone = _reports(out["clean"][1])
    among = _reports(out["hostile"][1])
    assert set(FIX.CLEAN_COPIES) == set(alone)
    for name in FIX.CLEAN_COPIES:
        assert _signature(among[name]) == _signature(alone[name]), name
        assert among[name].score == among[name].max_score > 0
        assert not among[name].errors and not among[name].notes


def test_each_hostile_entry_has_a_plain_reason(batches):
    _, _, out = batches
    reports = _reports(out["hostile"][1])
    code_parts = ("scaling", "softmax", "variance")
    clean = reports[FIX.CLEAN_COPIES[0]]
    for name, meta in FIX.INGEST.items():
        report = reports[_report_name(name)]
        said = "\n".join(report.errors + report.notes
                         + [v for t in report.tests if t.status.value != "passed" for v in t.feedback.values()])
        if meta.get("reason"):
            assert meta["reason"].lower() in said.lower(), (name, said)
            assert all(len(x) < 9000 for x in said.split("\n")), name  # a reason, not a dump
        if meta.get("graded"):
            mine = {p.id: p.score for p in report.parts}
            assert all(mine[p.id] == p.score for p in clean.parts if p.id in code_parts), (name, mine)
        else:
            assert report.score < clean.score, name


class _Parse(HTMLParser):
    def __init__(self):
        super().__init__()
        self.scripts = 0
        self.links = []

    def handle_starttag(self, tag, attrs):
        self.scripts += tag == "script"
        self.links += [v for k, v in attrs if k == "href" and "evil" in (v or "")]
        for key, value in attrs:
            assert not key.startswith("on"), (tag, key)
            assert not (value or "").lower().startswith("javascript:"), (tag, value)


def test_every_format_of_every_report_parses_and_holds_no_raw_escape(batches):
    xmlschema = pytest.importorskip("xmlschema")
    schema = xmlschema.XMLSchema(str(ROOT / "tests" / "schemas" / "junit.xsd"))
    from markdown_it import MarkdownIt  # (rich's Markdown parser)

    markdown = MarkdownIt("commonmark", {"html": True}).enable("table")
    rubric, _, out = batches
    outdir = out["hostile"][1]
    for path in (outdir / "reports").glob("*.yaml"):
        assert path.stat().st_size < 2 * 1024 * 1024, path.name  # capped where the text entered
    for name, report in _reports(outdir).items():
        for fmt in SUFFIXES:
            for audience in ("student", "instructor"):
                text = render(report, fmt, rubric=rubric, audience=audience)
                text.encode("utf-8")  # no lone surrogate
                # (JSON may hold the non-characters U+FFFE/U+FFFF as they are: valid Unicode)
                for raw in RAW_ESCAPES[:3] if fmt == "json" else RAW_ESCAPES:
                    assert raw not in text, (name, fmt, repr(raw))
                if fmt == "yaml":
                    assert yaml.load(text, Loader=_Loader)["submission"] == report.submission  # noqa: S506
                elif fmt in ("json", "gradescope"):
                    json.loads(text)
                elif fmt == "junit":
                    schema.validate(ET.fromstring(text.encode("utf-8")))
                elif fmt == "html":
                    p = _Parse()
                    p.feed(text)
                    p.close()
                    assert p.scripts == 0, name
                elif fmt == "markdown":  # rendered as GitHub would: raw HTML allowed, tables on
                    p = _Parse()
                    p.feed(markdown.render(text))
                    p.close()
                    assert p.scripts == 0 and not p.links, (name, p.links)
    raw = (outdir / "gradebook.csv").read_text(encoding="utf-8")
    assert not any(r in raw for r in RAW_ESCAPES)
    for row in read_gradebook(outdir):
        for key, cell in row.items():
            if cell and key not in ("score", "max_score") and not key.startswith("part:"):
                assert cell[0] not in "=+-@\t\r", (key, cell)
    ids = {r["student_id"] for r in read_gradebook(outdir)}
    assert "'=HYPERLINK(\"evil.example\",\"x\")" in ids and "'@SUM(1+1)" in ids
    for summary in outdir.glob("summary.*.md"):
        text = summary.read_text(encoding="utf-8")
        assert "\x1b" not in text, summary.name
        p = _Parse()  # rendered as GitHub would: escaped markup stays text, no tag, no link
        p.feed(markdown.render(text))
        p.close()
        assert p.scripts == 0 and not p.links, (summary.name, p.links)


def test_the_terminal_view_interprets_nothing(batches):
    from rich.console import Console

    from grader.report.terminal import show, show_many

    _, _, out = batches
    reports = _reports(out["hostile"][1])
    console = Console(file=io.StringIO(), force_terminal=True, color_system="truecolor", width=160,
                      highlight=False)
    for report in reports.values():
        show(report, console, "en", verbose=True)
    show_many(list(reports.values()), console, "ja")
    text = console.file.getvalue()
    assert "\x1b]52" not in text and "\x1b[2J" not in text and "\x1b]8;" not in text  # no OSC, no clear
    assert "\\x1b]52;c;" in text  # the attempt is visible, as an escape
    assert "[link=https://evil.example]" in text and "[/x]" in text  # markup shown, not applied


def test_grader_grade_shows_hostile_text_safely_and_exits_by_the_score(batches, tmp_path):
    """The real command in a pseudo-terminal-free run: escapes visible, exit 0 (graded)."""
    _, hostile, _ = batches
    grader = Path(sys.executable).with_name("grader")
    for entry in ("exception-escapes", "output-escapes", "notebook-markup-error.ipynb"):
        proc = subprocess.run(
            [str(grader), "grade", str(hostile / entry), "--rubric", str(RUBRIC), "--verbose",
             "--allow-weak-sandbox"],
            capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=600,
            env={**os.environ, "FORCE_COLOR": "1", "COLUMNS": "160"}, cwd=tmp_path)
        both = proc.stdout + proc.stderr
        assert "Traceback" not in both, both[-3000:]
        assert "\x1b]52" not in both and "\x1b[2J" not in both, entry
        if entry.endswith(".ipynb"):
            assert proc.returncode == 2 and "cannot read" in both and "[/x]" in both, both[-2000:]
        else:
            assert proc.returncode in (0, 1), both[-2000:]  # graded (1: below the pass mark)
            assert "\\x1b" in both, entry  # the student's escape shown as text
