"""Class summary: statistics, plots, bilingual Markdown and self-contained HTML."""

from __future__ import annotations

import re

import pytest

from grader.report.model import CaseOutcome, GradeReport, Mistake, PartScore, Status
from grader.spec.rubric.load import load_rubric
from grader.outputs.summary import class_stats, write_summary

from tests.helpers import ROOT


def _report(name: str, score: float, statuses: list[Status], mistakes: list[str]) -> GradeReport:
    tests = [CaseOutcome(id=f"hidden/test_x.py::test_{i}", part="scaling", status=s, max_score=1.0,
                         score=1.0 if s is Status.PASSED else 0.0) for i, s in enumerate(statuses)]
    return GradeReport(
        assignment="chapter07", submission=name, score=score, max_score=4.0, tests=tests,
        parts=[PartScore("scaling", score, 4.0, {"en": "Scaling", "ja": "スケーリング"})],
        mistakes=[Mistake(id=m, part="scaling", message={"en": m, "ja": m}) for m in mistakes],
        sandbox={}, errors=[], seed=1, graded_at="2026-01-01T00:00:00+00:00", passed=score >= 2.4,
    )


REPORTS = [
    _report("a", 4.0, [Status.PASSED] * 4, []),
    _report("b", 2.0, [Status.PASSED, Status.PASSED, Status.FAILED, Status.FAILED], ["sqrt-d-model"]),
    _report("c", 1.0, [Status.PASSED, Status.FAILED, Status.TIMEOUT, Status.ERROR], ["sqrt-d-model", "softmax-overflow"]),
]


def test_class_stats_count_passes_and_mistakes():
    """Pass rates per test, mistakes per submission, and the score statistics are computed once."""
    stats = class_stats(REPORTS, [("notes.txt", "not a submission")])
    assert 3 == stats.n
    assert 1 == stats.passed
    assert [("sqrt-d-model", 2), ("softmax-overflow", 1)] == stats.mistakes
    assert {"hidden/test_x.py::test_0": 1.0, "hidden/test_x.py::test_3": 1 / 3} == {
        t: r for t, r, _ in stats.tests if t.endswith(("_0", "_3"))}
    assert 1 == stats.with_timeouts
    assert 7 / 3 == stats.mean


def test_summary_pages_are_bilingual_and_self_contained(tmp_path):
    """Markdown and HTML in ja and en; the HTML embeds its plots and loads nothing from outside."""
    rubric = load_rubric(ROOT / "rubrics/chapter07.yaml")
    written = write_summary(REPORTS, tmp_path, rubric, unrecognised=[("notes.txt", "not a submission")])
    assert {p.name for p in written} >= {"summary.ja.md", "summary.en.md", "summary.ja.html", "summary.en.html",
                                         "score_histogram.png", "test_pass_rate.png", "mistakes.png"}
    for lang, word in (("ja", "クラス全体のまとめ"), ("en", "Class summary")):
        html = (tmp_path / f"summary.{lang}.html").read_text(encoding="utf-8")
        assert word in html
        assert f'<html lang="{lang}">' in html
        assert 3 == html.count('src="data:image/png;base64,')
        assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
        assert "sqrt-d-model" in html and "notes.txt" in html
        md = (tmp_path / f"summary.{lang}.md").read_text(encoding="utf-8")
        png = "summary/score_histogram.png" if lang == "en" else f"summary/score_histogram.{lang}.png"
        assert word in md and png in md
    assert (tmp_path / "summary" / "mistakes.png").read_bytes().startswith(b"\x89PNG")


def test_plots_drawn_side_by_side_equal_plots_drawn_in_turn():
    """Two of the three plots are drawn in forked copies; each PNG is byte for byte the one
    this process draws itself, which is also what happens when a copy fails or is not made.

    In a fresh process: plots are forked only from a single-threaded one, and a test worker
    may hold threads left by earlier tests."""
    import os
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", f"import {__name__} as t; t._side_by_side()"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "side by side: 2 copies made" in proc.stdout


def _side_by_side() -> None:
    import threading

    from grader.outputs import summary

    stats = class_stats(REPORTS)
    forked = summary.plots(stats)
    made: list = []
    real = summary._drawn_elsewhere
    summary._drawn_elsewhere = lambda make: made.append(real(make)) or made[-1]
    summary.plots(stats)
    assert len(made) == 2 and all(m is not None for m in made), made  # the copies were really made
    print("side by side: 2 copies made")

    hold = threading.Event()
    other = threading.Thread(target=hold.wait)  # another thread: no fork, all drawn here
    other.start()
    try:
        made.clear()
        in_turn = summary.plots(stats)
        assert made == [None, None]
    finally:
        hold.set()
        other.join()
    assert set(forked) == set(in_turn) == {"score_histogram", "test_pass_rate", "mistakes"}
    for name in forked:
        assert forked[name].startswith(b"\x89PNG") and forked[name] == in_turn[name], name

    real_collect = summary._collect
    summary._collect = lambda pid, read: real_collect(pid, read) and None
    assert summary.plots(stats) == in_turn  # copies whose PNG is lost: drawn here instead
    summary._collect = real_collect

    made.clear()  # a batch's summary: both languages' six plots at once, five of them forked
    both = summary.plots_in(stats, ("ja", "en"))
    assert len(made) == 5 and all(m is not None for m in made), made
    assert both["en"] == in_turn
    assert both["ja"] == summary.plots(stats, lang="ja") != in_turn


def _stub_report(name: str) -> GradeReport:
    """Untouched stubs: every test failed, every function still raising NotImplementedError."""
    report = _report(name, 0.0, [Status.FAILED] * 4, ["not-implemented"])
    report.mistakes[0].evidence = {"functions": ["scale_scores"]}
    return report


def test_summary_links_the_class_pages_and_says_what_the_item_analysis_left_out(tmp_path):
    """Links to the gradebook page (and the similarity page where it was run) in the page's
    language; the item analysis names the untouched stubs it leaves out and its threshold."""
    from grader.insight.item_analysis import MIN_SUBMISSIONS

    rubric = load_rubric(ROOT / "rubrics/chapter07.yaml")
    (tmp_path / "similarity.csv").write_text("submission_a,submission_b,group,code_score\n", encoding="utf-8")
    write_summary(REPORTS + [_stub_report("stub")], tmp_path, rubric)
    for lang, left in (("ja", "雛形のままの提出物 1 件は除いています（stub）"),
                       ("en", "1 left out as blank or untouched stubs (stub)")):
        html = (tmp_path / f"summary.{lang}.html").read_text(encoding="utf-8")
        assert f'<a href="gradebook.{lang}.html">' in html and f'<a href="similarity.{lang}.html">' in html
        assert left in html and f"{MIN_SUBMISSIONS}" in html
        md = (tmp_path / f"summary.{lang}.md").read_text(encoding="utf-8")
        assert f"](gradebook.{lang}.html)" in md and left in md
    en = (tmp_path / "summary.en.html").read_text(encoding="utf-8")
    assert "too few submissions to judge (3; at least 10 needed)" in en  # a class of 3 (the stub left out)


def test_a_cut_list_says_how_much_of_it_is_shown(tmp_path):
    """Eight mistake ids, five shown: the heading says 5 of 8; a list shown whole says nothing."""
    rubric = load_rubric(ROOT / "rubrics/chapter07.yaml")
    many = [_report(f"s{i}", 1.0, [Status.FAILED] * 4, [f"mistake-{i}"]) for i in range(8)]
    write_summary(many, tmp_path, rubric)
    assert "Most common mistakes, one example each (5 of 8 shown)" in (tmp_path / "summary.en.md").read_text(
        encoding="utf-8")
    assert "よくある間違い（各 1 例）（全 8 件中 5 件を表示）" in (tmp_path / "summary.ja.html").read_text(encoding="utf-8")
    write_summary(REPORTS, tmp_path, rubric)
    assert "shown)" not in (tmp_path / "summary.en.md").read_text(encoding="utf-8")


def test_the_pass_rate_plot_says_lowest_n_of_m_only_when_it_leaves_tests_out():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from grader.outputs import summary

    stats = class_stats(REPORTS)  # four tests
    for hardest, en, ja in ((25, "Pass rate per test (all 4, lowest first)", "テストごとの合格率（全 4 件、低い順）"),
                            (2, "Pass rate per test (lowest 2 of 4)", "テストごとの合格率（全 4 件のうち低い方から 2 件）")):
        for lang, title in (("en", en), ("ja", ja)):
            fig = summary._PLOTS["test_pass_rate"](stats, hardest, lang)
            assert fig.axes[0].get_title() == title
            plt.close(fig)


def test_plots_of_the_same_numbers_are_read_back_not_drawn_again(tmp_path, monkeypatch):
    """The summary written again from the same reports (a --resume with nothing new) reads its
    plots back from OUT's cache, byte for byte, without drawing; a class whose numbers changed
    gets its plots drawn again."""
    from grader.outputs import summary

    rubric = load_rubric(ROOT / "rubrics/chapter07.yaml")
    write_summary(REPORTS, tmp_path, rubric)
    first = {p.name: p.read_bytes() for p in (tmp_path / "summary").glob("*.png")}
    assert 6 == len(first)

    def refuse(*args, **kwargs):
        raise AssertionError("a plot was drawn again")

    monkeypatch.setattr(summary, "_figure_png", refuse)
    for page in tmp_path.glob("summary.*"):
        page.unlink()
    write_summary(REPORTS, tmp_path, rubric)
    assert first == {p.name: p.read_bytes() for p in (tmp_path / "summary").glob("*.png")}
    assert (tmp_path / "summary.ja.html").read_text(encoding="utf-8").count('src="data:image/png;base64,') == 3
    changed = [*REPORTS, _report("d", 3.0, [Status.PASSED] * 3 + [Status.FAILED], [])]
    with pytest.raises(AssertionError, match="drawn again"):
        write_summary(changed, tmp_path, rubric)
