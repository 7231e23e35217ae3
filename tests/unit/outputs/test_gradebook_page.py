"""``gradebook.<lang>.html``: gradebook.csv as a page, read back from the file; every cell a
student controls shown as text; adjusted and ungraded rows marked and counted; each language
alone on its page."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

from grader.outputs.gradebook import GradebookRow, gradebook_rows, write_gradebook
from grader.outputs.gradebook_page import view_path, write_views

from tests.helpers import ROOT


HOSTILE_NAME = "<script>alert(1)</script>\u202e=HYPERLINK(\"x\")"


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.rows: list[tuple[str, list[str]]] = []
        self._row: list[str] | None = None
        self._class = ""
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "tr":
            self._row, self._class = [], dict(attrs).get("class") or ""
        elif tag == "td" and self._row is not None:
            self._row.append("")

    def handle_endtag(self, tag):
        if tag == "tr" and self._row is not None:
            if self._row:
                self.rows.append((self._class, self._row))
            self._row = None

    def handle_data(self, data):
        self.text.append(data)
        if self._row:
            self._row[-1] += data


def _page(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    return page


def _row(columns: dict) -> GradebookRow:
    """A gradebook row from its columns, as gradebook.csv names them."""
    own = {k: v for k, v in columns.items() if k in ("submission", "student_id", "name", "lms", "late", "errors", "flags")}
    return GradebookRow(**own, cells={k: v for k, v in columns.items() if k not in own})


def _book(rubric, tmp_path: Path) -> list[Path]:
    rows = [_row(r) for r in [
        {"submission": "hana", "student_id": "1001", "name": HOSTILE_NAME, "score": 80.0, "automatic_score": 77.0,
         "adjustment": 3.0, "adjustment_reasons": "#1 +3 points (total): regrade request", "max_score": 124.0,
         "passed": True},
        {"submission": "ken", "student_id": "1002", "name": "山田 健", "score": 124.0, "automatic_score": 124.0,
         "adjustment": 0.0, "max_score": 124.0, "passed": True},
        {"submission": "mio", "student_id": "1003", "name": "mio", "score": None, "max_score": 124.0,
         "errors": "it is a symbolic link, not a file"},
    ]]
    write_gradebook(tmp_path / "gradebook.csv", rows, rubric)
    return [view_path(tmp_path, lang) for lang in rubric.report.languages]


def test_every_row_is_shown_with_its_marks_and_counts(rubric, tmp_path):
    pages = _book(rubric, tmp_path)
    assert [p.name for p in pages] == ["gradebook.ja.html", "gradebook.en.html"] and all(p.exists() for p in pages)
    ja = _page(pages[0])
    assert [cls for cls, _ in ja.rows] == ["adjusted", "", "nograde"]
    hana = ja.rows[0][1]
    # automatic − late penalty + adjustment = final, left to right
    assert hana[:9] == ["hana", "1001", HOSTILE_NAME.replace("\u202e", "\\u202e"), "77", "", "3", "80", "124", "合格"]
    assert ja.rows[1][1][5] == ""  # no adjustment: the cell is empty, not 0
    assert "3 行。手作業で調整した行 1、点数のない行 1" in "".join(ja.text)
    assert "シンボリックリンクで、ファイルではありません" in "".join(ja.rows[2][1])
    en = _page(pages[1])
    assert "3 rows; 1 adjusted by hand; 1 without a grade" in "".join(en.text)
    assert "it is a symbolic link, not a file" in "".join(en.rows[2][1])


def test_an_adjustment_that_needs_review_is_counted_and_highlighted_and_lateness_reads_right(rubric, tmp_path):
    """A row whose adjustment needs review stands out and is counted; a late row shows its penalty
    between the automatic and the final score, and an extension is shown where it applies."""
    rows = [_row(r) for r in [
        {"submission": "hana", "student_id": "1001", "name": "hana", "late": "yes", "automatic_score": 100.0,
         "late_penalty": 12.4, "adjustment": 22.4, "score": 110.0, "max_score": 124.0, "passed": True,
         "adjustment_reasons": "#1 score set to 110 (total): oral exam — needs review", "needs_review": "#1"},
        {"submission": "ken", "student_id": "1002", "name": "ken", "late": "no", "extension": "illness",
         "automatic_score": 124.0, "adjustment": 0.0, "score": 124.0, "max_score": 124.0, "passed": True},
    ]]
    write_gradebook(tmp_path / "gradebook.csv", rows, rubric)
    for lang, counted, late in (("en", "1 with an adjustment that needs review (still applied", "late"),
                                ("ja", "うち要確認の調整がある行 1（適用したままです", "遅延")):
        page = _page(view_path(tmp_path, lang))
        assert [cls for cls, _ in page.rows] == ["review", ""]
        assert counted in "".join(page.text)
        hana, ken = page.rows[0][1], page.rows[1][1]
        assert hana[3:7] == ["100", "12.4", "22.4", "110"] and hana[9] == late and hana[12] == "#1"
        assert ken[9] == "" and ken[10] == "illness"


def test_what_a_student_controls_is_text_not_markup(rubric, tmp_path):
    pages = _book(rubric, tmp_path)
    for path in pages:
        raw = path.read_text(encoding="utf-8")
        page = _page(path)
        assert "script" not in page.tags
        assert "<script>" not in raw and "\u202e" not in raw  # escaped, and the control made visible
        assert page.rows[0][1][2] == HOSTILE_NAME.replace("\u202e", "\\u202e")


def test_the_csv_is_the_source(rubric, tmp_path):
    """No gradebook.csv, no page; the page follows the file it is written from."""
    assert write_views(tmp_path, rubric) == []
    pages = _book(rubric, tmp_path)
    text = (tmp_path / "gradebook.csv").read_text(encoding="utf-8").replace("山田 健", "山田 健二")
    (tmp_path / "gradebook.csv").write_text(text, encoding="utf-8")
    write_views(tmp_path, rubric)
    assert "山田 健二" in pages[0].read_text(encoding="utf-8")


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_the_rows_gradebook_rows_makes_are_shown(rubric, tmp_path, lang):
    """Rows as the batch builds them (gradebook_rows) give the page the batch writes."""
    rows = gradebook_rows([], rubric)
    write_gradebook(tmp_path / "gradebook.csv", rows, rubric)
    page = _page(view_path(tmp_path, lang))
    assert page.rows == []
    assert ("0 行" if lang == "ja" else "0 rows") in "".join(page.text)


def _flag_codes() -> set[str]:
    """Every flag a gradebook row can carry: the first item of each ``("code", {...})`` pair
    discovery and the batch put in a row's flags."""
    import ast

    root = ROOT / "grader"
    codes = set()
    for name in ("ingest/discovery.py", "workflows/batch.py"):
        for node in ast.walk(ast.parse((root / name).read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Tuple) and len(node.elts) == 2 and isinstance(node.elts[1], ast.Dict)
                    and isinstance(node.elts[0], ast.Constant) and isinstance(node.elts[0].value, str)):
                codes.add(node.elts[0].value)
    return codes


def test_each_flag_is_a_word_in_the_pages_language(rubric, tmp_path):
    """The flags column holds codes for programs (``duplicate_id;missing``); the page shows each
    in its own language, and every flag the grader writes has its word in both."""
    from grader.i18n.messages import LABELS

    codes = _flag_codes()
    assert {"duplicate_id", "not_a_submission", "missing", "interrupted"} <= codes
    assert [c for c in sorted(codes) if set(LABELS.get(f"gbflag_{c}", ())[:2]) & {"", None}
            or f"gbflag_{c}" not in LABELS] == []
    rows = [{"submission": "a", "student_id": "1", "name": "a", "score": None, "max_score": 35.0,
             "flags": "duplicate_id;not_a_submission"},
            {"submission": "b", "student_id": "2", "name": "b", "score": None, "max_score": 35.0,
             "flags": "some_future_flag"}]
    write_gradebook(tmp_path / "gradebook.csv", [_row(r) for r in rows], rubric)
    ja, en = (_page(view_path(tmp_path, lang)).rows for lang in ("ja", "en"))
    assert ja[0][1][-1] == "学生 ID の重複, 提出物ではない"
    assert en[0][1][-1] == "id claimed twice, not a submission"
    assert ja[1][1][-1] == en[1][1][-1] == "some_future_flag"  # a code without words stays visible


def _links(path: Path) -> list[tuple[str, str]]:
    """(href, text) of every link on a page."""
    import re

    return re.findall(r'<a href="([^"]*)">([^<]*)</a>', path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_the_page_links_the_class_pages_and_each_submissions_report(rubric, tmp_path, lang):
    """Back to the summary, on to the similarity page where it was run, and each submission to the
    report there is to read: its HTML page, else its Markdown, else the yaml record."""
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "hana.yaml").write_text("{}", encoding="utf-8")
    (reports / "ken.yaml").write_text("{}", encoding="utf-8")
    (reports / "ken.html").write_text("<p>ken</p>", encoding="utf-8")
    _book(rubric, tmp_path)
    links = dict((text, href) for href, text in _links(view_path(tmp_path, lang)))
    summary = "クラス全体のまとめ" if lang == "ja" else "Class summary"
    assert links[summary] == f"summary.{lang}.html"
    assert links["hana"] == "reports/hana.yaml" and links["ken"] == "reports/ken.html"
    assert "mio" not in links  # no report: no link
    assert not any(href.startswith("similarity.") for href in links.values())  # similarity was not run
    (tmp_path / "similarity.csv").write_text("submission_a,submission_b\n", encoding="utf-8")
    write_views(tmp_path, rubric)
    assert f"similarity.{lang}.html" in {href for href, _ in _links(view_path(tmp_path, lang))}


def test_a_hostile_submission_name_is_a_safe_link(rubric, tmp_path):
    from grader.outputs.gradebook_page import report_link

    name = 'a" onmouseover="x&<b>#?'
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / f"{name}.yaml").write_text("{}", encoding="utf-8")
    link = report_link(tmp_path, name)
    assert link is not None and link.startswith("reports/") and not set(link[8:]) & set('"<>&# ?')


def test_long_japanese_names_and_headers_wrap_on_the_page(rubric, tmp_path):
    """Headers may wrap (no nowrap), a long name breaks anywhere rather than widen the table, and
    Japanese lines break by the strict rules (no line starts with ー, ）, 。 and the like)."""
    import re

    pages = _book(rubric, tmp_path)
    style = re.search(r"<style>(.*?)</style>", pages[0].read_text(encoding="utf-8"), re.S).group(1)
    rules = dict(re.findall(r"([^{}]+)\{([^}]*)\}", style))
    cells = next(v for k, v in rules.items() if k.strip() == "th, td")
    assert "line-break: strict" in cells and "overflow-wrap: anywhere" in cells
    assert "nowrap" not in next(v for k, v in rules.items() if k.strip() == "th")
