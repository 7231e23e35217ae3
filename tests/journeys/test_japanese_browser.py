"""Japanese first-class: a Japanese course's report and class summary, rendered in the real browser.

A course whose rubric says ``language: ja`` grades real submissions with the real commands
(`grader grade --format html`, `grader batch`); chromium renders the pages; the text a reader
sees must hold no English sentence outside code and ids. The screenshots are kept in
``build/screenshots/`` (report.ja.png, summary.ja.png, gradebook.ja.png) to show the Japanese
plot titles and a hand adjustment on the gradebook page.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

from tests.helpers import EXAMPLES, ROOT, chromium, course_copy, headless


SHOTS = ROOT / "build" / "screenshots"

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(chromium() is None, reason="needs a headless chromium")]

#: three or more English words in a row (ids such as no-scaling-effect or d_k are not words)
_SENTENCE = re.compile(r"(?<![\w\-./(])[A-Za-z]+(?:[,.;:!?]?\s+[A-Za-z]+){2,}(?![\w\-(])")


class _Visible(HTMLParser):
    """The text a reader sees, without <code>, <head>, scripts and styles."""

    SKIP = {"code", "head", "script", "style", "title"}

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in self.SKIP:
            self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP and self.depth:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if not self.depth:
            self.parts.append(data)


def _english_sentences(dom: str) -> list[str]:
    reader = _Visible()
    reader.feed(dom)
    text = " ".join(reader.parts)
    found = [m.group(0) for m in _SENTENCE.finditer(text)]
    return [x for x in found if sum(c.isalpha() for c in x) >= 8]


def _japanese_course(tmp: Path) -> Path:
    course = course_copy(tmp / "course")
    rubric = course / "rubrics" / "chapter07.yaml"
    text = rubric.read_text(encoding="utf-8")
    assert "  language: both\n" in text
    rubric.write_text(text.replace("  language: both\n", "  language: ja\n"), encoding="utf-8")
    return course


def _tricky_student(folder: Path) -> Path:
    """Divides by sqrt(768), also edited the notebook, and has a tab in answers.yaml: a mistake,
    notes and a problem, all in one report."""
    shutil.copytree(EXAMPLES / "sqrt-d-model", folder)
    nb = nbformat.read(str(ROOT / "exercises" / "chapter07" / "chapter07.ipynb"), as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("x = 1"))
    nbformat.write(nb, str(folder / "chapter07.ipynb"))
    answers = (folder / "answers.yaml").read_text(encoding="utf-8")
    (folder / "answers.yaml").write_text(answers.replace("  answer: b", "\tanswer: b", 1), encoding="utf-8")
    return folder


def _render(browser: str, page: Path, shot: Path, tmp: Path) -> str:
    shot.parent.mkdir(parents=True, exist_ok=True)
    run = headless(browser, tmp / f"profile-{shot.stem}", f"--screenshot={shot}", "--window-size=1200,3200",
                    page.as_uri())
    assert shot.exists(), run.stderr[-2000:]
    dom = headless(browser, tmp / f"profile-dom-{shot.stem}", "--dump-dom", page.as_uri())
    assert "</html>" in dom.stdout, dom.stderr[-2000:]
    return dom.stdout


def test_the_japanese_report_and_summary_hold_no_english_sentence(tmp_path: Path) -> None:
    browser = chromium()
    assert browser is not None
    course = _japanese_course(tmp_path)
    rubric = course / "rubrics" / "chapter07.yaml"
    student = _tricky_student(tmp_path / "submissions" / "hana")
    page = tmp_path / "report.ja.html"
    graded = subprocess.run([sys.executable, "-m", "grader", "grade", str(student), "--rubric", str(rubric),
                             "--format", "html", "--out", str(page)],
                            capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert graded.returncode in (0, 1), graded.stderr[-3000:]
    assert "レポートを" in graded.stderr  # the command's own line, in Japanese

    # the class: the same student, a correct one, a notebook-only one, and a stray file
    shutil.copytree(EXAMPLES / "correct", tmp_path / "submissions" / "ken")
    shutil.copyfile(EXAMPLES / "notebook-student.ipynb", tmp_path / "submissions" / "mio.ipynb")
    (tmp_path / "submissions" / "readme.txt").write_text("not a submission\n", encoding="utf-8")
    out = tmp_path / "out"
    batch = subprocess.run([sys.executable, "-m", "grader", "batch", str(tmp_path / "submissions"),
                            "--out", str(out), "--rubric", str(rubric), "-j", "1", "--no-progress"],
                           capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert batch.returncode in (0, 1), batch.stderr[-3000:]

    # a hand adjustment, as the instructor types it: the gradebook page shows it beside the automatic score
    adjusted = subprocess.run([sys.executable, "-m", "grader", "adjust", str(out), "ken", "--points", "-2",
                               "--reason", "参考文献の記載漏れ", "--by", "TA 佐藤", "--rubric", str(rubric)],
                              capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert adjusted.returncode == 0, adjusted.stderr[-3000:]

    report_dom = _render(browser, page, SHOTS / "report.ja.png", tmp_path)
    summary_dom = _render(browser, out / "summary.ja.html", SHOTS / "summary.ja.png", tmp_path)
    gradebook_dom = _render(browser, out / "gradebook.ja.html", SHOTS / "gradebook.ja.png", tmp_path)
    assert not (out / "gradebook.en.html").exists()  # a Japanese course: one page, in Japanese

    # what the report must say, in Japanese: the mistake with its number, the notes, the problem
    assert "27.71" in report_dom and "sqrt-d-model" in report_dom
    assert "両方が配布時から書き換えられています" in report_dom  # both forms changed: .py graded
    assert "answers.yaml を読み込めない" in report_dom and "タブ" in report_dom
    assert "あなたの関数のグラフ" in report_dom and report_dom.count("data:image/png;base64,") == 2
    assert "フォルダ・ノートブック・zip のいずれでもありません" in summary_dom  # the keyed reason, in Japanese
    assert summary_dom.count("data:image/png;base64,") == 3
    assert _english_sentences(report_dom) == []
    assert _english_sentences(summary_dom) == []
    # the gradebook page: ken's row marked and linked to his report; 124 automatic, no late
    # penalty, -2 by hand, 122 final (left to right as they add up), with who and why
    row = re.search(r'<tr class="adjusted"><td><a href="reports/ken\.[a-z]+">ken</a></td>(.*?)</tr>', gradebook_dom)
    assert row, gradebook_dom
    ken = row.group(1)
    assert '<td class="num">124</td><td class="num"></td><td class="num">-2</td><td class="num">122</td>' in ken
    assert "参考文献の記載漏れ" in ken and "TA 佐藤" in ken and "-2 点（合計）" in ken
    assert "手作業で調整した行 1" in gradebook_dom and "成績表" in gradebook_dom
    assert _english_sentences(gradebook_dom) == []


def test_the_sentence_check_finds_english() -> None:
    """The check above can fail: English left in a Japanese page is found, ids and code are not."""
    page = ("<html><head><title>A title in English</title></head><body><p>得点 10 / 20</p>"
            "<p>skipped x.py: it is a symbolic link</p>"
            "<p><code>raise NotImplementedError in the stub</code> no-scaling-effect d_k sqrt-d-model</p>"
            "</body></html>")
    assert _english_sentences(page) == ["it is a symbolic link"]


# --------------------------------------------------------------------------- no system fonts

#: Run inside a mount namespace where no system font exists: draws the Japanese class summary
#: of the golden reports and prints what matplotlib said about fonts.
_NO_FONTS_SCRIPT = r"""
import json, logging, sys, warnings
from pathlib import Path
from typing import Any

said = []
class _Log(logging.Handler):
    def emit(self, record):
        said.append(record.getMessage())
logging.getLogger("matplotlib").addHandler(_Log())
logging.getLogger("matplotlib").setLevel(logging.WARNING)
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    from matplotlib import font_manager
    import grader.kit.figures as text
    from grader.report.model import GradeReport
    from grader.spec.rubric.load import load_rubric
    from grader.outputs.summary import write_summary
    import yaml
    if sys.argv[3] == "without-package":
        text.packaged_ja_font = lambda: None
    reports = [GradeReport.from_dict(yaml.safe_load(p.read_text(encoding="utf-8")))
               for p in sorted(Path(sys.argv[1]).glob("*.yaml"))]
    write_summary(reports, sys.argv[2], load_rubric(sys.argv[4]))
    style = text.plot_style("ja")
print(json.dumps({"said": said + [str(w.message) for w in caught], "style": style,
                  "system": sorted({f.fname for f in font_manager.fontManager.ttflist
                                    if "site-packages" not in f.fname and "dist-packages" not in f.fname})}))
"""


def _hide_fonts(tmp: Path, mode: str) -> list[str]:
    """bubblewrap's arguments for a view of the system with no font: every font folder empty,
    a fontconfig that knows no folder."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        pytest.skip("needs bubblewrap to hide the system fonts")
    conf = tmp / f"fonts-{mode}.conf"
    conf.write_text("<?xml version='1.0'?>\n<fontconfig></fontconfig>\n", encoding="utf-8")
    hidden = [a for d in ("/usr/share/fonts", "/usr/local/share/fonts", "/etc/fonts", str(Path.home() / ".fonts"),
                          str(Path.home() / ".local" / "share" / "fonts"))
              if Path(d).exists() for a in ("--tmpfs", d)]
    return [bwrap, "--dev-bind", "/", "/", *hidden, "--setenv", "FONTCONFIG_FILE", str(conf)]


class _Text(HTMLParser):
    """The text a page shows: outside <style>, <script> and <title>, with attribute values left out."""

    def __init__(self) -> None:
        super().__init__()
        self.skip, self.parts = 0, []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.skip += tag in ("style", "script", "title")

    def handle_endtag(self, tag: str) -> None:
        self.skip -= tag in ("style", "script", "title")

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.parts.append(data)


def _page_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return "".join(parser.parts)


def _carried_font(html: str) -> set[int] | None:
    """The code points of the font a page carries in its ``@font-face`` rule, or None."""
    import base64
    import io

    from fontTools.ttLib import TTFont

    found = re.search(r"@font-face \{[^}]*url\(data:font/woff;base64,([A-Za-z0-9+/=]+)\)", html)
    if found is None:
        return None
    font = TTFont(io.BytesIO(base64.b64decode(found.group(1))))
    return set(font.getBestCmap())


def _settled_shot(browser: str, page: Path, tmp: Path, name: str, fonts: Path | None) -> tuple[str, bytes]:
    """``(font faces and their status, PNG)`` of ``page`` in chromium once its fonts are settled:
    with ``fonts``, chromium's fontconfig knows only that folder; without, the system's fonts."""
    from tests.chromium_pipe import screenshot

    prefix = [browser]
    if fonts is not None:
        conf = tmp / f"fonts-{name}.conf"
        conf.write_text(f"<?xml version='1.0'?>\n<fontconfig><dir>{fonts}</dir>"
                        f"<cachedir>{tmp / f'fc-cache-{name}'}</cachedir>"  # the system's aliases, not its fonts
                        "<include ignore_missing='yes'>/etc/fonts/conf.d</include></fontconfig>\n",
                        encoding="utf-8")
        prefix = ["env", f"FONTCONFIG_FILE={conf}", browser]
    return screenshot(prefix, page.as_uri(), width=1200, height=3200, profile=tmp / f"profile-{name}")


def _without_system_fonts(tmp: Path, out: Path, mode: str) -> dict:
    """The script above in a fresh mount namespace: every system font folder empty, a fontconfig
    that knows no folder, a new HOME and matplotlib config (no font cache)."""
    import json

    home = tmp / f"home-{mode}"
    home.mkdir()
    run = subprocess.run(
        [*_hide_fonts(tmp, mode), "--setenv", "HOME", str(home),
         "--setenv", "MPLCONFIGDIR", str(tmp / f"mpl-{mode}"), "--setenv", "XDG_DATA_HOME", str(home / "share"),
         sys.executable, "-c", _NO_FONTS_SCRIPT, str(ROOT / "tests" / "golden"), str(out), mode,
         str(ROOT / "rubrics" / "chapter07.yaml")],
        capture_output=True, text=True, timeout=600, cwd=tmp)
    if run.returncode != 0 and "No permissions to create new namespace" in run.stderr:
        pytest.skip("bubblewrap cannot make a mount namespace here")
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.mark.sandbox
def test_the_japanese_summary_draws_with_the_packaged_font_where_no_system_font_exists(tmp_path: Path) -> None:
    """No font on the system and no font cache (Colab, macOS, Windows, a fresh Linux, as far
    as matplotlib can tell): the ja plot titles come out in the font the package ships, with
    no font warning, and chromium shows the page with its three plots. Without the package the
    same run warns of missing glyphs (so the environment really has no Japanese font)."""
    import numpy as np
    from matplotlib import image
    from matplotlib.ft2font import FT2Font

    with_font = tmp_path / "with"
    got = _without_system_fonts(tmp_path, with_font, "with-package")
    assert got["system"] == []  # matplotlib saw only the fonts inside Python packages
    assert got["style"]["font.sans-serif"][0] == "IPAexGothic"
    assert got["said"] == []  # no "Glyph … missing", no "findfont: … not found"
    control = _without_system_fonts(tmp_path, tmp_path / "without", "without-package")
    assert any("missing from font" in x for x in control["said"]), control["said"]

    # Every character of the Japanese plot words is in the packaged font.
    from grader.kit.figures import packaged_ja_font
    from grader.report.text import PLOT_WORDS

    assert packaged_ja_font() == "IPAexGothic"
    from matplotlib import font_manager

    font = FT2Font(font_manager.findfont("IPAexGothic", fallback_to_default=False))
    cmap = font.get_charmap()
    words = "".join(PLOT_WORDS["ja"].values())
    assert [c for c in words if not c.isascii() and ord(c) not in cmap] == []
    # The drawn titles differ from the boxes drawn without the package.
    drawn = image.imread(str(with_font / "summary" / "score_histogram.ja.png"))
    boxes = image.imread(str(tmp_path / "without" / "summary" / "score_histogram.ja.png"))
    assert drawn.shape != boxes.shape or float(np.abs(drawn - boxes).max()) > 0.1

    browser = chromium()
    assert browser is not None
    page = with_font / "summary.ja.html"
    dom = _render(browser, page, SHOTS / "summary.ja.png", tmp_path)
    assert "得点" in dom and dom.count("data:image/png;base64,") == 3
    assert _english_sentences(dom) == []

    # The page's own text on a machine whose only fonts are Latin (as on a fresh Linux): every
    # character the page shows is in the font the page carries, chromium loads that font, and not
    # one glyph comes from the system: the page is drawn pixel for pixel as with the system's
    # Japanese fonts present. Without the font it carries, its kana and kanji are empty boxes.
    html = page.read_text(encoding="utf-8")
    shown = {c for c in _page_text(html) if not c.isspace()}
    assert any(not c.isascii() for c in shown)
    carried = _carried_font(html)
    assert carried is not None, "the Japanese page carries no font"
    assert sorted(c for c in shown if ord(c) not in carried) == []
    latin = next((d for d in (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/truetype/liberation"))
                  if d.is_dir()), None)
    assert latin is not None, "no Latin-only font folder to stand for a machine without Japanese fonts"
    faces, drawn = _settled_shot(browser, page, tmp_path, "latin", latin)
    assert faces == "grader-ja:loaded", faces
    (SHOTS / "summary.ja.latin-fonts-only.png").write_bytes(drawn)
    _, everything = _settled_shot(browser, page, tmp_path, "system", None)
    assert drawn == everything
    bare = tmp_path / "summary.ja.bare.html"  # the same page without the font it carries
    bare.write_text(re.sub(r"<style>@font-face[^<]*</style>", "", html), encoding="utf-8")
    faces, boxes = _settled_shot(browser, bare, tmp_path, "bare", latin)
    assert faces == "" and boxes != drawn
