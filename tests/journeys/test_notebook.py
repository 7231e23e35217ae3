"""The check cell in a real Jupyter kernel, as a student runs it.

The student release is built into tmp_path (``grader release``), the handed-out notebook in it
is filled in (or not) and saved where the student's copy lives, and nbclient executes it in a
real ipykernel whose working folder is the release's exercises folder; the check cell finds the
rubric by walking up from there. Warmness is asserted structurally (the same checker and zygote
processes answer the second check, started once), never by timing; timing is in
bench/notebook_latency.py.
"""

from __future__ import annotations

import html.parser
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from grader.prepare import build_notebook

from tests.helpers import EXAMPLES, ROOT, alive, chromium, headless


# --------------------------------------------------------------------------- helpers


def _release(tmp: Path) -> Path:
    out = tmp / "release"
    subprocess.run([sys.executable, "-m", "grader", "release", str(out), "--rubric", "rubrics/chapter07.yaml"],
                   cwd=ROOT, check=True, capture_output=True)
    return out / "exercises" / "chapter07"


def _state(folder: Path) -> nbformat.NotebookNode:
    """The handed-out notebook with the functions (and quiz answers) of ``folder`` in it."""
    return build_notebook.build(folder, folder / "answers.yaml")


def _save(nb: nbformat.NotebookNode, where: Path) -> Path:
    path = where / "chapter07.ipynb"
    path.write_text(build_notebook.render(nb), encoding="utf-8")
    return path


def _client(nb: nbformat.NotebookNode, cwd: Path, env: dict[str, str] | None = None):
    from nbclient import NotebookClient

    # The kernel inherits this environment: keep the student's default language (ja) unless told.
    os.environ.pop("GRADER_LANG", None)
    os.environ.update(env or {})
    return NotebookClient(nb, timeout=600, kernel_name="python3",
                          resources={"metadata": {"path": str(cwd)}})


def _run_all(client, nb: nbformat.NotebookNode) -> None:
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            client.execute_cell(cell, index)


def _run(client, nb: nbformat.NotebookNode, source: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    nb.cells.append(cell)
    client.execute_cell(cell, len(nb.cells) - 1)
    return cell


def _display(cell: nbformat.NotebookNode) -> dict[str, str]:
    """The check's one display output: {"text/html": ..., "text/plain": ...}."""
    shown = [o for o in cell.outputs if o.get("output_type") == "display_data"]
    errors = [o for o in cell.outputs if o.get("output_type") == "error"]
    assert not errors, errors
    assert len(shown) == 1, cell.outputs
    return dict(shown[0]["data"])


def _stdout(cell: nbformat.NotebookNode) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")


class _Page(html.parser.HTMLParser):
    """What a test needs from the check's HTML: the attributes by element, and the text."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.attrs: list[dict[str, str]] = []
        self.text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.attrs.append({k: v or "" for k, v in attrs} | {"<tag>": tag})

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def having(self, key: str) -> list[dict[str, str]]:
        return [a for a in self.attrs if key in a]

    @property
    def all_text(self) -> str:
        return "".join(self.text)


def _executed(tmp: Path, example: str, env: dict[str, str] | None = None):
    """A release in ``tmp``, its notebook filled with ``example``'s work and saved, a kernel
    started in its folder and every cell run: ``(client, notebook)``, inside the kernel's life."""
    exercises = _release(tmp)
    nb = _state(EXAMPLES / example)
    _save(nb, exercises)  # the quiz answers come from the saved notebook's answers cell
    return _client(nb, exercises, env), nb


def _status(client, nb) -> dict:
    cell = _run(client, nb, "from grader import notebook as _nb\nprint(repr(_nb.status()))")
    import ast

    [value] = ast.literal_eval(_stdout(cell)).values()
    return value


# --------------------------------------------------------------------------- the notebook file


def test_handed_out_notebook_is_current_and_ends_with_the_check_cell() -> None:
    assert build_notebook.main(["--check"]) == 0
    nb = nbformat.read(ROOT / "exercises" / "chapter07" / "chapter07.ipynb", as_version=4)
    last = nb.cells[-1]
    assert last.cell_type == "code"
    assert "notebook.check()" in last.source and "from grader import notebook" in last.source


def test_grading_the_saved_notebook_leaves_the_check_cell_out(tmp_path: Path) -> None:
    """`grader check chapter07.ipynb` must not run the check cell in the sandbox."""
    from grader.ingest.submission.load import load_submission

    nb = _state(EXAMPLES / "correct")
    (tmp_path / "without").mkdir()
    [without] = load_submission(_save(nb, tmp_path / "without")).modules
    nb.cells.append(nbformat.v4.new_code_cell("import grader.notebook\ngrader.notebook.check(\n  'softmax')\n"))
    sub = load_submission(_save(nb, tmp_path))
    [module] = sub.modules
    # the check cell is left out whole: the same cells as the notebook without it, none of its lines
    assert [c.label for c in module.chunks] == [c.label for c in without.chunks]
    for chunk in module.chunks:
        assert "notebook.check" not in chunk.code and "import grader" not in chunk.code
    assert not any("magics" in note for note in sub.notes), sub.notes


def test_not_run_is_said_only_when_no_cell_run_could_define_the_function() -> None:
    """A cell that does not parse or a star import: grading says what happened, not "run first"."""
    from grader import notebook
    from grader.spec.rubric.load import load_rubric
    from grader.ingest.submission.notebook import notebook_submission

    rubric = load_rubric(ROOT / "rubrics" / "chapter07.yaml")

    def missing(*cells: str, part: str | None = None) -> list[str]:
        sub = notebook_submission("nb", [(f"In [{i}]", c) for i, c in enumerate(cells, 1)])
        return notebook._not_run(rubric, part, sub.modules[0].chunks)

    assert missing() == _functions()
    assert missing("def head_dim(a, b):\n    return a // b\n", part="scaling") == _functions("scaling")[1:]
    assert missing("if True:\n    def softmax(x): ...\nsoftmax_with_temperature = softmax\n",
                   part="softmax")[:2] == ["compare_saturation", "softmax_jacobian"]
    assert missing("def head_dim(:\n") == []  # the syntax error is the student's message
    assert missing("from scaling import *") == []
    assert missing("from grader import notebook\nnotebook.check()") == _functions()


# --------------------------------------------------------------------------- real kernels


def test_untouched_notebook_reports_not_implemented(tmp_path: Path) -> None:
    exercises = _release(tmp_path)
    nb = nbformat.read(exercises / "chapter07.ipynb", as_version=4)
    client = _client(nb, exercises)
    with client.setup_kernel():
        _run_all(client, nb)
        data = _display(nb.cells[-1])
    page = _Page(data["text/html"])
    assert "not-implemented" in {a["data-mistake"] for a in page.having("data-mistake")}
    [root] = [a for a in page.having("data-score") if a["<tag>"] == "div"]
    assert float(root["data-score"]) == 0 and float(root["data-max-score"]) > 0
    # In Japanese (the rubric's first language), the level named, plain text for other front-ends.
    assert "見つかった間違い" in page.all_text and "サンドボックス" in page.all_text
    [level] = page.having("data-level")
    assert level["data-level"] in ("namespaces", "rlimits", "subprocess")
    assert "not-implemented" in data["text/plain"] and "NotImplementedError" in data["text/plain"]
    # The release has no hidden tests; the student is told more run at grading, not which.
    assert "採点時には、さらにテストを実行します" in page.all_text
    assert "hidden/" not in data["text/html"] and "hidden/" not in data["text/plain"]


def test_sqrt_d_model_then_fixed_in_one_warm_kernel_and_nothing_left_after_kill(tmp_path: Path) -> None:
    """√768 → sqrt-d-model with 27.71; the student edits the function, checks again (warm:
    the same checker and zygote processes, started once); the kernel is killed: all gone."""
    client, nb = _executed(tmp_path, "sqrt-d-model")
    with client.setup_kernel():
        _run_all(client, nb)
        first = _display(nb.cells[-1])
        page = _Page(first["text/html"])
        assert "sqrt-d-model" in {a["data-mistake"] for a in page.having("data-mistake")}
        assert "27.71" in page.all_text
        # It passes on points, but the card says "passed, but …" with the mistake before the parts.
        [root] = [a for a in page.having("data-score") if a["<tag>"] == "div"]
        [score] = [a for a in page.having("class") if "gc-score" in a["class"].split()]
        assert "gc-but" in score["class"].split() and float(root["data-score"]) < float(root["data-max-score"])
        assert "合格。ただし核心の間違い sqrt-d-model があります" in page.all_text
        [central] = page.having("data-central")
        assert central["data-mistake"] == "sqrt-d-model"
        assert page.attrs.index(central) < page.attrs.index(page.having("data-part")[0])
        plain = first["text/plain"]
        assert plain.index("sqrt-d-model") < plain.index("scaling\n") and "合格ですが" in plain
        before = _status(client, nb)
        assert before["alive"] and before["checks"] == 1 and before["starts"] == 1

        # The student fixes scaling_factor in its cell and runs it again, then checks one part.
        [scaling] = [c for c in nb.cells if c.get("id") == "scaling-code"]
        fixed = _state(EXAMPLES / "correct")
        scaling.source = next(c.source for c in fixed.cells if c.get("id") == "scaling-code")
        client.execute_cell(scaling, nb.cells.index(scaling))
        second = _display(_run(client, nb, "%grader scaling"))
        page2 = _Page(second["text/html"])
        assert not page2.having("data-mistake")
        [root] = [a for a in page2.having("data-score") if a["<tag>"] == "div"]
        assert root["data-part"] == "scaling"
        assert float(root["data-score"]) == float(root["data-max-score"]) > 0
        [row] = page2.having("data-part")[1:] or [root]
        assert row["data-part"] == "scaling"

        after = _status(client, nb)
        assert after["checks"] == 2 and after["starts"] == 1
        assert (after["checker_pid"], after["zygote_pid"]) == (before["checker_pid"], before["zygote_pid"])
        checker, zygote = after["checker_pid"], after["zygote_pid"]
        assert alive(checker) and alive(zygote)

        # Kill the kernel outright, as a crash or "Kill kernel" does.
        os.kill(client.km.provisioner.pid, signal.SIGKILL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (alive(checker) or alive(zygote)):
            time.sleep(0.2)
        assert not alive(checker), "the checker outlived its kernel"
        assert not alive(zygote), "the sandbox outlived its kernel"


def _functions(*parts: str) -> list[str]:
    import yaml

    rubric = yaml.safe_load((ROOT / "rubrics" / "chapter07.yaml").read_text(encoding="utf-8"))
    return [f for p in rubric["parts"] if not parts or p["id"] in parts for f in p.get("functions") or []]


def test_check_before_the_function_cells_says_which_to_run_first(tmp_path: Path) -> None:
    """The check cell run first in a fresh kernel: one instruction listing every function, not
    an error per test; after the scaling cell only, the functions still missing (and a check of
    that part grades it); after every cell, the full grade."""
    client, nb = _executed(tmp_path, "correct")
    check = nb.cells[-1]
    with client.setup_kernel():
        client.execute_cell(check, len(nb.cells) - 1)
        first = _display(check)
        page = _Page(first["text/html"])
        [box] = page.having("data-not-run")
        assert box["data-not-run"].split(",") == _functions()
        assert not page.having("data-test") and not page.having("data-score")
        assert "先に、次の関数を定義しているセルを実行してから" in first["text/plain"]
        for name in _functions():
            assert f"{name}()" in first["text/plain"] and f"{name}()" in page.all_text
        assert "定義されていません" not in first["text/plain"] and "does not define" not in first["text/plain"]

        for cell in [c for c in nb.cells if c.get("id") in ("imports", "scaling-code")]:
            client.execute_cell(cell, nb.cells.index(cell))
        client.execute_cell(check, len(nb.cells) - 1)
        [box] = _Page(_display(check)["text/html"]).having("data-not-run")
        assert box["data-not-run"].split(",") == _functions("softmax", "variance")
        # One part whose cells have run is graded as usual.
        part = _Page(_display(_run(client, nb, "%grader scaling --lang en"))["text/html"])
        [root] = [a for a in part.having("data-score") if a["<tag>"] == "div"]
        assert float(root["data-score"]) == float(root["data-max-score"]) > 0
        assert not part.having("data-not-run")

        _run_all(client, nb)  # every cell, the check cell last
        done = _Page(_display(check)["text/html"])
        assert not done.having("data-not-run")
        # the card counts the work cells run in this kernel, never the check's own cells (run
        # three times before, once as %grader): imports and scaling twice, then every work cell
        work = [c for c in nb.cells[:nb.cells.index(check)] if c.cell_type == "code" and c.source.strip()]
        assert f"このカーネルで実行したセル（{2 + len(work)} 個）" in done.all_text, done.all_text
        [root] = [a for a in done.having("data-score") if a["<tag>"] == "div"]
        assert float(root["data-score"]) == float(root["data-max-score"]) > 0


def test_finished_notebook_passes_every_public_test_in_english(tmp_path: Path) -> None:
    client, nb = _executed(tmp_path, "correct", env={"GRADER_LANG": "en"})
    try:
        with client.setup_kernel():
            _run_all(client, nb)
            data = _display(nb.cells[-1])
            plotted = _Page(_display(_run(client, nb, "notebook.check('variance', plots=True)"))["text/html"])
    finally:
        os.environ.pop("GRADER_LANG", None)
    # Asked for, the plots of the part shown are drawn (inline PNG, nothing fetched).
    [figure] = [a for a in plotted.having("id") if a["id"].startswith("gc-plot-")]
    assert figure["id"] == "gc-plot-variance"
    images = [a for a in plotted.attrs if a["<tag>"] == "img"]
    assert images and all(a["src"].startswith("data:image/png;base64,") for a in images)
    page = _Page(data["text/html"])
    [root] = [a for a in page.having("data-score") if a["<tag>"] == "div"]
    assert float(root["data-score"]) == float(root["data-max-score"]) > 0
    assert not page.having("data-mistake") and not page.having("data-test")
    assert "All " in page.all_text and "public tests passed" in page.all_text
    assert "Sandbox" in page.all_text


def test_student_globals_and_monkeypatches_do_not_reach_the_tests(tmp_path: Path) -> None:
    """A global named like a test helper, and torch patched in the kernel, change nothing."""
    client, nb = _executed(tmp_path, "correct")
    with client.setup_kernel():
        _run_all(client, nb)
        clean = _Page(_display(nb.cells[-1])["text/html"])
        # The public tests' oracle is torch.nn.functional.softmax, which this student's own
        # functions never call: were the tests in this kernel, every softmax test would fail.
        _run(client, nb, "import torch.nn.functional as F\n"
                         "assert_close = lambda *a, **k: None\n"
                         "F.softmax = lambda x, dim=-1: x * 0\n")
        patched = _Page(_display(_run(client, nb, "notebook.check()"))["text/html"])
    score = lambda page: [a for a in page.having("data-score") if a["<tag>"] == "div"][0]  # noqa: E731
    assert score(patched)["data-score"] == score(clean)["data-score"] == score(clean)["data-max-score"]


@pytest.mark.browser
@pytest.mark.skipif(chromium() is None, reason="needs a headless chromium")
def test_check_cell_rendered_in_chromium_in_japanese(tmp_path: Path) -> None:
    """The executed notebook, exported to HTML by nbconvert, shows the check cell's result
    (Japanese, the mistake with 27.71) when chromium paints it; the screenshot is kept."""
    import copy

    import numpy as np
    from matplotlib import image
    from nbconvert import HTMLExporter

    client, nb = _executed(tmp_path, "sqrt-d-model")
    with client.setup_kernel():
        _run_all(client, nb)
    # The check cell and its heading, as the notebook renders them.
    shown = copy.deepcopy(nb)
    shown.cells = nb.cells[-2:]
    body, _ = HTMLExporter().from_notebook_node(shown)
    page = tmp_path / "check-cell.ja.html"
    page.write_text(body, encoding="utf-8")
    shot = tmp_path / "check-cell.ja.png"
    browser = chromium()
    assert browser is not None
    run = headless(browser, tmp_path / "profile", f"--screenshot={shot}", "--window-size=1100,1400",
                    "--hide-scrollbars", page.as_uri())
    assert shot.exists(), run.stderr[-2000:]
    pixels = np.asarray(image.imread(str(shot)))
    assert float(pixels[..., :3].std()) > 0.02
    # The central mistake's orange bar (#e67700: "passed, but …") is painted.
    bar = ((np.abs(pixels[..., 0] - 0xE6 / 255) < 0.05) & (np.abs(pixels[..., 1] - 0x77 / 255) < 0.05)
           & (np.abs(pixels[..., 2] - 0x00 / 255) < 0.05))
    assert bar.sum() > 100
    dom = headless(browser, tmp_path / "profile2", "--dump-dom", page.as_uri()).stdout
    parsed = _Page(dom)
    assert "sqrt-d-model" in {a["data-mistake"] for a in parsed.having("data-mistake")}
    assert "27.71" in parsed.all_text and "合格ですが、この章の核心の間違いがあります" in parsed.all_text


def test_no_rubric_or_unknown_part_is_a_message_in_the_cell(tmp_path: Path) -> None:
    """Outside a course folder, or with a part the rubric lacks: a clear message, no traceback."""
    exercises = _release(tmp_path)
    lone = tmp_path / "elsewhere"
    lone.mkdir()
    nb = nbformat.v4.new_notebook()
    client = _client(nb, lone)
    with client.setup_kernel():
        data = _display(_run(client, nb, "from grader import notebook\nnotebook.check()"))
        assert "rubric" in data["text/plain"] and "採点を完了できませんでした" in data["text/plain"]
        assert "ルーブリックが見つかりません" in data["text/plain"] and "no rubric found" in data["text/plain"]
        # the way to name a rubric here is the function's argument, not the command line's option
        assert 'notebook.check(rubric="PATH")' in data["text/plain"] and "--rubric" not in data["text/plain"]
        data = _display(_run(client, nb, f"import os\nos.chdir({str(exercises)!r})\nnotebook.check('nope')"))
        assert "nope" in data["text/plain"] and "scaling" in data["text/plain"]
        assert "no such part" in data["text/plain"]
        data = _display(_run(client, nb, "notebook.check('nope', lang='ja')"))
        assert "no such part" not in data["text/plain"] and "nope" in data["text/plain"]
