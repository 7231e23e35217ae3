"""The batch's yaml record and its JSON copy: the copy is used only while it matches the record
byte for byte; a record edited by hand, a stale or broken copy, or none at all means the yaml
itself is read."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from grader.report.outdir import cache_path, read_record, report_path, write_record


DATA = {"schema": 1, "assignment": "chapter07", "submission": "s1", "score": 3.0, "max_score": 4.0,
        "tests": [{"id": "public/test_a.py::test_x", "status": "passed", "score": 1.0,
                   "title": {"en": "x", "ja": "エックス"}}],
        "student": {"id": "123", "name": "山田 花子"}}


def _written(tmp_path: Path, data: dict = DATA) -> Path:
    path = report_path(tmp_path, "s1")
    write_record(path, data)
    return path


def test_the_record_and_its_copy_hold_the_same_data(tmp_path):
    path = _written(tmp_path)
    assert yaml.safe_load(path.read_text(encoding="utf-8")) == DATA
    kept = json.loads(cache_path(path).read_text(encoding="utf-8"))
    assert kept["report"] == DATA
    assert cache_path(path) == tmp_path / ".cache" / "reports" / "s1.json"
    assert read_record(path) == DATA
    assert not list(cache_path(path).parent.glob("*.part")), "no temporary file is left"


def test_a_matching_copy_is_what_is_read(tmp_path, monkeypatch):
    path = _written(tmp_path)
    import grader.safeyaml

    def no_yaml(text):
        raise AssertionError("the yaml was parsed although its copy matches")

    monkeypatch.setattr(grader.safeyaml, "load", no_yaml)
    assert read_record(path) == DATA


def test_a_copy_edited_by_hand_never_stands_in_for_its_record(tmp_path):
    """A copy that names the record's hash but says something else: the record is read, the copy
    removed, and whoever asked is told which record it was."""
    path = _written(tmp_path)
    copy = cache_path(path)
    kept = json.loads(copy.read_text(encoding="utf-8"))
    kept["report"]["score"] = 99.0  # (the hash it names is still the record's)
    copy.write_text(json.dumps(kept), encoding="utf-8")
    told = []
    assert read_record(path, told.append)["score"] == 3.0
    assert told == [path]
    assert not copy.exists()


def test_a_record_edited_by_hand_is_read_from_its_yaml(tmp_path):
    path = _written(tmp_path)
    path.write_text(path.read_text(encoding="utf-8").replace("score: 3.0", "score: 3.5"), encoding="utf-8")
    assert read_record(path)["score"] == 3.5


def test_a_missing_or_broken_copy_falls_back_to_the_yaml(tmp_path):
    path = _written(tmp_path)
    copy = cache_path(path)
    for text in ("", "{not json", "[]", '{"yaml_sha256": 1, "report": []}'):
        copy.write_text(text, encoding="utf-8")
        assert read_record(path) == DATA, text
    copy.unlink()
    assert read_record(path) == DATA


def test_data_json_cannot_hold_is_kept_in_the_yaml_alone(tmp_path):
    data = {**DATA, "numbers": {1: "one"}}  # an int key: JSON would make it "1"
    path = _written(tmp_path, data)
    assert not cache_path(path).exists()
    assert read_record(path) == data


def test_an_absent_or_unreadable_record_is_none(tmp_path):
    assert read_record(report_path(tmp_path, "nobody")) is None
    path = report_path(tmp_path, "list")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("- a list\n", encoding="utf-8")
    assert read_record(path) is None
    path.write_bytes(b"\xff\xfe not utf-8")
    assert read_record(path) is None


def test_a_roster_naming_what_cannot_be_a_report_is_refused_with_its_path(tmp_path):
    """``.names.json`` is read back on every batch: a name that would put a report outside
    ``reports/``, a name that is not text, or a file nested past reason is refused, naming the
    file and the fix, before anything is written."""
    import pytest

    from grader.errors import UsageError
    from grader.report.outdir import ROSTER, Roster

    good = {"schema": 1, "given": {"entry:bob": "bob"}, "names": ["bob"], "current": {"bob": "bob"}}
    (tmp_path / ROSTER).write_text(json.dumps(good), encoding="utf-8")
    roster = Roster.read(tmp_path)
    assert roster is not None and roster.given == {"entry:bob": "bob"} and roster.names == {"bob"}
    for bad in ({**good, "given": {"entry:bob": "../../escaped"}}, {**good, "given": {"entry:bob": None}},
                {**good, "current": {"..": "bob"}}, {**good, "names": ["a/b"]}, {**good, "names": [".hidden"]},
                {**good, "given": {"entry:bob": "x" * 300}}):
        (tmp_path / ROSTER).write_text(json.dumps(bad), encoding="utf-8")
        with pytest.raises(UsageError, match="delete it and run grader batch again") as caught:
            Roster.read(tmp_path)
        assert str(tmp_path / ROSTER) in str(caught.value)
    (tmp_path / ROSTER).write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(UsageError, match="not the record of the names"):
        Roster.read(tmp_path)


def test_a_roster_keeps_every_name_it_ever_gave(tmp_path):
    """Two entries sharing a key (the first keeps it, the second is known by its exact name), and
    a name recorded under no free key still counts as given: none is handed to someone new."""
    from grader.report.outdir import Roster

    roster = Roster()
    roster.record({"José": ("entry:José", "entry:José"), "José-2": ("entry:José", "entry:Jose\u0301")},
                  {"José": "José", "José-2": "José"})
    roster.record({"x": ("entry:José", "entry:José")}, {"x": "José"})
    roster.write(tmp_path)
    again = Roster.read(tmp_path)
    assert again is not None
    assert again.given == {"entry:José": "José", "entry:Jose\u0301": "José-2"}
    assert again.names == {"José", "José-2", "x"} and again.current == {"x": "José"}
