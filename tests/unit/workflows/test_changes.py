"""What moved a final score in a regrade or a resume, and why (grader/workflows/changes.py)."""

from __future__ import annotations

import csv
import io

from rich.console import Console

from grader.i18n.messages import translate
from grader.workflows.changes import Change, explain, say_changes, write_record


def _report(score: float, *, auto: float | None = None, late: dict | None = None, review: list[int] = (),
            timing: dict | None = None) -> dict:
    data: dict = {"score": score, "max_score": 124.0, "student": {"id": "1001"}}
    if late:
        data["late"] = late
    if timing:
        data["student"]["timing"] = timing
    if auto is not None:
        data["adjustment"] = {"automatic_score": auto, "score": score, "delta": score - auto,
                              "entries": [{"n": n, "status": "review", "against": 107.0, "now": 110.0}
                                          for n in review] or [{"n": 1, "status": "applied"}]}
    return data


def test_a_set_adjustment_that_needs_review_after_a_regrade_is_named_not_the_test_alone():
    """The known case: --set 110 against 107; a fixed test moves the automatic score to 110. The
    student keeps 110, and the record says the test moved the automatic score and that #1 now
    needs review, with the commands that decide it."""
    old, new = _report(110.0, auto=107.0), _report(110.0, auto=110.0, review=[1])
    change = explain("hana", old, new, ["hidden/test_scaling.py::test_x"])
    assert change is not None and (change.before, change.after) == (110.0, 110.0)
    en = [translate(w, "en") for w in change.why]
    assert en == ["tests graded again: hidden/test_scaling.py::test_x; automatic score 107 → 110",
                  "adjustment #1 now needs review (made against an automatic score of 107, now 110); it stays "
                  "applied until you decide: grader adjust OUT hana --confirm 1 or --undo 1"]
    assert "調整 #1 が要確認になりました" in translate(change.why[1], "ja")


def test_an_extension_granted_since_is_named_with_the_penalty_it_took_back():
    old = _report(111.6, late={"score_before": 124.0, "score": 111.6, "penalty": 12.4})
    new = _report(124.0, timing={"submitted": "2026-12-02T10:00:00+09:00", "due": "2026-12-02T23:59:00+09:00",
                                 "extension": "illness"})
    change = explain("taro", old, new)
    assert change is not None and (change.before, change.after) == (111.6, 124.0)
    assert [translate(w, "en") for w in change.why] == ["extension applied (illness): late penalty 12.4 → 0"]
    assert [translate(w, "ja") for w in change.why] == ["期限延長を適用しました（illness）。遅延による減点 12.4 → 0"]


def test_nothing_moved_is_no_change_and_files_graded_again_say_so():
    assert explain("ken", _report(100.0), _report(100.0)) is None
    change = explain("ken", _report(100.0), _report(90.0), regraded=True)
    assert change is not None and translate(change.why[0], "en").startswith("its files changed since the last batch")


def test_each_change_is_one_line_on_the_terminal_and_a_row_of_the_record(tmp_path):
    hostile = "=cmd|' /C calc'!A0\x1b[2J"
    change = Change(hostile, "1001", 110.0, 107.0, ["t1"], [explain("x", _report(1.0), _report(2.0)).why[0]])
    buf = io.StringIO()
    say_changes(Console(file=buf, width=300), [change], "en")
    line = buf.getvalue().strip()
    assert line.endswith(": 110 → 107 (automatic score 1 → 2)") and "\x1b" not in line
    md, path = write_record(tmp_path, "20261207T000000Z", ["# title"], [change])
    [row] = list(csv.DictReader(path.open(encoding="utf-8")))
    assert row["submission"].startswith("'=") and (row["from"], row["to"], row["change"]) == ("110", "107", "-3")
    assert row["why"] == "automatic score 1 → 2" and row["why_ja"] == "自動採点の得点 1 → 2"
    text = md.read_text(encoding="utf-8")
    assert "| 110 | 107 |" in text and "automatic score 1 → 2<br>自動採点の得点 1 → 2" in text
    # the student's name stays one cell: its bar escaped, no control character written
    assert "\\=cmd\\|' /C calc'" in text and "\x1b" not in text and text.count("\n| ") == 3  # the header, its rule, one row
