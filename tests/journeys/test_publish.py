"""Hidden results on a schedule (``report.hidden_details``), as the instructor runs it.

A real batch (one submission that fails hidden tests) with ``hidden_tests: none``: every student
view names no hidden test and holds none of its feedback. ``grader publish OUT`` (a real
process) writes them again with every hidden test's name and feedback; ``after_due`` does the
same by the time the views are written (a clock passed in). Bad values are clear errors.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml

from grader.errors import RubricError, UsageError
from grader.report.outdir import read_published, write_student_files
from grader.spec.rubric.load import load_rubric

from tests.helpers import ROOT, course_copy, run_grader


FORMATS = "[yaml, json, gradescope, junit, markdown, html]"
DUE = "2026-12-01T23:59:00+09:00"


def _course(dest: Path, when: str, *, due: bool = True) -> Path:
    course_copy(dest)
    rubric = dest / "rubrics" / f"{when}.yaml"
    text = (ROOT / "rubrics" / "chapter07.yaml").read_text(encoding="utf-8")
    for old, new in (("formats: [yaml]", f"formats: {FORMATS}"), ("hidden_tests: full", "hidden_tests: none"),
                     ("hidden_details: never", f"hidden_details: {when}")):
        assert text.count(old) == 1
        text = text.replace(old, new)
    rubric.write_text(text + (f"\ndue: {DUE}\n" if due else ""), encoding="utf-8")
    return rubric


def _views(out: Path) -> dict[str, str]:
    """Every student view in the folder, its text as a student reads it (entities and JSON decoded)."""
    got = {}
    for path in sorted((out / "reports").iterdir()):
        if path.suffix == ".yaml":
            continue  # the batch's own record, never handed to a student
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".json":
            text = json.dumps(json.loads(text), ensure_ascii=False)
        text = re.sub(r"\\([^\w\s])", r"\1", text)  # Markdown's escapes (also inside Gradescope's output)
        got[path.name] = html.unescape(text)
    return got


def _hidden_details(out: Path) -> list[tuple[str, ...]]:
    """What a student must not see early: each failing hidden test's name (its spellings) and feedback."""
    [record] = sorted((out / "reports").glob("*.yaml"))
    data = yaml.safe_load(record.read_text(encoding="utf-8"))
    failing = [t for t in data["tests"] if t["suite"] == "hidden" and t["status"] != "passed"]
    assert failing, "the submission must fail a hidden test for this test to mean anything"
    public = " ".join(json.dumps(t, ensure_ascii=False) for t in data["tests"] if t["suite"] != "hidden")
    details = []
    for t in failing:  # what only the hidden tests say (a public test may say the same of the same function)
        # its name: the title where a format shows titles, the test function where it shows ids
        names = (*[v for k, v in (t.get("title") or {}).items() if k == "en"], t["id"],
                 t["id"].rsplit("::", 1)[-1].split("[")[0])
        details.append(tuple(n for n in names if n not in public))
        details += [(line,) for text in (t.get("feedback") or {}).values() for line in text.splitlines()
                    if len(line.strip()) > 12 and line not in public]
    details = sorted({d for d in details if d})
    assert details, "the hidden tests must say something the public ones do not"
    return details


def _assert_hidden(views: dict[str, str], details: list[tuple[str, ...]]) -> None:
    assert len(views) == 5  # json, gradescope, junit, markdown, html
    for name, text in views.items():
        for d in details:
            assert not any(x in text for x in d), f"{name} shows {d!r} early"


def _assert_shown(views: dict[str, str], details: list[tuple[str, ...]]) -> None:
    assert len(views) == 5
    for name, text in views.items():
        missing = [d for d in details if not any(x in text for x in d)]
        assert not missing, f"{name} does not show {missing}"


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("publish")
    rubric = _course(base / "course", "after_publish")
    src = base / "class"
    shutil.copytree(ROOT / "examples" / "submissions" / "sqrt-d-model", src / "sqrt-d-model")
    out = base / "out"
    out.mkdir()
    done = run_grader("batch", str(src), "--out", str(out), "--rubric", str(rubric), "-j", "1", "--no-progress",
                "--lang", "en")
    assert done.returncode == 0, done.stderr
    return rubric, out


def test_after_publish_shows_hidden_details_only_once_published(batch: tuple[Path, Path]) -> None:
    rubric, out = batch
    details = _hidden_details(out)
    _assert_hidden(_views(out), details)
    assert read_published(out) is None

    done = run_grader("publish", str(out), "--rubric", str(rubric), "--by", "tanaka", "--lang", "en")
    assert done.returncode == 0, done.stderr
    record = read_published(out)
    assert record is not None and record["by"] == "tanaka"
    assert datetime.fromisoformat(record["at"]).tzinfo is not None
    _assert_shown(_views(out), details)
    gradescope = json.loads(next((out / "reports").glob("*.results.json")).read_text(encoding="utf-8"))
    assert all(t["visibility"] == "visible" for t in gradescope["tests"])

    # Every later writer keeps them published: a resumed batch writes the same views again.
    done = run_grader("batch", str(out.parent / "class"), "--out", str(out), "--rubric", str(rubric), "-j", "1",
                "--no-progress", "--lang", "en", "--resume")
    assert done.returncode == 0, done.stderr
    _assert_shown(_views(out), details)


def test_after_due_shows_hidden_details_by_the_time_they_are_written(batch: tuple[Path, Path],
                                                                      tmp_path: Path) -> None:
    _, published = batch
    out = tmp_path / "out"
    shutil.copytree(published, out)
    (out / "published.json").unlink(missing_ok=True)
    rubric = load_rubric(str(_course(tmp_path / "course", "after_due")))
    details = _hidden_details(out)
    [record] = sorted((out / "reports").glob("*.yaml"))
    from grader.report.outdir import read_report

    report = read_report(record)
    assert report is not None
    due = datetime.fromisoformat(DUE)
    write_student_files(out, record.stem, report, rubric, "en", lambda f, e: None, due.replace(minute=58))
    _assert_hidden(_views(out), details)
    write_student_files(out, record.stem, report, rubric, "en", lambda f, e: None, due)
    _assert_shown(_views(out), details)
    # never: not even long after the due date
    never = load_rubric(str(_course(tmp_path / "course", "never")))
    write_student_files(out, record.stem, report, never, "en", lambda f, e: None,
                        datetime(2030, 1, 1, tzinfo=timezone.utc))
    _assert_hidden(_views(out), details)


def test_after_due_waits_for_the_latest_extension(tmp_path: Path) -> None:
    """A student with an extension is still working after the rubric's due date: no report shows
    the hidden tests until their due date has passed too. The real batch with ``--extensions``
    records that date; a batch without extensions, only the rubric's."""
    from grader.report.outdir import read_latest_due, read_report

    rubric_file = _course(tmp_path / "course", "after_due")
    rubric = load_rubric(str(rubric_file))
    src = tmp_path / "class"
    shutil.copytree(ROOT / "examples" / "submissions" / "sqrt-d-model", src / "sqrt-d-model")
    extensions = tmp_path / "extensions.csv"
    extensions.write_text("student,days,reason\nken,2,illness\n", encoding="utf-8")
    out = tmp_path / "out"
    done = run_grader("batch", str(src), "--out", str(out), "--rubric", str(rubric_file), "-j", "1", "--no-progress",
                "--lang", "en", "--extensions", str(extensions))
    assert done.returncode == 0, done.stderr
    due = datetime.fromisoformat(DUE)
    assert read_latest_due(out) == due + timedelta(days=2)
    [record] = sorted((out / "reports").glob("*.yaml"))
    report = read_report(record)
    assert report is not None
    details = _hidden_details(out)
    write_student_files(out, record.stem, report, rubric, "en", lambda f, e: None, due + timedelta(days=1))
    _assert_hidden(_views(out), details)
    write_student_files(out, record.stem, report, rubric, "en", lambda f, e: None, due + timedelta(days=2))
    _assert_shown(_views(out), details)

    (out / "latest_due.json").write_text('{"latest_due": "2026-12-03T23:59:00"}\n', encoding="utf-8")
    with pytest.raises(UsageError, match="latest_due.json: not a due-date record; run grader batch out --resume"):
        read_latest_due(out)


def _feedback_texts(feedback_zip: Path) -> dict[str, str]:
    """Each file of Moodle's feedback-files zip, as a student reads it (entities decoded)."""
    import zipfile

    with zipfile.ZipFile(feedback_zip) as zf:
        return {n: html.unescape(zf.read(n).decode("utf-8")) for n in zf.namelist() if not n.endswith("/")}


def test_publish_rewrites_the_moodle_feedback_files(tmp_path: Path) -> None:
    """A Moodle export graded with ``--gradebook moodle`` under ``after_publish``: the feedback
    files Moodle hands each student hold no hidden test before ``grader publish``, and every
    failing hidden test after it (the zip is written again, still importable as before)."""
    import zipfile

    from tests.helpers import files_of
    from tests.lms_exports import moodle_feedback_participants, moodle_prefix

    rubric = _course(tmp_path / "course", "after_publish")
    export = tmp_path / "CS101-Chapter 7-42.zip"
    with zipfile.ZipFile(export, "w") as zf:
        for name, data in files_of(ROOT / "examples" / "submissions" / "sqrt-d-model").items():
            zf.writestr(f"{moodle_prefix('山田 太郎', 723458)}_assignsubmission_file_/{name}", data)
    out = tmp_path / "out"
    done = run_grader("batch", str(export), "--out", str(out), "--rubric", str(rubric), "-j", "1", "--no-progress",
                "--lang", "en", "--gradebook", "moodle")
    assert done.returncode == 0, done.stderr
    feedback = out / "moodle-feedback-files.zip"
    details = _hidden_details(out)
    before = _feedback_texts(feedback)
    assert before and moodle_feedback_participants(feedback) == {723458}
    for name, text in before.items():
        assert not any(x in text for d in details for x in d), f"{name} shows a hidden test before publish"

    done = run_grader("publish", str(out), "--rubric", str(rubric), "--by", "tanaka", "--lang", "en")
    assert done.returncode == 0, done.stderr
    after = _feedback_texts(feedback)
    assert sorted(after) == sorted(before) and moodle_feedback_participants(feedback) == {723458}
    shown = "\n".join(after.values())
    missing = [d for d in details if not any(x in shown for x in d)]
    assert not missing, f"the feedback files do not show {missing} after publish"


def test_bad_values_are_clear_errors(tmp_path: Path) -> None:
    rubric = _course(tmp_path / "course", "after_due", due=False)
    with pytest.raises(RubricError) as no_due:
        load_rubric(str(rubric))
    assert no_due.value.yaml_path == "report.hidden_details"
    assert str(rubric) in str(no_due.value) and "due:" in str(no_due.value)
    rubric.write_text(rubric.read_text(encoding="utf-8").replace("hidden_details: after_due",
                                                                 "hidden_details: soon"), encoding="utf-8")
    with pytest.raises(RubricError) as bad:
        load_rubric(str(rubric))
    assert bad.value.yaml_path == "report.hidden_details"
    assert "after_publish" in str(bad.value)
