"""``grader review OUT`` as a course uses it after the batch: two reviewers' browsers (Debian's
chromium through playwright) on the graded class, every action a ledger line, then the term goes
on (``grader export``, ``grader ledger --verify``) and the students' reports show each change.

Two students join the graded class first (one small ``grader batch --resume``): they clamp the
scaled scores, spelled two ways, a mistake the catalogue does not name, so the queue holds an
unknown-mistake cluster of the two.

One journey, in order: the unknown-mistake cluster confirmed in one action; two comments on
lines; a manual rubric item ticked by its key and a part's points changed; two reviewers saving the same student (the second sees
both versions and writes theirs after); a blind review, one student revealed; then the export,
the reports and the ledger.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from grader.report import ledger
from tests.helpers import ROOT, chromium, read_gradebook, read_report, rubric_copy, run_grader
from tests.journeys.test_class_pages import CLAMP, REFERENCE

pytestmark = pytest.mark.browser

URL = re.compile(r"http://127\.0\.0\.1:\d+/login\?token=[\w-]+")


@contextmanager
def review(out: Path, *args: str) -> Iterator[tuple[str, list[str]]]:
    """``grader review OUT --no-browser`` running: (its base URL, the launch URLs it printed)."""
    process = subprocess.Popen([sys.executable, "-m", "grader", "review", str(out), "--no-browser", "--lang", "en",
                                "--by", "tanaka", *args], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    try:
        wanted = (int(args[args.index("--links") + 1]) if "--links" in args else 1) + args.count("--reviewer")
        urls: list[str] = []
        assert process.stderr is not None
        while len(urls) < wanted:
            line = process.stderr.readline()
            assert line, "grader review ended before printing its launch URL"
            urls += URL.findall(line)
        yield urls[0].split("/login")[0], urls
    finally:
        process.send_signal(signal.SIGINT)  # (Ctrl-C)
        assert process.wait(timeout=30) in (0, 130)
        if process.stderr is not None:
            process.stderr.close()


@pytest.fixture
def browser() -> Iterator[Any]:
    found = chromium()
    assert found, "the browser tests need chromium (make test installs it)"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=found, args=["--no-sandbox"])
        yield b
        b.close()


def open_student(page: Any, base: str, name: str) -> None:
    page.goto(f"{base}/?lang=en")
    link = page.locator("a.member", has_text=name).first
    with page.expect_navigation():
        link.click()


def join_the_clampers(graded_class: Any, tmp_path: Path) -> Path:
    """The graded class with the two clampers graded into it (one ``grader batch --resume``)."""
    src, out = graded_class.copy_source(tmp_path / "src"), graded_class.copy(tmp_path / "out")
    for name, body in CLAMP.items():
        shutil.copytree(REFERENCE, src / name, ignore=shutil.ignore_patterns("__pycache__"))
        path = src / name / "scaling.py"
        path.write_text(path.read_text(encoding="utf-8") + "\n\nimport math\nimport torch\n\n\n"
                        "def scale_scores(scores, d_k):\n" + body, encoding="utf-8")
    done = run_grader("batch", src, "--out", out, *graded_class.args, "--resume", timeout=1800)
    assert done.returncode in (0, 1), done.stderr[-3000:]
    assert f"2 graded, {len(graded_class.names)} kept from before" in done.stderr, done.stderr[-2000:]
    return out


def test_a_class_reviewed_in_the_browser_reaches_the_export_and_the_reports(graded_class: Any, tmp_path: Path,
                                                                         browser: Any) -> None:
    out = join_the_clampers(graded_class, tmp_path)
    items = rubric_copy(tmp_path, manual=[{"id": "explanation", "part": "variance", "points": 1,
                                           "title": {"en": "Explains why √d_k", "ja": "√d_k の理由を説明"}}])
    with review(out, "--reviewer", "suzuki", "--rubric", str(items)) as (base, (mine, theirs)):
        a, b = browser.new_context(), browser.new_context()
        page, other = a.new_page(), b.new_page()
        outside: list[str] = []
        for context in (a, b):
            context.on("request", lambda r: outside.append(r.url) if not r.url.startswith(base + "/") else None)
        page.goto(mine)
        other.goto(theirs)
        assert "Review queue" in page.inner_text("h1") and "Review queue" in other.inner_text("h1")

        # 1. the unknown-mistake cluster of the two clampers, confirmed with one key
        cluster = page.locator("li.kind-cluster").filter(has_text="clamp-a").filter(has_text="clamp-b")
        assert cluster.count() == 1
        key = cluster.get_attribute("data-group")
        with page.expect_navigation():
            cluster.locator("a.group-link").click()
        assert sorted(page.eval_on_selector_all("table.members a.member", "xs => xs.map(x => x.textContent)")) == [
            "clamp-a", "clamp-b"]
        with page.expect_navigation():
            page.keyboard.press("a")
        reviewed = [e for e in ledger.read(out) if e.op == "review"]
        assert sorted(e.submission for e in reviewed) == ["clamp-a", "clamp-b"]
        assert all((e.note or {}).get("group") == key and e.by == "tanaka" for e in reviewed)
        assert page.locator("table.members tr.done").count() == 2

        # 2. two comments on lines of divide-by-dk's code: click, shift-click, c, the text, Enter
        open_student(page, base, "divide-by-dk")
        for first, last, text in ((16, 18, "d_k で割っています: √d_k で割りましょう"), (3, 3, "<b>why import here?</b>")):
            page.click(f".file[data-file='scaling.py'] tr[data-line='{first}']")
            page.click(f".file[data-file='scaling.py'] tr[data-line='{last}']", modifiers=["Shift"])
            page.keyboard.press("c")
            page.keyboard.type(text)
            with page.expect_navigation():
                page.keyboard.press("Enter")
        comments = [e for e in ledger.read(out) if e.op == "comment"]
        assert [(e.submission, e.note["start"], e.note["end"]) for e in comments if e.note] == [
            ("divide-by-dk", 16, 18), ("divide-by-dk", 3, 3)]
        assert page.locator(".comment.state-here").count() == 2

        # 3. the manual rubric item by its key (1), then the scaling part's points: the points, the
        # reason, Escape, s saves
        with page.expect_navigation():
            page.keyboard.press("1")
        assert "☑ Explains why √d_k (+1, variance)" in page.inner_text("#items")
        page.select_option("#adjust-part", "scaling")
        page.fill("#adjust-points", "2")
        page.fill("#adjust-reason", "partial credit: the reasoning in the comment is right")
        page.keyboard.press("Escape")
        with page.expect_navigation():
            page.keyboard.press("s")
        adjusted = [e for e in ledger.read(out) if e.op == "adjust"]
        assert [(e.submission, e.part, e.points, (e.note or {}).get("item"), e.by) for e in adjusted] == [
            ("divide-by-dk", "variance", 1.0, "explanation", "tanaka"), ("divide-by-dk", "scaling", 2.0, None, "tanaka")]

        # 4. two reviewers on sqrt-d-model: the second gets both versions, then writes theirs too
        open_student(page, base, "sqrt-d-model")
        open_student(other, base, "sqrt-d-model")
        for who, points, reason in ((page, "1", "first reviewer"), (other, "-1", "second reviewer")):
            who.fill("#adjust-points", points)
            who.fill("#adjust-reason", reason)
            with who.expect_navigation():
                who.click("#adjust button[type=submit]")
        assert other.is_visible("#conflict")
        clash = other.inner_text("main")
        assert "first reviewer" in clash and "second reviewer" in clash
        assert [e.reason for e in ledger.read(out) if e.submission == "sqrt-d-model"] == ["first reviewer"]
        with other.expect_navigation():
            other.click("#send-again button")
        assert [(e.reason, e.by) for e in ledger.read(out) if e.submission == "sqrt-d-model"] == [
            ("first reviewer", "tanaka"), ("second reviewer", "suzuki")]
        assert outside == []
        a.close()
        b.close()

    # 5. a blind review: pseudonyms only, until one student is revealed (a ledger line)
    names = graded_class.names
    with review(out, "--blind") as (base, (url,)):
        page = browser.new_page()
        page.goto(url)
        shown = page.eval_on_selector_all("a.member", "xs => xs.map(x => x.textContent)")
        assert len(shown) >= len(names) and all(re.fullmatch(r"S-[0-9a-f]{6}", x) for x in shown)  # (the groups'
        # titles are the catalogue's mistake ids, which some of this class's folders are named after)
        with page.expect_navigation():
            page.locator("a.member").first.click()
        pseudonym = page.inner_text("#who").split()[0]
        assert pseudonym.startswith("S-") and not [n for n in names if n in page.inner_text("#who")]
        page.fill("#reveal-reason", "the student asked for a regrade")
        with page.expect_navigation():
            page.click("#reveal button")
        (revealed,) = [e for e in ledger.read(out) if e.op == "reveal"]
        assert revealed.note == {"pseudonym": pseudonym} and revealed.submission in page.inner_text("#who")
        page.close()

    # 6. the term goes on: the export and the reports show every change, and the ledger verifies
    done = run_grader("export", out, "--gradebook", "csv")
    assert done.returncode == 0, done.stderr
    rows = {r["submission"]: r for r in read_gradebook(out)}
    assert {"clamp-a", "clamp-b"} <= set(rows)  # (the two who joined)
    before = {r["submission"]: r for r in read_gradebook(graded_class.out)}
    assert float(rows["divide-by-dk"]["score"]) == float(before["divide-by-dk"]["score"]) + 2 + 1
    assert float(rows["sqrt-d-model"]["score"]) == float(before["sqrt-d-model"]["score"])  # +1 then -1
    assert "partial credit" in rows["divide-by-dk"]["adjustment_reasons"]
    report = read_report(out, "divide-by-dk")
    assert [(c["start"], c["end"]) for c in report["comments"]] == [(16, 18), (3, 3)]
    from grader.report import render
    from grader.report.model import GradeReport
    from grader.spec.rubric.load import load_rubric
    from tests.helpers import RUBRIC

    for lang, heading in (("en", "Comments on your code"), ("ja", "コードへのコメント")):  # (this rubric writes
        for fmt in ("markdown", "html", "json", "gradescope", "junit"):  # only yaml files: the other formats)
            text = render(GradeReport.from_dict(report), fmt, rubric=load_rubric(RUBRIC), lang=lang)
            assert "√d_k で割りましょう" in text and "why import here?" in text
            assert "partial credit" in text or fmt in ("gradescope", "junit")  # (these two carry no adjustments yet)
            assert {"html": "&lt;b&gt;why", "markdown": "\\<b>why", "json": "<b>why", "gradescope": "\\\\<b>why",
                    "junit": "&lt;b&gt;why"}[fmt] in text  # as text
            assert heading in text or fmt == "json"
    assert run_grader("ledger", out, "--verify").returncode == 0
    listed = run_grader("ledger", out, "--lang", "en")  # the cluster's confirmation, one line per member
    assert listed.returncode == 0, listed.stderr
    lines = [line.split("\t") for line in listed.stdout.splitlines()]
    assert sorted(r[2] for r in lines if r[1] == "review" and r[4] == key) == ["clamp-a", "clamp-b"]
    assert len(ledger.read(out)) == len(reviewed) + 2 + 2 + 2 + 1
    assert os.stat(out / "ledger.jsonl").st_size > 0
