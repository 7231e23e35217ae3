"""A class built to trip the batch up, graded as an instructor grades it (``grader batch
--similarity``): a student whose folder name starts with a dot, two folders named ``José`` that
differ only in Unicode normalisation, the files macOS leaves beside them, and two submissions
sharing 12,000 helper functions (over 580 KB each, past the similarity stage's code cap).

What must hold: every student is a row, the dotted one graded; the ``José`` row is the folder
named so byte for byte; each system file skipped is named on the terminal and is a row of the
gradebook; what the similarity stage capped is said on the terminal (the batch's and ``grader
similarity``'s) and on both pages.
"""

from __future__ import annotations

import re
import shutil
import unicodedata

from tests.helpers import EXAMPLES, ROOT, grader_here, read_gradebook, run_grader


def test_nobody_missing_nobody_mislabelled_and_the_similarity_caps_said(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    nfc, nfd = unicodedata.normalize("NFC", "José"), unicodedata.normalize("NFD", "José")
    for folder, example in ((".Mika", "correct"), (nfd, "divide-by-dk"), (nfc, "correct")):
        shutil.copytree(EXAMPLES / example, src / folder)
    helpers = "".join(f"\n\ndef helper_{i:05d}(x, y):\n    return x * {i} + y\n" for i in range(12_000))
    for who in ("alice", "bob"):
        shutil.copytree(EXAMPLES / "correct", src / who)
        scaling = src / who / "scaling.py"
        scaling.write_text(scaling.read_text(encoding="utf-8") + helpers, encoding="utf-8")
    (src / ".DS_Store").write_bytes(b"\0\0\0\1Bud1")
    (src / "__MACOSX").mkdir()
    (src / "__MACOSX" / "._alice").write_bytes(b"\0\5\26\7")

    proc = run_grader("batch", src, "--out", out, "--similarity", "--no-progress", "--rubric",
                      ROOT / "rubrics" / "chapter07.yaml", "--lang", "en", "-j", "2")
    assert proc.returncode == 0, proc.stderr
    said = proc.stdout + proc.stderr
    assert "Traceback" not in said
    rows = {r["submission"]: r for r in read_gradebook(out)}
    assert set(rows) == {"Mika", "José", "José-2", "alice", "bob", ".DS_Store", "__MACOSX"}, rows.keys()

    top = max(float(r["score"]) for r in rows.values() if r["score"])
    assert rows["Mika"]["student_id"] == ".Mika" and float(rows["Mika"]["score"]) == top
    # the row labelled José is the folder named José byte for byte (the correct one), not its twin
    assert float(rows["José"]["score"]) == top and rows["José"]["mistakes"] == ""
    assert "divide-by-d-k" in rows["José-2"]["mistakes"]
    for junk in (".DS_Store", "__MACOSX"):
        assert rows[junk]["flags"] == "system_file" and rows[junk]["score"] == ""
        assert "not a submission: skipped" in rows[junk]["errors"]
        assert f"{junk}: not graded: a file or folder an OS or a tool leaves" in said

    cut = re.search(r"alice: only the first 512 KB of its code were compared \(it has (\d+) KB\); the rest was left out",
                    said)
    assert cut and int(cut[1]) > 580 and f"bob: {cut[0][len('alice: '):]}" in said
    assert re.search(r"alice and bob: the page shows 24 of their \d{5} matching regions", said)
    english = (out / "similarity.en.html").read_text(encoding="utf-8")
    japanese = (out / "similarity.ja.html").read_text(encoding="utf-8")
    assert cut[0] in english and "alice and bob: the page shows 24 of their" in english
    assert f"alice: コードは最初の 512 KB だけを比べ、残りは比べていません（全体は {cut[1]} KB）" in japanese

    # ``grader similarity OUT`` again (a command of its own, the same class): the caps said again
    again = grader_here("similarity", out, "--lang", "ja")
    assert again.exit_code == 0, again.output
    assert f"alice: コードは最初の 512 KB だけを比べ、残りは比べていません（全体は {cut[1]} KB）" in again.output
    assert "alice と bob: 一致する" in again.output
