"""JUnit XML writer, in the Jenkins/Ant shape CI servers read.

One ``<testsuite>`` per part and one ``<testcase>`` per test; a failed test carries
``<failure message=...>``, an error or timeout ``<error>``, a skip ``<skipped>``. JUnit has no
notion of points, so each suite's ``<properties>`` hold ``score`` and ``max_score`` for the
part and ``score:<test id>`` = ``"<score>/<max>"`` for each test (the agreement test reads them
back). A reviewer's comments on lines (``grader review``) are a suite of no tests of their own.
``tests/schemas/junit.xsd`` is the schema the output is validated against.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

from grader import sinks
from grader.report import text as _text
from grader.report.model import CaseOutcome, GradeReport, Status

if TYPE_CHECKING:
    from grader.spec.rubric.model import ReportOptions


def _clean(text: str) -> str:
    """XML 1.0 cannot hold most control characters, which student output may contain."""
    return sinks.xml(text)


def _body(t: CaseOutcome, langs: list[str]) -> str:
    lines = _text.each(t.feedback, langs)
    if t.expected is not None or t.actual is not None:
        lines.append(f"expected: {t.expected}  actual: {t.actual}")
    if t.file:
        lines.append(f"at {t.file}" + (f":{t.line}" if t.line else ""))
    return "\n".join(lines)


def _comments(root: ET.Element, report: GradeReport, langs: list[str]) -> None:
    """The reviewer's comments on lines (``grader review``): a ``<testsuite>`` of no tests named
    ``<assignment>.review-comments`` (no part id has a hyphen), one ``comment:<n>`` property per
    comment and a ``<system-out>`` a CI server shows: the heading, each comment, the lines it is on."""
    suite = ET.SubElement(root, "testsuite", name=f"{report.assignment}.review-comments", tests="0",
                          failures="0", errors="0", skipped="0", time="0.000",
                          timestamp=report.graded_at[:19], hostname="grader")
    props = ET.SubElement(suite, "properties")
    said = [_text.label("comments", langs)]
    for c, (line, code) in zip(report.comments, _text.comment_lines(report, langs)):
        ET.SubElement(props, "property", name=f"comment:{c.get('n', '')}", value=_clean(line))
        said += [f"- {line}"] + [f"    {x}" for x in code]
    ET.SubElement(suite, "system-out").text = _clean("\n".join(said))


def render(report: GradeReport, opts: ReportOptions | None = None, lang: str = "en") -> str:
    """The report as a JUnit XML document (a ``<testsuites>`` root)."""
    langs = _text.order(lang, _text.languages_of(report, opts))
    root = ET.Element("testsuites", name=_clean(f"{report.assignment}: {report.submission}"))
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
    parts = [p.id for p in report.parts]
    parts += [t.part for t in report.tests if t.part not in parts]
    for part in parts:
        mine = [t for t in report.tests if t.part == part]
        if not mine:
            continue
        counts = {
            "failures": sum(t.status == Status.FAILED for t in mine),
            "errors": sum(t.status in (Status.ERROR, Status.TIMEOUT) for t in mine),
            "skipped": sum(t.status == Status.SKIPPED for t in mine),
        }
        time_s = sum(t.duration_s for t in mine)
        suite = ET.SubElement(
            root, "testsuite", name=f"{report.assignment}.{part}", tests=str(len(mine)),
            failures=str(counts["failures"]), errors=str(counts["errors"]),
            skipped=str(counts["skipped"]), time=f"{time_s:.3f}",
            timestamp=report.graded_at[:19], hostname="grader",
        )
        props = ET.SubElement(suite, "properties")
        score = next((p for p in report.parts if p.id == part), None)
        part_score = score.score if score else sum(t.score for t in mine)
        part_max = score.max_score if score else sum(t.max_score for t in mine)
        ET.SubElement(props, "property", name="score", value=_text.num(part_score))
        ET.SubElement(props, "property", name="max_score", value=_text.num(part_max))
        for t in mine:
            ET.SubElement(props, "property", name=f"score:{t.id}",
                          value=f"{_text.num(t.score)}/{_text.num(t.max_score)}")
        for t in mine:
            case = ET.SubElement(suite, "testcase", name=_clean(t.id),
                                 classname=f"{report.assignment}.{part}", time=f"{t.duration_s:.3f}")
            message = _clean(_text.pick(t.feedback, langs) or _text.title_of(t, langs))
            if t.status == Status.FAILED:
                ET.SubElement(case, "failure", message=message, type="AssertionError").text = _clean(_body(t, langs))
            elif t.status in (Status.ERROR, Status.TIMEOUT):
                ET.SubElement(case, "error", message=message, type=t.status.value).text = _clean(_body(t, langs))
            elif t.status == Status.SKIPPED:
                ET.SubElement(case, "skipped", message=message)
        totals["tests"] += len(mine)
        for key in ("failures", "errors", "skipped"):
            totals[key] += counts[key]
        totals["time"] += time_s
    if report.errors:
        suite = ET.SubElement(root, "testsuite", name=f"{report.assignment}.grading", tests="1",
                              failures="0", errors="1", skipped="0", time="0.000",
                              timestamp=report.graded_at[:19], hostname="grader")
        case = ET.SubElement(suite, "testcase", name="grading", classname=f"{report.assignment}.grading", time="0.000")
        ET.SubElement(case, "error", message=_clean(report.errors[0]), type="grading").text = _clean("\n".join(report.errors))
        totals["tests"] += 1
        totals["errors"] += 1
    if report.comments:  # a suite of no tests: the comments as properties and as its output
        _comments(root, report, langs)
    for key in ("tests", "failures", "errors"):
        root.set(key, str(totals[key]))
    root.set("time", f"{totals['time']:.3f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
