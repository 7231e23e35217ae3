"""Blind grading that stays blind: one ``grader batch --anonymous`` of thirty students.

The class comes as Moodle downloads it (``Full name_participant_assignsubmission_file_/``), so
discovery meets the students in the order of their names. Some wrote their own name and
participant number into comments and strings of their code, in the order and spelling people
use (``QUINN, Alice``, ``alice.quinn``, ``太郎　山田`` with a full-width space); a ring of three
copies the one who signed their code, so the similarity page shows that code side by side; the
notebook of the ring names a partner nobody's roster has, in its metadata and in a comment; one
extension reason and one adjustment reason name a student.

Read from that one batch (and one ``grader adjust``): every output lists the students in the
order of their pseudonyms, never of their names (gradebook rows, each page's rows, the order the
reports were written in), and no byte under OUT but identities.csv (the key) holds a name or an
id, on the terminal neither.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import unicodedata
import zipfile
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import nbformat
import pytest

from tests.helpers import EXAMPLES, files_of, rubric_copy, run_grader
from tests.lms_exports import moodle_prefix

CORRECT = Path(__file__).resolve().parents[2] / "suites" / "chapter07" / "correct"

#: (full name as Moodle has it, participant id)
JAPANESE = ["山田 太郎", "佐藤 花子", "鈴木 一郎", "高橋 美咲", "田中 健太", "伊藤 さくら", "渡辺 翔太", "中村 陽菜",
            "小林 大輝", "加藤 結衣", "吉田 拓海", "山本 葵", "松本 蓮", "井上 凛", "木村 悠斗"]
LATIN = ["Alice Quinn", "Bruno Castellano", "Chloe Whitfield", "Dmitri Volkov", "Elena Marchetti", "Farid Haddad",
         "Greta Lindqvist", "Hamish Buchanan", "Ingrid Solberg", "Jasper Thornbury", "Keiko Tanabe", "Lucas Ferreira",
         "Marta Kowalczyk", "Nadia Rahimi", "Oscar Pemberton"]
# interleaved, so that the Latin and the Japanese names are spread over the export
STUDENTS = [(name, 724101 + 37 * i) for i, name in enumerate(n for pair in zip(LATIN, JAPANESE) for n in pair)]
#: the student whose head_dim raises an error naming them (STUDENTS[7], 高橋 美咲)
UNFINISHED = 7
#: a partner no roster names: only the notebook's metadata gives them
PARTNER = "Kenji Morimoto"
DUE = "2030-12-01T23:59:00+09:00"

RING = CORRECT / "19-helpers-and-constants"
HONEST = ["01-minimal-checks", "02-isinstance-int", "03-numbers-integral", "04-operator-index", "05-float64-throughout",
          "06-plain-lists", "07-functional-softmax", "08-torch-softmax-method", "09-log-softmax-exp", "10-sdpa",
          "11-einsum", "12-permute-reshape", "13-rsqrt", "14-power-minus-half", "15-numpy-everywhere",
          "16-global-numpy-seed", "18-debug-printing", "23-float32-constant", "24-mapping-rows", "25-float-d-k",
          "27-float32-sqrt", "21-notebook.ipynb", "26-notebook-magics.ipynb", "22-lms-zip.zip"]


def _signed(code: str, *lines: str) -> str:
    """``code`` with ``lines`` at the top of ``head_dim``'s body (so a side-by-side region shows them)."""
    head = "def head_dim(d_model: int, n_heads: int) -> int:\n"
    assert head in code
    return code.replace(head, head + "".join(f"    {line}\n" for line in lines), 1)


def _disguised(code: str) -> str:
    """Helpers renamed, functions reordered (what a copier does); comments go, strings stay."""
    import ast

    tree = ast.parse(code)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id.startswith("_"):
            node.id = "helper" + node.id
        if isinstance(node, ast.FunctionDef) and node.name.startswith("_"):
            node.name = "helper" + node.name
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    rest = [n for n in tree.body if not isinstance(n, ast.FunctionDef)]
    return "\n\n\n".join(ast.unparse(n) for n in rest + defs[::-1]) + "\n"


def _uploads() -> list[dict[str, bytes]]:
    """Each student's files, in the order of STUDENTS."""
    (a_name, a_pid), (b_name, b_pid), (c_name, c_pid) = STUDENTS[0], STUDENTS[1], STUDENTS[20]  # Quinn, 山田, Tanabe
    assert (a_name, b_name, c_name) == ("Alice Quinn", "山田 太郎", "Keiko Tanabe")
    original = _signed((RING / "scaling.py").read_text(encoding="utf-8"),
                       f"# Alice Quinn ({a_pid}) wrote this: QUINN, Alice", f'owner = "alice.quinn {a_pid}"')
    copied = _signed(_disguised(original), f"# 山田太郎 {b_pid} が書き直した", 'signed = "太郎\u3000山田"')
    ring = files_of(RING)
    uploads: list[dict[str, bytes]] = [
        {**ring, "scaling.py": original.encode("utf-8")},
        {**ring, "scaling.py": copied.encode("utf-8")},
    ]
    nb = nbformat.v4.new_notebook()
    nb.metadata["authors"] = [{"name": c_name}, {"name": PARTNER}]
    cells = [nbformat.v4.new_markdown_cell("# 第7章")]
    for part in ("scaling", "softmax", "variance"):
        text = (_signed(_disguised(original), f"# TANABE Keiko ({c_pid}) with {PARTNER}, morimoto.kenji")
                if part == "scaling" else (RING / f"{part}.py").read_text(encoding="utf-8"))
        cells.append(nbformat.v4.new_code_cell(text))
    cells.append(nbformat.v4.new_raw_cell("# answers.yaml\n" + (RING / "answers.yaml").read_text(encoding="utf-8")))
    nb.cells = cells
    notebook = nbformat.writes(nb).encode("utf-8")
    # the unknown variant, spelled two ways (a cluster of two)
    clamps = []
    for base, body in (("17-table-one-pass", "    return (scores / math.sqrt(d_k)).clamp(-4, 4)\n"),
                       ("20-tensor-sqrt-and-validation",
                        "    out = torch.div(scores, d_k ** 0.5)\n    return torch.clip(out, min=-4.0, max=4.0)\n")):
        files = files_of(CORRECT / base)
        code = files["scaling.py"].decode("utf-8")
        files["scaling.py"] = ("import math\nimport torch\n" + code + "\n\ndef scale_scores(scores, d_k):\n"
                               + body).encode("utf-8")
        clamps.append(files)
    honest: list[dict[str, bytes]] = []
    for style in HONEST:
        path = CORRECT / style
        honest.append(files_of(path) if path.is_dir() else {path.name: path.read_bytes()})
    honest.append(files_of(EXAMPLES / "divide-by-dk"))
    rest = clamps + honest
    out: list[dict[str, bytes]] = []
    for i, (name, pid) in enumerate(STUDENTS):
        if i == 0:
            out.append(uploads[0])
        elif i == 1:
            out.append(uploads[1])
        elif i == 20:
            out.append({"tanabe-ch7.ipynb": notebook})
        else:
            files = dict(rest.pop(0))
            if i == UNFINISHED:  # a function left raising an error that names its author: the reports quote it
                files["scaling.py"] += (f'\n\ndef head_dim(d_model, n_heads):\n'
                                        f'    raise NotImplementedError("未完成です（{name}、{pid}）")\n').encode("utf-8")
            elif "scaling.py" in files and i % 3 == 0:  # signed at the top, in the spellings people use
                family, given = name.split(" ")
                sign = (f"# {name} {pid}\n# {given}{family} / {family}　{given}\n"
                        f'__author__ = "{family.upper()}, {given} <{given.lower()}.{family.lower()}@{pid}>"\n')
                files["scaling.py"] = sign.encode("utf-8") + files["scaling.py"]
            out.append(files)
    assert not rest
    return out


def _export(dest: Path) -> Path:
    export = dest / "CS101-Chapter 7-42.zip"
    with zipfile.ZipFile(export, "w", zipfile.ZIP_DEFLATED) as zf:
        for (name, pid), files in zip(STUDENTS, _uploads()):
            for fname, data in files.items():
                zf.writestr(f"{moodle_prefix(name, pid)}_assignsubmission_file_/{fname}", data)
    return export


class Blind:
    """The batch's folder, what the terminal said, and who each pseudonym is (from identities.csv)."""

    def __init__(self, out: Path, said: str, mtimes: dict[str, int]) -> None:
        self.out, self.said, self.mtimes = out, said, mtimes
        with (out / "identities.csv").open(encoding="utf-8", newline="") as fh:
            rows = list(csv.DictReader(fh))
        self.name_of = {r["anonymous_id"]: unicodedata.normalize("NFC", r["name"]) for r in rows}
        self.entry_of = {r["anonymous_id"]: r["entry"] for r in rows}
        self.aid_of = {int(r["student_id"]): r["anonymous_id"] for r in rows}
        self.aids = sorted(self.name_of)


@pytest.fixture(scope="module")
def blind(tmp_path_factory: pytest.TempPathFactory) -> Blind:
    tmp = tmp_path_factory.mktemp("blind")
    rubric = rubric_copy(tmp, due=DUE)
    export = _export(tmp)
    (named_name, named_pid), granted_pid = STUDENTS[5], STUDENTS[8][1]
    extensions = tmp / "extensions.csv"
    extensions.write_text(f"student,days,reason\n{granted_pid},2,illness; same doctor's note as {named_name} "
                          f"({named_pid})\n", encoding="utf-8")
    out = tmp / "out"
    # one grading process, so the order reports are written in is the order they are graded in
    proc = run_grader("batch", export, "--out", out, "--anonymous", "--rubric", rubric, "--seed", "5", "-j", "1",
                      "--similarity", "--gradebook", "moodle", "--bom", "--extensions", extensions, "--no-progress",
                      "--lang", "en", timeout=1800)
    assert proc.returncode == 0, proc.stderr
    mtimes = {p.name[: -len(".yaml")]: p.stat().st_mtime_ns for p in (out / "reports").glob("*.yaml")}
    ids = Blind(out, "", {})
    copier = ids.aid_of[STUDENTS[1][1]]
    adjusted = run_grader("adjust", out, copier, "--points", "-2", "--rubric", rubric, "--lang", "en",
                          "--reason", f"code copied from Alice Quinn ({STUDENTS[0][1]}), see QUINN's upload")
    assert adjusted.returncode == 0, adjusted.stderr
    terminal = "\n".join([proc.stdout, proc.stderr, adjusted.stdout, adjusted.stderr])
    assert "1 extension reasons (--extensions) name a student of this blind batch" in proc.stderr, proc.stderr
    assert "the reason names a student of this blind batch" in adjusted.stderr, adjusted.stderr
    return Blind(out, terminal, mtimes)


# --------------------------------------------------------------------------- order


def _kendall(xs: list[int]) -> float:
    """Kendall's tau between the positions 0..n-1 and ``xs`` (no ties)."""
    n = len(xs)
    s = sum((1 if xs[j] > xs[i] else -1) for i in range(n) for j in range(i + 1, n))
    return s / (n * (n - 1) / 2)


def _assert_pseudonym_order(blind: Blind, listed: list[str], where: str) -> None:
    """``listed`` (pseudonyms, as an output lists them) is the pseudonyms' order, and provably
    not the names' order nor the export's (the order discovery met them in)."""
    assert listed == sorted(listed), (where, listed)
    if len(listed) >= 10:
        by_name = sorted(listed, key=lambda a: blind.name_of[a])
        by_entry = sorted(listed, key=lambda a: blind.entry_of[a])
        for order in (by_name, by_entry):
            rank = {a: k for k, a in enumerate(order)}
            tau = _kendall([rank[a] for a in listed])
            assert abs(tau) < 0.6, (where, tau)  # sorted by name it would be 1.0


def _aids_in(text: str) -> list[str]:
    return re.findall(r"anon-[a-z2-9]{6}", text)


def test_the_class_is_named_by_pseudonyms_the_names_sort_differently(blind: Blind) -> None:
    assert len(blind.aids) == len(STUDENTS) == 30
    assert {blind.name_of[a] for a in blind.aids} == {n for n, _ in STUDENTS}
    by_pseudonym = [blind.name_of[a] for a in blind.aids]
    assert by_pseudonym != sorted(by_pseudonym)
    assert all(p.name.split(".")[0] in blind.name_of for p in (blind.out / "reports").iterdir())


def test_gradebook_rows_and_reports_follow_the_pseudonyms(blind: Blind) -> None:
    with (blind.out / "gradebook.csv").open(encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    _assert_pseudonym_order(blind, [r["student_id"] for r in rows], "gradebook.csv")
    assert [r["submission"] for r in rows] == [r["student_id"] for r in rows]
    # graded (and written) in that order: the reports' times, and graded_at
    written = sorted(blind.mtimes, key=lambda a: blind.mtimes[a])
    _assert_pseudonym_order(blind, written, "reports/*.yaml by time written")
    graded = [r["student_id"] for r in sorted(rows, key=lambda r: r["graded_at"])]
    _assert_pseudonym_order(blind, graded, "gradebook.csv by graded_at")
    # the Moodle worksheet's rows, and the feedback files in their zip
    with (blind.out / "gradebook.moodle.csv").open(encoding="utf-8-sig", newline="") as fh:
        moodle = list(csv.reader(fh))
    listed = [a for row in moodle[1:] for a in _aids_in(",".join(row))[:1]]
    _assert_pseudonym_order(blind, listed, "gradebook.moodle.csv")
    with zipfile.ZipFile(blind.out / "moodle-feedback-files.zip") as zf:
        members = list(dict.fromkeys(a for m in zf.namelist() for a in _aids_in(m)[:1]))
    if members:
        _assert_pseudonym_order(blind, members, "moodle-feedback-files.zip")


class _Rows(HTMLParser):
    """The text of each table row (``<tr>``), and of each list item and heading (``<li>``, ``<h2>``)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[str]] = []
        self.items: list[str] = []
        self.open: list[list[str]] = []

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag in ("tr", "li", "h2"):
            self.open.append([])

    def handle_endtag(self, tag: str) -> None:
        if tag in ("tr", "li", "h2") and self.open:
            text = " ".join(self.open.pop())
            if tag == "tr" and self.tables:
                self.tables[-1].append(text)
            else:
                self.items.append(text)

    def handle_data(self, data: str) -> None:
        for row in self.open:
            row.append(data)


def _page(blind: Blind, name: str) -> _Rows:
    parser = _Rows()
    parser.feed((blind.out / name).read_text(encoding="utf-8"))
    return parser


def _several(page: _Rows) -> list[list[str]]:
    """Each row or list item that names more than one student: the pseudonyms, as it lists them."""
    rows = [r for t in page.tables for r in t] + page.items
    return [list(dict.fromkeys(_aids_in(r))) for r in rows if len(set(_aids_in(r))) > 1]


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_every_page_lists_students_by_pseudonym(blind: Blind, lang: str) -> None:
    # the gradebook page: one row per student
    book = _page(blind, f"gradebook.{lang}.html")
    rows = max(book.tables, key=len)
    listed = [a for r in rows for a in _aids_in(r)[:1]]
    assert len(listed) == 30
    _assert_pseudonym_order(blind, listed, f"gradebook.{lang}.html")
    # the class summary: every line naming several students (the groups of similar code on the
    # first screen, the clusters) names them in the pseudonyms' order, the ring among them
    ring = sorted(blind.aid_of[pid] for _, pid in (STUDENTS[0], STUDENTS[1], STUDENTS[20]))
    summary = _several(_page(blind, f"summary.{lang}.html"))
    assert ring in summary, summary
    for members in summary:
        _assert_pseudonym_order(blind, members, f"summary.{lang}.html")
    # the similarity page: the ring's three pairs (each a heading); each pair, and each group, by pseudonym
    similar = _several(_page(blind, f"similarity.{lang}.html"))
    assert all(p in similar for p in ([ring[0], ring[1]], [ring[0], ring[2]], [ring[1], ring[2]])), similar
    for members in similar:
        _assert_pseudonym_order(blind, members, f"similarity.{lang}.html")
    # the clusters: their members by pseudonym
    with (blind.out / "unrecognised-clusters.csv").open(encoding="utf-8", newline="") as fh:
        clusters: dict[str, list[str]] = {}
        for r in csv.DictReader(fh):
            clusters.setdefault(r["cluster"], []).append(r["submission"])
    assert clusters
    for members in clusters.values():
        _assert_pseudonym_order(blind, members, "unrecognised-clusters.csv")


def test_similarity_csv_lists_each_pair_by_pseudonym(blind: Blind) -> None:
    with (blind.out / "similarity.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert rows
    for r in rows:
        assert r["submission_a"] < r["submission_b"], r


# --------------------------------------------------------------------------- no name anywhere


def _secrets() -> list[tuple[str, re.Pattern[bytes]]]:
    """(what, pattern) for every name, each part of it, and every id: Latin names as whole words
    in any case and run together, Japanese names wherever they stand (in both Unicode forms, with
    any space, in either order), ids as whole numbers."""
    out: list[tuple[str, re.Pattern[bytes]]] = []
    names = [n for n, _ in STUDENTS] + [PARTNER]
    for name in names:
        parts = name.split(" ")
        if name.isascii():
            for word in [*parts, "".join(parts), "".join(parts[::-1])]:
                out.append((word, re.compile(rb"(?i)(?<![a-z])" + word.encode() + rb"(?![a-z])")))
            continue
        forms = [p for p in parts if len(p) >= 2]
        forms += [sep.join(order) for order in (parts, parts[::-1]) for sep in ("", " ", "\u3000")]
        for form in forms:
            for norm in ("NFC", "NFD"):
                out.append((form, re.compile(re.escape(unicodedata.normalize(norm, form).encode("utf-8")))))
    for _, pid in STUDENTS:
        out.append((str(pid), re.compile(rb"(?<![0-9.])" + str(pid).encode() + rb"(?![0-9])")))
    return out


def _blobs(out: Path) -> list[tuple[str, bytes]]:
    """(where, bytes) of every file name and file under ``out`` but identities.csv, each zip's
    member names and members too; Moodle's own ``Identifier`` cells (the participant number the
    LMS imports by, see the README) left out, and embedded fonts and images (bytes, not text)."""
    found: list[tuple[str, bytes]] = []
    for path in sorted(out.rglob("*")):
        rel = str(path.relative_to(out))
        found.append((f"name {rel}", rel.encode("utf-8")))
        if not path.is_file() or path.name == "identities.csv":
            continue
        data = path.read_bytes()
        if path.suffix == ".html":
            data = re.sub(rb"data:[a-z/+.-]+;base64,[A-Za-z0-9+/=]+", b"", data)
        if path.name == "gradebook.moodle.csv":
            rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
            col = next(i for i, h in enumerate(rows[0]) if h in ("Identifier", "ID"))
            data = json.dumps([[c for i, c in enumerate(r) if i != col] for r in rows],
                              ensure_ascii=False).encode("utf-8")
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as zf:
                for member in zf.namelist():
                    shown = member
                    if path.name == "moodle-feedback-files.zip":  # Participant_<id>_assignsubmission_file_/
                        head, _, rest = member.partition("/")
                        parts = head.split("_")
                        shown = "_".join([parts[0], *parts[2:]]) + "/" + rest
                    found.append((f"{rel}:{member} (name)", shown.encode("utf-8")))
                    body = zf.read(member)
                    if member.endswith(".html"):
                        body = re.sub(rb"data:[a-z/+.-]+;base64,[A-Za-z0-9+/=]+", b"", body)
                    found.append((f"{rel}:{member}", body))
            continue
        found.append((rel, data))
    return found


def test_no_byte_of_any_output_names_a_student(blind: Blind) -> None:
    blobs = [*_blobs(blind.out), ("terminal", blind.said.encode("utf-8"))]
    assert len(blobs) > 100
    hits = sorted({(where, what) for where, blob in blobs for what, pattern in _secrets() if pattern.search(blob)})
    assert hits == []


def test_what_was_scrubbed_shows_as_a_placeholder(blind: Blind) -> None:
    """The signed code is on the similarity page with [name] and [id] where the names stood; the
    reasons keep their words around them; the scores were not changed by it."""
    page = (blind.out / "similarity.en.html").read_text(encoding="utf-8")
    assert "[name] ([id]) wrote this: [name], [name]" in page
    assert "owner = &#34;[name].[name] [id]&#34;" in page or "owner = &quot;[name].[name] [id]&quot;" in page or \
        'owner = "[name].[name] [id]"' in page
    assert "[name] [id] が書き直した" in page
    assert "[name] ([id]) with [name] [name], [name].[name]" in page
    with (blind.out / "gradebook.csv").open(encoding="utf-8-sig", newline="") as fh:
        rows = {r["student_id"]: r for r in csv.DictReader(fh)}
    granted = rows[blind.aid_of[STUDENTS[8][1]]]
    assert granted["extension"] == "illness; same doctor's note as [name] ([id])", granted
    copier = rows[blind.aid_of[STUDENTS[1][1]]]
    assert "code copied from [name] [name] ([id]), see [name]'s upload" in copier["adjustment_reasons"], copier
    assert float(copier["adjustment"]) == -2.0
    ledger = (blind.out / "ledger.jsonl").read_text(encoding="utf-8")
    assert "code copied from [name] [name] ([id]), see [name]'s upload" in ledger
    # the error the unfinished code raised is in its report, the name and id replaced
    unfinished = blind.aid_of[STUDENTS[UNFINISHED][1]]
    report = (blind.out / "reports" / f"{unfinished}.yaml").read_text(encoding="utf-8")
    assert "未完成です（[name]、[id]）" in report
    # everyone but the one who divided by d_k, the two who clamp and the unfinished one wrote
    # correct code: full marks, scrubbed or not
    full = [r for r in rows.values() if float(r["automatic_score"]) == float(r["max_score"])]
    assert len(full) == 26, [(r["student_id"], r["automatic_score"]) for r in rows.values()]
    assert float(rows[unfinished]["automatic_score"]) < float(rows[unfinished]["max_score"])


def test_identities_csv_is_the_key_kept_for_its_owner(blind: Blind) -> None:
    ident = blind.out / "identities.csv"
    assert os.stat(ident).st_mode & 0o777 == 0o600
    with ident.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    tanabe = next(r for r in rows if r["student_id"] == str(STUDENTS[20][1]))
    assert PARTNER in json.loads(tanabe["also"])  # the notebook's authors, scrubbed like the student's name
