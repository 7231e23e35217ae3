"""The class pages as an instructor of a seminar of fourteen reads them.

The session's graded class (eight: the README's examples and two of the tests' own) is copied and
six students join: four of the course's mutants (each over the reference, one of them under a
long Japanese name) and two who clamp the scaled scores, spelled two ways, one of whom also
squares the temperature. ``grader batch --resume`` grades the six, and then:

- the unknown-mistake clusters: the two clampers in one cluster, the second also in one of its own;
- the item analysis: parametrised cases as one test, the untouched stubs left out and named;
- the similarity: every pair of the first eight keeps its flag now that six joined;
  ``grader similarity --top / --threshold / --pair`` list pairs below the flag with their scores;
- the pages link each other (summary -> gradebook page -> each report, and back) and a long
  Japanese name and the Japanese headers wrap inside their cells in a real browser.
"""

from __future__ import annotations

import csv
import io
import re
import shutil
from pathlib import Path

import pytest

from tests.helpers import ROOT, chromium, run_grader


REFERENCE = ROOT / "solutions" / "chapter07"
MUTANTS = ROOT / "suites" / "chapter07" / "mutants"
#: a student whose name is long and Japanese, with no space to break at
LONG_NAME = "山田花子右衛門之助長谷川ーっ（セミナー）提出物の最終版です本当に"
#: the six who join: report name -> (mutant file, or None for a clamp) and what replaces what
JOINING = {
    LONG_NAME: MUTANTS / "no-scaling" / "attention-scores-unscaled.py",
    "softmax-wrong-dim": MUTANTS / "softmax-wrong-dim" / "always-last-axis.py",
    "variance-returns-std": MUTANTS / "variance-returns-std" / "std-not-var.py",
    "temperature-multiplied": MUTANTS / "temperature-multiplied" / "times-temperature.py",
}
CLAMP = {
    "clamp-a": "    return (scores / math.sqrt(d_k)).clamp(-4, 4)\n",
    "clamp-b": "    out = torch.div(scores, d_k ** 0.5)\n    return torch.clip(out, min=-4.0, max=4.0)\n",
}
SQUARED = ("\n\ndef softmax_with_temperature(x, temperature, dim=-1):\n"
           "    if not temperature > 0:\n        raise ValueError('temperature must be positive')\n"
           "    return torch.softmax(x / temperature ** 2, dim=dim)\n")


def _over_reference(folder: Path, file: str, appended: str) -> None:
    shutil.copytree(REFERENCE, folder, ignore=shutil.ignore_patterns("__pycache__"))
    path = folder / file
    path.write_text(path.read_text(encoding="utf-8") + "\n\nimport math\nimport torch\n\n\n" + appended,
                    encoding="utf-8")


def _join(src: Path) -> None:
    for name, mutant in JOINING.items():
        header = mutant.read_text(encoding="utf-8")
        file = re.search(r"^# file: (\S+)", header, re.M)
        assert file is not None
        _over_reference(src / name, file.group(1), header)
    for name, body in CLAMP.items():
        _over_reference(src / name, "scaling.py", "def scale_scores(scores, d_k):\n" + body)
    path = src / "clamp-b" / "softmax.py"
    path.write_text(path.read_text(encoding="utf-8") + SQUARED, encoding="utf-8")


def _csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"))))


def _links(path: Path) -> dict[str, str]:
    """text -> href of every link on a page."""
    import html

    found = re.findall(r'<a href="([^"]*)">([^<]*)</a>', path.read_text(encoding="utf-8"))
    return {html.unescape(text): html.unescape(href) for href, text in found}


@pytest.fixture(scope="module")
def fourteen(graded_class, tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("fourteen")
    src = graded_class.copy_source(base / "src")
    out = graded_class.copy(base / "out")
    _join(src)
    done = run_grader("batch", src, "--out", out, *graded_class.args, "--resume", timeout=1800)
    assert done.returncode in (0, 1), done.stderr[-3000:]
    assert "6 graded, 8 kept from before" in done.stderr, done.stderr[-2000:]
    return out


def test_fourteen_in_the_gradebook(fourteen: Path) -> None:
    rows = _csv(fourteen / "gradebook.csv")
    assert len(rows) == 14 and all(r["score"] for r in rows)


def test_the_clampers_share_a_cluster_and_the_one_with_two_unknown_mistakes_is_in_two(fourteen: Path) -> None:
    rows = _csv(fourteen / "unrecognised-clusters.csv")
    clusters: dict[str, set[str]] = {}
    for r in rows:
        clusters.setdefault(r["cluster"], set()).add(r["submission"])
    shared = [n for n, members in clusters.items() if members >= {"clamp-a", "clamp-b"}]
    assert len(shared) == 1
    assert "scale_scores" in next(r["signature"] for r in rows if r["cluster"] == shared[0])
    of_b = [r for r in rows if r["submission"] == "clamp-b"]
    assert len(of_b) == 2 and any("softmax_with_temperature" in r["signature"] for r in of_b)
    assert clusters[next(r["cluster"] for r in of_b if r["cluster"] != shared[0])] == {"clamp-b"}
    # the summary's first screen says so, in both languages
    for lang, size in (("en", "2 submissions: scale_scores"), ("ja", "2 件の提出物: scale_scores")):
        assert size in (fourteen / f"summary.{lang}.html").read_text(encoding="utf-8")


def test_item_analysis_groups_cases_and_leaves_the_untouched_stubs_out(fourteen: Path) -> None:
    from grader.insight.item_analysis import MIN_SUBMISSIONS

    md = (fourteen / "summary.en.md").read_text(encoding="utf-8")
    items = md.split("## Tests: pass rate and discrimination", 1)[1].split("\n## ", 1)[0]
    assert "Over 13 submissions; 1 left out as blank or untouched stubs (untouched-stub)." in items
    assert f"fewer than {MIN_SUBMISSIONS} counted submissions" in items
    rows = [line for line in items.splitlines() if line.startswith("| `")]
    tests = [line.split("`")[1] for line in rows]
    assert tests and not any("[" in t for t in tests), tests  # each parametrised test once
    assert len(tests) == len(set(tests))
    head_dim = next(line for line in rows if "`public/test_scaling.py::test_head_dim`" in line)
    assert head_dim.split("|")[2].strip() == "3"  # its three cases
    ja = (fourteen / "summary.ja.md").read_text(encoding="utf-8")
    assert "対象は 13 件の提出物です。空の提出物と雛形のままの提出物 1 件は除いています（untouched-stub）" in ja


def test_no_flag_among_the_first_eight_changes_now_that_six_joined(graded_class, fourteen: Path) -> None:
    """The six share lines with the eight (all are written over the same reference), which moves
    the weight of those lines a little; no flag among the eight appears or disappears."""
    def flagged(out: Path) -> set[frozenset[str]]:
        return {frozenset((r["submission_a"], r["submission_b"])) for r in _csv(out / "similarity.csv")}

    eight = set(graded_class.names)
    before = flagged(graded_class.out)
    assert before and {p for p in flagged(fourteen) if p <= eight} == before


def test_similarity_lists_near_misses_and_a_named_pair(fourteen: Path, tmp_path: Path) -> None:
    from grader.insight.similarity import CODE_FLAG

    out = shutil.copytree(fourteen, tmp_path / "out", symlinks=True)
    flagged = {frozenset((r["submission_a"], r["submission_b"])) for r in _csv(out / "similarity.csv")}
    done = run_grader("similarity", out, "--top", "3", "--pair", "clamp-b", "clamp-a", "--lang", "en")
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stderr.splitlines()
    assert lines[0].startswith(f"14 compared, {len(flagged)} pairs flagged in ")
    assert lines[1].startswith(f"A pair is flagged at code ≥ {CODE_FLAG}")
    at = lines.index("The 3 most similar pairs below the flag:")
    near = [re.match(r"  (.+) — (.+): code ([0-9.]+), behaviour ([0-9.]+) \(not flagged\)$", line)
            for line in lines[at + 1:at + 4]]
    assert all(near), lines
    assert all(frozenset(m.group(1, 2)) not in flagged and float(m.group(3)) < CODE_FLAG for m in near if m)
    codes = [float(m.group(3)) + 0.25 * float(m.group(4)) for m in near if m]
    assert codes == sorted(codes, reverse=True)
    assert lines[at + 4] == "The pairs named:"
    named = re.match(r"  clamp-a — clamp-b: code ([0-9.]+), behaviour ([0-9.]+) \((not flagged|flagged, group \d+)\)$",
                     lines[at + 5])
    assert named, lines
    assert (named.group(3) != "not flagged") == (frozenset(("clamp-a", "clamp-b")) in flagged)
    # a threshold, in Japanese, and a name the batch does not know
    ja = run_grader("similarity", out, "--threshold", "0.1", "--lang", "ja")
    assert ja.returncode == 0 and "印の付かない組のうち、コード ≥ 0.1 の組:" in ja.stderr, ja.stderr[-2000:]
    for line in ja.stderr.splitlines()[3:]:
        assert re.match(r"  .+ — .+: コード ([0-9.]+)、振る舞い [0-9.]+（印なし）$", line), line
        assert float(re.findall(r"コード ([0-9.]+)", line)[0]) >= 0.1
    unknown = run_grader("similarity", out, "--pair", "clamp-a", "nobody", "--lang", "en")
    assert unknown.returncode == 2 and "--pair nobody" in unknown.stderr


def test_the_pages_link_each_other_and_each_report(fourteen: Path) -> None:
    for lang, summary, gradebook, similar in (("en", "Class summary", "Gradebook", "Similar submissions"),
                                              ("ja", "クラス全体のまとめ", "成績表", "よく似た提出物")):
        on_summary = _links(fourteen / f"summary.{lang}.html")
        assert on_summary[gradebook] == f"gradebook.{lang}.html"
        assert on_summary[similar] == f"similarity.{lang}.html"
        on_book = _links(fourteen / f"gradebook.{lang}.html")
        assert on_book[summary] == f"summary.{lang}.html" and on_book[similar] == f"similarity.{lang}.html"
        for row in _csv(fourteen / "gradebook.csv"):
            href = on_book[row["submission"]]
            from urllib.parse import unquote

            assert (fourteen / unquote(href)).is_file(), href  # each row reaches its report
        on_similar = _links(fourteen / f"similarity.{lang}.html")
        assert on_similar[summary] == f"summary.{lang}.html" and on_similar[gradebook] == f"gradebook.{lang}.html"
        md = (fourteen / f"summary.{lang}.md").read_text(encoding="utf-8")
        assert f"[{gradebook}](gradebook.{lang}.html)" in md


#: every table cell's text that overflows its cell, the lines of the long name's cell, the cells'
#: line-break rule, and whether the page is wider than the window (headers that cannot wrap make
#: the gradebook 1007 px wide in a window of 700 or of 1000)
_OVERFLOW = """(() => {
  const cells = [...document.querySelectorAll('th, td')];
  const over = cells.filter(c => c.scrollWidth > c.clientWidth + 1).map(c => c.textContent.slice(0, 40));
  const name = cells.find(c => c.textContent.startsWith(%r));
  let lines = null;
  if (name) {
    const range = document.createRange();
    range.selectNodeContents(name);
    lines = new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
  }
  return {over, lines, lineBreak: getComputedStyle(document.querySelector('td, th, li')).lineBreak,
          wide: document.documentElement.scrollWidth > innerWidth};
})()"""


@pytest.mark.browser
@pytest.mark.skipif(chromium() is None, reason="needs a headless chromium")
@pytest.mark.parametrize("page", ["gradebook.ja.html", "summary.ja.html", "similarity.ja.html"])
def test_a_long_japanese_name_and_the_headers_wrap_inside_their_cells(fourteen: Path, tmp_path: Path, page: str) -> None:
    from tests.chromium_pipe import evaluate

    browser = chromium()
    assert browser is not None
    shown = evaluate([browser], (fourteen / page).as_uri(), _OVERFLOW % LONG_NAME[:6], width=700, height=900,
                     profile=tmp_path / "profile")
    assert shown["over"] == [] and not shown["wide"], shown
    assert shown["lineBreak"] == "strict"
    if page.startswith("gradebook"):
        assert shown["lines"] >= 2, shown  # the name wrapped instead of widening its column
