"""Blind grading: ``grader batch … --anonymous`` on a real Moodle export.

Every byte under the output folder (zip members and their names too) is searched for each
student's name (NFC and NFD), LMS id and original file names; only identities.csv and the
identity cells the LMS needs to import (Moodle's ``Identifier`` and the participant id of each
feedback folder) may hold them.
"""

from __future__ import annotations

import base64
import csv
import io
import json
import re
import stat
import unicodedata
import zipfile
from pathlib import Path

import yaml

from tests.helpers import EXAMPLES, FIXTURES, ROOT, RUBRIC, zip_bytes
from tests.journeys.test_lms_journey import _batch
from tests.lms_exports import (CORRECT, blackboard_txt, canvas_entry, canvas_import, moodle_feedback_participants,
                               moodle_prefix, moodle_worksheet)


NOTEBOOK_USER = "yamadataro-home"


def _notebook() -> bytes:
    """A correct notebook whose metadata names its author and the kernel's path in their home."""
    nb = json.loads((FIXTURES / "correct-notebook.ipynb").read_text(encoding="utf-8"))
    nb["metadata"]["authors"] = [{"name": "佐藤 花子"}]
    nb["metadata"]["kernelspec"] = {"name": "python3", "display_name": f"/home/{NOTEBOOK_USER}/venv python",
                                    "language": "python"}
    return json.dumps(nb).encode("utf-8")


# (full name, Moodle participant id, original file name -> bytes)
STUDENTS = [
    ("山田 太郎", 723458, {"yamada-taro-ch7.zip": zip_bytes(CORRECT, "yamada-taro-ch7/")}),
    ("Alice Quinn", 723462, dict(CORRECT)),
    ("佐藤 花子", 723463, {"sato-hanako.ipynb": _notebook()}),
]


def _export(dest: Path) -> Path:
    export = dest / "CS101-Chapter 7-42.zip"
    with zipfile.ZipFile(export, "w", zipfile.ZIP_DEFLATED) as zf:
        for i, (name, pid, files) in enumerate(STUDENTS):
            written = unicodedata.normalize("NFD", name) if i == 2 else name  # as macOS tools write it
            for fname, data in files.items():
                zf.writestr(f"{moodle_prefix(written, pid)}_assignsubmission_file_/{fname}", data)
    return export


def _secrets() -> list[bytes]:
    out = []
    for name, pid, files in STUDENTS:
        words = [name, name.split(" ")[0], str(pid), *(f for f in files if f not in CORRECT),
                 *(Path(f).stem for f in files if f not in CORRECT)]
        for word in words:
            out += {unicodedata.normalize(form, word).encode("utf-8") for form in ("NFC", "NFD")}
    return [*out, NOTEBOOK_USER.encode()]


def _blobs(out: Path) -> list[tuple[str, bytes]]:
    """(where, bytes) of everything under ``out`` but identities.csv: file names and contents,
    each zip's member names and members; the LMS's own identity cells blanked."""
    found: list[tuple[str, bytes]] = []
    for path in sorted(out.rglob("*")):
        rel = str(path.relative_to(out))
        found.append((f"name {rel}", rel.encode("utf-8")))
        if not path.is_file() or path.name == "identities.csv":
            continue
        data = path.read_bytes()
        if path.suffix == ".html":
            # an embedded font or image is read as its bytes, not as base64 text (in which four
            # letters of a name turn up by chance: "Jane" in a page's font subset, once)
            data = re.sub(rb"base64,([A-Za-z0-9+/=]+)", lambda m: b"base64:" + base64.b64decode(m.group(1)), data)
        if path.name == "gradebook.moodle.csv":
            rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
            col = next(i for i, h in enumerate(rows[0]) if h in ("Identifier", "ID"))  # (Moodle in English, Japanese)
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
                    found.append((f"{rel}:{member}", zf.read(member)))
            continue  # (its raw bytes hold the member names, read above, and compressed members)
        found.append((rel, data))
    return found


def test_anonymous_batch_names_no_student_anywhere_and_maps_back(tmp_path):
    export = _export(tmp_path)
    out = tmp_path / "out"
    proc = _batch(export, out, "--anonymous", "--gradebook", "moodle", "--bom")
    assert proc.returncode == 0, proc.stderr

    # identities.csv: the owner's only, one row per student, each id back to its student
    ident = out / "identities.csv"
    assert stat.S_IMODE(ident.stat().st_mode) == 0o600
    with ident.open(encoding="utf-8", newline="") as fh:
        ids = {r["student_id"]: r for r in csv.DictReader(fh)}
    assert set(ids) == {str(pid) for _, pid, _ in STUDENTS}
    for name, pid, _ in STUDENTS:
        row = ids[str(pid)]
        assert unicodedata.normalize("NFC", row["name"]) == name and row["lms"] == "moodle"
        assert row["entry"].startswith(moodle_prefix(row["name"], pid))
        assert row["anonymous_id"].startswith("anon-") and len(row["anonymous_id"]) == 11
    anon = {row["anonymous_id"]: pid for pid, row in ids.items()}
    assert len(anon) == len(STUDENTS)

    # every report, row and page names the anonymous ids
    with (out / "gradebook.csv").open(encoding="utf-8-sig", newline="") as fh:
        book = {r["student_id"]: r for r in csv.DictReader(fh)}
    assert set(book) == set(anon)
    assert all(float(r["score"]) == float(r["max_score"]) > 0 for r in book.values())  # all three correct
    assert {p.name.split(".")[0] for p in (out / "reports").iterdir()} == set(anon)

    # zero hits for any name, id or original file name, in any byte but identities.csv
    terminal = [("stderr", proc.stderr.encode("utf-8")), ("stdout", proc.stdout.encode("utf-8"))]
    hits = [(where, s) for where, blob in [*_blobs(out), *terminal] for s in _secrets() if s in blob]
    assert hits == []

    # the worksheet Moodle imports still knows each participant by the id Moodle gave them (in the
    # words of a Moodle shown in Japanese, the batch's language)
    sheet = moodle_worksheet(out / "gradebook.moodle.csv", "ja")
    assert set(sheet) == {str(pid) for _, pid, _ in STUDENTS}
    for aid, pid in anon.items():
        assert sheet[str(pid)]["grade"] == float(book[aid]["score"])
    assert moodle_feedback_participants(out / "moodle-feedback-files.zip") == {pid for _, pid, _ in STUDENTS}

    # --resume keeps every id, and grades nothing again
    kept = ident.read_bytes()
    again = _batch(export, out, "--anonymous", "--gradebook", "moodle", "--bom", "--resume", "--lang", "en")
    assert again.returncode == 0, again.stderr
    assert ident.read_bytes() == kept and stat.S_IMODE(ident.stat().st_mode) == 0o600
    with ident.open(encoding="utf-8", newline="") as fh:
        assert {r["anonymous_id"]: int(r["student_id"]) for r in csv.DictReader(fh)} == {
            a: int(p) for a, p in anon.items()}
    assert "0 graded, 3 kept from before" in again.stderr
    assert not [(w, s) for w, blob in _blobs(out) for s in _secrets() if s in blob]

    # grader adjust takes the anonymous id, and refuses a real name without saying whose id it is
    import subprocess
    import sys

    def adjust(who: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "grader", "adjust", str(out), who, "--points", "-1",
                               "--reason", "late upload", "--rubric", str(RUBRIC)],
                              cwd=ROOT, capture_output=True, text=True, timeout=300)

    named = adjust("Alice Quinn")
    assert named.returncode != 0 and "anonymous id" in named.stderr
    assert not [s for s in _secrets() if s in named.stderr.encode("utf-8")]
    aid = next(a for a, p in anon.items() if p == "723462")
    assert adjust(aid).returncode == 0
    with (out / "gradebook.csv").open(encoding="utf-8-sig", newline="") as fh:
        assert float({r["student_id"]: r for r in csv.DictReader(fh)}[aid]["adjustment"]) == -1.0

    # the course gradebook joins each student's assignments by their own id, and says why
    course = tmp_path / "course.csv"
    merged = subprocess.run([sys.executable, "-m", "grader", "gradebook", str(out), "--out", str(course)],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert merged.returncode == 0, merged.stderr
    assert "a blind batch; its students are named here by their own ids, from its identities.csv" in merged.stderr
    with course.open(encoding="utf-8", newline="") as fh:
        table = {r["student"]: r for r in csv.DictReader(fh)}
    assert set(table) == {str(pid) for _, pid, _ in STUDENTS}
    with (out / "gradebook.csv").open(encoding="utf-8-sig", newline="") as fh:
        for r in csv.DictReader(fh):
            assert table[str(anon[r["student_id"]])]["total"] == r["score"]

    # grader regrade grades the blind batch again under its ids: the export taken again with
    # Yamada's zip broken since, his report stays, listed by its id with why; no name anywhere
    again_export = tmp_path / "again" / export.name
    again_export.parent.mkdir()
    with zipfile.ZipFile(export) as src, zipfile.ZipFile(again_export, "w") as dst:
        for member in src.namelist():
            data = src.read(member)
            dst.writestr(member, b"PK\x03\x04 not a zip any more" if member.endswith("yamada-taro-ch7.zip") else data)
    yamada = next(a for a, p in anon.items() if p == "723458")
    kept_report = (out / "reports" / f"{yamada}.yaml").read_bytes()
    regrade = subprocess.run([sys.executable, "-m", "grader", "regrade", str(again_export), "--out", str(out),
                              "--test", "hidden/*", "-j", "1", "--no-progress", "--rubric", str(RUBRIC),
                              "--lang", "en"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert regrade.returncode == 0, regrade.stderr
    assert "2 graded again" in regrade.stderr and f"{yamada}: {yamada}/{yamada}: not a readable zip" in regrade.stderr
    assert (out / "reports" / f"{yamada}.yaml").read_bytes() == kept_report
    [record] = (out / "regrades").glob("*.md")
    assert [ln for ln in record.read_text(encoding="utf-8").splitlines() if ln.startswith(f"- {yamada}: ")]
    with (out / "gradebook.csv").open(encoding="utf-8-sig", newline="") as fh:
        assert float({r["student_id"]: r for r in csv.DictReader(fh)}[aid]["adjustment"]) == -1.0
    terminal = [("stderr", regrade.stderr.encode("utf-8")), ("stdout", regrade.stdout.encode("utf-8"))]
    assert [(w, s) for w, blob in [*_blobs(out), *terminal] for s in _secrets() if s in blob] == []

    # without --anonymous, the blind folder is refused rather than filled with names
    plain = _batch(export, out, "--resume")
    assert plain.returncode != 0 and "--anonymous" in plain.stderr


CANVAS_STUDENTS = [("Doe, Jane", 98765), ("山田, 太郎", 11111)]


def test_anonymous_canvas_export_names_no_student_and_imports_by_canvas_id(tmp_path):
    """The same promise for a Canvas export: Canvas writes the sortable name and user id into
    every entry's name; only identities.csv and the import file's own Student and ID cells may
    hold them, and the import file still gives each Canvas user their score."""
    export = tmp_path / "cs101-chapter-7_submissions.zip"
    with zipfile.ZipFile(export, "w") as zf:
        for k, (name, uid) in enumerate(CANVAS_STUDENTS):
            for j, (fname, data) in enumerate(CORRECT.items()):
                # an earlier upload of each file, set aside: Canvas's attachment ids are its ids too
                zf.writestr(canvas_entry(name, uid, 583920000 + 100 * k + j, fname), b"# first try\n")
                zf.writestr(canvas_entry(name, uid, 583930000 + 100 * k + j, fname), data)
    out = tmp_path / "out"
    proc = _batch(export, out, "--anonymous", "--gradebook", "canvas", "--canvas-assignment-id", "4242")
    assert proc.returncode == 0, proc.stderr
    with (out / "identities.csv").open(encoding="utf-8", newline="") as fh:
        ids = {r["student_id"]: r["anonymous_id"] for r in csv.DictReader(fh)}
    assert set(ids) == {str(uid) for _, uid in CANVAS_STUDENTS}
    grades = canvas_import(out / "gradebook.canvas.csv")
    with (out / "gradebook.csv").open(encoding="utf-8-sig", newline="") as fh:
        book = {r["student_id"]: r for r in csv.DictReader(fh)}
    assert set(book) == set(ids.values())
    for uid, aid in ids.items():
        assert grades["by_id"][uid] == float(book[aid]["score"]) == grades["points_possible"]

    secrets = []
    for name, uid in CANVAS_STUDENTS:
        last, first = (x.strip() for x in name.split(","))
        words = [last, first, f"{last}{first}".lower(), f"{last}, {first}", str(uid),
                 canvas_entry(name, uid, 0, "")[:-3], "58392", "58393"]
        secrets += [w.encode("utf-8") for w in words]
    blobs = []
    for where, data in _blobs(out):
        if where == "gradebook.canvas.csv":  # Canvas matches rows by its own ID: those two cells are the LMS's
            rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
            data = json.dumps([r[2:] for r in rows], ensure_ascii=False).encode("utf-8")
        blobs.append((where, data))
    terminal = [("stderr", proc.stderr.encode("utf-8")), ("stdout", proc.stdout.encode("utf-8"))]
    assert [(w, s) for w, blob in [*blobs, *terminal] for s in secrets if s in blob] == []


BLACKBOARD_STUDENTS = [("jdoe", "Jane Doe"), ("tyamada", "山田 太郎")]


def test_anonymous_blackboard_export_names_no_student(tmp_path):
    """A Blackboard export names each attempt by username and its metadata by full name: under
    --anonymous neither appears anywhere under OUT or on the terminal but in identities.csv."""
    when = "2026-11-30-21-15-00"
    export = tmp_path / "gradebook_CS101_Chapter7_2026-12-01-10-00-00.zip"
    with zipfile.ZipFile(export, "w") as zf:
        for user, full in BLACKBOARD_STUDENTS:
            stored = [(f, f"Chapter7_{user}_attempt_{when}_{f}") for f in CORRECT]
            zf.writestr(f"Chapter7_{user}_attempt_{when}.txt", blackboard_txt(full, user, "Chapter7", when, stored))
            for (_, name), data in zip(stored, CORRECT.values()):
                zf.writestr(name, data)
    out = tmp_path / "out"
    proc = _batch(export, out, "--anonymous")
    assert proc.returncode == 0, proc.stderr
    with (out / "identities.csv").open(encoding="utf-8", newline="") as fh:
        ids = {r["student_id"]: r for r in csv.DictReader(fh)}
    assert set(ids) == {user for user, _ in BLACKBOARD_STUDENTS}
    assert {r["name"] for r in ids.values()} == {full for _, full in BLACKBOARD_STUDENTS}
    with (out / "gradebook.csv").open(encoding="utf-8-sig", newline="") as fh:
        book = {r["student_id"]: r for r in csv.DictReader(fh)}
    assert set(book) == {r["anonymous_id"] for r in ids.values()}
    assert all(float(r["score"]) == float(r["max_score"]) > 0 for r in book.values())
    secrets = [w.encode("utf-8") for user, full in BLACKBOARD_STUDENTS
               for w in (user, full, *full.split(" "), f"{full} ({user})")]
    terminal = [("stderr", proc.stderr.encode("utf-8")), ("stdout", proc.stdout.encode("utf-8"))]
    assert [(w, s) for w, blob in [*_blobs(out), *terminal] for s in secrets if s in blob] == []


def test_names_a_student_chose_inside_their_work_are_scrubbed_too(tmp_path):
    """What a student named inside their upload: the folder in their zip, a notebook the grader
    did not grade, an older zip it set aside, a notebook's author written where the format
    wants a list. Notes and reasons quote such names; in a blind batch none of them may reach
    the output folder or the terminal, and no other student's text is touched by them."""
    nb = json.loads((FIXTURES / "correct-notebook.ipynb").read_text(encoding="utf-8"))
    nb["metadata"]["authors"] = "Kato Jiro"  # (a list of objects, by the format)
    broken = {"yamada_taro/" + k: v for k, v in CORRECT.items()}
    broken["yamada_taro/tyamada-notes.ipynb"] = json.dumps(nb).encode("utf-8")  # beside .py files: not graded
    uploads = [
        ("山田 太郎", 723458, {"yamada-taro-ch7.zip": zip_bytes(broken)}),
        ("Kato Jiro", 723459, {"katoj.ipynb": json.dumps(nb).encode("utf-8")}),
        ("Suzuki Hanako", 723460, {"suzuki-final.zip": zip_bytes(CORRECT, "hanako_s/"),
                                   "suzuki-old.zip": zip_bytes(CORRECT, "hanako_old/")}),
        ("Sato Ken", 723461, {"satoken-hw.zip": zip_bytes({"sato_ken/sato-ch7.ipynb": b'{"cells": [oops'})}),
    ]
    export = tmp_path / "CS101-Chapter 7-42.zip"
    with zipfile.ZipFile(export, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, pid, files in uploads:
            for fname, data in files.items():
                zf.writestr(f"{moodle_prefix(name, pid)}_assignsubmission_file_/{fname}", data)
    out = tmp_path / "out"
    proc = _batch(export, out, "--anonymous", "--gradebook", "moodle", "--lang", "en")
    assert proc.returncode == 0, proc.stderr
    secrets = [w.encode("utf-8") for w in ("山田", "太郎", "yamada", "tyamada", "Kato", "Jiro", "katoj", "Suzuki",
                                           "Hanako", "hanako_", "suzuki-", "Sato", "satoken", "sato_ken", "sato-ch7")]
    secrets += [str(pid).encode() for _, pid, _ in uploads]
    terminal = [("stderr", proc.stderr.encode("utf-8")), ("stdout", proc.stdout.encode("utf-8"))]
    import re

    blobs = [(w, re.sub(rb"data:[a-z/+.-]+;base64,[A-Za-z0-9+/=]+", b"", b)) for w, b in _blobs(out)]  # (fonts)
    hits = [(where, s) for where, blob in [*blobs, *terminal] for s in secrets if s in blob]
    assert hits == []
    # the notes still say what happened, naming the student's files by their id
    notes = "\n".join(n for p in (out / "reports").glob("*.yaml")
                      for n in yaml.safe_load(p.read_text(encoding="utf-8")).get("notes", []))
    assert "metadata.authors: is not of type 'array'" in notes, notes
    assert "set aside" in notes and "(another zip in the same upload)" in notes, notes
    with (out / "gradebook.csv").open(encoding="utf-8-sig", newline="") as fh:
        unreadable = [r["errors"] for r in csv.DictReader(fh) if r["errors"]]
    assert any("notebook" in e for e in unreadable), unreadable


def test_similarity_against_a_previous_term_keeps_every_name_out_of_a_blind_folder(tmp_path):
    """grader similarity OUT --against OLD: OLD's submissions are found as OLD's batch found them
    (never unpacked into OUT); a blind OUT takes a blind OLD, named by OLD's ids, and refuses an
    OLD that names its students rather than copy the names in."""
    import shutil
    import subprocess
    import sys

    def grader(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "grader", *args, "--rubric", str(RUBRIC)], cwd=ROOT,
                              capture_output=True, text=True, timeout=600)

    old_src, new_src = tmp_path / "old-src", tmp_path / "new-src"
    for name, example in (("kimura_ichiro", "divide-by-dk"), ("hayashi_rin", "sqrt-d-model")):
        shutil.copytree(EXAMPLES / example, old_src / name)
    shutil.copytree(EXAMPLES / "divide-by-dk", new_src / "mori_aoi")  # last year's work, handed in again
    shutil.copytree(EXAMPLES / "correct", new_src / "ueno_sora")
    outs = {}
    for key, src, blind in (("old", old_src, False), ("old-blind", old_src, True), ("new-blind", new_src, True)):
        outs[key] = tmp_path / key
        proc = grader("batch", str(src), "--out", str(outs[key]), "--no-progress",
                      *(["--anonymous"] if blind else []))
        assert proc.returncode == 0, proc.stderr

    refused = grader("similarity", str(outs["new-blind"]), "--against", str(outs["old"]))
    assert refused.returncode == 2 and "grade" in refused.stderr and "--anonymous" in refused.stderr, refused.stderr
    assert str(outs["old"]) in refused.stderr
    proc = grader("similarity", str(outs["new-blind"]), "--against", str(outs["old-blind"]))
    assert proc.returncode == 0, proc.stderr
    assert not (outs["new-blind"] / ".sources" / "against").exists()
    names = [b"kimura", b"ichiro", b"hayashi", b"mori_aoi", b"ueno"]
    hits = [(w, n) for w, blob in _blobs(outs["new-blind"]) for n in names if n in blob.lower()]
    assert hits == []
    with (outs["new-blind"] / "similarity.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    # mori_aoi handed in last year's work: the pair is flagged, each side named by its own batch's id
    assert any(r["submission_a"].startswith("anon-") and r["submission_b"].startswith("old-blind/anon-")
               or r["submission_b"].startswith("anon-") and r["submission_a"].startswith("old-blind/anon-")
               for r in rows), rows


def test_a_refused_batch_records_no_names_so_the_folder_can_still_go_blind_or_not(tmp_path):
    """A batch refused after it looked at SOURCE (an LMS gradebook asked of a plain folder) leaves
    neither the names it would have given nor blind ids behind: the folder then takes a blind
    batch, or (refused blind first) a batch under names, and every command reads it whole."""
    import shutil

    src = tmp_path / "src"
    shutil.copytree(EXAMPLES / "correct", src / "alice")
    for first, then in ((("--gradebook", "moodle"), ("--anonymous",)),
                        (("--anonymous", "--gradebook", "moodle"), ())):
        out = tmp_path / f"out{len(then)}"
        refused = _batch(src, out, *first)
        assert refused.returncode != 0 and "moodle" in refused.stderr.lower(), refused.stderr
        assert not (out / ".names.json").exists() and not (out / "identities.csv").exists()
        graded = _batch(src, out, *then)
        assert graded.returncode == 0, graded.stderr
        rows = list(csv.DictReader(io.StringIO((out / "gradebook.csv").read_text(encoding="utf-8-sig"))))
        assert len(rows) == 1 and rows[0]["score"], rows
        assert (out / "identities.csv").exists() == bool(then)
        assert (out / ".names.json").exists() == (not then)
