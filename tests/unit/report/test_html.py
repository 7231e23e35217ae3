"""The HTML report in a real browser, and all six formats from one grading run."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.report import render

from tests.helpers import ROOT, chromium, headless
from tests.unit.report.test_writers import FORMATS, assert_formats_agree, make_report


@pytest.mark.browser
@pytest.mark.skipif(chromium() is None, reason="needs a headless chromium")
def test_html_renders_in_chromium_with_plots_and_no_console_errors(tmp_path: Path) -> None:
    """The page paints something that is not blank, and the browser logs no page errors."""
    import numpy as np
    from matplotlib import image

    browser = chromium()
    assert browser is not None
    page = tmp_path / "report.html"
    from grader.spec.rubric.load import load_rubric

    chapter07 = load_rubric(ROOT / "rubrics" / "chapter07.yaml")  # its figures
    page.write_text(render(make_report(), "html", rubric=chapter07, lang="ja"), encoding="utf-8")
    shot = tmp_path / "shot.png"
    run = headless(browser, tmp_path / "profile", f"--screenshot={shot}", "--window-size=1200,2400",
                    page.as_uri())
    assert shot.exists(), run.stderr[-2000:]
    pixels = np.asarray(image.imread(str(shot)))
    assert pixels.ndim == 3 and pixels.shape[0] > 100
    assert float(pixels[..., :3].std()) > 0.02  # a blank page has (almost) no variance
    # The plots are where the colour is: the orange of "yours" appears somewhere.
    orange = (np.abs(pixels[..., 0] - 0xD9 / 255) < 0.06) & (np.abs(pixels[..., 1] - 0x48 / 255) < 0.06)
    assert orange.sum() > 200
    log = run.stderr
    assert "Uncaught" not in log
    assert not [line for line in log.splitlines() if "CONSOLE" in line and "ERROR" in line.upper()]

    dom = headless(browser, tmp_path / "profile2", "--dump-dom", page.as_uri())
    assert 'id="plot-softmax"' in dom.stdout and 'id="plot-variance"' in dom.stdout


@pytest.mark.slow
def test_one_grading_run_gives_six_agreeing_formats(tmp_path: Path) -> None:
    """grade() once (with plots) and every format reads back the same scores."""
    from grader.spec.rubric.load import load_rubric
    from grader.grading.runner import grade
    from grader.ingest.submission.load import load_submission

    rubric = load_rubric(ROOT / "rubrics" / "chapter07.yaml")
    sub = load_submission(ROOT / "examples" / "submissions" / "sqrt-d-model")
    [report] = grade(rubric, [sub], seed=1, want_plots=True)
    assert report.tests and report.max_score > 0
    plots = report.plots
    assert len(plots["softmax"]["student_unscaled"]) == len(plots["softmax"]["scores"])
    assert plots["variance"]["student"][-1] > 100  # the unscaled variance grows with d_k
    texts = assert_formats_agree(report, rubric)
    assert set(texts) == set(FORMATS)
    assert texts["html"].count("data:image/png;base64,") == 2


@pytest.mark.slow
def test_check_in_github_actions_writes_summary_and_annotations(tmp_path: Path) -> None:
    """grader check: JUnit to --out, the Markdown job summary, ::error lines on stdout."""
    from click.testing import CliRunner

    from grader.cli import main

    summary = tmp_path / "summary.md"
    junit = tmp_path / "junit.xml"
    submission = ROOT / "examples" / "submissions" / "sqrt-d-model"
    result = CliRunner().invoke(
        main, ["check", str(submission), "--rubric", str(ROOT / "rubrics" / "chapter07.yaml"),
               "--format", "junit", "--out", str(junit), "--lang", "en"],
        env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)},
    )
    assert result.exit_code == 0, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("::error ")]
    assert any(f"file={submission.as_posix()}/scaling.py,line=" in line and "scaling_factor" in line
               for line in errors)
    assert "## Grading report" in summary.read_text(encoding="utf-8")
    xmlschema = pytest.importorskip("xmlschema")
    xmlschema.XMLSchema(str(ROOT / "tests" / "schemas" / "junit.xsd")).validate(str(junit))


def test_a_report_without_a_figures_hook_has_no_figures() -> None:
    """figures() calls the assignment's hook only when there are values to draw."""
    from grader.report import html as html_writer

    calls = []

    def draw(plots, langs):
        calls.append(langs)
        return []

    assert html_writer.figures(make_report(), ["en"]) == []
    assert html_writer.figures(make_report(plots={}), ["en"], draw) == [] and calls == []
    assert html_writer.figures(make_report(), ["ja", "en"], draw) == [] and calls == [["ja", "en"]]
    assert "<table" in html_writer.render(make_report(plots={}), lang="en")
