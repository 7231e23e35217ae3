"""Class insight as an instructor meets it, with the real commands and a real browser.

1. ``grader batch SRC --out OUT --similarity`` over a class with a planted copy ring (a
   folder, its renamed and reordered copy, and a notebook of it) and an unknown wrong variant
   spelled two ways: chromium renders the class summary, and its first screen shows the ring
   and the cluster in Japanese and in English; hostile code and values show as text.
2. ``grader catalogue draft OUT --cluster 1`` in a copied course, the entry worded by hand,
   ``grader validate`` passes, and the batch run again names the new id.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
import yaml

from grader.ingest.corpus import load_corpus
from tests.helpers import ROOT, RUBRIC, chromium, course_copy, headless, run_grader
from tests.journeys.test_japanese_browser import _english_sentences


CORRECT = ROOT / "suites" / "chapter07" / "correct"

#: in every member of the ring: markup and control characters in strings
HOSTILE = "<script>alert('x')</script>\x1b[2J\u202e"


def _grader(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_grader(*args, cwd=cwd, env=env, timeout=1800)  # a class with the validate corpus beside it


def _ring_original() -> str:
    code = (CORRECT / "19-helpers-and-constants" / "scaling.py").read_text(encoding="utf-8")
    # a message nobody else writes, with markup and control characters
    return code.replace("def head_dim(", f'_NOTE = "{HOSTILE}"\n\n\ndef head_dim(', 1)  # raw controls


def _disguised(code: str) -> str:
    """Renamed, functions reordered, comments changed (what a copier does)."""
    import ast

    tree = ast.parse(code)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id.startswith("_") and node.id != "_NOTE":
            node.id = "helper" + node.id
        if isinstance(node, ast.FunctionDef) and node.name.startswith("_"):
            node.name = "helper" + node.name
    body = tree.body
    defs = [n for n in body if isinstance(n, ast.FunctionDef)]
    rest = [n for n in body if not isinstance(n, ast.FunctionDef)]
    return "\n\n\n".join("# " + str(i) + "\n" + ast.unparse(n) for i, n in enumerate(rest + defs[::-1])) + "\n"


def _class(src: Path) -> dict[str, str]:
    """Six honest styles, a ring of three, an unknown variant spelled two ways."""
    src.mkdir()
    for style in ("01-minimal-checks", "05-float64-throughout", "07-functional-softmax", "11-einsum",
                  "13-rsqrt", "15-numpy-everywhere"):
        shutil.copytree(CORRECT / style, src / style)
    ring = CORRECT / "19-helpers-and-constants"
    original = _ring_original()
    for name, code in (("ring-a", original), ("ring-b", _disguised(original))):
        shutil.copytree(ring, src / name)
        (src / name / "scaling.py").write_text(code, encoding="utf-8")
    nb = nbformat.v4.new_notebook()
    cells = [nbformat.v4.new_markdown_cell("# 第7章")]
    for part in ("scaling", "softmax", "variance"):
        text = _disguised(original) if part == "scaling" else (ring / f"{part}.py").read_text(encoding="utf-8")
        cells.append(nbformat.v4.new_code_cell(text))
    cells.append(nbformat.v4.new_raw_cell("# answers.yaml\n" + (ring / "answers.yaml").read_text(encoding="utf-8")))
    nb.cells = cells
    nbformat.write(nb, str(src / "ring-c.ipynb"))
    # the unknown variant: scores clamped to ±4 after scaling, in two spellings, in two styles
    # no one else in the class writes
    for name, base, body in (
        ("clamp-a", "17-table-one-pass", "    return (scores / math.sqrt(d_k)).clamp(-4, 4)\n"),
        ("clamp-b", "20-tensor-sqrt-and-validation",
         "    out = torch.div(scores, d_k ** 0.5)\n    return torch.clip(out, min=-4.0, max=4.0)\n"),
    ):
        shutil.copytree(CORRECT / base, src / name)
        path = src / name / "scaling.py"
        code = path.read_text(encoding="utf-8")
        path.write_text("import math\nimport torch\n" + code + "\n\ndef scale_scores(scores, d_k):\n" + body,
                        encoding="utf-8")
    return {"ring": "ring-a ring-b ring-c", "cluster": "clamp-a clamp-b"}


class _Screen(HTMLParser):
    """The text inside #first-screen, and the tags found there."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.text: list[str] = []
        self.tags: list[str] = []
        self.ids: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        ident = dict(attrs).get("id")
        if ident == "first-screen":
            self.depth = 1
        elif self.depth:
            self.depth += tag not in ("br", "img", "meta")
            self.tags.append(tag)
            if ident:
                self.ids.append(ident)

    def handle_endtag(self, tag: str) -> None:
        if self.depth and tag not in ("br", "img", "meta"):
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.text.append(data)


@pytest.mark.browser
@pytest.mark.skipif(chromium() is None, reason="needs a headless chromium")
def test_batch_with_similarity_puts_the_ring_and_the_cluster_on_the_first_screen(tmp_path: Path) -> None:
    planted = _class(tmp_path / "src")
    out = tmp_path / "out"
    proc = _grader("batch", str(tmp_path / "src"), "--out", str(out), "--rubric", str(RUBRIC),
                   "--no-progress", "--no-table", "--similarity")
    assert proc.returncode in (0, 1), proc.stderr[-3000:]

    rows = list(csv.DictReader(io.StringIO((out / "similarity.csv").read_text(encoding="utf-8"))))
    flagged = {frozenset((r["submission_a"], r["submission_b"])) for r in rows}
    ring = planted["ring"].split()
    assert flagged == {frozenset(p) for p in [(ring[0], ring[1]), (ring[0], ring[2]), (ring[1], ring[2])]}
    assert {r["group"] for r in rows} == {"1"}
    book = {r["submission"] for r in csv.DictReader(io.StringIO((out / "gradebook.csv").read_text(encoding="utf-8")))}
    assert {n for p in flagged for n in p} <= book  # named as the gradebook names them
    clusters = list(csv.DictReader(io.StringIO((out / "unrecognised-clusters.csv").read_text(encoding="utf-8"))))
    assert {r["submission"]: r["cluster"] for r in clusters} == {"clamp-a": "1", "clamp-b": "1"}

    browser = chromium()
    assert browser is not None
    for lang, ring_word, cluster_word in (("ja", "グループ 1（3 件", "2 件の提出物"),
                                          ("en", "Group 1 (3 submissions", "2 submissions")):
        page = out / f"summary.{lang}.html"
        dom = headless(browser, tmp_path / f"profile-{lang}", "--dump-dom", page.as_uri()).stdout
        screen = _Screen()
        screen.feed(dom)
        text = " ".join(screen.text)
        assert "rings" in screen.ids and "clusters" in screen.ids, lang
        assert ring_word in text and all(name in text for name in ring), (lang, text[:2000])
        assert cluster_word in text and "scale_scores" in text and "clamp-a" in text, (lang, text[:2000])
        if lang == "ja":
            assert _english_sentences(dom) == []
        shot = tmp_path / f"summary-{lang}.png"
        headless(browser, tmp_path / f"profile-shot-{lang}", f"--screenshot={shot}", "--window-size=1200,900",
                  page.as_uri())
        assert shot.exists()

        similar = out / f"similarity.{lang}.html"
        dom = headless(browser, tmp_path / f"profile-sim-{lang}", "--dump-dom", similar.as_uri()).stdout
        assert "<script>alert" not in dom  # markup from the student's code is text
        assert "&lt;script&gt;alert('x')&lt;/script&gt;\\x1b[2J\\u202e" in dom
        assert dom.count("<mark>") >= 5
        assert "\x1b" not in dom and "\u202e" not in dom
        if lang == "ja":
            assert _english_sentences(dom) == []


def _course(tmp: Path) -> Path:
    """A copy of the chapter-7 course whose plug-in the test may change."""
    return course_copy(tmp / "course", chapters=("chapter07",))


def test_a_drafted_entry_once_worded_validates_and_names_the_cluster_next_time(tmp_path: Path) -> None:
    course = _course(tmp_path)
    rubric = course / "rubrics" / "chapter07.yaml"
    src = tmp_path / "src"
    src.mkdir()
    for style in ("01-minimal-checks", "07-functional-softmax", "11-einsum"):
        shutil.copytree(CORRECT / style, src / style)
    # an unknown variant: the temperature applied twice, in two spellings
    for name, base, body in (("double-a", "01-minimal-checks", "softmax(x / temperature ** 2, dim)"),
                             ("double-b", "07-functional-softmax",
                              "torch.softmax(x / temperature / temperature, dim=dim)")):
        shutil.copytree(CORRECT / base, src / name)
        path = src / name / "softmax.py"
        code = path.read_text(encoding="utf-8")
        path.write_text("import torch\n" + code + "\n\ndef softmax_with_temperature(x, temperature, dim=-1):\n"
                        "    if temperature <= 0:\n        raise ValueError('temperature must be positive')\n"
                        f"    return {body}\n", encoding="utf-8")
    out = tmp_path / "out"
    proc = _grader("batch", str(src), "--out", str(out), "--rubric", str(rubric), "--no-progress",
                   "--no-table")
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    rows = list(csv.DictReader(io.StringIO((out / "unrecognised-clusters.csv").read_text(encoding="utf-8"))))
    assert [(r["cluster"], r["submission"]) for r in rows] == [("1", "double-a"), ("1", "double-b")]

    proc = _grader("catalogue", "draft", str(out), "--cluster", "1", "--id", "temperature-twice",
                   "--rubric", str(rubric))
    assert proc.returncode == 0, proc.stderr
    catalogue = course / "suites" / "chapter07" / "plugin" / "mistakes.yaml"
    entry = yaml.safe_load(catalogue.read_text(encoding="utf-8"))["mistakes"]["temperature-twice"]
    assert entry["draft"] is True and entry["signature"]["function"] == "softmax_with_temperature"
    mutant = course / "suites" / "chapter07" / "mutants" / "temperature-twice" / "from-cluster-1.py"
    assert "def softmax_with_temperature" in mutant.read_text(encoding="utf-8")

    # The instructor words the entry (ja and en) and deletes the draft mark.
    text = catalogue.read_text(encoding="utf-8")
    head, _, tail = text.partition("  temperature-twice:\n")
    data = yaml.safe_load("x:\n" + "  temperature-twice:\n" + tail)["x"]["temperature-twice"]
    del data["draft"]
    data["title"] = {"en": "The temperature divides the scores twice",
                     "ja": "温度で 2 回割っている"}
    data["message"] = {"default": {
        "en": "{call} divides the scores by T² instead of T: divide by the temperature once.",
        "ja": "{call} はスコアを T ではなく T² で割っています。温度で割るのは 1 回です。"}}
    worded = yaml.safe_dump({"temperature-twice": data}, allow_unicode=True, sort_keys=False,
                            default_flow_style=None, width=100)
    catalogue.write_text(head + "\n".join("  " + ln for ln in worded.splitlines()) + "\n", encoding="utf-8")

    proc = _grader("validate", "--rubric", str(rubric))
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "temperature-twice" in proc.stdout

    again = tmp_path / "again"
    proc = _grader("batch", str(src), "--out", str(again), "--rubric", str(rubric), "--no-progress",
                   "--no-table")
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    for name in ("double-a", "double-b"):
        report = yaml.safe_load((again / "reports" / f"{name}.yaml").read_text(encoding="utf-8"))
        ids = [m["id"] for m in report["mistakes"]]
        assert "temperature-twice" in ids and "unrecognised" not in ids, ids
        assert "T²" in next(m for m in report["mistakes"] if m["id"] == "temperature-twice")["message"]["en"]
    assert (again / "unrecognised-clusters.csv").read_text(encoding="utf-8").strip() == "cluster,submission,signature"


#: a hidden test an instructor might add: bit for bit what the chapter writes, which a correct
#: style that multiplies by 1/√d_k (rsqrt, ** -0.5) misses in the last bit
STRICT_TEST = '''

def test_scale_scores_bit_for_bit(student):
    """scale_scores equals scores / math.sqrt(d_k) bit for bit
    ja: scale_scores が scores / math.sqrt(d_k) とビット単位で等しい
    """
    x = torch.linspace(-7.0, 7.0, 101)
    assert np.array_equal(student.scaling.scale_scores(x, 48), (x / math.sqrt(48)).numpy())
'''
STRICT_ID = "hidden/test_scaling.py::test_scale_scores_bit_for_bit"


def _item_flags(page: str) -> dict[str, str]:
    """test id -> the flags cell of the summary page's item table (``<table id="items">``)."""
    class Items(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.inside, self.rows, self.cell = False, [], None

        def handle_starttag(self, tag: str, attrs: list) -> None:
            if tag == "table":
                self.inside = ("id", "items") in attrs
            elif self.inside and tag == "tr":
                self.rows.append([])
            elif self.inside and tag == "td":
                self.cell = ""

        def handle_endtag(self, tag: str) -> None:
            if tag == "table":
                self.inside = False
            elif tag == "td" and self.cell is not None:
                self.rows[-1].append(self.cell.strip())
                self.cell = None

        def handle_data(self, data: str) -> None:
            if self.cell is not None:
                self.cell += data

    parser = Items()
    parser.feed(page)
    return {row[0]: row[-1] for row in parser.rows if len(row) >= 4}  # (the flags: the last cell)


def test_a_hidden_test_a_correct_style_fails_is_flagged_until_it_is_fixed(tmp_path: Path) -> None:
    """The instructor adds a too-strict hidden test: the next batch's item analysis names the
    correct styles of the validate corpus it fails; --resume reuses that finding; the fixed
    test is flagged no more."""
    course = _course(tmp_path)
    rubric = course / "rubrics" / "chapter07.yaml"
    hidden = course / "suites" / "chapter07" / "hidden" / "test_scaling.py"
    hidden.write_text(hidden.read_text(encoding="utf-8") + STRICT_TEST, encoding="utf-8")
    src = tmp_path / "src"
    src.mkdir()
    for style in ("01-minimal-checks", "07-functional-softmax", "11-einsum", "12-permute-reshape",
                  "17-table-one-pass"):
        shutil.copytree(CORRECT / style, src / style)
    out = tmp_path / "out"
    args = ("batch", str(src), "--out", str(out), "--rubric", str(rubric), "--no-progress", "--no-table",
            "--lang", "en")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = _grader(*args, env=env)
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    styles = len(load_corpus(CORRECT))
    assert f"item analysis: {styles} correct styles of the validate corpus are graded beside the class" in proc.stderr
    # the class itself passes it: only the corpus shows the test is too strict
    book = list(csv.DictReader(io.StringIO((out / "gradebook.csv").read_text(encoding="utf-8"))))
    assert [r["submission"] for r in book] == ["01-minimal-checks", "07-functional-softmax", "11-einsum",
                                               "12-permute-reshape", "17-table-one-pass"]
    en = _item_flags((out / "summary.en.html").read_text(encoding="utf-8"))
    ja = _item_flags((out / "summary.ja.html").read_text(encoding="utf-8"))
    assert "a correct style fails it (" in en[STRICT_ID], en[STRICT_ID]
    assert "正しい別解が不合格 (" in ja[STRICT_ID], ja[STRICT_ID]
    for style in ("13-rsqrt", "14-power-minus-half"):
        assert style in en[STRICT_ID] and style in ja[STRICT_ID]
    assert "01-minimal-checks" not in en[STRICT_ID]
    flagged = {test for test, words in en.items() if "a correct style fails it" in words}
    assert flagged == {STRICT_ID}, flagged  # the course's own tests fail no correct style
    assert STRICT_ID in (out / "summary.en.md").read_text(encoding="utf-8")
    record = out / ".cache" / "corpus.json"
    first = record.read_bytes()

    # --resume grades nothing again: the finding is read back, not regraded
    proc = _grader(*args, "--resume", env=env)
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    assert "validate corpus" not in proc.stderr
    assert record.read_bytes() == first
    assert "a correct style fails it (" in _item_flags((out / "summary.en.html").read_text(encoding="utf-8"))[STRICT_ID]
    # another section of the course, graded in Japanese: the user's cache answers for the corpus
    section = tmp_path / "section-b"
    proc = _grader("batch", str(src), "--out", str(section), "--rubric", str(rubric), "--no-progress",
                   "--no-table", env=env)  # the course's first language: ja
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    assert "validate" not in proc.stderr
    assert (section / ".cache" / "corpus.json").read_bytes() == first
    assert "正しい別解が不合格 (" in _item_flags((section / "summary.ja.html").read_text(encoding="utf-8"))[STRICT_ID]

    # the instructor fixes the test (a tolerance): the corpus is graded again and nothing is flagged
    hidden.write_text(hidden.read_text(encoding="utf-8").replace(
        "assert np.array_equal(student.scaling.scale_scores(x, 48), (x / math.sqrt(48)).numpy())",
        "assert np.allclose(student.scaling.scale_scores(x, 48), (x / math.sqrt(48)).numpy())"), encoding="utf-8")
    proc = _grader(*args[:-2], env=env)
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    assert f"テストの分析のため、validate の正しい別解 {len(load_corpus(CORRECT))} 件をクラスと一緒に採点します" in proc.stderr
    assert record.read_bytes() != first
    en = _item_flags((out / "summary.en.html").read_text(encoding="utf-8"))
    assert not any("a correct style fails it" in words for words in en.values()), en
