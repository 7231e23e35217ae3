"""``grader adjust`` after a real batch: a name as typed finds its decomposed folder, and an entry
the batch did not grade is refused with its reason."""

from __future__ import annotations

import shutil

from tests.helpers import ROOT, read_gradebook, run_grader


def test_adjust_finds_a_name_as_typed_and_says_why_an_entry_has_no_report(tmp_path):
    """A folder name the file system keeps decomposed (NFD, as macOS writes it) is found from the
    name as typed (NFC); an entry the batch did not grade is refused with the reason its
    gradebook row gives, not as a report that does not exist."""
    import unicodedata

    src, out = tmp_path / "src", tmp_path / "out"
    shutil.copytree(ROOT / "examples" / "submissions" / "divide-by-dk", src / unicodedata.normalize("NFD", "José"))
    (src / "bob").mkdir()
    (src / "bob" / "scaling.py").write_text("", encoding="utf-8")
    rubric = str(ROOT / "rubrics" / "chapter07.yaml")
    done = run_grader("batch", str(src), "--out", str(out), "--rubric", rubric, "-j", "1", "--no-progress", "--lang", "en")
    assert done.returncode == 0, done.stderr
    typed = run_grader("adjust", str(out), unicodedata.normalize("NFC", "José"), "--points", "1", "--reason", "r",
                    "--rubric", rubric, "--lang", "en")
    assert typed.returncode == 0, typed.stderr
    assert [float(r["adjustment"]) for r in read_gradebook(out, by="submission").values() if r["score"]] == [1.0]
    empty = run_grader("adjust", str(out), "bob", "--points", "1", "--reason", "r", "--rubric", rubric, "--lang", "en")
    assert empty.returncode != 0
    assert "bob has no report to adjust, since the batch did not grade it: " in empty.stderr, empty.stderr
    assert "empty" in empty.stderr.split("did not grade it: ")[1]
