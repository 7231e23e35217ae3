"""The review app in Debian's chromium (playwright): a hostile class opened page by page fires no
script and asks nothing of any other address; the keys move through a group, comment on selected
lines, undo, confirm a cluster of unknown mistakes whole and show the help in both languages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from grader.report import ledger
from tests.helpers import chromium
from tests.review_class import PAYLOADS, make_class, serving

pytestmark = pytest.mark.browser


@pytest.fixture
def browser() -> Any:
    found = chromium()
    assert found, "the browser tests need chromium (make test installs it)"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=found, args=["--no-sandbox"])
        yield b
        b.close()


def test_a_hostile_class_fires_no_script_and_asks_nothing_elsewhere(tmp_path: Path, browser: Any) -> None:
    out = make_class(tmp_path, 0, hostile=True)
    with serving(out) as (base, keys):
        context = browser.new_context()
        requests: list[str] = []
        dialogs: list[str] = []
        context.on("request", lambda r: requests.append(r.url))
        page = context.new_page()
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(keys.launch_url())
        links = page.eval_on_selector_all("a.member", "xs => xs.map(x => x.getAttribute('href'))")
        assert len(links) >= 30
        for link in links:
            page.goto(base + link)
            page.click("tr[data-line]") if page.locator("tr[data-line]").count() else None
            page.keyboard.press("r")  # the reference and the diff open too
            assert page.evaluate("window.__pwned === undefined"), link
        assert dialogs == []
        assert [u for u in requests if not u.startswith(base + "/")] == []  # (images are data: addresses)
        # every payload is on some page, as text
        seen = "".join(page.goto(base + link) and page.inner_text("body") for link in links[:len(PAYLOADS)])
        assert sum(p in seen for p in PAYLOADS) >= len(PAYLOADS) - 1
        context.close()


def test_the_keys_walk_a_group_comment_on_lines_and_show_the_help(tmp_path: Path, browser: Any) -> None:
    out = make_class(tmp_path, 300)
    with serving(out) as (base, keys):
        page = browser.new_page()
        page.goto(keys.launch_url())
        page.goto(f"{base}/g/m-divide-by-d-k?lang=en")
        with page.expect_navigation():
            page.click("a.member >> nth=0")
        # 50 submissions, one key each: s with nothing to save goes on to the next
        seen = []
        for _ in range(50):
            seen.append(page.inner_text("#who"))
            with page.expect_navigation():
                page.keyboard.press("s")
        assert len(set(seen)) == 50
        assert page.url.startswith(f"{base}/g/m-divide-by-d-k")  # the group's end: back to its page
        page.go_back()
        who = page.inner_text("#who")
        # c: a comment on the lines selected (click, shift-click), written on Enter
        page.click("tr[data-line='3']")
        page.click("tr[data-line='4']", modifiers=["Shift"])
        page.keyboard.press("c")
        page.keyboard.type("why d_k?")
        with page.expect_navigation():
            page.keyboard.press("Enter")
        (entry,) = ledger.read(out)
        assert entry.op == "comment" and entry.note is not None and (entry.note["start"], entry.note["end"]) == (3, 4)
        assert who.split()[0] == entry.submission
        # u: undo the last line
        with page.expect_navigation():
            page.keyboard.press("u")
        assert [e.op for e in ledger.read(out)] == ["comment", "undo"]
        # a cluster of unknown mistakes confirmed whole with one key
        page.goto(f"{base}/g/c-1?lang=en")
        members = page.locator("table.members a.member").count()
        with page.expect_navigation():
            page.keyboard.press("a")
        assert [(e.note or {}).get("group") for e in ledger.read(out) if e.op == "review"] == ["c-1"] * members
        assert page.locator("table.members tr.done").count() == members == 50
        for lang, words in (("en", "next submission in the group"), ("ja", "グループ内の次の提出物")):
            page.goto(f"{base}/?lang={lang}")
            assert not page.is_visible("#help")
            page.keyboard.press("?")
            assert page.is_visible("#help") and words in page.inner_text("#help")
            page.keyboard.press("Escape")
            assert not page.is_visible("#help")
