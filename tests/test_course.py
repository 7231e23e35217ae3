"""The course harness: assignments declared by their rubrics, chapter 8 graded as users grade it.

Journeys run the real ``grader`` command (``python -m grader``) on real files: an LMS-style
folder of chapter-8 submissions (a folder, a notebook, a zip and one mutant per catalogue id)
through ``grader batch``, and ``grader new`` followed by ``grader validate`` in a fresh
course folder; and the chapter-8 release installed as its README says, in the run's release venv.
"""

from __future__ import annotations

import csv
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from grader.spec.assignment import assignment_of
from grader.spec.catalogue import catalogue
from grader.errors import GraderError, RubricError
from grader.kit.hooks import load_hooks
from grader.spec.rubric import load_rubric
from grader.prepare import build_notebook
from grader.prepare.validate import load_mutants
from grader.ingest.corpus import student_answers

ROOT = Path(__file__).resolve().parent.parent
CH8 = ROOT / "rubrics" / "chapter08.yaml"
MASKING_FUNCTIONS = ("causal_mask", "apply_causal_mask", "masked_softmax", "causal_attention", "future_leak")


def _grader(*args: str, cwd: Path = ROOT, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


def _answers() -> str:
    key = yaml.safe_load((ROOT / "solutions" / "chapter08" / "answers.yaml").read_text(encoding="utf-8"))
    return student_answers(key)


def _submissions(src: Path) -> dict[str, str]:
    """An LMS-style folder: name -> the id it must be named with ("" for a correct one)."""
    src.mkdir()
    rubric = load_rubric(CH8)
    reference = ROOT / "solutions" / "chapter08"
    correct = src / "correct"
    correct.mkdir()
    shutil.copyfile(reference / "masking.py", correct / "masking.py")
    (correct / "answers.yaml").write_text(_answers(), encoding="utf-8")
    with zipfile.ZipFile(src / "zipped.zip", "w") as zf:  # wrapped in one folder, as LMS exports do
        for f in correct.iterdir():
            zf.write(f, f"zipped/{f.name}")
    answers = src / "_answers.yaml"
    answers.write_text(_answers(), encoding="utf-8")
    nb = build_notebook.build(reference, answers, ("masking",), "# chapter 8\n")
    (src / "notebook.ipynb").write_text(build_notebook.render(nb), encoding="utf-8")
    answers.unlink()
    expected = {"correct": "", "zipped": "", "notebook": ""}
    for m in load_mutants(assignment_of(rubric).mutants, ("masking.py",)):
        folder = src / f"mutant-{m.name.replace('/', '-')}"  # an id may have several mutants
        folder.mkdir()
        (folder / "masking.py").write_text(m.source(reference), encoding="utf-8")
        (folder / "answers.yaml").write_text(_answers(), encoding="utf-8")
        expected[folder.name] = m.id
    return expected


@pytest.mark.slow
def test_batch_grades_chapter08_folder_notebook_zip_and_every_mutant(tmp_path):
    """grader batch --rubric rubrics/chapter08.yaml: full marks for the correct forms, each
    mutant named with exactly its id, in Japanese and English with its own numbers."""
    expected = _submissions(tmp_path / "src")
    out = tmp_path / "out"
    proc = _grader("batch", str(tmp_path / "src"), "--out", str(out), "--rubric", "rubrics/chapter08.yaml",
                   "--no-progress", "--seed", "8", "--lang", "en")
    assert proc.returncode in (0, 1), proc.stderr
    assert f"{len(expected)} graded" in proc.stderr
    with (out / "gradebook.csv").open(encoding="utf-8") as fh:
        rows = {r["submission"]: r for r in csv.DictReader(fh)}
    assert set(expected) == set(rows)
    assert "part:masking" in next(iter(rows.values()))
    ids = set(catalogue(assignment_of(load_rubric(CH8)).rubric.plugin.catalogue))
    for name, mid in expected.items():
        report = yaml.safe_load((out / "reports" / f"{name}.yaml").read_text(encoding="utf-8"))
        named = sorted({m["id"] for m in report["mistakes"]})
        if not mid:
            assert report["score"] == report["max_score"], name
            assert [] == named, name
            continue
        assert report["score"] < report["max_score"], name
        assert [mid] == named, name
        assert mid in ids
        for m in report["mistakes"]:
            for lang in ("en", "ja"):
                text = m["message"][lang]
                assert "?" not in text.replace("?)", ""), (name, lang, text)  # every slot filled
                assert "{" not in text, (name, lang, text)
            # Japanese feedback is Japanese, English is not.
            assert re.search(r"[\u3040-\u30ff]", m["message"]["ja"]), m["message"]["ja"]
            assert not re.search(r"[\u3040-\u30ff]", m["message"]["en"]), m["message"]["en"]


def test_mutant_messages_quote_the_students_numbers(tmp_path):
    """mask-zero-not-inf gives the value written and the weight that leaked, in both languages."""
    from grader.grading.runner import grade
    from grader.ingest.submission import load_submission

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
    from grader.ingest.submission import load_submission

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
    from grader.ingest.submission import load_submission

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


@pytest.mark.slow
def test_new_assignment_validates_without_an_edit(tmp_path):
    """grader new chapter09, then grader validate --rubric rubrics/chapter09.yaml, in a fresh course."""
    proc = _grader("new", "chapter09", cwd=tmp_path)
    assert 0 == proc.returncode, proc.stderr
    for rel in ("rubrics/chapter09.yaml", "exercises/chapter09/part1.py", "exercises/chapter09/chapter09.ipynb",
                "solutions/chapter09/part1.py", "suites/chapter09/public/test_part1.py",
                "suites/chapter09/hidden/test_part1.py", "suites/chapter09/plugin/hooks.py"):
        assert (tmp_path / rel).is_file(), rel
    # and mypy's check of the new hooks file against the hooks' types
    assert "suites.chapter09.plugin.hooks" in (tmp_path / "suites" / "hooks_conform.py").read_text()
    proc = _grader("validate", "--rubric", "rubrics/chapter09.yaml", cwd=tmp_path)
    assert 0 == proc.returncode, proc.stdout + proc.stderr
    assert "all checks hold" in proc.stdout
    again = _grader("new", "chapter09", cwd=tmp_path)
    assert 2 == again.returncode and "exists already" in " ".join(again.stderr.split())
    bad = _grader("new", "Chapter 9", cwd=tmp_path)
    assert 2 == bad.returncode and "lower-case" in " ".join(bad.stderr.split())


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


def _chapter_words() -> dict[str, set[str]]:
    """Per rubric: its functions, its own mistake ids and the constants its hooks define."""
    import ast

    from grader.spec.catalogue import FRAMEWORK_FILE

    words: dict[str, set[str]] = {}
    for path in sorted((ROOT / "rubrics").glob("*.yaml")):
        a = assignment_of(load_rubric(path))
        found = {f for p in a.code_parts for f in p.functions}
        found |= set(a.mistake_ids()) - set(catalogue(FRAMEWORK_FILE))
        hooks = a.rubric.plugin.hooks
        for file in sorted(hooks.parent.glob("*.py")) if hooks else []:
            for node in ast.parse(file.read_text(encoding="utf-8")).body:
                targets = node.targets if isinstance(node, ast.Assign) else []
                names = [n for t in targets for n in (t.elts if isinstance(t, ast.Tuple) else [t])]
                found |= {n.id for n in names if isinstance(n, ast.Name) and n.id.lstrip("_").isupper()
                          and len(n.id.lstrip("_")) > 3}
        words[a.id] = found
    return words


def test_no_chapter_knowledge_in_the_grader_package():
    """grader/ offers the framework: no chapter's function names, constants or own mistake ids.

    Framework ids (not-implemented, unrecognised) and the ids every chapter shares through a
    framework helper (hardcoded-output) are the framework's; torch's own functions called as
    attributes (``torch.softmax``) are torch's.
    """
    words = _chapter_words()
    assert {"masked_softmax", "mask-after-softmax", "scaling_factor", "sqrt-d-model", "GPT2_D_MODEL"} <= set().union(*words.values())
    shared = {"hardcoded-output"}
    hook_names = {"RECOGNISERS", "ORACLE", "NOTEBOOK_INTRO", "README_EXAMPLE"}  # the interface grader/kit/hooks.py defines
    hits = []
    for path in sorted((ROOT / "grader").rglob("*")):
        if not (path.is_file() and path.suffix in (".py", ".yaml", ".j2", ".ini")):
            continue
        text = path.read_text(encoding="utf-8")
        for chapter, found in sorted(words.items()):
            for w in sorted(found - shared - hook_names):
                word = re.escape(w)
                # A function as code (called, quoted, in backquotes); an id or constant anywhere.
                pattern = (rf"(?<![\w.]){word}\(|[\"'`]{word}[\"'`]" if w.isidentifier() and w.islower()
                           else rf"(?<![\w.-]){word}(?![\w-])")
                if re.search(pattern, text):
                    hits.append(f"{path.relative_to(ROOT)}: {chapter}'s {w}")
    assert [] == hits


@pytest.mark.slow
def test_course_gradebook_merges_two_batches(tmp_path):
    """Chapter 7 and chapter 8 graded by grader batch, merged by grader gradebook: a column each."""
    ch7, ch8 = tmp_path / "ch7", tmp_path / "ch8"
    ch7.mkdir()
    ch8.mkdir()
    shutil.copytree(ROOT / "examples" / "submissions" / "correct", ch7 / "Taro Yamada_101_assignsubmission_file_")
    shutil.copytree(ROOT / "exercises" / "chapter07", ch7 / "=cmd()_102_assignsubmission_file_")
    done = ch8 / "Taro Yamada_101_assignsubmission_file_"
    done.mkdir()
    shutil.copyfile(ROOT / "solutions" / "chapter08" / "masking.py", done / "masking.py")
    (done / "answers.yaml").write_text(_answers(), encoding="utf-8")
    shutil.copytree(ROOT / "exercises" / "chapter08", ch8 / "Hanako Sato_103_assignsubmission_file_")
    for src, rubric in ((ch7, "rubrics/chapter07.yaml"), (ch8, "rubrics/chapter08.yaml")):
        proc = _grader("batch", str(src), "--out", str(src) + "-out", "--rubric", rubric, "--no-progress")
        assert proc.returncode in (0, 1), proc.stderr
    course = tmp_path / "course.csv"
    proc = _grader("gradebook", str(tmp_path / "ch8-out"), str(tmp_path / "ch7-out"), "--out", str(course))
    assert 0 == proc.returncode, proc.stderr
    with course.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        rows = {r["student"]: r for r in reader}
    assert ["student", "chapter08", "chapter08:max", "chapter07", "chapter07:max", "total", "total:max",
            "notes"] == reader.fieldnames
    assert {"101", "102", "103"} == set(rows)
    taro = rows["101"]
    assert float(taro["chapter08"]) == float(taro["chapter08:max"]) == 70
    assert float(taro["chapter07"]) == float(taro["chapter07:max"]) > 0
    assert float(taro["total"]) == float(taro["chapter07"]) + 70
    assert "" == rows["102"]["chapter08"] and 0 == float(rows["102"]["chapter07"])
    assert "" == rows["103"]["chapter07"] and rows["103"]["chapter07:max"] == taro["chapter07:max"]
    assert taro["total:max"] == rows["103"]["total:max"]
    again = _grader("gradebook", str(tmp_path / "ch8-out"), str(tmp_path / "ch8-out"), "--out", str(course))
    assert 2 == again.returncode and "a second gradebook for chapter08" in " ".join(again.stderr.split())


@pytest.mark.slow
@pytest.mark.install
def test_chapter08_release_installed_as_its_readme_says(tmp_path, release_venv):
    """grader release --rubric rubrics/chapter08.yaml, installed in a fresh venv (no -e) by the
    README's lines; grader check there names the stubs, a mistake with the student's numbers
    (from the plug-in shipped in the release), and passes the finished work."""
    from test_release_journey import Student, _readme_commands

    repo = tmp_path / "student-repo"
    built = _grader("release", str(repo), "--rubric", "rubrics/chapter08.yaml")
    assert 0 == built.returncode, built.stderr
    assert not (repo / "suites" / "chapter08" / "mutants").exists()
    assert not (repo / "suites" / "chapter08" / "hidden").exists()
    readme = (repo / "README.md").read_text(encoding="utf-8")
    assert "マスクするスコアに -inf ではなく 0 を書いている" in readme and "future_leak" in readme
    me = Student(repo, release_venv)
    for line in _readme_commands(readme):
        me.follow(line)
    folder = repo / "exercises" / "chapter08"
    _, report = me.check(cwd=repo)
    assert 0 == report["score"] and "not-implemented" in [m["id"] for m in report["mistakes"]]
    reference = ROOT / "solutions" / "chapter08"
    [mutant] = [m for m in load_mutants(ROOT / "suites" / "chapter08" / "mutants", ("masking.py",))
                if m.id == "mask-after-softmax" and not m.name.endswith("renormalised")]
    (folder / "masking.py").write_text(mutant.source(reference), encoding="utf-8")
    _, report = me.check(cwd=folder)
    [mistake] = report["mistakes"]
    assert "mask-after-softmax" == mistake["id"]
    assert f"{mistake['evidence']['row_sum']:.4f}" in mistake["message"]["en"]
    shutil.copyfile(reference / "masking.py", folder / "masking.py")
    (folder / "answers.yaml").write_text(_answers(), encoding="utf-8")
    _, report = me.check(cwd=repo)
    assert report["score"] == report["max_score"] > 0 and [] == report["mistakes"]


def test_two_assignments_graded_in_one_process_keep_their_own_suites():
    """chapter 8, then chapter 7, then chapter 8 again in one process (as validate --all does):
    each is graded by its own suite modules, though both have public/test_quiz.py."""
    from grader.grading.runner import grade
    from grader.ingest.submission import load_submission

    scores = []
    for name, folder in (("chapter08", "solutions/chapter08"), ("chapter07", "examples/submissions/correct"),
                         ("chapter08", "solutions/chapter08")):
        rubric = load_rubric(ROOT / "rubrics" / f"{name}.yaml")
        [report] = grade(rubric, [load_submission(ROOT / folder, assignment_of(rubric))], seed=4)
        scores.append((name, report.score == report.max_score > 0))
    assert [("chapter08", True), ("chapter07", True), ("chapter08", True)] == scores


@pytest.mark.browser
def test_chapter08_heat_map_in_the_browser(tmp_path):
    """The HTML report of a leaking submission, painted by chromium: the heat map is there, with
    the leaked future cells outlined in red, and the page logs no errors."""
    import numpy as np
    from matplotlib import image

    from test_report_html import _chromium, _headless

    browser = _chromium()
    assert browser is not None, "the browser tests need chromium (make test installs it)"
    folder = tmp_path / "leaky"
    folder.mkdir()
    [m] = [m for m in load_mutants(ROOT / "suites" / "chapter08" / "mutants", ("masking.py",)) if m.id == "mask-not-applied"]
    (folder / "masking.py").write_text(m.source(ROOT / "solutions" / "chapter08"), encoding="utf-8")
    page = tmp_path / "report.html"
    proc = _grader("grade", str(folder), "--rubric", "rubrics/chapter08.yaml", "--out", str(page), "--lang", "ja")
    assert proc.returncode in (0, 1), proc.stderr
    html = page.read_text(encoding="utf-8")
    assert 'id="plot-attention"' in html and "未来から漏れた重み" in html
    shot = tmp_path / "shot.png"
    run = _headless(browser, tmp_path / "profile", f"--screenshot={shot}", "--window-size=1200,3000", page.as_uri())
    assert shot.exists(), run.stderr[-2000:]
    pixels = np.asarray(image.imread(str(shot)))[..., :3]
    red = (pixels[..., 0] > 0.85) & (pixels[..., 1] < 0.15) & (pixels[..., 2] < 0.15)
    assert red.sum() > 200  # the outlines of the leaked cells
    assert "Uncaught" not in run.stderr
