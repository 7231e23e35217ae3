"""The per-sink functions of ``grader.sinks``, each read back by the sink's real parser."""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import yaml

from grader import sinks
from grader.report import fastyaml


HOSTILE = [
    "\x1b]52;c;cm0gLXJmIH4=\x07",  # OSC 52: write the clipboard
    "\x1b[2J\x1b[H\x1b[32mScore 119/119\x1b[0m",  # clear screen, fake green score
    "[link=https://evil.example]click[/link] [/x] [conceal]secret[/conceal]",
    "=HYPERLINK(\"https://evil.example\",\"x\")", "@SUM(A1:A9)", "+1+1", "-2+3", "\t=1", "\r=1",
    " =1+1", "＝1+1", "**bold** <script>alert(1)</script> [x](javascript:alert(1)) | # h",
    "\ud800 lone", "\ufffe\uffff nonchars", "\x00nul\x7fdel\x85nel", "\u202eevil\u202c",
    "a\r\nb\rc",
]


def test_terminal_shows_every_escape_and_keeps_text():
    for s in HOSTILE:
        out = sinks.terminal(s)
        assert "\x1b" not in out and "\x07" not in out and "\r" not in out and "\x00" not in out
        assert "\u202e" not in out and not any(0xD800 <= ord(c) <= 0xDFFF for c in out)
        out.encode("utf-8")  # writable to any UTF-8 terminal
    assert sinks.terminal("\x1b[2J") == "\\x1b[2J"
    assert sinks.terminal("\ud800") == "\\ud800"
    assert sinks.terminal("日本語\tタブ\n次の行") == "日本語\tタブ\n次の行"


def test_terminal_text_prints_markup_literally():
    from rich.console import Console
    from rich.text import Text

    console = Console(file=io.StringIO(), force_terminal=True, color_system="truecolor", width=200,
                      highlight=False)
    for s in HOSTILE:
        console.print(Text(sinks.terminal(s)))
    out = console.file.getvalue()
    assert "[/x]" in out and "[link=https://evil.example]" in out and "secret" in out
    assert "\x1b]8;" not in out  # no hyperlink escape was produced from the student's markup
    assert "\x1b]52" not in out and "\x1b[2J" not in out
    # terminal_markup survives markup=True
    console.print(f"[red]x[/red] {sinks.terminal_markup('[/x] [bold]b[/bold]')}", markup=True)
    assert "[/x] [bold]b[/bold]" in console.file.getvalue()


def _read_csv(cells):
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow([sinks.csv_cell(c) for c in cells])
    buf.getvalue().encode("utf-8")
    return next(csv.reader(io.StringIO(buf.getvalue())))


def test_csv_cell_neutralises_formulas_and_keeps_numbers():
    row = _read_csv(HOSTILE)
    assert len(row) == len(HOSTILE)
    for original, cell in zip(HOSTILE, row):
        assert cell[:1] not in "=+-@\t\r＝", (original, cell)
        if original.lstrip(" ")[:1] in "=+-@\t\r＝":
            assert cell.startswith("'"), cell
    assert sinks.csv_cell("=1+1") == "'=1+1"
    assert sinks.csv_cell("alice") == "alice"
    assert sinks.csv_cell("Taro Yamada") == "Taro Yamada"
    assert sinks.csv_cell(-3) == -3 and sinks.csv_cell(2.5) == 2.5 and sinks.csv_cell(None) is None
    assert _read_csv([-3, 2.5, ""]) == ["-3", "2.5", ""]


def test_markdown_renders_as_the_same_text():
    from markdown_it import MarkdownIt  # (rich's Markdown parser: CommonMark + GFM tables)

    md = MarkdownIt("commonmark").enable("table")
    for s in HOSTILE + ["**bold** <b>x</b> [a](b) | `c` # h\n- item", "1. x", "> q", "&amp;"]:
        cell = sinks.markdown(s)
        assert "\n" not in cell
        page = md.render(f"| a | b |\n| --- | --- |\n| {cell} | z |\n")
        assert page.count("<td>") == 2, (s, page)  # the cell stayed one cell
        body = page.split("<td>")[1].split("</td>")[0]
        assert "<" not in body.replace("&lt;", ""), (s, body)  # no tag, link or emphasis
        p = _Collect()
        p.feed(body)
        assert p.tags == []
        assert "".join(p.text) == sinks.visible(s).replace("\r", " ").replace("\n", " ").strip(" \t")
    assert sinks.markdown("日本語") == "日本語"


#: Markup a student could try in a message, one case per construct Markdown (CommonMark and
#: GitHub's extensions) reads: emphasis, code, links, images, definitions, footnotes, tags,
#: entities, autolinks, math, strikethrough, and every block marker at the start of a line.
MARKUP = [
    "*em* **strong** _u_ __uu__ ***both***", "`code` ``two``", "[a](https://evil.example) [b][c] [d]",
    "![img](x.png)", "[x]: https://evil.example", "[^1] and [^1]: note", "<b>x</b> <!-- c -->",
    "<https://evil.example>", "&amp; &#x41; &copy;", "http://evil.example www.evil.example",
    "mail me@evil.example", "$x^2$ and $$y$$", "~~gone~~ ~one~", "# heading", "## two", "> quote",
    "- item", "+ item", "* item", "1. first", "12) twelfth", "---", "___", "***", "=== ", "```py",
    "~~~", "    indented code", "| cell | break |", "\\*not em\\*", "ends with \\", ":smile: :+1:",
    "- [ ] task", "a\\\\*b*", "_leading", "trailing_", "snake_case_name", "[1, 3]: x",
]


def test_markdown_output_renders_to_the_text_in_every_place_the_writers_put_it():
    """Each string rendered as a table cell, a list item, bold text, a quote and a paragraph
    shows exactly its own text, with no element of its own; a definition made in one item
    links nothing in another."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    for s in MARKUP + HOSTILE:
        cell = sinks.markdown(s)
        want = sinks.visible(s).replace("\r", " ").replace("\n", " ").strip(" \t")
        for doc, wrapper in [
            (f"| a | b |\n| --- | --- |\n| {cell} | z |\n", ["table", "thead", "tr", "th", "th", "tbody",
                                                           "tr", "td", "td"]),
            (f"- {cell}\n", ["ul", "li"]),
            (f"- **id** {cell}\n", ["ul", "li", "strong"]),
            (f"> {cell}\n", ["blockquote", "p"]),
            (f"{cell}\n", ["p"]),
        ]:
            page = md.render(doc)
            p = _Collect()
            p.feed(page)
            p.close()
            assert p.tags == wrapper, (s, cell, page)
            # The student's text: the first data cell, or what follows the bold id, or all.
            text = "".join(x for where, x in p.placed if ("td" not in wrapper or where == ("td", 1))
                           and "th" not in where and "strong" not in where).replace("\n", "")
            assert text.strip() == want.strip(), (s, cell, page)
        # GitHub also links bare URLs and www. names (an extension markdown-it does not run):
        assert not re.search(r"(?<!\\)://|(?i:www)\.|(?<!\\)@", cell), cell
    doc = f"- {sinks.markdown('[x]: https://evil.example')}\n- {sinks.markdown('see [x]')}\n"
    assert "<a" not in md.render(doc)


def test_markdown_leaves_ordinary_text_readable_raw():
    """Messages read in an editor or a terminal: no backslash where Markdown needs none."""
    for s in ["multihead_attention_scores(float32[1, 3])", "scaling_factor(768, 12) uses 27.71 = √768",
              "ONE head: 768 / 12 = 64, so divide by √64 = 8.", "max abs error 4.85e-08; allowed there 2.86e-10",
              "returned (1, 1, 4, 4); expected (4, 4)", "softmax(x, dim=-1) at 12:30 - ok?",
              "スコアを 27.71 = √768 で割っています。", "d_k = 64 {'d_k': 16.0} \"quoted\" 'single' 50%",
              "test_softmax.py::test_rows_sum_to_one[float32-3]"]:
        assert sinks.markdown(s) == s


class _Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.text = [], []
        self.placed: list[tuple[tuple, str]] = []  # (innermost tag, its count), data
        self._open: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self._open.append(tag)

    def handle_endtag(self, tag):
        if tag in self._open:
            del self._open[len(self._open) - 1 - self._open[::-1].index(tag):]

    def handle_data(self, data):
        self.text.append(data)
        inner = self._open[-1] if self._open else ""
        self.placed.append(((inner, self.tags.count(inner)) if inner in ("td", "th") else
                            tuple(self._open), data))


def test_html_text_has_no_tags_and_reads_back():
    for s in HOSTILE:
        p = _Collect()
        p.feed(f"<p title=\"{sinks.html(s)}\">{sinks.html(s)}</p>")
        p.close()
        assert p.tags == ["p"], s
        assert "\x1b" not in "".join(p.text)
    p = _Collect()
    p.feed(sinks.html("<script>alert(1)</script> & é"))
    assert p.tags == [] and "".join(p.text) == "<script>alert(1)</script> & é"


def test_xml_keeps_only_allowed_characters():
    for s in HOSTILE:
        root = ET.Element("r", a=sinks.xml(s))
        root.text = sinks.xml(s)
        text = ET.tostring(root, encoding="unicode")
        back = ET.fromstring(text.encode("utf-8"))
        assert back.text is not None
    assert sinks.xml("a\ufffeb\x01c\td") == "a\\ufffeb\\x01c\td"


def test_unicode_and_clean_make_yaml_and_json_valid():
    data = {"k\ud800": ["\udfff", {"x": "ok \ud83d"}], "n": 3}
    safe = sinks.clean(data)
    text = json.dumps(safe, ensure_ascii=False)
    text.encode("utf-8")
    assert json.loads(text) == {"k\\ud800": ["\\udfff", {"x": "ok \\ud83d"}], "n": 3}
    y = fastyaml.dump(safe)
    y.encode("utf-8")
    assert yaml.load(y, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) == json.loads(text)


def test_cap_cuts_with_a_marker_inside_the_limit():
    assert sinks.cap("short", 100) == "short"
    big = "x" * 10_000_000
    out = sinks.cap(big, 1000)
    assert len(out.encode()) <= 1000
    kept = out[: out.rindex("…")]
    assert kept == "x" * len(kept) and out.endswith(f"… [cut {len(big) - len(kept)} bytes]")
    jp = "日本語" * 1000  # 3 bytes each: the cut never splits a character
    out = sinks.cap(jp, 100)
    out.encode("utf-8")
    assert len(out.encode()) <= 100 and out.startswith("日本語")
    kept = out[: out.index("…")]
    assert out.endswith(f"[cut {len(jp.encode()) - len(kept.encode())} bytes]")


def test_cap_data_reaches_every_string():
    data = {"a": ["y" * 5000, {"b": "z" * 5000}], "c": 1}
    out = sinks.cap_data(data, 200)
    assert len(out["a"][0].encode()) <= 200 and len(out["a"][1]["b"].encode()) <= 200
    assert out["c"] == 1
