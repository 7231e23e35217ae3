"""The font every page carries for its Japanese text (grader.report.webfont)."""

from __future__ import annotations

import base64
import io
import re

import pytest
from fontTools.ttLib import TTFont

from grader.report import webfont


def _carried(page: str) -> TTFont:
    found = re.search(r"url\(data:font/woff;base64,([A-Za-z0-9+/=]+)\)", page)
    assert found is not None, page[:300]
    return TTFont(io.BytesIO(base64.b64decode(found.group(1))))


def _page(body: str) -> str:
    return f'<!DOCTYPE html><html lang="ja"><head><meta charset="utf-8"><title>t</title></head><body>{body}</body></html>'


def test_a_japanese_page_carries_exactly_its_characters_before_its_head_ends() -> None:
    page = webfont.embed(_page("<p>得点の分布: 山田 太郎さん　√d_k ÷ 8</p>"))
    head, _, body = page.partition("</head>")
    assert "@font-face" in head and "@font-face" not in body
    font = _carried(page)
    cmap = font.getBestCmap()
    for c in "得点の分布山田太郎さん√÷　 " + "".join(chr(c) for c in range(0x21, 0x7F)):
        assert ord(c) in cmap, c
    assert ord("日") not in cmap  # nothing the page does not show
    assert font["name"].getDebugName(1) == webfont.FAMILY
    assert len(font.getGlyphOrder()) < 200  # a subset, not the 12,000 glyphs of the font


def test_an_ascii_page_is_left_as_it_is() -> None:
    page = _page("<p>score 5/10</p>")
    assert webfont.embed(page) == page


def test_without_the_font_package_the_page_is_left_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    webfont._subset.cache_clear()
    monkeypatch.setattr(webfont, "_source", lambda: None)
    try:
        page = _page("<p>得点</p>")
        assert webfont.embed(page) == page
    finally:
        webfont._subset.cache_clear()


def test_the_carried_font_draws_the_same_outlines_as_the_packaged_one() -> None:
    from fontTools.pens.recordingPen import RecordingPen

    font = _carried(webfont.embed(_page("<p>識別力</p>")))
    source = webfont._source()
    for c in "識別力":
        ours, theirs = RecordingPen(), RecordingPen()
        font.getGlyphSet()[font.getBestCmap()[ord(c)]].draw(ours)
        source.getGlyphSet()[source.getBestCmap()[ord(c)]].draw(theirs)
        assert ours.value == theirs.value and ours.value


def test_a_class_page_font_is_kept_for_the_next_run_and_the_cache_stays_small(
        tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``keep=True`` (the class pages): the same characters on the next run read the kept font
    back instead of building it (the page byte for byte the same); at most ``KEPT`` are kept."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    page = _page("<p>成績表: 山田さん</p>")
    first = webfont.embed(page, keep=True)
    assert first == webfont.embed(page)

    def refuse(chars: str) -> str:
        raise AssertionError("built again")

    monkeypatch.setattr(webfont, "_subset", refuse)
    assert first == webfont.embed(page, keep=True)
    with pytest.raises(AssertionError, match="built again"):
        webfont.embed(_page("<p>ほかの文字</p>"), keep=True)
    monkeypatch.undo()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(webfont, "KEPT", 2)
    for body in ("一", "二", "三"):
        webfont.embed(_page(f"<p>{body}</p>"), keep=True)
    assert 2 == len(list((tmp_path / "grader" / "webfont").glob("*.b64")))
