"""The course harness: assignments declared by their rubrics (grader/spec/assignment.py), chapter 8's
plug-in loaded and its mistakes named with the student's numbers, in process."""

from __future__ import annotations

import pytest

from grader.spec.assignment import assignment_of
from grader.errors import GraderError, RubricError
from grader.kit.hooks import load_hooks
from grader.spec.rubric.load import load_rubric
from grader.prepare import build_notebook
from grader.prepare.validate import load_mutants

from tests.helpers import ROOT


CH8 = ROOT / "rubrics" / "chapter08.yaml"
MASKING_FUNCTIONS = ("causal_mask", "apply_causal_mask", "masked_softmax", "causal_attention", "future_leak")


def test_the_rubric_declares_the_assignment():
    a = assignment_of(load_rubric(CH8))
    assert {"masking": "masking.py"} == a.part_files
    assert MASKING_FUNCTIONS == a.functions("masking")
    assert "answers.yaml" == a.quiz_file and "quiz" == a.quiz_part
    assert "chapter08.ipynb" == a.notebook
    assert set(MASKING_FUNCTIONS) == set(a.hooks.recognisers)
    # Chapter 7's ids where the same mistake shows; the framework's own ids come along.
    ids = a.mistake_ids()
    assert {"no-scaling", "sqrt-d-model", "softmax-overflow", "hardcoded-output", "not-implemented"} <= set(ids)
    assert "unrecognised" in a.catalogue() and "unrecognised" not in ids


def test_every_contract_id_has_a_mutant_and_an_entry():
    """The ids of chapter 8's contract (its table, written out here) each have an entry and a mutant."""
    ids = {"mask-after-softmax", "mask-zero-not-inf", "mask-transposed", "mask-excludes-diagonal",
           "mask-not-applied", "mask-modifies-input", "no-scaling", "sqrt-d-model", "softmax-overflow",
           "hardcoded-output", "not-implemented"}
    a = assignment_of(load_rubric(CH8))
    assert ids <= set(a.mistake_ids())
    assert ids <= {m.id for m in load_mutants(a.mutants, ("masking.py",))}


def test_rubric_plugin_paths_are_checked(tmp_path):
    text = CH8.read_text(encoding="utf-8").replace("plugin/hooks.py", "plugin/nope.py")
    (tmp_path / "rubrics").mkdir()
    for top in ("exercises", "solutions", "suites"):
        (tmp_path / top).symlink_to(ROOT / top)
    bad = tmp_path / "rubrics" / "chapter08.yaml"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(RubricError) as info:
        load_rubric(bad)
    assert "plugin.hooks" == info.value.yaml_path
    assert "nope.py" in info.value.problem


def test_hooks_that_do_not_load_name_their_file(tmp_path):
    broken = tmp_path / "hooks.py"
    broken.write_text("import nothing_here\n", encoding="utf-8")
    with pytest.raises(GraderError, match=r"hooks.py: importing the assignment's hooks failed: ModuleNotFoundError"):
        load_hooks(broken)
    empty = tmp_path / "empty_hooks.py"
    empty.write_text("X = 1\n", encoding="utf-8")
    with pytest.raises(GraderError, match="define RECOGNISERS"):
        load_hooks(empty)


def test_generated_files_are_current():
    """The chapter-8 notebook and expected values are what the tools build from the sources."""
    assert 0 == build_notebook.main(["--rubric", str(CH8), "--check"])
    from grader.prepare import expected

    assert 0 == expected.main(["--rubric", str(CH8), "--check"])


def test_two_assignments_graded_in_one_process_keep_their_own_suites():
    """chapter 8, then chapter 7, then chapter 8 again in one process (as validate --all does):
    each is graded by its own suite modules, though both have public/test_quiz.py."""
    from grader.grading.runner import grade
    from grader.ingest.submission.load import load_submission

    scores = []
    for name, folder in (("chapter08", "solutions/chapter08"), ("chapter07", "examples/submissions/correct"),
                         ("chapter08", "solutions/chapter08")):
        rubric = load_rubric(ROOT / "rubrics" / f"{name}.yaml")
        [report] = grade(rubric, [load_submission(ROOT / folder, assignment_of(rubric))], seed=4)
        scores.append((name, report.score == report.max_score > 0))
    assert [("chapter08", True), ("chapter07", True), ("chapter08", True)] == scores


def test_mutant_messages_quote_the_students_numbers(tmp_path):
    """mask-zero-not-inf gives the value written and the weight that leaked, in both languages."""
    from grader.grading.runner import grade
    from grader.ingest.submission.load import load_submission

    rubric = load_rubric(CH8)
    folder = tmp_path / "zero"
    folder.mkdir()
    [m] = [m for m in load_mutants(rubric.plugin.mutants, ("masking.py",)) if m.name == "mask-zero-not-inf/fill-with-zero"]
    (folder / "masking.py").write_text(m.source(ROOT / "solutions" / "chapter08"), encoding="utf-8")
    [report] = grade(rubric, [load_submission(folder, assignment_of(rubric))], seed=3)
    [mistake] = report.mistakes
    assert "mask-zero-not-inf" == mistake.id
    assert 0.0 == mistake.evidence["fill"]
    leak = mistake.evidence["leak"]
    assert 0.0 < leak < 1.0
    assert f"{leak:.3g}" in mistake.message["en"] and f"{leak:.3g}" in mistake.message["ja"]
    assert "hold 0 instead of -inf" in mistake.message["en"]
    assert "-inf ではなく 0 が入っています" in mistake.message["ja"]


def test_a_finite_mask_that_leaves_no_weight_is_told_from_one_that_leaks(tmp_path):
    """-1e9 (e^-1e9 is exactly 0): the id stands, the message says nothing leaked, in both languages."""
    from grader.grading.runner import grade
    from grader.ingest.submission.load import load_submission

    rubric = load_rubric(CH8)
    folder = tmp_path / "minus-1e9"
    folder.mkdir()
    [m] = [m for m in load_mutants(rubric.plugin.mutants, ("masking.py",)) if m.name == "mask-zero-not-inf/minus-1e9"]
    (folder / "masking.py").write_text(m.source(ROOT / "solutions" / "chapter08"), encoding="utf-8")
    [report] = grade(rubric, [load_submission(folder, assignment_of(rubric))], seed=3)
    [mistake] = report.mistakes
    assert ("mask-zero-not-inf", -1e9, 0.0) == (mistake.id, mistake.evidence["fill"], mistake.evidence["leak"])
    assert "is not 0" not in mistake.message["en"] and "0 ではない" not in mistake.message["ja"]
    assert "e^-1e+09 is exactly 0 in float32, so no weight leaks" in mistake.message["en"]
    assert "e^-1e+09 は float32 でちょうど 0 なので、重みは漏れていません" in mistake.message["ja"]


@pytest.mark.parametrize(("mutant", "wanted", "unwanted"), [
    # the 0/0 of renormalising underflowed rows, not an overflow: the rows and counts are the measured ones
    ("mask-after-softmax/renormalised",
     {"en": ["rows 0, 1, 2, 3 came out NaN (40 of 50 values), yet nothing overflowed", "divided 0 by 0"],
      "ja": ["行 0, 1, 2, 3 が NaN になりました（50 個中 40 個）が、オーバーフローは起きていません", "0 を 0 で割っています"]},
     {"en": ["overflows", "subtract each row's largest"], "ja": ["最大値を引"]}),
    # GPT-2's (1, 1, n, n) buffer: both shapes said
    ("wrong-shape/gpt2-buffer",
     {"en": ["causal_mask(5) returned shape (1, 1, 5, 5) where (5, 5) is expected"],
      "ja": ["causal_mask(5) の戻り値の形は (1, 1, 5, 5) でしたが、(5, 5) が必要です"]},
     {"en": ["unrecognised"], "ja": []}),
])
def test_the_message_says_what_the_evidence_shows(tmp_path, mutant, wanted, unwanted):
    """Real code's mistakes (a renormalised mask after the softmax, GPT-2's mask buffer): one id,
    named from what was seen, with the measured numbers and nothing the evidence contradicts."""
    from grader.grading.runner import grade
    from grader.ingest.submission.load import load_submission

    rubric = load_rubric(CH8)
    folder = tmp_path / "s"
    folder.mkdir()
    [m] = [m for m in load_mutants(rubric.plugin.mutants, ("masking.py",)) if m.name == mutant]
    (folder / "masking.py").write_text(m.source(ROOT / "solutions" / "chapter08"), encoding="utf-8")
    [report] = grade(rubric, [load_submission(folder, assignment_of(rubric))], seed=3)
    assert [x.id for x in report.mistakes] == [mutant.split("/")[0]]
    message = report.mistakes[0].message
    for lang in ("en", "ja"):
        for text in wanted[lang]:
            assert text in message[lang], (lang, text, message[lang])
        for text in unwanted[lang]:
            assert text not in message[lang], (lang, text, message[lang])
