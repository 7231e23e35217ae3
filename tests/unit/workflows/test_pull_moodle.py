"""grader.workflows.pull_moodle against the Moodle double (tests/moodle_double.py): the folder a pull
writes is the one ``grader batch`` reads for a Moodle download, and a second pull fetches only
what changed."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.errors import UsageError
from grader.ingest.lms import lms_name
from grader.lms.moodle import Moodle
from grader.lms.transport import Transport
from grader.workflows.pull_moodle import folder_name, pull_moodle
from tests.moodle_double import MoodleDouble, Submission, User

TOKEN = "0123456789abcdef0123456789abcdef"
DUE = 1_796_137_140  # 2026-12-01T14:59:00Z (23:59 in Japan)


@pytest.fixture
def double() -> Iterator[MoodleDouble]:
    d = MoodleDouble(TOKEN, {
        11: User(11, "山田 太郎", 123458), 12: User(12, "Jane_Doe", 123462),
        13: User(13, "../../etc/Eve_99_assignsubmission_file_", 123463), 14: User(14, "Draft Only", 123464),
        90: User(90, "Teacher", 123999, student=False)})
    d.submissions[11] = Submission(501, 11, DUE - 3600, {"scaling.py": b"a = 1\n", "softmax.py": b"b = 2\n"})
    d.submissions[12] = Submission(502, 12, DUE + 7200, {"scaling.py": b"c = 3\n"}, attemptnumber=1)
    d.submissions[13] = Submission(503, 13, DUE - 60, {"../../evil.py": b"bad\n", "a\x01b.py": b"ctl\n"})
    d.submissions[14] = Submission(504, 14, DUE - 30, {"scaling.py": b"draft\n"}, status="draft")
    d.submissions[90] = Submission(505, 90, DUE - 10, {"scaling.py": b"teacher\n"})
    d.extensions[12] = DUE + 86400
    d.start()
    yield d
    d.stop()


def moodle(d: MoodleDouble) -> Moodle:
    return Moodle(d.url, TOKEN, Transport(d.url, TOKEN, sleep=lambda s: None, bearer=False))


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_first_pull_writes_moodles_download_layout_with_times_and_extensions(double: MoodleDouble,
                                                                                 tmp_path: Path) -> None:
    src = tmp_path / "src"
    result = pull_moodle(src, moodle(double), str(double.assignment))
    assert sorted(result.fetched) == ["123458", "123462", "123463"] and result.drafts == 1 and result.first
    got = tree(src / "submissions")
    assert got == {
        "山田 太郎_123458_assignsubmission_file_/scaling.py": b"a = 1\n",
        "山田 太郎_123458_assignsubmission_file_/softmax.py": b"b = 2\n",
        "Jane Doe_123462_assignsubmission_file_/scaling.py": b"c = 3\n",
        "....etcEve 99 assignsubmission file _123463_assignsubmission_file_/evil.py": b"bad\n",
        "....etcEve 99 assignsubmission file _123463_assignsubmission_file_/ab.py": b"ctl\n",
    }
    # the batch reads each folder as Moodle's, with the participant number as the id: the
    # student's own name cannot say another id
    for entry in {k.split("/")[0] for k in got}:
        parsed = lms_name(entry, is_dir=True)
        assert parsed is not None and parsed.lms == "moodle"
        assert parsed.student_id == entry.split("_assignsubmission_file_")[0].rsplit("_", 1)[1]
    rows = list(csv.DictReader((src / "submitted.csv").open(encoding="utf-8")))
    assert rows == [
        {"student": "123458", "submitted": "2026-12-01T13:59:00+00:00", "attempt": "0", "user_id": "11"},
        {"student": "123462", "submitted": "2026-12-01T16:59:00+00:00", "attempt": "1", "user_id": "12"},
        {"student": "123463", "submitted": "2026-12-01T14:58:00+00:00", "attempt": "0", "user_id": "13"}]
    ext = list(csv.DictReader((src / "extensions.csv").open(encoding="utf-8")))
    assert ext == [{"student": "123462", "due": "2026-12-02T14:59:00+00:00", "reason": "extension granted in Moodle"}]
    assert not (src / ".pulling").exists()
    assert TOKEN not in json.dumps(tree(src), default=str)  # (bytes reprs: the token in no file)


def test_a_second_pull_fetches_only_what_changed_since(double: MoodleDouble, tmp_path: Path) -> None:
    src = tmp_path / "src"
    pull_moodle(src, moodle(double), str(double.assignment))
    first = len(double.downloads)
    again = pull_moodle(src, moodle(double), str(double.assignment))
    assert again.fetched == [] and not again.first and len(double.downloads) == first
    asked = [r.params for r in double.log if r.function == "mod_assign_get_submissions"]
    assert asked[-1]["since"] == str(DUE + 7200)  # (Moodle: timemodified >= since)
    # Jane submits again: only her files are fetched, into her folder, the old file gone
    double.submissions[12] = Submission(502, 12, DUE + 9000, {"softmax.py": b"new\n"}, attemptnumber=2)
    third = pull_moodle(src, moodle(double), str(double.assignment))
    assert third.fetched == ["123462"] and len(double.downloads) == first + 1
    assert tree(src / "submissions/Jane Doe_123462_assignsubmission_file_") == {"softmax.py": b"new\n"}
    rows = {r["student"]: r for r in csv.DictReader((src / "submitted.csv").open(encoding="utf-8"))}
    assert rows["123462"]["attempt"] == "2" and rows["123458"]["submitted"] == "2026-12-01T13:59:00+00:00"


def test_a_student_whose_files_fail_keeps_the_last_folder_and_is_fetched_next_time(double: MoodleDouble,
                                                                                  tmp_path: Path) -> None:
    src = tmp_path / "src"
    pull_moodle(src, moodle(double), str(double.assignment))
    double.submissions[11] = Submission(501, 11, DUE + 10_000, {"scaling.py": b"v2\n"})
    real = double._file  # a file Moodle will not send this time

    def refuse(path: str, form: dict[str, str]):  # type: ignore[no-untyped-def]
        return 404, {"exception": "moodle_exception", "errorcode": "filenotfound", "message": "File not found"}, {}

    double._file = refuse  # type: ignore[method-assign]
    failed = pull_moodle(src, moodle(double), str(double.assignment))
    assert failed.failed == [("山田 太郎 [123458]", "filenotfound: File not found")]
    assert tree(src / "submissions/山田 太郎_123458_assignsubmission_file_")["scaling.py"] == b"a = 1\n"
    double._file = real  # type: ignore[method-assign]
    fixed = pull_moodle(src, moodle(double), str(double.assignment))
    assert fixed.fetched == ["123458"] and not fixed.failed
    assert tree(src / "submissions/山田 太郎_123458_assignsubmission_file_") == {"scaling.py": b"v2\n"}


def test_a_folder_of_another_assignment_or_a_damaged_record_is_refused(double: MoodleDouble, tmp_path: Path) -> None:
    src = tmp_path / "src"
    pull_moodle(src, moodle(double), str(double.assignment))
    double.assignment = 43
    with pytest.raises(UsageError, match="holds a pull of assignment 42"):
        pull_moodle(src, moodle(double), "43")
    double.assignment = 42
    record = json.loads((src / "moodle-pull.json").read_text(encoding="utf-8"))
    record["students"]["123458"]["folder"] = ".."  # a damaged (or edited) record never names a folder outside
    (src / "moodle-pull.json").write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(UsageError, match="the record of the last pull cannot be read"):
        pull_moodle(src, moodle(double), "42")


def test_folder_names_are_cut_keeping_the_id_and_suffix() -> None:
    name = folder_name("名" * 200, "123458")
    assert len(name.encode()) <= 200 and name.endswith("_123458_assignsubmission_file_")


def test_under_blind_marking_the_pull_writes_no_name_and_no_user_id(double: MoodleDouble, tmp_path: Path) -> None:
    """mod/assign/locallib.php download_submissions: with blind marking (identities not revealed)
    the folders are named Participant_<number>, as Moodle's own download names them."""
    double.blindmarking = True
    src = tmp_path / "src"
    pull_moodle(src, moodle(double), str(double.assignment), lang="ja")
    assert sorted(p.name for p in (src / "submissions").iterdir()) == [
        "参加者_123458_assignsubmission_file_", "参加者_123462_assignsubmission_file_",
        "参加者_123463_assignsubmission_file_"]
    assert {r["user_id"] for r in csv.DictReader((src / "submitted.csv").open(encoding="utf-8"))} == {""}
    record = (src / "moodle-pull.json").read_text(encoding="utf-8")
    assert "山田" not in record and "Jane" not in record
