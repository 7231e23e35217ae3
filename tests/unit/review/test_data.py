"""grader.review.data: where a comment's lines are now (here, moved with them, or outdated, never
silently elsewhere), and a notebook output shown as text or as a static image only."""

from __future__ import annotations

from grader.review.data import anchor, lines_hash, shown_output

FILE = ["def f(x):", "    y = x / 64", "    return y", "", "def g():", "    return 1"]


def note(start: int, end: int, lines: list[str] = FILE) -> dict[str, object]:
    return {"file": "a.py", "start": start, "end": end, "hash": lines_hash(lines[start - 1:end])}


def test_a_comment_stays_on_its_lines_while_they_hold_what_they_held() -> None:
    assert anchor(note(2, 3), {"a.py": FILE}) == ("here", 2, 3)
    assert anchor(note(2, 3), {"a.py": [line + "   " for line in FILE]}) == ("here", 2, 3)  # (trailing blanks)


def test_a_comment_follows_its_lines_to_the_nearest_place_they_are() -> None:
    moved = ["# header", "import math", *FILE]
    assert anchor(note(2, 3), {"a.py": moved}) == ("moved", 4, 5)
    twice = [*FILE, *FILE]
    assert anchor(note(2, 3), {"a.py": ["# x", *twice]}) == ("moved", 3, 4)  # the nearer of two


def test_a_comment_whose_lines_are_gone_is_outdated_where_it_was() -> None:
    changed = [line.replace("64", "8") for line in FILE]
    assert anchor(note(2, 3), {"a.py": changed}) == ("outdated", 2, 3)
    assert anchor(note(2, 3), {"b.py": FILE}) == ("outdated", 2, 3)  # the file is gone
    assert anchor(note(5, 6), {"a.py": FILE[:4]}) == ("outdated", 5, 6)  # the file got shorter


def test_notebook_outputs_are_text_or_a_static_image() -> None:
    png = "iVBORw0KGgo="
    out = shown_output({"output_type": "display_data", "data": {
        "text/html": ["<script>x()</script>"], "image/png": png, "image/svg+xml": "<svg onload=x()>",
        "application/javascript": "x()"}})
    assert out == [{"kind": "text", "mime": "text/html", "text": "<script>x()</script>"},
                   {"kind": "image", "mime": "image/png", "src": f"data:image/png;base64,{png}"},
                   {"kind": "text", "mime": "image/svg+xml", "text": "<svg onload=x()>"},
                   {"kind": "text", "mime": "application/javascript", "text": "x()"}]
    # an "image" that is not base64 (a quote, markup) is text
    assert shown_output({"output_type": "display_data", "data": {"image/png": '" onerror="x()'}})[0]["kind"] == "text"
    assert shown_output({"output_type": "error", "ename": "E", "evalue": "<b>"}) == [
        {"kind": "text", "mime": "error", "text": "E: <b>"}]
