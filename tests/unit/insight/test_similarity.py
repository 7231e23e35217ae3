"""grader/insight/similarity.py: code evidence survives disguises, honest short answers do not match,
rare shared behaviour counts, pairs come in groups, and student text reaches the page as text."""

from __future__ import annotations

import csv
import html.parser
import io
import shutil
from pathlib import Path

import nbformat
import pytest

from grader.insight import similarity
from grader.outputs import similarity_page
from grader.report.model import CaseOutcome, GradeReport, Mistake, Status
from grader.ingest.submission.load import load_submission

from tests.helpers import ROOT


CORRECT = ROOT / "suites" / "chapter07" / "correct"
API = ["head_dim", "scaling_factor", "scale_scores", "attention_scores", "multihead_attention_scores",
       "softmax", "softmax_with_temperature", "compare_saturation", "softmax_jacobian", "attention",
       "dot_product_variance", "scaled_dot_product_variance", "variance_table"]

ORIGINAL = '''import math

import torch


def _check(d_model, n_heads):
    """Both sizes must be positive ints."""
    if type(d_model) is not int or type(n_heads) is not int or d_model <= 0 or n_heads <= 0:
        raise ValueError("sizes must be positive whole numbers, you see")
    if d_model % n_heads:
        raise ValueError("the model width must split evenly into the heads")


def head_dim(d_model, n_heads):
    _check(d_model, n_heads)
    width = d_model // n_heads
    return width


def scaling_factor(d_model, n_heads):
    per_head = head_dim(d_model, n_heads)
    return math.sqrt(per_head)


def scale_scores(scores, d_k):
    divisor = math.sqrt(d_k)
    return scores / divisor


def multihead_attention_scores(q, k, n_heads):
    batch, steps, width = q.shape
    per_head = head_dim(width, n_heads)
    qh = q.view(batch, steps, n_heads, per_head).transpose(1, 2)
    kh = k.view(batch, steps, n_heads, per_head).transpose(1, 2)
    return scale_scores(qh @ kh.transpose(-2, -1), per_head)
'''

#: the same code renamed, reordered, with other comments and blank lines
DISGUISED = '''import math
import torch
# my scaling helpers


def multihead_attention_scores(q, k, n_heads):
    # split the heads
    bb, tt, ww = q.shape
    hd = head_dim(ww, n_heads)
    q2 = q.view(bb, tt, n_heads, hd).transpose(1, 2)

    k2 = k.view(bb, tt, n_heads, hd).transpose(1, 2)
    return scale_scores(q2 @ k2.transpose(-2, -1), hd)


def scale_scores(scores, d_k):
    denom = math.sqrt(d_k)   # sqrt of d_k
    return scores / denom

def head_dim(d_model, n_heads):
    validate(d_model, n_heads)
    w = d_model // n_heads
    return w
def validate(a, b):
    if type(a) is not int or type(b) is not int or a <= 0 or b <= 0:
        raise ValueError("sizes must be positive whole numbers, you see")
    if a % b:
        raise ValueError("the model width must split evenly into the heads")


def scaling_factor(d_model, n_heads):
    ph = head_dim(d_model, n_heads)
    return math.sqrt(ph)
'''


def _folder(tmp: Path, name: str, scaling: str) -> Path:
    folder = tmp / name
    folder.mkdir()
    (folder / "scaling.py").write_text(scaling, encoding="utf-8")
    return folder


def _notebook(tmp: Path, name: str, code: str) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# notes")] + [
        nbformat.v4.new_code_cell(part) for part in code.split("\n\n\n") if part.strip()]
    path = tmp / f"{name}.ipynb"
    nbformat.write(nb, str(path))
    return path


def _coded(path: Path, name: str) -> similarity.Coded:
    return similarity.code_of(name, load_submission(path), API)


def _report(name: str, **changes) -> GradeReport:
    base = dict(assignment="chapter07", submission=name, score=10.0, max_score=10.0, tests=[], parts=[],
                mistakes=[], sandbox={}, errors=[], seed=1, graded_at="")
    base.update(changes)
    return GradeReport(**base)


#: Styles of the corpus written as one-function variants of another style (fairness cases):
#: copies in all but one place, which the similarity rightly finds.
DERIVED = {"23-float32-constant": "13-rsqrt", "24-mapping-rows": "17-table-one-pass",
           "25-float-d-k": "17-table-one-pass", "27-float32-sqrt": "25-float-d-k"}


def _independent(tmp: Path, *, derived: bool = False) -> list[similarity.Coded]:
    """The correct-style corpus: honest, differently written submissions."""
    out = []
    for style in sorted(p for p in CORRECT.iterdir() if p.is_dir()):
        if derived or style.name not in DERIVED:
            out.append(similarity.code_of(style.name, load_submission(style), API))
    return out


def test_renamed_reordered_recommented_copy_and_its_notebook_match_the_original(tmp_path: Path) -> None:
    """Renaming, reordering, comments, blank lines and .py -> notebook leave the code evidence whole."""
    original = _coded(_folder(tmp_path, "a", ORIGINAL), "a")
    copy = _coded(_folder(tmp_path, "b", DISGUISED), "b")
    notebook = _coded(_notebook(tmp_path, "c", DISGUISED), "c")
    assert original.prints.keys() == copy.prints.keys() == notebook.prints.keys()
    others = _independent(tmp_path)
    reports = {c.name: _report(c.name) for c in [original, copy, notebook, *others]}
    result = similarity.compare([original, copy, notebook, *others], reports, background=others)
    flagged = {frozenset((p.a, p.b)): p for p in result.pairs}
    assert {frozenset(("a", "b")), frozenset(("a", "c")), frozenset(("b", "c"))} <= flagged.keys()
    assert flagged[frozenset(("a", "b"))].code_score == 1.0
    assert len({p.group for p in result.pairs if {p.a, p.b} <= {"a", "b", "c"}}) == 1  # one ring
    assert all({p.a, p.b} <= {"a", "b", "c"} for p in result.pairs), "an honest style was flagged"


def test_the_correct_style_corpus_has_no_flagged_pair_but_its_derived_variants(tmp_path: Path) -> None:
    """Twenty independent correct submissions, many of them one-liners alike: no pair is flagged,
    except the styles written as one-function variants of another, each with its origin."""
    others = _independent(tmp_path, derived=True)
    result = similarity.compare(others, {c.name: _report(c.name) for c in others}, background=others)
    flagged = {frozenset((p.a, p.b)) for p in result.pairs}
    families = [{"13-rsqrt", "23-float32-constant"}, {"17-table-one-pass", "24-mapping-rows", "25-float-d-k", "27-float32-sqrt"}]
    assert all(any(pair <= family for family in families) for pair in flagged), flagged
    assert {frozenset((d, origin)) for d, origin in DERIVED.items()} <= flagged


def test_the_handed_out_stubs_are_base_code(tmp_path: Path, rubric) -> None:
    """Two students who left the same stubs untouched share only base code: not a pair."""
    stub = ROOT / "exercises" / "chapter07"
    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(stub, a)
    shutil.copytree(stub, b)
    base = similarity.base_code(rubric, API)
    coded = [_coded(a, "a"), _coded(b, "b"), *_independent(tmp_path)]
    assert coded[0].prints, "the stubs have code"
    result = similarity.compare(coded, {c.name: _report(c.name) for c in coded}, base, background=coded[2:])
    assert not [p for p in result.pairs if {p.a, p.b} == {"a", "b"}]
    # without the handout removed, the same two would be flagged
    unbased = similarity.compare(coded, {c.name: _report(c.name) for c in coded}, background=coded[2:])
    assert [p for p in unbased.pairs if {p.a, p.b} == {"a", "b"}]


def _wrong(name: str, actual: str, mistake: str = "unrecognised") -> GradeReport:
    """A wrong value from scale_scores, seen by two tests."""
    tests = [CaseOutcome(id=f"hidden/test_scaling.py::test_scale_scores_random[{n}]", part="scaling",
                         status=Status.FAILED, max_score=1.0, actual=actual) for n in (1, 16)]
    return _report(name, score=9.0, tests=tests,
                   mistakes=[Mistake(id=mistake, part="scaling", message={"en": "", "ja": ""},
                                     evidence={"functions": ["scale_scores"]})])


def test_shared_unexplained_wrong_output_raises_the_behaviour_score_and_a_known_mistake_does_not(tmp_path: Path) -> None:
    others = _independent(tmp_path)
    a = _coded(_folder(tmp_path, "a", ORIGINAL), "a")
    b = _coded(_folder(tmp_path, "b", ORIGINAL.replace("you see", "ok")), "b")
    reports = {c.name: _report(c.name) for c in others}
    reports["a"], reports["b"] = _wrong("a", "0.71717"), _wrong("b", "0.71717")
    rare = similarity.compare([a, b, *others], reports, background=others).score("a", "b")
    assert rare.behaviour_score > similarity.BEHAVIOUR_FLAG
    assert any("0.71717" in f for f in rare.shared_behaviour)
    # the same output from a mistake the catalogue names is what students make on their own: no evidence
    reports["a"], reports["b"] = _wrong("a", "0.71717", "divide-by-d-k"), _wrong("b", "0.71717", "divide-by-d-k")
    known = similarity.compare([a, b, *others], reports, background=others).score("a", "b")
    assert known.behaviour_score == 0.0 and not known.shared_behaviour


def _near_class(tmp: Path) -> tuple[list[similarity.Coded], list[similarity.Coded]]:
    """A copy ring (a, b), a partial copy (d) and the honest styles; the styles are also the
    course's background."""
    partial = ORIGINAL.split("def scale_scores")[0] + "def scale_scores(s, d):\n    return s / d ** 0.5\n"
    ring = [_coded(_folder(tmp, "a", ORIGINAL), "a"), _coded(_folder(tmp, "b", DISGUISED), "b"),
            _coded(_folder(tmp, "d", partial), "d")]
    return ring, _independent(tmp)


UNRELATED = """def variance_table(rows):
    out = {}
    for key in sorted(rows):
        out[key] = [cell ** 3 + 7 for cell in rows[key]]
    return out
"""


def test_a_student_who_shares_nothing_with_a_pair_changes_nothing_about_it(tmp_path: Path) -> None:
    """No weight depends on the size of the class: a newcomer who shares no code and no behaviour
    with a pair leaves its scores exactly as they were (the class-share weights of before moved
    every pair's scores whenever anyone joined)."""
    ring, others = _near_class(tmp_path)
    small = ring + others[:3]
    reports = {c.name: _report(c.name) for c in ring + others}
    reports["a"], reports["d"] = _wrong("a", "0.71717"), _wrong("d", "0.71717")
    newcomers = [_coded(_folder(tmp_path, f"new-{i}", UNRELATED.replace("7", str(7 + i))), f"new-{i}")
                 for i in range(5)]
    for c in newcomers:
        reports[c.name] = _wrong(c.name, "0.5")  # a wrong answer of their own
    before = similarity.compare(small, reports, background=others)
    after = similarity.compare(small + newcomers, reports, background=others)
    assert not any(c.prints.keys() & n.prints.keys() for c in small for n in newcomers)
    for i, x in enumerate(small):
        for y in small[i + 1:]:
            assert before.score(x.name, y.name) == after.score(x.name, y.name), (x.name, y.name)
    assert before.score("a", "b").group and before.score("a", "d").group


def test_no_flag_changes_when_twenty_honest_students_join(tmp_path: Path) -> None:
    """Honest newcomers share a few common lines with everyone, which lowers only those lines'
    weight: every flag of the class stays as it was. One who writes the same code as a pair is not
    unrelated: what they share weighs less, and their own copy is flagged."""
    ring, others = _near_class(tmp_path)
    small = ring + others[:3]
    joining = []
    for style in sorted(p for p in CORRECT.iterdir() if p.is_dir())[:20]:
        folder = tmp_path / "joining" / style.name
        shutil.copytree(style, folder)
        joining.append(_coded(folder, f"new-{style.name}"))
    reports = {c.name: _report(c.name) for c in ring + others + joining}
    reports["a"], reports["d"] = _wrong("a", "0.71717"), _wrong("d", "0.71717")
    before = similarity.compare(small, reports, background=others)
    after = similarity.compare(small + joining, reports, background=others)
    names = {c.name for c in small}
    assert ({(p.a, p.b) for p in before.pairs}
            == {(p.a, p.b) for p in after.pairs if {p.a, p.b} <= names} >= {("a", "b"), ("a", "d"), ("b", "d")})
    extra = _coded(_notebook(tmp_path, "e", DISGUISED), "e")
    reports["e"] = _report("e")
    with_copy = similarity.compare(small + [extra], reports, background=others)
    assert with_copy.score("a", "b").code_score <= before.score("a", "b").code_score
    assert with_copy.score("a", "e").group


def test_nearest_pairs_below_the_flag_by_top_and_threshold_and_any_named_pair(tmp_path: Path) -> None:
    ring, others = _near_class(tmp_path)
    everyone = ring + others
    result = similarity.compare(everyone, {c.name: _report(c.name) for c in everyone}, background=others)
    flagged = {(p.a, p.b) for p in result.pairs}
    near = result.nearest(top=3)
    assert len(near) == 3 and not {(p.a, p.b) for p in near} & flagged
    assert [p.rank for p in near] == sorted((p.rank for p in near), reverse=True)
    assert all(p.code_score < similarity.CODE_FLAG for p in near)
    cut = near[1].code_score
    listed = result.nearest(threshold=cut)
    assert len(listed) >= 2 and all(p.code_score >= cut for p in listed)
    assert all(p.code_score < cut for p in result.nearest() if p not in listed)
    assert result.nearest(threshold=cut, top=1) == listed[:1]
    # any pair by name, either order, flagged or not, with its scores
    assert result.score("b", "a") is next(p for p in result.pairs if (p.a, p.b) == ("a", "b"))
    quiet = result.score(others[1].name, others[0].name)
    assert (quiet.a, quiet.b) == (others[0].name, others[1].name) and quiet.group == 0
    assert 0.0 <= quiet.code_score < similarity.CODE_FLAG


def test_csv_lists_the_flagged_pairs_most_similar_first_with_the_named_columns(tmp_path: Path) -> None:
    a = _coded(_folder(tmp_path, "=cmd|a", ORIGINAL), "=cmd|a")
    b = _coded(_folder(tmp_path, "b", DISGUISED), "b")
    others = _independent(tmp_path)
    result = similarity.compare([a, b, *others], {c.name: _report(c.name) for c in [a, b, *others]},
                                background=others)
    similarity.write_similarity(result, tmp_path)
    rows = list(csv.DictReader(io.StringIO((tmp_path / "similarity.csv").read_text(encoding="utf-8"))))
    assert list(rows[0]) == ["submission_a", "submission_b", "group", "code_score", "behaviour_score", "evidence"]
    assert len(rows) == len(result.pairs) >= 1
    assert rows[0]["submission_a"] == "'=cmd|a"  # a formula-looking name is neutralised
    assert float(rows[0]["code_score"]) >= similarity.CODE_FLAG
    assert "head_dim" in rows[0]["evidence"]


class _Text(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_page_shows_hostile_code_as_text_side_by_side(tmp_path: Path, rubric, lang: str) -> None:
    hostile = ORIGINAL.replace('"sizes must be positive whole numbers, you see"',
                               '"<script>alert(1)</script>\x1b[31m\u202e"').replace(
        "divisor = math.sqrt(d_k)", "divisor = math.sqrt(d_k)  # </pre><img src=x onerror=alert(2)>")
    a = _coded(_folder(tmp_path, "a", hostile), "a")
    b = _coded(_folder(tmp_path, "b", hostile.replace("width", "w")), "b")
    others = _independent(tmp_path)
    result = similarity.compare([a, b, *others], {c.name: _report(c.name) for c in [a, b, *others]},
                                background=others)
    page = similarity_page.render_page(result, rubric, lang)
    parser = _Text()
    parser.feed(page)
    assert "script" not in parser.tags and "img" not in parser.tags
    text = "".join(parser.text)
    assert "<script>alert(1)</script>" in text and "onerror=alert(2)>" in text
    assert "\x1b" not in page and "\u202e" not in page  # controls and bidi overrides made visible
    assert "\\x1b[31m" in text
    assert page.count("<mark>") >= 3
    assert ("グループ 1" if lang == "ja" else "Group 1") in text


def _side_by_side_plainly(pair: similarity.Pair, coded: dict[str, similarity.Coded]) -> list[dict]:
    """What the page shows of a pair, computed the plain way: every shared fingerprint looked at
    again for every function of A (the reference for the indexed :func:`similarity.side_by_side`)."""
    a, b = coded[pair.a], coded[pair.b]
    shared = a.prints.keys() & b.prints.keys()
    regions = []
    for label, lines in sorted(pair.lines_a.items()):
        for fname, first, last in a.functions.get(label, []) or [("", 1, len(a.sources.get(label, [])))]:
            if not any(first <= n <= last for n in lines):
                continue
            votes: dict = {}
            for h in shared:
                if any(lab == label and first <= x <= last for lab, x, _ in a.prints[h]):
                    for lab, x, _ in b.prints[h]:
                        for name, f, g in b.functions.get(lab, []):
                            if f <= x <= g:
                                votes[(lab, name, f, g)] = votes.get((lab, name, f, g), 0) + 1
            right, right_label = [], ""
            if votes:
                right_label, _, f, g = max(votes, key=lambda k: (votes[k], k[1] == fname))
                right = similarity._lines(b, right_label, f, g, pair.lines_b.get(right_label, set()))
            regions.append({"function": fname, "a_label": label, "a": similarity._lines(a, label, first, last, lines),
                            "b_label": right_label, "b": right})
    loose_a, loose_b = similarity._loose(a, pair.lines_a), similarity._loose(b, pair.lines_b)
    if loose_a and loose_b:
        la, ls_a = max(loose_a.items(), key=lambda kv: len(kv[1]))
        lb, ls_b = max(loose_b.items(), key=lambda kv: len(kv[1]))
        regions.insert(0, {"function": "", "a_label": la, "a": similarity._lines(a, la, min(ls_a), max(ls_a), ls_a),
                           "b_label": lb, "b": similarity._lines(b, lb, min(ls_b), max(ls_b), ls_b)})
    return regions[:similarity._REGIONS]


def test_each_pairs_regions_are_those_the_plain_way_finds(tmp_path: Path) -> None:
    """For every flagged pair of a class with copies (files, a notebook, a partial copy, the corpus's
    one-function variants), the regions shown side by side, B's function chosen for each of A's
    and the lines marked are exactly what looking at every shared fingerprint again finds."""
    partial = ORIGINAL.split("def scale_scores")[0] + "def scale_scores(s, d):\n    return s / d ** 0.5\n"
    coded = [_coded(_folder(tmp_path, "a", ORIGINAL), "a"), _coded(_folder(tmp_path, "b", DISGUISED), "b"),
             _coded(_notebook(tmp_path, "c", DISGUISED), "c"), _coded(_folder(tmp_path, "d", partial), "d"),
             *_independent(tmp_path, derived=True)]
    result = similarity.compare(coded, {c.name: _report(c.name) for c in coded}, background=coded[4:])
    assert len(result.pairs) >= 6
    for pair in result.pairs:
        assert similarity.side_by_side(pair, result.coded) == _side_by_side_plainly(pair, result.coded), (pair.a, pair.b)


def test_against_a_previous_term_flags_a_copy_of_last_years_work_and_never_two_old_ones(tmp_path: Path) -> None:
    """--against: this term's copy of an old submission is flagged; two old ones alike are not this term's question."""
    old_a = _coded(_folder(tmp_path, "a", ORIGINAL), "2025/a")
    old_b = _coded(_folder(tmp_path, "b", DISGUISED), "2025/b")
    copy = _coded(_notebook(tmp_path, "now", DISGUISED), "now")
    others = _independent(tmp_path)
    result = similarity.compare([copy, *others], {c.name: _report(c.name) for c in [copy, *others]},
                                old=[old_a, old_b], old_reports={c.name: _report(c.name) for c in [old_a, old_b]},
                                background=others)
    pairs = {frozenset((p.a, p.b)) for p in result.pairs}
    assert pairs == {frozenset(("now", "2025/a")), frozenset(("now", "2025/b"))}
    assert result.compared == len(others) + 1


def test_a_flag_seen_before_is_held_while_within_hold_of_the_flag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pair the folder flagged before stays flagged (held, and its evidence says so) while its
    score is less than HOLD below the flag; a pair never flagged is not; further below, neither."""
    a = _coded(_folder(tmp_path, "a", ORIGINAL), "a")
    b = _coded(_folder(tmp_path, "b", DISGUISED), "b")
    others = _independent(tmp_path)
    reports = {c.name: _report(c.name) for c in [a, b, *others]}
    monkeypatch.setattr(similarity, "CODE_FLAG", 1.0 + similarity.HOLD / 2)  # their 1.0 is now just below it
    fresh = similarity.compare([a, b, *others], reports, background=others)
    assert not [p for p in fresh.pairs if {p.a, p.b} == {"a", "b"}]
    seen = similarity.compare([a, b, *others], reports, background=others, flagged_before={frozenset(("a", "b"))})
    [held] = [p for p in seen.pairs if {p.a, p.b} == {"a", "b"}]
    assert held.held and held.code_score == 1.0 and held.group > 0
    assert held.evidence(seen.coded).startswith(f"held: flagged before, now within {similarity.HOLD} below the flag")
    monkeypatch.setattr(similarity, "CODE_FLAG", 1.0 + 2 * similarity.HOLD)
    gone = similarity.compare([a, b, *others], reports, background=others, flagged_before={frozenset(("a", "b"))})
    assert not [p for p in gone.pairs if {p.a, p.b} == {"a", "b"}]


def test_a_score_below_the_flag_is_never_shown_rounded_up_to_it() -> None:
    assert similarity.shown(0.5996, 0.6) == 0.599
    assert similarity.shown(0.6004, 0.6) == 0.6 and similarity.shown(0.12345, 0.6) == 0.123
    assert similarity.shown(0.2996, 0.3) == 0.299


def _helpers(n: int) -> str:
    return ORIGINAL + "".join(f"\n\ndef helper_{i:05d}(x, y):\n    return x * {i} + y\n" for i in range(n))


def _calls(run) -> int:
    """How many Python and C function calls ``run()`` makes: a count of work, never a time."""
    import sys

    count = 0

    def profile(frame, event, arg) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return count


def test_comparing_and_showing_a_pair_costs_what_its_code_does_never_its_square(tmp_path: Path) -> None:
    """Two submissions sharing n helper functions (the slow class of issue 47: 10,000 of them):
    comparing them, their csv evidence and their regions side by side take work in proportion to
    n. Four times the helpers cost at most six times the calls (the page's search for the function
    holding a line looked at every function for every line before: sixteen times)."""
    work = {}
    for n in (300, 1200):
        here = tmp_path / str(n)
        here.mkdir()
        coded = [_coded(_folder(here, who, _helpers(n)), who) for who in ("a", "b")]

        def run() -> None:
            result = similarity.compare(coded, {})
            [pair] = result.pairs
            assert len(similarity.side_by_side(pair, result.coded)) == similarity._REGIONS
            assert pair.regions >= n and "helper_" in pair.evidence(result.coded)

        work[n] = _calls(run)
    assert work[1200] < 6 * work[300], work


def test_what_the_stage_caps_is_said_on_the_page_in_both_languages(tmp_path: Path, rubric,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Code past the cap is cut before a top-level function, so what is read still parses; the
    submissions cut, and the regions the page leaves out, are each a sentence of ``capped`` and a
    line of the page, in English and in Japanese."""
    monkeypatch.setattr(similarity, "_CODE_MAX", 40 * 1024)
    code = _helpers(2000)
    assert len(code) > 80 * 1024
    subs = [(who, load_submission(_folder(tmp_path, who, code))) for who in ("a", "b")]
    out = tmp_path / "out"
    out.mkdir()
    result = similarity_page.run(out, rubric, reports=[_report("a"), _report("b")], submissions=subs)
    a = result.coded["a"]
    assert a.read <= 40 * 1024 < a.size == len(code)
    [(label, functions)] = a.functions.items()
    assert len(functions) > 500 and functions[-1][0].startswith("helper_")  # parsed: every function whole
    assert [line for line in a.sources[label] if line.strip()][-1].strip().startswith("return x *")
    [pair] = result.pairs
    kb = -(-len(code) // 1024)
    assert result.capped == [
        f"a: only the first 40 KB of its code were compared (it has {kb} KB); the rest was left out",
        f"b: only the first 40 KB of its code were compared (it has {kb} KB); the rest was left out",
        f"a and b: the page shows {similarity._REGIONS} of their {pair.regions} matching regions"]
    english = (out / "similarity.en.html").read_text(encoding="utf-8")
    japanese = (out / "similarity.ja.html").read_text(encoding="utf-8")
    assert "Left out to keep the comparison quick" in english and "比較を速く保つために省いたもの" in japanese
    assert f"a: only the first 40 KB of its code were compared (it has {kb} KB)" in english
    assert f"a: コードは最初の 40 KB だけを比べ、残りは比べていません（全体は {kb} KB）" in japanese
    assert f"一致する {pair.regions} か所のうち、ページには {similarity._REGIONS} か所だけを載せています" in japanese
