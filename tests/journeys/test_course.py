"""Chapter 8 graded as users grade it, beside chapter 7.

Journeys run the real ``grader`` command (``python -m grader``) on real files: an LMS-style
folder of chapter-8 submissions (a folder, a notebook, a zip and one mutant per catalogue id)
through ``grader batch``, and ``grader new`` followed by ``grader validate`` in a fresh
course folder; and the chapter-8 release installed as its README says, in the run's release venv.
"""

from __future__ import annotations

import csv
import re
import shutil
import zipfile
from pathlib import Path

import pytest
import yaml

from grader.spec.assignment import assignment_of
from grader.spec.catalogue import catalogue
from grader.spec.rubric.load import load_rubric
from grader.prepare import build_notebook
from grader.prepare.validate import load_mutants
from grader.ingest.corpus import student_answers

from tests.helpers import ROOT, run_grader


CH8 = ROOT / "rubrics" / "chapter08.yaml"


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


def test_batch_grades_chapter08_folder_notebook_zip_and_every_mutant(tmp_path):
    """grader batch --rubric rubrics/chapter08.yaml: full marks for the correct forms, each
    mutant named with exactly its id, in Japanese and English with its own numbers."""
    expected = _submissions(tmp_path / "src")
    out = tmp_path / "out"
    proc = run_grader("batch", str(tmp_path / "src"), "--out", str(out), "--rubric", "rubrics/chapter08.yaml",
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


def test_new_assignment_validates_without_an_edit(tmp_path):
    """grader new chapter09, then grader validate --rubric rubrics/chapter09.yaml, in a fresh course."""
    proc = run_grader("new", "chapter09", cwd=tmp_path)
    assert 0 == proc.returncode, proc.stderr
    for rel in ("rubrics/chapter09.yaml", "exercises/chapter09/part1.py", "exercises/chapter09/chapter09.ipynb",
                "solutions/chapter09/part1.py", "suites/chapter09/public/test_part1.py",
                "suites/chapter09/hidden/test_part1.py", "suites/chapter09/plugin/hooks.py"):
        assert (tmp_path / rel).is_file(), rel
    # and mypy's check of the new hooks file against the hooks' types
    assert "suites.chapter09.plugin.hooks" in (tmp_path / "suites" / "hooks_conform.py").read_text()
    proc = run_grader("validate", "--rubric", "rubrics/chapter09.yaml", cwd=tmp_path)
    assert 0 == proc.returncode, proc.stdout + proc.stderr
    assert "all checks hold" in proc.stdout
    again = run_grader("new", "chapter09", cwd=tmp_path)
    assert 2 == again.returncode and "exists already" in " ".join(again.stderr.split())
    bad = run_grader("new", "Chapter 9", cwd=tmp_path)
    assert 2 == bad.returncode and "lower-case" in " ".join(bad.stderr.split())


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
        proc = run_grader("batch", str(src), "--out", str(src) + "-out", "--rubric", rubric, "--no-progress")
        assert proc.returncode in (0, 1), proc.stderr
    course = tmp_path / "course.csv"
    proc = run_grader("gradebook", str(tmp_path / "ch8-out"), str(tmp_path / "ch7-out"), "--out", str(course))
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
    again = run_grader("gradebook", str(tmp_path / "ch8-out"), str(tmp_path / "ch8-out"), "--out", str(course))
    assert 2 == again.returncode and "a second gradebook for chapter08" in " ".join(again.stderr.split())


@pytest.mark.install
def test_chapter08_release_installed_as_its_readme_says(tmp_path, release_venv):
    """grader release --rubric rubrics/chapter08.yaml, installed in a fresh venv (no -e) by the
    README's lines; grader check there names the stubs, a mistake with the student's numbers
    (from the plug-in shipped in the release), and passes the finished work."""
    from tests.journeys.test_release_journey import Student, _readme_commands

    repo = tmp_path / "student-repo"
    built = run_grader("release", str(repo), "--rubric", "rubrics/chapter08.yaml")
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
                if m.name == "mask-after-softmax/zero-future-after-softmax"]
    (folder / "masking.py").write_text(mutant.source(reference), encoding="utf-8")
    _, report = me.check(cwd=folder)
    [mistake] = report["mistakes"]
    assert "mask-after-softmax" == mistake["id"]
    assert f"{mistake['evidence']['row_sum']:.4f}" in mistake["message"]["en"]
    shutil.copyfile(reference / "masking.py", folder / "masking.py")
    (folder / "answers.yaml").write_text(_answers(), encoding="utf-8")
    _, report = me.check(cwd=repo)
    assert report["score"] == report["max_score"] > 0 and [] == report["mistakes"]


@pytest.mark.browser
def test_chapter08_heat_map_in_the_browser(tmp_path):
    """The HTML report of a leaking submission, painted by chromium: the heat map is there, with
    the leaked future cells outlined in red, and the page logs no errors."""
    import numpy as np
    from matplotlib import image

    from tests.helpers import chromium, headless

    browser = chromium()
    assert browser is not None, "the browser tests need chromium (make test installs it)"
    folder = tmp_path / "leaky"
    folder.mkdir()
    [m] = [m for m in load_mutants(ROOT / "suites" / "chapter08" / "mutants", ("masking.py",)) if m.id == "mask-not-applied"]
    (folder / "masking.py").write_text(m.source(ROOT / "solutions" / "chapter08"), encoding="utf-8")
    page = tmp_path / "report.html"
    proc = run_grader("grade", str(folder), "--rubric", "rubrics/chapter08.yaml", "--out", str(page), "--lang", "ja")
    assert proc.returncode in (0, 1), proc.stderr
    html = page.read_text(encoding="utf-8")
    assert 'id="plot-attention"' in html and "未来から漏れた重み" in html
    shot = tmp_path / "shot.png"
    run = headless(browser, tmp_path / "profile", f"--screenshot={shot}", "--window-size=1200,3000", page.as_uri())
    assert shot.exists(), run.stderr[-2000:]
    pixels = np.asarray(image.imread(str(shot)))[..., :3]
    red = (pixels[..., 0] > 0.85) & (pixels[..., 1] < 0.15) & (pixels[..., 2] < 0.15)
    assert red.sum() > 200  # the outlines of the leaked cells
    assert "Uncaught" not in run.stderr
