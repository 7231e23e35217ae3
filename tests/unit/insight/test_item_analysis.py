"""grader/insight/item_analysis.py: parametrised cases as one test, blank and untouched-stub
submissions left out, and a test with too few submissions said to be too few to judge."""

from __future__ import annotations

from grader.insight import item_analysis as items
from grader.report.model import CaseOutcome, GradeReport, Mistake, Status


def _case(test_id: str, passed: bool, points: float = 1.0) -> CaseOutcome:
    return CaseOutcome(id=test_id, part="p", status=Status.PASSED if passed else Status.FAILED, max_score=points,
                       score=points if passed else 0.0)


def _report(name: str, tests: list[CaseOutcome], mistakes: list[Mistake] | None = None,
            errors: list[str] | None = None) -> GradeReport:
    return GradeReport(assignment="a", submission=name, score=sum(t.score for t in tests), max_score=20.0,
                       tests=tests, parts=[], mistakes=mistakes or [], sandbox={}, errors=errors or [], seed=1,
                       graded_at="")


def _stub(name: str) -> GradeReport:
    """Every test failed, every function still raising NotImplementedError."""
    stubbed = Mistake(id="not-implemented", part="p", message={"en": "", "ja": ""},
                      evidence={"functions": ["f", "g"]})
    return _report(name, [_case("t.py::test_f[1]", False), _case("t.py::test_f[2]", False),
                          _case("t.py::test_g", False), _case("t.py::test_rest", False, 8.0)], [stubbed])


def _blank(name: str) -> GradeReport:
    """The functions are not there: the part failed and nothing could be probed."""
    absent = Mistake(id="unrecognised", part="p", message={"en": "", "ja": ""}, evidence={"functions": []})
    return _report(name, [_case("t.py::test_f[1]", False), _case("t.py::test_f[2]", False),
                          _case("t.py::test_g", False), _case("t.py::test_rest", False, 8.0)], [absent])


def _class(n: int) -> list[GradeReport]:
    """``n`` students: the strong half pass both cases of test_f, the weak half one case."""
    out = []
    for i in range(n):
        strong = i >= n // 2
        out.append(_report(f"s{i:02d}", [_case("t.py::test_f[1]", True), _case("t.py::test_f[2]", strong),
                                         _case("t.py::test_g", True),
                                         _case("t.py::test_rest", True, float(2 + i))]))
    return out


def test_a_parametrised_tests_cases_are_one_item_scored_by_the_share_passed() -> None:
    result = items.analyse(_class(12))
    rows = {i.test: i for i in result.items}
    assert set(rows) == {"t.py::test_f", "t.py::test_g", "t.py::test_rest"}
    assert rows["t.py::test_f"].cases == 2 and rows["t.py::test_g"].cases == 1
    assert rows["t.py::test_f"].pass_rate == 0.75  # half pass both cases, half one of two
    assert rows["t.py::test_f"].discrimination is not None and rows["t.py::test_f"].discrimination > 0.8
    assert rows["t.py::test_g"].flags == ("all-pass",)


def test_a_case_id_with_brackets_inside_stays_with_its_test() -> None:
    assert items.test_of("hidden/t.py::test_x[a[0]-b]") == "hidden/t.py::test_x"
    assert items.test_of("t.py::test_y") == "t.py::test_y"


def test_blank_and_untouched_stub_submissions_are_left_out_and_counted() -> None:
    reports = _class(12) + [_stub("stub"), _blank("blank")]
    result = items.analyse(reports)
    assert result.left_out == ("blank", "stub") and result.counted == 12
    rows = {i.test: i for i in result.items}
    assert rows["t.py::test_g"].runs == 12 and rows["t.py::test_g"].flags == ("all-pass",)
    # the same class without them reads the same
    assert result.items == items.analyse(_class(12)).items


def test_a_syntax_error_or_a_wrong_answer_is_an_attempt_and_counts() -> None:
    wrong = Mistake(id="unrecognised", part="p", message={"en": "", "ja": ""},
                    evidence={"functions": ["f"], "probes": {"f": [{"call": "f(1)", "values": [2.0]}]}})
    attempt = _report("wrong", [_case("t.py::test_f[1]", False)], [wrong])
    broken = _report("syntax", [_case("t.py::test_f[1]", False)], [], errors=["SyntaxError: invalid syntax"])
    assert not items.left_out(attempt) and not items.left_out(broken)
    assert items.left_out(_stub("s")) and items.left_out(_blank("b"))
    assert items.left_out(_report("nothing ran", []))


def test_below_the_threshold_a_test_is_too_few_to_judge_and_gets_no_other_statistic_flag() -> None:
    small = items.analyse(_class(items.MIN_SUBMISSIONS - 1) + [_stub("stub")])
    for item in small.items:
        assert item.flags == ("too-few",) and item.discrimination is None
    item = small.items[0]
    assert items.flag_words(item, "en") == f"too few submissions to judge ({items.MIN_SUBMISSIONS - 1}; " \
                                           f"at least {items.MIN_SUBMISSIONS} needed)"
    assert f"{items.MIN_SUBMISSIONS} 件以上" in items.flag_words(item, "ja")
    enough = items.analyse(_class(items.MIN_SUBMISSIONS))
    assert all("too-few" not in i.flags for i in enough.items)


def test_a_failing_correct_style_is_named_under_the_grouped_test() -> None:
    result = items.analyse(_class(12), corpus={"t.py::test_f[2]": ["07-functional-softmax"]})
    rows = {i.test: i for i in result.items}
    assert rows["t.py::test_f"].corpus == ("07-functional-softmax",)
    assert "fails-correct" in rows["t.py::test_f"].flags
