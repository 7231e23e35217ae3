"""grader/insight/unknown_mistakes.py, grader/kit/signature.py and grader/insight/item_analysis.py: unknown mistakes grouped by
behaviour, signatures bounded whatever a student returns, and per-test item analysis."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np

from grader.insight import unknown_mistakes as clusters

from grader.insight import item_analysis as items
from grader.report.model import CaseOutcome, GradeReport, Mistake, Status
from grader.kit.signature import SIGNATURE_TEXT, SIGNATURE_VALUES, same_signature, signature_of

from tests.helpers import ROOT


def _calls(values: list[list[float]], func: str = "scale_scores") -> list[dict]:
    return [{"call": f"{func}(float32[2], {i})", **signature_of(np.array(v))} for i, v in enumerate(values)]


def _report(name: str, probes: dict | None, failed: tuple[str, ...] = ("t1",), score: float = 5.0,
            **evidence) -> GradeReport:
    tests = [CaseOutcome(id=t, part="scaling", status=Status.FAILED, max_score=1.0) for t in failed]
    tests += [CaseOutcome(id="t-ok", part="scaling", status=Status.PASSED, max_score=1.0, score=1.0)]
    mistakes = []
    if probes is not None:
        mistakes = [Mistake(id="unrecognised", part="scaling", message={"en": "", "ja": ""},
                            evidence={"functions": list(probes), "probes": probes, **evidence})]
    return GradeReport(assignment="chapter07", submission=name, score=score, max_score=10.0, tests=tests,
                       parts=[], mistakes=mistakes, sandbox={}, errors=[], seed=1, graded_at="")


def test_signature_of_any_value_is_bounded() -> None:
    """A huge array, a long string, a dict of junk: the record stays small."""
    big = signature_of(np.arange(10**6, dtype=np.float64))
    assert big["n"] == 10**6 and len(big["values"]) == SIGNATURE_VALUES
    assert len(signature_of("x" * 10**6)["text"]) == SIGNATURE_TEXT
    junk = signature_of({f"k{i}" * 1000: object() for i in range(100)})
    assert len(junk["text"]) <= SIGNATURE_TEXT
    assert signature_of({"b": 2.0, "a": 1.0}) == {"keys": ["a", "b"], "shape": [2], "n": 2, "values": [1.0, 2.0],
                                                   "sum": 3.0}
    assert signature_of(float("nan"))["values"] == ["nan"]


def test_same_signature_tolerates_rounding_and_nothing_else() -> None:
    a = _calls([[1.0, 2.0], [3.0, 4.0]])
    assert same_signature(a, _calls([[1.0000001, 2.0], [3.0, 4.0000002]]))
    assert not same_signature(a, _calls([[1.0, 2.0], [3.0, 4.1]]))
    assert not same_signature(a, a[:1])
    assert not same_signature(a, [{**a[0], "raised": "TypeError"}, a[1]])


def _softmax_mistake(values: list[list[float]]) -> Mistake:
    """An unknown mistake in a second part (softmax.py)."""
    probes = {"softmax": _calls(values, "softmax")}
    return Mistake(id="unrecognised", part="softmax", message={"en": "", "ja": ""},
                   evidence={"functions": ["softmax"], "probes": probes})


def test_same_behaviour_one_cluster_other_behaviour_another_each_unknown_mistake_once(tmp_path: Path) -> None:
    clamp = {"scale_scores": _calls([[4.0, -3.0], [4.0, -4.0]])}
    # the same mistake, spreading to a later function of the part that calls it
    spread = {"scale_scores": _calls([[4.0, -3.0], [4.0, -4.0]]),
              "attention_scores": _calls([[9.0]], "attention_scores")}
    shift = {"scale_scores": _calls([[6.0, -2.0], [11.0, -5.0]])}
    two = _report("e", shift)
    two.mistakes.append(_softmax_mistake([[0.5, 0.7]]))  # and an unknown mistake in another part
    reports = [_report("a", clamp), _report("b", clamp), _report("c", spread), _report("d", shift), two,
               _report("ok", None, failed=())]
    groups = clusters.clusters(reports)
    assert [(g.functions, sorted(m.submission for m in g.members)) for g in groups] == [
        (("scale_scores",), ["a", "b", "c"]), (("scale_scores",), ["d", "e"]), (("softmax",), ["e"])]
    assert [g.number for g in groups] == [1, 2, 3]
    clusters.write_clusters(groups, tmp_path)
    rows = list(csv.DictReader(io.StringIO((tmp_path / clusters.CLUSTERS_FILE).read_text(encoding="utf-8"))))
    assert [(r["cluster"], r["submission"]) for r in rows] == [("1", "a"), ("1", "b"), ("1", "c"), ("2", "d"),
                                                                ("2", "e"), ("3", "e")]
    assert list(rows[0]) == ["cluster", "submission", "signature"]
    assert "4, -3" in rows[0]["signature"]
    assert "attention_scores" in rows[2]["signature"]  # where it spread is still written down


def test_identical_values_share_a_cluster_whatever_else_the_two_get_wrong() -> None:
    """Grouped by the failing function's behaviour, not by the submission's whole failing set."""
    clamp = _calls([[4.0, -3.0], [4.0, -4.0]])
    alone = _report("a", {"scale_scores": clamp}, failed=("t1",))
    # b returns the same values from scale_scores, fails other tests too, and has an unknown
    # mistake of its own in another part
    more = _report("b", {"scale_scores": clamp}, failed=("t1", "t2", "t3"))
    more.mistakes.append(_softmax_mistake([[0.5, 0.7]]))
    groups = clusters.clusters([alone, more])
    by_function = {g.functions: sorted(m.submission for m in g.members) for g in groups}
    assert by_function == {("scale_scores",): ["a", "b"], ("softmax",): ["b"]}
    assert groups[0].size == 2 and groups[0].functions == ("scale_scores",)


def test_a_different_exception_or_value_in_the_same_function_is_another_cluster() -> None:
    clamp = _calls([[4.0, -3.0], [4.0, -4.0]])
    raising = [{"call": "scale_scores(float32[2], 0)", "raised": "ValueError"}]
    groups = clusters.clusters([_report("a", {"scale_scores": clamp}), _report("b", {"scale_scores": raising}),
                                _report("c", {"scale_scores": _calls([[4.0, -3.0], [4.0, -5.0]])})])
    assert sorted(g.size for g in groups) == [1, 1, 1]


def test_a_dict_returned_keeps_its_keys_in_the_description_and_the_csv(tmp_path: Path) -> None:
    calls = [{"call": "summary_stats(float32[4])", **signature_of({"mean": 1.5, "std": 0.25})}]
    [group] = clusters.clusters([_report("a", {"summary_stats": calls}), _report("b", {"summary_stats": calls})])
    for lang in ("en", "ja"):
        assert "{'mean': 1.5, 'std': 0.25}" in clusters.describe(group, lang)["probe"]
    clusters.write_clusters([group], tmp_path)
    assert "'mean': 1.5" in (tmp_path / clusters.CLUSTERS_FILE).read_text(encoding="utf-8")


def test_cluster_in_words_in_both_languages() -> None:
    clamp = {"scale_scores": _calls([[4.0, -3.0], [4.0, -4.0]])}
    [group] = clusters.clusters([_report("a", clamp), _report("b", clamp)])
    en, ja = clusters.describe(group, "en"), clusters.describe(group, "ja")
    assert en["head"].startswith("2 submissions") and "scale_scores" in en["head"]
    assert ja["head"].startswith("2 件の提出物")
    assert "[4, -3]" in en["probe"] and "1 more probe input" in en["probe"]
    assert en["tests"] == "t1" and en["example"] == "a"


def test_hostile_names_in_the_csv_are_neutralised(tmp_path: Path) -> None:
    clamp = {"scale_scores": [{"call": "scale_scores(x)", "text": "=HYPERLINK(\"http://x\")"}]}
    groups = clusters.clusters([_report("=cmd()", clamp)])
    clusters.write_clusters(groups, tmp_path)
    rows = list(csv.reader(io.StringIO((tmp_path / clusters.CLUSTERS_FILE).read_text(encoding="utf-8"))))
    assert rows[1][1] == "'=cmd()"


def _item_reports() -> list[GradeReport]:
    """Ten students: 'good' passes with the strong ones, 'easy' always passes, 'broken' always
    fails, 'odd' passes only for the weak ones."""
    out = []
    for i in range(10):
        strong = i >= 5
        tests = [
            CaseOutcome(id="good", part="p", status=Status.PASSED if strong else Status.FAILED, max_score=1.0,
                        score=1.0 if strong else 0.0),
            CaseOutcome(id="easy", part="p", status=Status.PASSED, max_score=1.0, score=1.0),
            CaseOutcome(id="broken", part="p", status=Status.FAILED, max_score=1.0),
            CaseOutcome(id="odd", part="p", status=Status.FAILED if strong else Status.PASSED, max_score=1.0,
                        score=0.0 if strong else 1.0),
            CaseOutcome(id="rest", part="p", status=Status.PASSED, max_score=5.0, score=float(i // 2 + (3 if strong else 0))),
        ]
        out.append(GradeReport(assignment="a", submission=f"s{i}", score=sum(t.score for t in tests), max_score=9.0,
                               tests=tests, parts=[], mistakes=[], sandbox={}, errors=[], seed=1, graded_at=""))
    return out


def test_item_analysis_flags_what_does_not_tell_students_apart() -> None:
    rows = {i.test: i for i in items.analyse(_item_reports(), corpus={"good": ["07-functional-softmax"]}).items}
    assert rows["good"].pass_rate == 0.5 and rows["good"].discrimination is not None
    assert rows["good"].discrimination > 0.8
    assert rows["good"].flags == ("fails-correct",)
    assert rows["easy"].flags == ("all-pass",)
    assert rows["broken"].flags == ("all-fail",)
    assert rows["odd"].discrimination < 0 and rows["odd"].flags == ("low-discrimination",)
    assert set(items.FLAGS) >= {f for r in rows.values() for f in r.flags}
    assert all(set(words) == {"en", "ja"} for words in items.FLAGS.values())


def test_draft_entry_from_a_hostile_cluster_is_valid_yaml_and_marked_draft(tmp_path: Path) -> None:
    """What a student returned (markup, controls, YAML syntax) lands in the catalogue as data."""
    import shutil

    import yaml

    from grader.insight.draft_entry import draft_entry
    from grader.report.outdir import report_path, report_yaml
    from grader.spec.rubric.load import load_rubric

    root = ROOT
    (tmp_path / "rubrics").mkdir()
    shutil.copy(root / "rubrics" / "chapter07.yaml", tmp_path / "rubrics" / "chapter07.yaml")
    for top in ("suites", "exercises", "solutions"):
        shutil.copytree(root / top / "chapter07", tmp_path / top / "chapter07")
    rubric = load_rubric(tmp_path / "rubrics" / "chapter07.yaml")
    hostile = {"softmax_jacobian": [{"call": "softmax_jacobian(float32[4])",
                                     "text": "<script>\x1b[2J\u202e'; drop: [yaml"}]}
    out = tmp_path / "out"
    for name in ("a", "b"):
        path = report_path(out, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(report_yaml(_report(name, hostile)), encoding="utf-8")
    done = draft_entry(out, rubric, 1, "returns-text")
    assert done.mutant is None  # no source was noted: the entry alone
    data = yaml.safe_load(done.catalogue.read_text(encoding="utf-8"))["mistakes"]["returns-text"]
    assert data["draft"] is True
    assert data["signature"]["probes"][0]["text"].startswith("<script>\x1b[2J")
    from grader.spec.catalogue import catalogue

    entry = catalogue(done.catalogue)["returns-text"]
    assert entry.draft and entry.signature["function"] == "softmax_jacobian"
