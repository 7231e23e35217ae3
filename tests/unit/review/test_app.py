"""grader.review.app over a synthesised class (tests/review_class.py): the queue's groups, a
submission's page, and each action as a ledger line (score change, comment, undo, a group confirmed
in one action, a blind reveal), a conflict with both versions, and student content only as text."""

from __future__ import annotations

import html
import re
import warnings
from pathlib import Path

import pytest

from grader.report import ledger
from grader.review.app import make_app
from grader.review.security import COOKIE, csrf_of
from grader.spec.rubric.load import load_rubric
from tests.helpers import RUBRIC, read_report
from tests.review_class import PAYLOADS, make_class

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

PORT = 8765
BASE = f"http://127.0.0.1:{PORT}"


class Reviewer:
    """One browser: logged in with a launch URL of its own."""

    def __init__(self, out: Path, *, blind: bool = False, app: object = None, keys: object = None,
                 name: str = "") -> None:
        if app is None:
            app, keys = make_app(out, load_rubric(RUBRIC), port=PORT, by="tanaka", lang="en", blind=blind)
        self.app, self.keys = app, keys
        self.c = TestClient(app, base_url=BASE)  # type: ignore[arg-type]
        token = keys.launch_url(reviewer=name).split("token=")[1]  # type: ignore[attr-defined]
        assert self.c.get(f"/login?token={token}", follow_redirects=False).status_code == 303
        self.csrf = csrf_of(keys.secret, self.c.cookies[COOKIE])  # type: ignore[attr-defined]

    def get(self, path: str) -> str:
        answer = self.c.get(path)
        assert answer.status_code == 200, answer.text
        return answer.text

    def post(self, path: str, **data: str) -> object:
        return self.c.post(path, data={"csrf": self.csrf, **data}, headers={"origin": BASE}, follow_redirects=False)

    def links(self, text: str, kind: str = "s") -> list[str]:
        return [html.unescape(x) for x in re.findall(rf'href="(/{kind}/[^"?]+\?[^"]*)"', text)]

    def page_of(self, name: str) -> tuple[str, str]:
        """(its path, the page) of submission ``name``, found from the queue's links."""
        queue = self.get("/?lang=en")
        for link in self.links(queue):
            page = self.get(link)
            if f">{name}<" in page or f"{name} " in page or f"({name})" in page:
                return link.split("?")[0], page
        raise AssertionError(f"{name} is not in the queue")


def head_of(page: str) -> str:
    return re.search(r'name="head" value="(\d+)"', page).group(1)  # type: ignore[union-attr]


#: every element the app's templates write: anything else on a page came from a student
OURS = {"html", "head", "meta", "title", "link", "script", "body", "header", "a", "span", "button", "main", "div", "h1",
        "h2", "h3", "h4", "dl", "dt", "dd", "kbd", "small", "ol", "ul", "li", "p", "nav", "section", "table", "thead",
        "tbody", "tr", "th", "td", "code", "form", "input", "label", "select", "option", "textarea", "details",
        "summary", "pre", "img", "strong", "aside"}


def elements_of(page: str) -> list[tuple[str, list[tuple[str, str | None]]]]:
    """Every element of a page as a browser's parser starts it: (tag, attributes)."""
    from html.parser import HTMLParser

    found: list[tuple[str, list[tuple[str, str | None]]]] = []

    class Parser(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            found.append((tag, attrs))

    Parser().feed(page)
    return found


def tags_of(page: str) -> set[str]:
    return {tag for tag, _ in elements_of(page)}


@pytest.fixture
def out(tmp_path: Path) -> Path:
    return make_class(tmp_path, 12)


def test_the_queue_is_grouped_by_what_went_wrong(out: Path) -> None:
    page = Reviewer(out).get("/?lang=en")
    titles = re.findall(r'class="group-link">([^<]+)<', page)
    assert titles[:3] == ["divide-by-d-k", "softmax-overflow", "sqrt-d-model"]
    assert titles[3:5] == ["Unknown mistake, cluster 1", "Unknown mistake, cluster 2"]
    assert titles[5:8] == ["Similar pair 1", "Similar pair 2", "Similar pair 3"]
    assert titles[-1] == "Everyone else"
    ja = Reviewer(out).get("/?lang=ja")
    assert "未知の間違い クラスタ 1" in ja and "その他の全員" in ja and "レビューキュー" in ja


def test_a_submission_page_shows_code_diagnosis_failing_tests_parts_and_reference(out: Path) -> None:
    r = Reviewer(out)
    _, page = r.page_of("s001-divide-by-dk-1")
    assert 'data-file="scaling.py"' in page and 'data-line="1"' in page
    assert "divides by d_k = 64, not by √d_k = 8" in page
    assert "public/test_scaling.py::test_0" in page and "expected" in page
    assert re.search(r"scaling — .*6/10", page)
    assert 'id="reference"' in page and "reference/scaling.py" in page  # the diff against the reference
    assert page.count("<script") == 1 and '<script src="/static/review.js" defer></script>' in page


def test_a_score_change_is_a_ledger_line_and_every_view_follows(out: Path) -> None:
    r = Reviewer(out)
    path, page = r.page_of("s001-divide-by-dk-1")
    answer = r.post(f"{path}/adjust?lang=en", head=head_of(page), part="scaling", points="2", reason="partial credit")
    assert answer.status_code == 303  # type: ignore[attr-defined]
    entries = ledger.read(out)
    assert [(e.op, e.submission, e.part, e.points, e.by, e.reason) for e in entries] == [
        ("adjust", "s001-divide-by-dk-1", "scaling", 2.0, "tanaka", "partial credit")]
    assert read_report(out, "s001-divide-by-dk-1")["score"] == 38.0
    assert "partial credit" in r.get(f"{path}?lang=en")


def test_a_second_reviewer_on_the_same_student_gets_a_conflict_with_both_versions(out: Path) -> None:
    first = Reviewer(out)
    second = Reviewer(out, app=first.app, keys=first.keys, name="suzuki")  # (a launch URL naming its reviewer)
    path, page = first.page_of("s002-sqrt-d-model-2")
    _, seen_by_second = second.page_of("s002-sqrt-d-model-2")
    assert first.post(f"{path}/adjust", head=head_of(page), points="1", reason="mine first").status_code == 303  # type: ignore[attr-defined]
    clash = second.post(f"{path}/adjust?lang=en", head=head_of(seen_by_second), points="-3", reason="too generous")
    assert clash.status_code == 409  # type: ignore[attr-defined]
    text = clash.text  # type: ignore[attr-defined]
    assert "mine first" in text and "too generous" in text and "Someone else changed this student" in text
    assert [e.reason for e in ledger.read(out)] == ["mine first"]  # nothing overwritten, nothing added
    again = {k: html.unescape(v) for k, v in re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"',
                                                         text.split('id="send-again"')[1])}
    again.pop("csrf")
    assert second.post(f"{path}/adjust", **again).status_code == 303  # type: ignore[attr-defined]
    assert [(e.reason, e.by) for e in ledger.read(out)] == [("mine first", "tanaka"), ("too generous", "suzuki")]
    assert read_report(out, "s002-sqrt-d-model-2")["score"] == 36 + 1 - 3


def test_a_comment_keeps_its_lines_and_follows_them_or_says_it_is_outdated(out: Path) -> None:
    r = Reviewer(out)
    path, page = r.page_of("s001-divide-by-dk-1")
    source = out.parent / "source" / "s001-divide-by-dk-1" / "scaling.py"
    lines = source.read_text(encoding="utf-8").split("\n")
    at = next(i for i, line in enumerate(lines, 1) if "def scaling_factor" in line)
    answer = r.post(f"{path}/comment", head=head_of(page), file="scaling.py", start=str(at), end=str(at + 1),
                    text="why d_k and not √d_k?")
    assert answer.status_code == 303  # type: ignore[attr-defined]
    (entry,) = ledger.read(out)
    assert entry.op == "comment" and entry.note is not None
    assert entry.note["file"] == "scaling.py" and (entry.note["start"], entry.note["end"]) == (at, at + 1)
    assert entry.note["lines"] == lines[at - 1:at + 1] and len(entry.note["hash"]) == 16
    assert "on these lines" in r.get(f"{path}?lang=en")
    # a new version of the file, two lines added above: the comment moves with its lines, and says so
    source.write_text("\n".join(["# new", "# lines", *lines]), encoding="utf-8")
    moved = Reviewer(out).page_of("s001-divide-by-dk-1")[1]
    assert "moved with its lines" in moved and f"{at}–{at + 1} → {at + 2}–{at + 3}" in moved
    # the lines rewritten: outdated, shown with the lines it was on, never moved elsewhere
    source.write_text("\n".join(x for x in lines if "def scaling_factor" not in x), encoding="utf-8")
    outdated = Reviewer(out).page_of("s001-divide-by-dk-1")[1]
    assert "outdated: the lines are gone" in outdated and html.escape(lines[at - 1]) in outdated


def test_undo_takes_back_a_comment_and_an_adjustment(out: Path) -> None:
    r = Reviewer(out)
    path, page = r.page_of("s003-softmax-overflow-3")
    r.post(f"{path}/comment", head=head_of(page), file="softmax.py", start="1", end="1", text="look")
    page = r.get(f"{path}?lang=en")
    r.post(f"{path}/adjust", head=head_of(page), points="-1", reason="style")
    page = r.get(f"{path}?lang=en")
    assert r.post(f"{path}/undo", head=head_of(page), n="1").status_code == 303  # type: ignore[attr-defined]
    page = r.get(f"{path}?lang=en")
    assert r.post(f"{path}/undo", head=head_of(page), n="2").status_code == 303  # type: ignore[attr-defined]
    entries = ledger.read(out)
    assert [(e.op, e.target) for e in entries] == [("comment", None), ("adjust", None), ("undo", 1), ("undo", 2)]
    assert read_report(out, "s003-softmax-overflow-3")["score"] == 36.0
    assert 'class="comment' not in r.get(f"{path}?lang=en")


def test_a_whole_group_is_confirmed_in_one_action(out: Path) -> None:
    r = Reviewer(out)
    group = r.get("/g/m-divide-by-d-k?lang=en")
    heads = re.search(r'name="heads" value="([^"]*)"', group).group(1)  # type: ignore[union-attr]
    assert r.post("/g/m-divide-by-d-k/confirm?lang=en", heads=heads).status_code == 303  # type: ignore[attr-defined]
    entries = ledger.read(out)
    assert [(e.op, e.submission, (e.note or {}).get("group")) for e in entries] == [
        ("review", "s001-divide-by-dk-1", "m-divide-by-d-k"), ("review", "s007-divide-by-dk-1", "m-divide-by-d-k")]
    assert "Reviewed 2/2" in r.get("/?lang=en")
    assert ledger.verify(out) == 2


def test_a_group_with_a_member_changed_since_is_a_conflict_and_nothing_is_written(out: Path) -> None:
    r = Reviewer(out)
    group = r.get("/g/m-divide-by-d-k?lang=en")
    heads = re.search(r'name="heads" value="([^"]*)"', group).group(1)  # type: ignore[union-attr]
    path, page = r.page_of("s007-divide-by-dk-1")
    r.post(f"{path}/adjust", head=head_of(page), points="1", reason="meanwhile")
    clash = r.post("/g/m-divide-by-d-k/confirm?lang=en", heads=heads)
    assert clash.status_code == 409 and "meanwhile" in clash.text  # type: ignore[attr-defined]
    assert [e.op for e in ledger.read(out)] == ["adjust"]


def test_blind_review_shows_pseudonyms_until_a_reveal_line(tmp_path: Path) -> None:
    out = make_class(tmp_path, 6, hostile=True)
    r = Reviewer(out, blind=True)
    queue = r.get("/?lang=en")
    assert "s001-divide-by-dk" not in queue and "山田太郎" not in queue and "佐藤花子" not in queue
    assert re.search(r">S-[0-9a-f]{6}<", queue)
    link = r.links(queue)[0]
    page = r.get(link)
    pseudonym = re.search(r'id="who">(S-[0-9a-f]{6})', page).group(1)  # type: ignore[union-attr]
    path = link.split("?")[0]
    assert r.post(f"{path}/reveal", head=head_of(page), reason="").status_code == 400  # type: ignore[attr-defined]
    assert r.post(f"{path}/reveal", head=head_of(page), reason="regrade request").status_code == 303  # type: ignore[attr-defined]
    (entry,) = ledger.read(out)
    assert entry.op == "reveal" and entry.note == {"pseudonym": pseudonym} and entry.reason == "regrade request"
    assert f'id="who">{pseudonym}' not in r.get(link) and entry.submission in r.get(link)
    assert r.post(f"{path}/reveal", head="0", reason="x").status_code in (400, 409)  # type: ignore[attr-defined]


def test_student_content_reaches_the_page_only_as_text(tmp_path: Path) -> None:
    out = make_class(tmp_path, 0, hostile=True)
    r = Reviewer(out)
    queue = r.get("/?lang=en")
    pages = [queue] + [r.get(link) for link in r.links(queue)]
    assert len(pages) > 30
    for page in pages:
        assert tags_of(page) <= OURS
        for tag, attrs in elements_of(page):
            assert not [name for name, _ in attrs if name.startswith("on")], tag
            for name, value in attrs:
                if name in ("href", "src", "action"):
                    assert (value or "").startswith(("/", "?", "data:image/png;base64,")), (tag, name, value)
        assert [a for t, a in elements_of(page) if t == "script"] == [[("src", "/static/review.js"), ("defer", None)]]
    notebook = next(p for p in pages if "(h00-nb)" in p and 'data-file="' in p)
    assert html.escape(PAYLOADS[0], quote=False) in notebook.replace("&#34;", '"').replace("&#39;", "'")
    assert 'src="data:image/png;base64,' in notebook  # a static image
    assert 'data-file="cell 1 (markdown)"' in notebook  # a Markdown cell, as its text
    assert notebook.index("cell 1 (markdown)") < notebook.index('data-file="cell 2"')
    assert "h00-nb.ipynb" not in notebook.split('id="code"')[1]  # (cells by number: a file name may name its author)
    assert "text/html — shown as text" in notebook and "image/svg+xml — shown as text" in notebook
    assert "{{ 7*7 }}" in "".join(pages) and ">49<" not in "".join(pages)


def test_a_page_of_a_key_not_in_the_batch_is_refused(out: Path) -> None:
    r = Reviewer(out)
    assert r.c.get("/s/0000000000000000").status_code == 404
    assert r.c.get("/g/nothing").status_code == 404
    assert r.c.get("/static/../app.py").status_code == 404
    assert r.post("/s/0000000000000000/adjust", head="0", points="1", reason="x").status_code == 400  # type: ignore[attr-defined]


def test_the_adjustments_that_need_review_are_a_group_confirmed_in_one_action(out: Path) -> None:
    from grader.workflows.adjust import refresh

    rubric = load_rubric(RUBRIC)
    for name in ("s001-divide-by-dk-1", "s002-sqrt-d-model-2"):  # made against another automatic score
        ledger.append(out, op="adjust", submission=name, part=None, points=1.0, reason="regrade request", by="ta",
                      against=30.0)
    refresh(out, rubric, "en")
    r = Reviewer(out)
    assert "Adjustments that need review" in r.get("/?lang=en")
    group = r.get("/g/needs-review?lang=en")
    heads = re.search(r'name="heads" value="([^"]*)"', group).group(1)  # type: ignore[union-attr]
    assert r.post("/g/needs-review/confirm?lang=en", heads=heads).status_code == 303  # type: ignore[attr-defined]
    assert [(e.op, e.target, e.against) for e in ledger.read(out)][2:] == [("confirm", 1, 36.0), ("confirm", 2, 36.0)]
    assert not ledger.review_of(read_report(out, "s001-divide-by-dk-1"))
    assert "Adjustments that need review" not in r.get("/?lang=en")


def test_an_anonymous_batch_is_reviewed_blind_and_a_reveal_names_the_student(out: Path) -> None:
    (out / "identities.csv").write_text("anonymous_id,student_id,name,lms,entry\r\n"
                                        "s001-divide-by-dk-1,111,山田太郎,moodle,yamada_111\r\n", encoding="utf-8")
    r = Reviewer(out)  # (not asked for --blind: the batch is)
    queue = r.get("/?lang=en")
    assert "山田太郎" not in queue and ">s001-divide-by-dk-1<" in queue
    path, page = r.page_of("s001-divide-by-dk-1")
    assert r.post(f"{path}/reveal", head=head_of(page), reason="regrade request").status_code == 303  # type: ignore[attr-defined]
    assert "山田太郎 (s001-divide-by-dk-1)" in r.get(f"{path}?lang=en")
    assert [(e.op, e.note) for e in ledger.read(out)] == [("reveal", {"pseudonym": "s001-divide-by-dk-1"})]


def test_every_word_a_template_says_is_a_label_in_both_languages() -> None:
    """``t.name`` in a template is a key of WORDS, never a dict method's name (``t.items`` would print a method)."""
    from grader.review.app import HERE, WORDS

    used = {m for path in (HERE / "templates").glob("*.j2")
            for m in re.findall(r"\bt\.(\w+)", path.read_text(encoding="utf-8"))}
    assert used and used <= set(WORDS["en"]) == set(WORDS["ja"])
    assert not used & set(dir(dict))
