"""A term against an LTI 1.3 platform (tests/lti_platform.py: lti1p3platform's token endpoint and
services, with Moodle's gradebook storage), as an instructor runs it with the real commands:
``grader batch`` with the submission times and one extension, two adjustments, a wrong hidden test
fixed and graded again with ``grader regrade``, ``grader publish``, then ``grader push --to lti13``
— a dry run first, whose cells are exactly the scores the real push then posts (read from the
platform's request log); then the platform holds every expected score and comment, a second push
writes nothing, and a grade changed in the platform survives a third push. Two grading commands in
all (the batch and the regrade).

The course: Ada (correct, on time), two students both named 山田 太郎 (one correct, a day late with an
extension; one with the √d_model mistake, a day late without one), Sam (the untouched stub). The
platform's roster also holds a learner who never opened the tool, the platform's test student, a
withdrawn (inactive) learner and the instructor: none of them is written to.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from tests.helpers import EXAMPLES, FIXED_TEST, ROOT, course_with_a_wrong_test, grader_here, read_gradebook, run_grader
from tests.lti_platform import INSTRUCTOR, LEARNER, TEST_USER, LtiPlatform, platform_file, rsa_pem

KID = "grader-term-2026"
PRIVATE, PUBLIC = rsa_pem()
DUE = "2026-12-01T23:59:00+09:00"
#: the batch's student (its folder) -> (LTI user id, the name in the platform, example, submitted)
CLASS = {
    "ada": ("7f1c-ada", "Ada Lovelace", "correct", "2026-12-01T10:00:00+09:00"),
    "taro-a": ("7f1c-taro-a", "山田 太郎", "correct", "2026-12-02T15:00:00+09:00"),
    "taro-b": ("7f1c-taro-b", "山田 太郎", "sqrt-d-model", "2026-12-02T12:00:00+09:00"),
    "sam": ("7f1c-sam", "Sam Stub", "untouched-stub", "2026-12-01T12:00:00+09:00"),
}
NEVER, TESTER, GONE, TEACHER = "7f1c-never", "7f1c-test", "7f1c-gone", "7f1c-teacher"


def _course(dest: Path) -> Path:
    """The course, due on DUE, with FIXED_TEST wrong (it fails everyone)."""
    return course_with_a_wrong_test(dest, DUE)


def _platform() -> LtiPlatform:
    members = [{"user_id": uid, "name": name, "roles": [LEARNER]} for uid, name, _, _ in CLASS.values()]
    members += [{"user_id": NEVER, "name": "山田 太郎", "roles": [LEARNER]},
                {"user_id": TESTER, "name": "Test Student", "roles": [LEARNER, TEST_USER]},
                {"user_id": GONE, "name": "Gone Away", "roles": [LEARNER], "status": "Inactive"},
                {"user_id": TEACHER, "name": "Tina Teacher", "roles": [INSTRUCTOR]}]
    return LtiPlatform(PUBLIC, KID, members).start()


def _posted(lti: LtiPlatform) -> dict[str, float]:
    """The scores the platform took, by user id, as its request log has them (scaled as it stores them)."""
    out: dict[str, float] = {}
    for r in lti.log:
        if r.method == "POST" and r.path.endswith("/scores") and r.status < 300:
            item = lti.lineitems[r.path.split("/lineitems/")[1].split("/")[0]]
            out[r.body["userId"]] = round(r.body["scoreGiven"] * item["scoreMaximum"] / r.body["scoreMaximum"], 2)
    return out


def test_an_lti13_term_batch_adjust_regrade_extension_push(tmp_path: Path) -> None:
    rubric = _course(tmp_path / "course")
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    for student, (_, _, example, _) in CLASS.items():
        shutil.copytree(EXAMPLES / example, src / student)
    submitted, extensions, ids = tmp_path / "submitted.csv", tmp_path / "extensions.csv", tmp_path / "ids.csv"
    submitted.write_text("student,submitted\n" + "".join(f"{s},{c[3]}\n" for s, c in CLASS.items()), encoding="utf-8")
    extensions.write_text("student,due,reason\ntaro-a,2026-12-03T23:59:00+09:00,illness\n", encoding="utf-8")
    ids.write_text("student,lms_id\n" + "".join(f"{s},{c[0]}\n" for s, c in CLASS.items()), encoding="utf-8")
    by_student = {s: c[0] for s, c in CLASS.items()}
    lti = _platform()
    folder = tmp_path / "lti"
    folder.mkdir()
    platform = platform_file(folder, lti, PRIVATE)

    def push(*more: str) -> object:
        result = grader_here("push", out, "--to", "lti13", "--platform", platform, "--lms-ids", ids, "--lang", "en",
                             *more)
        assert not any(t in result.stdout + result.stderr for t in lti.tokens_issued)
        return result

    try:
        # --- batch, with the submission times and one extension
        batch = run_grader("batch", src, "--out", out, "--no-progress", "--no-table", "--seed", "3", "--rubric", rubric,
                           "--submitted", submitted, "--extensions", extensions, "--lang", "en")
        assert batch.returncode == 0, batch.stderr
        rows = read_gradebook(out, by="student_id")
        assert set(rows) == set(CLASS)
        reports = {r["student"]["id"]: r for r in (yaml.safe_load(p.read_text(encoding="utf-8"))
                                                   for p in (out / "reports").glob("*.yaml"))}
        assert "late" not in reports["taro-a"]  # a day late, within the extension
        assert reports["taro-b"]["late"]["days"] == 1 and "late" not in reports["ada"]

        # --- two adjustments
        for who, points, reason in (("ada", "-1", "copied the softmax from a classmate"),
                                    ("sam", "2", "partial credit: the docstring was right")):
            adj = grader_here("adjust", out, who, f"--points={points}", "--reason", reason, "--lang", "en")
            assert adj.exit_code == 0, adj.stderr

        # --- the wrong test fixed, graded again
        shutil.copyfile(ROOT / "suites" / "chapter07" / "hidden" / "test_scaling.py",
                        rubric.parent.parent / "suites" / "chapter07" / "hidden" / "test_scaling.py")
        regrade = run_grader("regrade", src, "--out", out, "--test", FIXED_TEST, "--no-progress", "--rubric", rubric,
                             "--lang", "en")
        assert regrade.returncode == 0, regrade.stderr
        after = read_gradebook(out, by="student_id")
        final = {by_student[k]: round(float(r["score"]), 2) for k, r in after.items()}
        assert float(after["taro-a"]["score"]) > float(rows["taro-a"]["score"])  # the regrade moved it
        assert float(after["ada"]["automatic_score"]) > float(rows["ada"]["automatic_score"])
        assert final[by_student["taro-b"]] < float(reports["taro-b"]["late"]["score_before"]) + 1  # still late

        # --- nothing before the results are public; then published
        refused = push()
        assert refused.exit_code == 2 and "grader publish" in refused.stderr and lti.log == []
        assert grader_here("publish", out, "--lang", "en").exit_code == 0

        # --- the dry run: the cells a push would change, nothing written (not even the line item)
        before = {str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*") if p.is_file()}
        dry = push("--dry-run")
        assert dry.exit_code == 0, dry.stderr
        assert lti.write_requests() == [] and lti.lineitems == {}
        assert {str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
        planned = {re.search(r"\[([^\]]+)\]", x)[1]: float(x.split("-> ")[1].split(" ")[0])  # type: ignore[index]
                   for x in dry.stdout.splitlines() if "->" in x}
        assert planned == final
        dry_lines = {re.search(r"\[([^\]]+)\]", x)[1]: x for x in dry.stdout.splitlines() if "->" in x}  # type: ignore[index]
        assert "copied the softmax from a classmate" in dry_lines[by_student["ada"]]
        assert "late policy" in dry_lines[by_student["taro-b"]]
        assert "late policy" not in dry_lines[by_student["taro-a"]]

        # --- the push: exactly those cells, by the platform's own request log
        real = push()
        assert real.exit_code == 0, real.stderr
        assert _posted(lti) == planned
        assert lti.held() == final  # every expected value, and no one else's: not the never-opened,
        assert not {NEVER, TESTER, GONE, TEACHER} & set(lti.held())  # the test student, the withdrawn, the teacher
        comments = lti.comments()
        assert all((comments[k] or "").startswith(f"得点 {final[k]:g} / ") for k in final)
        assert "copied the softmax from a classmate" in (comments[by_student["ada"]] or "")
        assert "partial credit: the docstring was right" in (comments[by_student["sam"]] or "")
        assert "間違い: " in (comments[by_student["taro-b"]] or "")
        # the two 山田 太郎 hold their own scores, and the third (who never opened the tool) none
        assert final[by_student["taro-a"]] != final[by_student["taro-b"]]
        # the push makes no one late in the platform: no submission time in any score
        assert all("submission" not in s and s["https://canvas.instructure.com/lti/submission"] == {"new_submission": False}
                   for s in lti.scores_posted)
        assert len(lti.lineitems) == 1
        lines = {re.search(r"\[([^\]]+)\]", x)[1]: x for x in real.stdout.splitlines() if "[" in x}  # type: ignore[index]
        assert all(lines[k].endswith(": sent") for k in final)

        # --- a second push writes nothing
        writes = len(lti.write_requests())
        second = push()
        assert second.exit_code == 0 and len(lti.write_requests()) == writes
        assert all(": unchanged" in x for x in second.stdout.splitlines() if "[" in x)

        # --- a grade changed in the platform survives a third push
        sam = by_student["sam"]
        lti.edit(sam, 1.5)
        third = push()
        assert third.exit_code == 0 and len(lti.write_requests()) == writes
        assert lti.held()[sam] == 1.5
        assert "changed in the LMS since the last push (it holds 1.5" in next(
            x for x in third.stdout.splitlines() if f"[{sam}]" in x)
        ledger = [json.loads(x) for x in (out / "ledger.jsonl").read_text(encoding="utf-8").splitlines()]
        assert [e["op"] for e in ledger if e["op"] == "push"] == ["push"] * 3
        assert grader_here("ledger", out, "--verify").exit_code == 0
    finally:
        lti.stop()
    for path in out.rglob("*"):
        if path.is_file():
            assert not any(t.encode() in path.read_bytes() for t in lti.tokens_issued), path


@pytest.fixture(autouse=True)
def _no_grader_lang(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRADER_LANG", raising=False)
