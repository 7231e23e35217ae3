"""Reports reach the disk whole (grader/report/files.py): written beside the target and renamed."""

from __future__ import annotations

import pytest

from grader.report.files import write_atomic


def test_a_report_is_written_whole_and_replaces_the_old_one(tmp_path) -> None:
    target = tmp_path / "reports" / "alice.yaml"
    assert write_atomic(target, "score: 1\n") == target
    write_atomic(target, "score: 2\n")
    assert target.read_text(encoding="utf-8") == "score: 2\n"
    assert sorted(p.name for p in target.parent.iterdir()) == ["alice.yaml"]  # no .part left


def test_a_failed_write_leaves_the_old_report_and_no_part_file(tmp_path) -> None:
    target = tmp_path / "alice.yaml"
    write_atomic(target, "score: 1\n")
    with pytest.raises(UnicodeEncodeError):
        write_atomic(target, "\udcff")  # a lone surrogate cannot be written as UTF-8
    assert target.read_text(encoding="utf-8") == "score: 1\n"
    assert [p.name for p in tmp_path.iterdir()] == ["alice.yaml"]
