"""grader.review.actions: each action a ledger line, refused with both versions when the student's
ledger moved since the page, and refused with the fix when it cannot be placed."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.errors import UsageError
from grader.report import ledger
from grader.review import actions
from grader.spec.rubric.load import load_rubric
from tests.helpers import RUBRIC
from tests.review_class import make_class

NAME = "s001-divide-by-dk-1"
LINES = ["def f():", "    return 64", ""]


@pytest.fixture
def out(tmp_path: Path) -> Path:
    return make_class(tmp_path, 8)


def test_an_action_against_an_old_head_is_a_conflict_carrying_both_versions(out: Path) -> None:
    rubric = load_rubric(RUBRIC)
    first = actions.adjust(out, rubric, NAME, head=0, part=None, points=1.0, set_to=None, reason="first", by="a",
                           lang="en")
    with pytest.raises(actions.Conflict) as caught:
        actions.comment(out, rubric, NAME, head=0, file="scaling.py", start=1, end=2, text="late", by="b",
                        lines=LINES, lang="en")
    assert [e.n for e in caught.value.theirs] == [first.n] and caught.value.head == first.n
    assert caught.value.mine["text"] == "late" and caught.value.mine["op"] == "comment"
    assert len(ledger.read(out)) == 1
    # another student's line is no conflict: the head is each student's own
    actions.comment(out, rubric, "s002-sqrt-d-model-2", head=0, file="scaling.py", start=1, end=1, text="ok",
                    by="b", lines=LINES, lang="en")
    actions.comment(out, rubric, NAME, head=first.n, file="scaling.py", start=1, end=2, text="late", by="b",
                    lines=LINES, lang="en")
    assert [e.op for e in ledger.read(out)] == ["adjust", "comment", "comment"]


@pytest.mark.parametrize("start,end,text", [(0, 1, "x"), (2, 1, "x"), (1, 4, "x"), (1, 1, "  \n ")])
def test_a_comment_that_cannot_be_placed_is_refused(out: Path, start: int, end: int, text: str) -> None:
    with pytest.raises(UsageError):
        actions.comment(out, load_rubric(RUBRIC), NAME, head=0, file="scaling.py", start=start, end=end, text=text,
                        by="b", lines=LINES, lang="en")
    assert ledger.read(out) == []


def test_a_comment_is_undone_once(out: Path) -> None:
    rubric = load_rubric(RUBRIC)
    made = actions.comment(out, rubric, NAME, head=0, file="scaling.py", start=2, end=2, text="why 64?", by="b",
                           lines=LINES, lang="en")
    undone = actions.undo(out, rubric, NAME, head=made.n, n=made.n, reason="said in class", by="b", lang="en")
    assert (undone.op, undone.target) == ("undo", made.n)
    with pytest.raises(UsageError):
        actions.undo(out, rubric, NAME, head=undone.n, n=made.n, reason="again", by="b", lang="en")


def test_a_reveal_needs_a_reason_and_is_a_line(out: Path) -> None:
    with pytest.raises(UsageError):
        actions.reveal(out, NAME, pseudonym="S-123456", reason=" ", by="b")
    entry = actions.reveal(out, NAME, pseudonym="S-123456", reason="regrade request", by="b")
    assert (entry.op, entry.note, entry.by) == ("reveal", {"pseudonym": "S-123456"}, "b")
    assert ledger.verify(out) == 1


def test_a_comment_reaches_every_report_format_in_both_languages_and_an_undo_takes_it_out(out: Path) -> None:
    from grader.report import render
    from grader.report.model import GradeReport
    from tests.helpers import read_report

    rubric = load_rubric(RUBRIC)
    made = actions.comment(out, rubric, NAME, head=0, file="scaling.py", start=2, end=2,
                           text="<b>why</b> 64? [x](javascript:alert(1))", by="tanaka", lines=LINES, lang="en")
    data = read_report(out, NAME)
    assert data["comments"] == [{"n": made.n, "file": "scaling.py", "start": 2, "end": 2, "lines": ["    return 64"],
                                 "text": "<b>why</b> 64? [x](javascript:alert(1))", "by": "tanaka", "at": made.at}]
    assert data["score"] == 36.0 and "adjustment" not in data  # a comment moves no score
    report = GradeReport.from_dict(data)
    for lang, words in (("en", "scaling.py, lines 2–2"), ("ja", "scaling.py の 2〜2 行")):
        for fmt in ("json", "yaml", "markdown", "html", "gradescope", "junit"):
            text = render(report, fmt, rubric=rubric, lang=lang)
            assert "64?" in text, (fmt, lang)
            if fmt in ("markdown", "html", "gradescope", "junit"):
                assert words in text and ("Comments on your code" if lang == "en" else "コードへのコメント") in text
        html = render(report, "html", rubric=rubric, lang=lang)
        assert "<b>why</b>" not in html and "&lt;b&gt;why&lt;/b&gt;" in html and "return 64" in html
        assert "[x](javascript" not in render(report, "markdown", rubric=rubric, lang=lang)
    for fmt in rubric.report.formats:  # the files the student is given were written again
        from grader.report.outdir import report_path

        assert "64?" in report_path(out, NAME, fmt).read_text(encoding="utf-8"), fmt
    actions.undo(out, rubric, NAME, head=made.n, n=made.n, reason="said in class", by="b", lang="en")
    assert "comments" not in read_report(out, NAME)


def test_grader_ledger_lists_the_reviews_lines_with_what_they_hold(out: Path) -> None:
    from click.testing import CliRunner

    from grader.cli import main

    rubric = load_rubric(RUBRIC)
    actions.comment(out, rubric, NAME, head=0, file="scaling.py", start=1, end=2, text="x", by="b", lines=LINES,
                    lang="en")
    actions.reveal(out, NAME, pseudonym="S-123456", reason="asked", by="b")
    actions.confirm_group(out, rubric, [NAME], group="m-divide-by-d-k", title="divide-by-d-k", by="b",
                          heads={NAME: 2}, lang="en")
    listed = CliRunner().invoke(main, ["ledger", str(out), "--lang", "en"])
    assert listed.exit_code == 0, listed.output
    rows = [line.split("\t") for line in listed.stdout.splitlines()]
    assert [(r[1], r[4]) for r in rows] == [("comment", "scaling.py:1-2"), ("reveal", "S-123456"),
                                           ("review", "m-divide-by-d-k")]
