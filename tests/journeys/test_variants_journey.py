"""Per-student variants through a term: 40 students get personal releases, hand in (each quiz file with
the variance table the student measured), 5 of them with another student's answers or only another's
table; the batch grades each with their own numbers and flags exactly those 5.

The course is a copy of chapter 7 with its issued table (proven by ``grader variants check``, frozen
in ``rubrics/chapter07.variants.json``); the course secret is a file of the test's own.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import torch
import yaml

from tests.helpers import EXAMPLES, ROOT, course_copy, read_gradebook, read_report, run_grader

STUDENTS = [f"s{1001 + i}" for i in range(40)]
SQRT_D_MODEL = STUDENTS[30:36]  # hand in chapter 7's classic mistake in scaling.py
TABLE_ONLY = STUDENTS[4]  # copies only another student's experiment table, not their quiz answers
N_SAMPLES = 10000  # the variance experiment's samples per row (the contract's default)


@pytest.fixture(scope="module")
def term(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("variants")
    env = {**os.environ, "GRADER_SECRET_FILE": str(base / "home" / "grader-secret")}
    course = course_copy(base / "course", chapters=("chapter07",))
    shutil.copyfile(ROOT / "rubrics" / "chapter07.variants.json", course / "rubrics" / "chapter07.variants.json")
    rubric = course / "rubrics" / "chapter07.yaml"
    (base / "roster.txt").write_text("\n".join(STUDENTS) + "\n", encoding="utf-8")
    released = run_grader("release", base / "releases", "--variants", base / "roster.txt", "--rubric", rubric,
                          "--lang", "en", env=env)
    assert released.returncode == 0, released.stderr
    own = {s: json.loads((base / "releases" / s / "rubrics" / "chapter07.my-variant.json").read_text(encoding="utf-8"))
           for s in STUDENTS}
    key = yaml.safe_load((ROOT / "solutions" / "chapter07" / "answers.yaml").read_text(encoding="utf-8"))

    def table_of(s: str) -> list[dict[str, float]]:
        """The variance table the student measured for their own dimensions (its noise their own)."""
        gen = torch.Generator().manual_seed(STUDENTS.index(s))
        rows = []
        for d in own[s]["values"]["dims"]:
            dots = (torch.randn(N_SAMPLES, d, generator=gen, dtype=torch.float64)
                    * torch.randn(N_SAMPLES, d, generator=gen, dtype=torch.float64)).sum(1)
            rows.append({"d_k": d, "variance": round(float(dots.var()), 3),
                         "scaled_variance": round(float((dots / math.sqrt(d)).var()), 4)})
        return rows

    def answers_of(s: str, table_from: str) -> str:
        v = own[s]["values"]
        filled: dict[str, object] = {q: {"answer": e["answer"]} for q, e in key.items()}
        filled["head-dim-4096-32"] = {"answer": v["d_k"]}
        filled["divisor-4096-32"] = {"answer": round(math.sqrt(v["d_k"]), 4)}
        filled["variance-table"] = table_of(table_from)
        return yaml.safe_dump(filled, sort_keys=False)

    # Five copiers: four with the whole quiz file of a student whose d_k differs from theirs (where it
    # is the same, the copied answers are right for the copier too: no evidence, and none is claimed),
    # and one with only the experiment table of a student whose dimensions differ from theirs.
    copiers: dict[str, str] = {}
    for copier in STUDENTS[:4]:
        copiers[copier] = next(s for s in STUDENTS[10:30] if own[s]["values"]["d_k"] != own[copier]["values"]["d_k"])
    copiers[TABLE_ONLY] = next(s for s in STUDENTS[10:30] if own[s]["values"]["dims"] != own[TABLE_ONLY]["values"]["dims"])
    subs = base / "submissions"
    for s in STUDENTS:
        folder = subs / s
        folder.mkdir(parents=True)
        for name in ("scaling.py", "softmax.py", "variance.py"):
            shutil.copyfile(ROOT / "solutions" / "chapter07" / name, folder / name)
        if s in SQRT_D_MODEL:
            shutil.copyfile(EXAMPLES / "sqrt-d-model" / "scaling.py", folder / "scaling.py")
        quiz_from = s if s == TABLE_ONLY else copiers.get(s, s)
        (folder / "answers.yaml").write_text(answers_of(quiz_from, copiers.get(s, s)), encoding="utf-8")
    out = base / "out"
    batch = run_grader("batch", subs, "--out", out, "--rubric", rubric, "--variants", "--similarity", "-j", "2",
                       "--lang", "en", env=env, timeout=1800)
    assert batch.returncode == 0, batch.stderr
    return {"base": base, "env": env, "rubric": rubric, "own": own, "copiers": copiers, "out": out,
            "table": json.loads((course / "rubrics" / "chapter07.variants.json").read_text(encoding="utf-8"))}


def test_every_release_holds_its_own_numbers_and_no_other_variants(term: dict[str, Any]) -> None:
    table = term["table"]["variants"]
    assert len(table) >= 24
    for s, v in term["own"].items():
        folder = term["base"] / "releases" / s
        others = {w["id"] for w in table if w["id"] != v["id"]}
        blobs = [p.read_bytes() for p in folder.rglob("*") if p.is_file()]
        assert not [o for o in others if any(o.encode() in b for b in blobs)], s
        quiz = (folder / "exercises" / "chapter07" / "answers.yaml").read_text(encoding="utf-8")
        vals = v["values"]
        assert f"Your model has d_model = {vals['d_model']} and {vals['n_heads']} heads." in quiz
        assert "variants" not in yaml.safe_load((folder / "rubrics" / "chapter07.yaml").read_text(encoding="utf-8"))


def test_every_student_is_graded_with_their_own_variant_and_the_report_and_gradebook_say_which(term: dict[str, Any]) -> None:
    book = read_gradebook(term["out"], by="submission")
    for s, v in term["own"].items():
        report = read_report(term["out"], s)
        assert report["variant"] == v
        assert book[s]["variant"] == v["id"]
        [note] = [n for n in report["notes"] if v["id"] in n]
        assert f"d_model = {v['values']['d_model']}, n_heads = {v['values']['n_heads']}" in note
        assert "d_k" not in note  # what the quiz asks the student to work out
        if s not in term["copiers"] and s not in SQRT_D_MODEL:
            assert report["score"] == report["max_score"], s  # the reference's code and their own answers


def test_the_mistake_is_explained_with_the_students_own_sizes(term: dict[str, Any]) -> None:
    for s in SQRT_D_MODEL:
        vals = term["own"][s]["values"]
        [m] = [m for m in read_report(term["out"], s)["mistakes"] if m["id"] == "sqrt-d-model"]
        d_model, n_heads, d_k = vals["d_model"], vals["n_heads"], vals["d_k"]
        for lang in ("en", "ja"):
            assert f"√{d_model}" in m["message"][lang] and f"{d_model} / {n_heads} = {d_k}" in m["message"][lang]


def test_the_batch_flags_exactly_the_five_copiers_naming_whose_answers_or_table_they_fit(term: dict[str, Any]) -> None:
    rows = list(csv.DictReader(io.StringIO((term["out"] / "similarity.csv").read_text(encoding="utf-8"))))
    flagged: dict[str, dict[str, str]] = {}
    for row in rows:
        for part in row["evidence"].split(" | ")[0].split("; "):
            for kind in ("answers", "experiment results"):
                if part.startswith(f"{kind} fit the variant of "):
                    copier = part.split("not ", 1)[1].split("'s own", 1)[0]
                    source = part.split(" fit the variant of ", 1)[1].split(" ", 1)[0]
                    flagged.setdefault(copier, {})[kind] = source
                    assert term["own"][source]["id"] in part and term["own"][copier]["id"] in part
    assert set(flagged) == set(term["copiers"])  # the five, and no one else
    own, copiers = term["own"], term["copiers"]
    # The one copied, or a student with the very same numbers (another copier of the same file).
    for copier, kinds in flagged.items():
        copied = own[copiers[copier]]["values"]
        if copier == TABLE_ONLY:  # only the table: named for it alone
            assert set(kinds) == {"experiment results"}
            assert own[kinds["experiment results"]]["values"]["dims"] == copied["dims"]
            continue
        assert own[kinds["answers"]]["values"]["d_k"] == copied["d_k"]
        if copied["dims"] != own[copier]["values"]["dims"]:  # the table came with the quiz file
            assert own[kinds["experiment results"]]["values"]["dims"] == copied["dims"]


def test_the_issued_table_and_its_hash_are_in_the_ledger(term: dict[str, Any]) -> None:
    lines = [json.loads(line) for line in (term["out"] / "ledger.jsonl").read_text(encoding="utf-8").splitlines()]
    [entry] = [e for e in lines if e["op"] == "variants"]
    assert entry["variants"]["hash"] == term["table"]["hash"]
    assert run_grader("ledger", term["out"], "--verify").returncode == 0


def test_a_regrade_grades_each_student_again_with_the_variant_their_report_records(term: dict[str, Any]) -> None:
    before = {s: read_report(term["out"], s)["score"] for s in STUDENTS}
    regraded = run_grader("regrade", term["base"] / "submissions", "--out", term["out"], "--test", "hidden/test_quiz.py::*",
                          "-j", "2", env=term["env"])
    assert regraded.returncode == 0, regraded.stderr
    for s, v in term["own"].items():
        report = read_report(term["out"], s)
        assert report["variant"] == v and report["score"] == before[s], s


def test_a_blind_batch_finds_each_students_variant_by_the_id_behind_the_anonymous_one(term: dict[str, Any]) -> None:
    few = term["base"] / "few"
    for s in STUDENTS[5:8]:
        shutil.copytree(term["base"] / "submissions" / s, few / s)
    out = term["base"] / "blind"
    blind = run_grader("batch", few, "--out", out, "--rubric", term["rubric"], "--variants", "--anonymous",
                       "--lang", "en", env=term["env"])
    assert blind.returncode == 0, blind.stderr
    ids = {row["anonymous_id"]: row["student_id"]
           for row in csv.DictReader(io.StringIO((out / "identities.csv").read_text(encoding="utf-8")))}
    assert sorted(ids.values()) == STUDENTS[5:8]
    for aid, s in ids.items():
        report = read_report(out, aid)
        assert report["variant"] == term["own"][s]
        assert s not in (out / "reports" / f"{aid}.yaml").read_text(encoding="utf-8")


def test_gradescope_grades_each_student_with_the_variant_of_their_id(term: dict[str, Any]) -> None:
    """The autograder carries each roster student's variant (never the secret) and grades the submission
    of Gradescope's ``sid`` with it."""
    import subprocess
    import sys
    import zipfile

    built = run_grader("gradescope", term["base"] / "gs", "--variants", term["base"] / "roster.txt",
                       "--rubric", term["rubric"], env=term["env"])
    assert built.returncode == 0, built.stderr
    s = SQRT_D_MODEL[0]
    root = term["base"] / "autograder"
    (root / "source").mkdir(parents=True)
    shutil.copytree(term["base"] / "submissions" / s, root / "submission")
    (root / "submission_metadata.json").write_text(json.dumps({"users": [{"sid": s, "name": "x"}]}), encoding="utf-8")
    with zipfile.ZipFile(term["base"] / "gs" / "autograder.zip") as zf:
        zf.extractall(root / "source")
    env = {k: v for k, v in term["env"].items() if k not in ("GRADER_SECRET_FILE", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY")}
    env.update(AUTOGRADER_ROOT=str(root), AUTOGRADER_PYTHON=sys.executable, GRADER_SECRET_FILE=str(root / "no-secret"))
    run = subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env, capture_output=True, text=True,
                         timeout=600, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    own = term["own"][s]
    assert results["extra_data"]["variant"] == own["id"]
    assert f"√{own['values']['d_model']}" in results["output"]
    assert not (root / "no-secret").exists()  # graded from the roster's variants: no secret there


def test_editing_the_generator_after_release_changes_no_issued_variant(term: dict[str, Any]) -> None:
    rubric: Path = term["rubric"]
    data = yaml.safe_load(rubric.read_text(encoding="utf-8"))
    data["variants"]["params"]["temperature"] = [0.25, 1.5, 3.0]
    data["variants"]["params"]["d_model"] = [128, 256]
    rubric.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    shown = run_grader("variants", "show", *STUDENTS, "--rubric", rubric, env=term["env"])
    assert shown.returncode == 0, shown.stderr
    got = {line.split("\t")[0]: line.split("\t")[1] for line in shown.stdout.splitlines()}
    assert got == {s: v["id"] for s, v in term["own"].items()}
