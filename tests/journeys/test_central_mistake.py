"""The chapter's central mistake (``central: true`` in the rubric) is never hidden by a pass.

The √768 example submission scores above the pass mark (it loses only the tests of
``scaling_factor``); the student must still read "passed, but …" with the mistake first, in
the terminal, the GitHub job summary and its annotations, and every report, in both languages.
Each test runs the grader as the student or the CI workflow does (a real process).
"""

from __future__ import annotations

import html.parser
import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.helpers import ROOT, run_grader


SQRT = ROOT / "examples" / "submissions" / "sqrt-d-model"
CORRECT = ROOT / "examples" / "submissions" / "correct"

BUT = {"en": "passed, but with the central mistake", "ja": "合格。ただし核心の間違い"}
TITLE = {"en": "Passed, but with the chapter's central mistake", "ja": "合格ですが、この章の核心の間違いがあります"}


def _grader(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GRADER_LANG"))}
    full.update(env or {}, COLUMNS="200")
    return run_grader(*args, env=full, timeout=600)


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_check_in_ci_says_passed_but_with_the_mistake_first(lang: str, tmp_path: Path) -> None:
    """`grader check` in a GitHub workflow: the terminal, the job summary and a ::warning."""
    summary = tmp_path / "summary.md"
    outputs = tmp_path / "outputs"
    run = _grader("check", str(SQRT), "--lang", lang,
                  env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary),
                       "GITHUB_OUTPUT": str(outputs)})
    assert run.returncode == 0, run.stderr
    assert "passed=true" in outputs.read_text(encoding="utf-8")  # it did pass on points
    lines = run.stdout.splitlines()

    # One ::warning for the central mistake, at scaling_factor's def, titled "passed, but …".
    [warning] = [x for x in lines if x.startswith("::warning ")]
    defs = (SQRT / "scaling.py").read_text(encoding="utf-8").splitlines()
    def_line = next(i for i, x in enumerate(defs, 1) if x.startswith("def scaling_factor"))
    assert f"file={SQRT}/scaling.py,line={def_line}," in warning
    title = warning.split("title=", 1)[1].split("::", 1)[0]
    title = title.replace("%2C", ",").replace("%3A", ":").replace("%25", "%")
    assert BUT[lang] in title and "sqrt-d-model" in title
    assert "[sqrt-d-model]" in warning.split("::", 2)[2] and "27.71" in warning
    # It is not said a second time inside an ::error.
    assert not any("[sqrt-d-model]" in x for x in lines if x.startswith("::error "))

    # The terminal: the mistake in a panel before the first test, the verdict "passed, but".
    screen = [x for x in lines if not x.startswith("::")]
    first_test = next(i for i, x in enumerate(screen) if x.lstrip().startswith(("✓", "✗")))
    head = "\n".join(screen[:first_test])
    assert TITLE[lang] in head and "[sqrt-d-model]" in head and "27.71" in head
    assert BUT[lang] in run.stdout and "32 / 35" in run.stdout
    # A plain "(passed)" appears nowhere.
    assert "(passed)" not in run.stdout and "(合格)" not in run.stdout

    # The job summary: "passed, but" in the verdict, the mistake in the first sentence, and
    # listed first under "what went wrong".
    text = summary.read_text(encoding="utf-8")
    score_line = next(x for x in text.splitlines() if x.startswith("**"))
    assert BUT[lang] in score_line and "`sqrt-d-model`" in score_line
    [outcome] = [x for x in text.splitlines() if x.startswith("> ")]
    assert outcome.startswith("> ⚠️ ") and "**sqrt-d-model**" in outcome and "27.71" in outcome
    assert text.index("sqrt-d-model") < text.index("| --- | ---: |")  # before the parts table


def test_a_pass_without_the_central_mistake_stays_a_plain_pass(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    run = _grader("check", str(CORRECT), "--lang", "en",
                  env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)})
    assert run.returncode == 0, run.stderr
    assert not any(x.startswith("::warning") for x in run.stdout.splitlines())
    assert "(passed)" in run.stdout and BUT["en"] not in run.stdout
    assert BUT["en"] not in summary.read_text(encoding="utf-8")


class _Page(html.parser.HTMLParser):
    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.order: list[dict[str, str]] = []
        self.text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.order.append({k: v or "" for k, v in attrs} | {"<tag>": tag})

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_every_report_says_passed_but_in_both_languages(tmp_path: Path) -> None:
    """`grader grade --out-dir`: YAML marks it central and lists it first; Markdown, HTML and
    Gradescope say "passed, but …" in Japanese and English."""
    out = tmp_path / "reports"
    run = _grader("grade", str(SQRT), "--out-dir", str(out))
    assert run.returncode == 0, run.stderr
    report = yaml.safe_load((out / "report.yaml").read_text(encoding="utf-8"))
    assert report["passed"] is True
    first = report["mistakes"][0]
    assert first["id"] == "sqrt-d-model" and first["central"] is True
    assert all(m.get("central") for m in report["mistakes"] if m["id"] == "sqrt-d-model")
    assert not any("central" in m for m in report["mistakes"] if m["id"] != "sqrt-d-model")

    md = (out / "report.md").read_text(encoding="utf-8")
    for lang in ("ja", "en"):
        assert BUT[lang] in md
    # Readable raw, as in an editor or a terminal: a call with brackets and underscores unescaped.
    assert "multihead_attention_scores(float32[1, 3, 768], float32[1, 3, 768], n_heads=12)" in md
    page = (out / "report.html").read_text(encoding="utf-8")
    parsed = _Page(page)
    [score] = [a for a in parsed.order if a.get("id") == "score"]
    assert score["class"] == "score but"
    shown = "".join(parsed.text)
    assert BUT["ja"] in shown and BUT["en"] in shown and TITLE["ja"] in shown and TITLE["en"] in shown
    mistakes = [a for a in parsed.order if "data-mistake" in a]
    assert mistakes[0]["data-mistake"] == "sqrt-d-model" and mistakes[0]["data-central"] == "true"
    ids = [a.get("id") for a in parsed.order]
    assert ids.index("central") < ids.index("parts")  # said before the parts table
    gradescope = json.loads((out / "report.results.json").read_text(encoding="utf-8"))
    assert BUT["ja"] in gradescope["output"].splitlines()[0]
    assert gradescope["output"].index("sqrt-d-model") < gradescope["output"].index("- ")
