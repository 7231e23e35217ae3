"""The check's view (notebook cell, watch mode): what it shows, what it hides, what changed."""

from __future__ import annotations

import copy
from html.parser import HTMLParser

from grader.report.cell import changes, only_part, render_html, render_text, render_views
from grader.report.model import Mistake, Status
from grader.spec.rubric.model import Plugin, ReportOptions

from tests.unit.report.test_writers import make_report


class _Tags(HTMLParser):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def having(self, key: str) -> list[dict[str, str]]:
        return [a for _, a in self.tags if key in a]


class _Rubric:
    """The parts of a rubric the writers read: its report options, and a plug-in with no figures."""

    def __init__(self, **options: object) -> None:
        self.report = ReportOptions(**options)
        self.plugin = Plugin()


def _public(report):
    """What a check produces: public tests only."""
    report.tests = [t for t in report.tests if t.suite == "public"]
    return report


def test_html_shows_scores_failures_mistake_level_and_the_hidden_count_only() -> None:
    report = _public(make_report())
    page = _Tags(render_html(report, ReportOptions(), "en", hidden={"scaling": 33, "softmax": 20}))
    text = "".join(page.text)
    [root] = [a for t, a in page.tags if t == "div" and "data-max-score" in a]
    assert float(root["data-score"]) == report.score
    assert {a["data-part"] for a in page.having("data-part")} >= {"scaling", "softmax", "variance"}
    failing = {a["data-test"] for a in page.having("data-test")}
    assert failing == {t.id for t in report.tests if t.status != Status.PASSED}
    assert "27.7128" in text and "27.71" in text
    assert [a["data-mistake"] for a in page.having("data-mistake")] == ["sqrt-d-model"]
    assert "53 more tests at grading." in text
    assert page.having("data-level")[0]["data-level"] == "namespaces"
    assert "strongest" in text
    assert "SECRET" not in text  # hidden tests are never in a check's report, nor in its view


def test_one_part_shows_only_that_part_and_its_hidden_count() -> None:
    report = _public(make_report())
    html = render_html(report, ReportOptions(), "ja", part="softmax", hidden={"scaling": 33, "softmax": 20})
    page = _Tags(html)
    text = "".join(page.text)
    assert {a["data-part"] for a in page.having("data-part")} == {"softmax"}
    assert not page.having("data-mistake")  # the mistake is scaling's
    assert "20 件" in text and "33" not in text
    assert all("softmax" in a["data-test"] for a in page.having("data-test"))
    shown = only_part(report, "softmax")
    assert (shown.score, shown.max_score) == (0.0, 2.0)


def test_hostile_text_is_escaped_and_styles_are_scoped() -> None:
    report = _public(make_report(notes=["<script>alert(1)</script>"], errors=["<img src=x onerror=alert(2)>"]))
    report.tests[1].feedback = {"en": "</div><script>steal()</script>", "ja": "x"}
    html = render_html(report, ReportOptions(), "en")
    page = _Tags(html)
    assert "script" not in {t for t, _ in page.tags}
    assert all(a.get("src", "").startswith("data:image/png;base64,") for t, a in page.tags if t == "img")
    assert not [a for _, a in page.tags if "onerror" in a]
    assert "<script>" not in html and "&lt;script&gt;" in html
    # Every rule of the style sheet is under .grader-check: the notebook's page is left alone.
    style = html.split("<style>", 1)[1].split("</style>", 1)[0]
    selectors = [rule.split("{", 1)[0] for rule in style.split("}") if "{" in rule]
    assert selectors and all(
        all(s.strip().startswith(".grader-check") for s in sel.split(",")) for sel in selectors)


def test_text_view_in_both_languages_and_unknown_hidden_count() -> None:
    report = _public(make_report())
    ja = render_text(report, ReportOptions(), "ja", hidden=None, cells=4)
    en = render_text(report, ReportOptions(), "en", hidden=None, cells=4)
    assert "採点時には、さらにテストを実行します。" in ja and "More tests at grading." in en
    assert "このカーネルで実行したセル（4 個）" in ja and "cells run in this kernel (4)" in en
    assert "sqrt-d-model" in ja and "√768 = 27.71" in ja
    assert "<" not in en.replace("<&>", "")  # plain text, no markup
    views = render_views(report, _Rubric(languages=("en",)), lang="ja")
    assert "Sandbox" in views["text"]  # a language the rubric does not offer falls back to its own
    assert set(render_views(report, _Rubric(), formats=("text",))) == {"text"}


def test_changes_list_what_passes_now_what_fails_now_and_mistakes() -> None:
    before = _public(make_report())
    after = copy.deepcopy(before)
    fixed = after.tests[1]
    fixed.status, fixed.score = Status.PASSED, 1.0
    broken = after.tests[0]
    broken.status, broken.score = Status.FAILED, 0.0
    broken.feedback = {"en": "head_dim(768, 12) returned 768; expected 64.", "ja": "x"}
    after.mistakes = [Mistake("softmax-axis", "softmax", {"en": "Your softmax sums over axis 0.", "ja": "y"})]
    after.score = before.score
    lines = changes(before, after, "en")
    text = "\n".join(lines)
    assert f"✓ {fixed.title['en']} [768-12]: now passes" in text
    assert "no longer passes" in text and "returned 768; expected 64" in text
    assert "mistake found [softmax-axis]: Your softmax sums over axis 0." in text
    assert "mistake fixed [sqrt-d-model]" in text
    unchanged = [t for t in after.tests if t.id not in (fixed.id, broken.id)]
    assert not any(t.title["en"] in text for t in unchanged)
    assert changes(after, after, "en") == [f"no change (score {after.score:g} / {after.max_score:g})"]
    first = changes(None, before, "en")
    assert any("sqrt-d-model" in line for line in first) and first[-1].startswith("score: ")
    assert not any(before.tests[0].title["en"] in line for line in first)  # passed: not listed


def test_a_weak_sandbox_is_named_with_its_warning() -> None:
    report = _public(make_report(sandbox={"level": "rlimits",
                                          "warning": "weak sandbox (rlimits only): no user namespaces"}))
    page = _Tags(render_html(report, ReportOptions(), "en"))
    [level] = page.having("data-level")
    assert level["data-level"] == "rlimits"
    assert "rlimits only" in "".join(page.text) and "strongest" not in "".join(page.text)
    assert "rlimits only" in render_text(report, ReportOptions(), "en")


def test_a_syntax_error_is_said_once_in_the_sessions_language_not_once_per_test() -> None:
    """Watch mode after a save that breaks a file: every test of the file fails with the same
    reason; the reason is one line (with the tests' titles under it), the load error is in the
    session's language, and saving again without fixing it prints no change."""
    from grader.i18n.messages import said

    before = _public(make_report())
    passing = next(t for t in before.tests if t.status == Status.PASSED)
    for i in (1, 2):  # three passing tests of softmax.py
        more = copy.deepcopy(passing)
        more.id, more.title = f"{passing.id}-{i}", {k: f"{v} ({i})" for k, v in passing.title.items()}
        before.tests.append(more)
    after = copy.deepcopy(before)
    reason = {"en": "could not run: softmax.py, line 41: SyntaxError: invalid syntax (softmax.py, line 41).",
              "ja": "実行できませんでした: softmax.py の 41 行目: SyntaxError: invalid syntax (softmax.py, line 41)。"}
    broken = [t for t in after.tests if t.status == Status.PASSED]
    assert len(broken) == 3
    for t in broken:
        t.status, t.score, t.feedback = Status.ERROR, 0.0, dict(reason)
    after.errors = [said("tests_need_py_could_at", where="softmax.py", line=41,
                         what="SyntaxError: invalid syntax (softmax.py, line 41)", module="softmax")]
    for lang, head in (("ja", "✗ テスト 3 件: 不合格になりました (エラー) — "), ("en", "✗ 3 tests: no longer passes (error) — ")):
        lines = changes(before, after, lang)
        text = "\n".join(lines)
        assert text.count(reason[lang]) == 1, text
        assert lines[0] == head + reason[lang], lines
        assert len(lines[1:4]) == 3 and all(line.startswith("    ") for line in lines[1:4]), lines
        assert all(t.title[lang] in "\n".join(lines[1:4]) for t in broken), lines
    ja = "\n".join(changes(before, after, "ja"))
    assert "! softmax.py の 41 行目: SyntaxError: invalid syntax (softmax.py, line 41) — softmax.py が必要なテストを実行" in ja
    assert "could not run" not in ja
    assert changes(after, copy.deepcopy(after), "ja") == [f"変化なし (得点 {after.score:g} / {after.max_score:g})"]
    # one test failing alone keeps its reason on its own line
    single = copy.deepcopy(before)
    single.tests[0].status, single.tests[0].feedback = Status.FAILED, {"en": "returned 768; expected 64.", "ja": "x"}
    assert any(line.startswith(f"✗ {single.tests[0].title['en']}") and line.endswith("returned 768; expected 64.")
               for line in changes(before, single, "en"))
