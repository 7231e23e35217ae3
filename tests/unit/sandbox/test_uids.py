"""The user ids student code runs as outside namespaces (grader/sandbox/uids.py): each held by one
grading worker at a time, by a lock no student process holds."""

from __future__ import annotations

import os

import pytest

from grader.sandbox.uids import STUDENT_UIDS, Claim, claim_uid, hold


def test_the_ids_are_unlisted_and_fit_a_containers_map() -> None:
    assert STUDENT_UIDS.start > 60000 and STUDENT_UIDS.stop <= 65535


def test_a_lock_is_held_by_one_holder_at_a_time(tmp_path) -> None:
    path = tmp_path / "61000.lock"
    first = hold(path)
    assert first is not None
    try:
        assert hold(path) is None  # another holder is refused while the first holds it
    finally:
        os.close(first)
    again = hold(path)
    assert again is not None
    os.close(again)


def test_a_lock_is_never_taken_through_a_link(tmp_path) -> None:
    (tmp_path / "elsewhere").write_text("", encoding="utf-8")
    (tmp_path / "61001.lock").symlink_to(tmp_path / "elsewhere")
    assert hold(tmp_path / "61001.lock") is None


def test_a_claim_is_an_id_with_its_lock_or_the_reason_there_is_none() -> None:
    claim = claim_uid()
    try:
        if os.geteuid() != 0:
            assert isinstance(claim.uid, str) and claim.fd is None  # only root has a folder of locks
        else:
            assert claim.uid in STUDENT_UIDS and claim.fd is not None
    finally:
        claim.release()
    assert claim.fd is None
    Claim("why not").release()  # a claim without a lock releases nothing


@pytest.mark.skipif(os.geteuid() != 0, reason="two claims at once need root's folder of locks")
def test_two_workers_never_share_an_id() -> None:
    one, two = claim_uid(), claim_uid()
    try:
        assert isinstance(one.uid, int) and isinstance(two.uid, int) and one.uid != two.uid
    finally:
        one.release()
        two.release()
