"""CI that fits the platform: annotation limits and placement, the job summary's size and wording."""

from __future__ import annotations

import re
from pathlib import Path

from grader.report.markdown import ANNOTATIONS_PER_STEP, ci_annotations, fit, render, source_locator
from grader.report.model import CaseOutcome, GradeReport, Mistake, PartScore, Status
from grader.spec.rubric.model import ReportOptions


def _source(n: int) -> str:
    """A student file with n functions, each a few lines long and failing on its last line."""
    out = ['"""Module docstring."""', "", "import math", ""]
    for i in range(n):
        out += ["", f"def f{i}(x):", f'    """f{i}."""', "    y = x", "    raise ValueError(y)"]
    return "\n".join(out) + "\n"


def _def_lines(text: str) -> dict[str, int]:
    return {m.group(1): text.count("\n", 0, m.start()) + 1 for m in re.finditer(r"^def (\w+)", text, re.M)}


def _report(n: int, tmp_path: Path) -> tuple[GradeReport, dict[str, int]]:
    text = _source(n)
    (tmp_path / "mod.py").write_text(text, encoding="utf-8")
    defs = _def_lines(text)
    tests = []
    for i in range(n):
        raise_line = defs[f"f{i}"] + 3
        # f{i} loses i + 1 points over i + 1 tests, each recording the line that raised
        for k in range(i + 1):
            tests.append(CaseOutcome(
                id=f"public/test_mod.py::test_f{i}_case[{k}]", part="mod", status=Status.FAILED,
                score=0.0, max_score=1.0, title={"en": f"f{i} case {k}", "ja": f"f{i} 例 {k}"},
                feedback={"en": f"f{i}({k}) raised ValueError", "ja": f"f{i}({k}) が ValueError を送出"},
                file="mod.py", line=raise_line))
    # one failure that records no line: its message shows the call
    tests.append(CaseOutcome(id="public/test_mod.py::test_rejects_zero", part="mod", status=Status.FAILED,
                             score=0.0, max_score=1.0, title={"en": "rejects zero", "ja": "0 を拒否"},
                             feedback={"en": "expected f0(0) to raise ValueError, but it returned 1.",
                                       "ja": "f0(0) は ValueError を送出するはずです。"}))
    report = GradeReport(
        assignment="a", submission="s", score=0.0, max_score=float(len(tests)), tests=tests,
        parts=[PartScore("mod", 0.0, float(len(tests)), {"en": "Mod", "ja": "モジュール"})],
        mistakes=[Mistake("wrong-divisor", "mod", {"en": "f5 divides by 3.", "ja": "f5 は 3 で割っています。"},
                          {}, function="f5, f6")],
        sandbox={"level": "namespaces"}, errors=[], seed=1, graded_at="2026-01-01T00:00:00+00:00",
        pass_mark=60.0, passed=False)
    return report, defs


def test_one_annotation_per_function_at_its_def_line_ranked_by_points_lost(tmp_path: Path) -> None:
    report, defs = _report(14, tmp_path)
    locate = source_locator({"mod": "mod.py"}, tmp_path, "ex")
    lines = ci_annotations(report, None, "en", locate=locate)
    errors = [x for x in lines if x.startswith("::error ")]
    notices = [x for x in lines if x.startswith("::notice ")]
    assert len(errors) == ANNOTATIONS_PER_STEP == 10
    assert len(notices) == 1 and "4 more function(s)" in notices[0]
    names = [re.search(r"title=(\w+)%3A", x).group(1) for x in errors]
    assert names == [f"f{i}" for i in range(13, 3, -1)]  # most points lost first
    for name, line in zip(names, errors):
        assert f"file=ex/mod.py,line={defs[name]}," in line
    # the mistake joined its function's annotation instead of making a second one
    assert sum("[wrong-divisor]" in x for x in errors) == 1
    assert "[wrong-divisor]" in errors[names.index("f5")]


def test_a_failure_without_a_line_goes_to_the_function_its_message_calls(tmp_path: Path) -> None:
    report, defs = _report(2, tmp_path)
    lines = ci_annotations(report, None, "en", locate=source_locator({"mod": "mod.py"}, tmp_path, "ex"))
    [f0] = [x for x in lines if "title=f0%3A" in x]
    assert "expected f0(0) to raise" in f0 and f"line={defs['f0']}," in f0
    assert not any("rejects_zero" in x for x in lines)  # a test's name is not a function's
    assert not any(",line=1," in x for x in lines)


def test_the_summary_says_ran_and_passed_plainly_and_fits_the_limit(tmp_path: Path) -> None:
    report, _ = _report(3, tmp_path)
    strict = ReportOptions(fail_below_pass_mark=True, languages=("en",))
    text = render(report, strict, "en")
    assert "The check ran, but did not pass" in text and "This job fails until the pass mark" in text
    report.passed, report.score = True, report.max_score
    assert "The check ran and passed" in render(report, strict, "en")
    ja = render(report, ReportOptions(languages=("ja",)), "ja")
    assert "チェックを実行し、合格しました" in ja and "The check ran" not in ja
    big = "| x | " + "あ" * 500 + " |\n"
    cut = fit("## title\n\n<details>\n" + big * 5000, 1024 * 1024 - 64 * 1024, "en")
    assert len(cut.encode("utf-8")) <= 1024 * 1024 - 64 * 1024
    assert cut.count("<details>") == cut.count("</details>") and "cut here" in cut


def test_a_docstring_line_at_column_zero_or_a_def_in_a_string_keeps_the_function_whole(tmp_path: Path) -> None:
    """A function body is what the parser says it is: a docstring line written at column 0, or a
    ``def`` inside a string, neither ends the function nor makes one, so the failure at the
    ``raise`` is annotated once, at ``head_dim``'s def line, under its name."""
    text = ('def head_dim(d_model, n_heads):\n'
            '    """The size of one head.\n'
            '\n'
            'Example: head_dim(768, 12) == 64\n'
            'def not_a_function(x):\n'
            '    """\n'
            '    raise ValueError("no")\n')
    (tmp_path / "scaling.py").write_text(text, encoding="utf-8")
    locate = source_locator({"scaling": "scaling.py"}, tmp_path, "ex")
    assert locate("scaling", None, 7) == ("ex/scaling.py", 1, "head_dim")
    (tmp_path / "scaling.py").write_text(text + "def broken(:\n", encoding="utf-8")  # no parse: read as text
    locate = source_locator({"scaling": "scaling.py"}, tmp_path, "ex")
    assert locate("scaling", "head_dim") == ("ex/scaling.py", 1, "head_dim")
