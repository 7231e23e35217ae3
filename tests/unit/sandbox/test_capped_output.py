"""The reader of a sandbox's output pipe (``grader.sandbox.worker.CappedOutput``): capped, and
never handing one child's output to the next."""

from __future__ import annotations

import os

from grader.sandbox.worker import CappedOutput


def test_settle_waits_until_every_byte_written_is_read_so_none_is_left_for_the_next_child() -> None:
    """A killed child's last 60,000 bytes still in the pipe: after ``settle`` the reader has them
    all (1,024 kept, the rest counted), and nothing more comes to the next take."""
    r, w = os.pipe()
    out = CappedOutput(r, 1024)
    try:
        os.write(w, b"y" * 60000)  # within a pipe's buffer: written at once, read when the reader gets to it
        out.settle()
        first = out.take()
        assert first.startswith("y" * 1024) and f"[... {60000 - 1024} more bytes of output dropped]" in first
        os.write(w, b"fine\n")
        out.settle()
        assert out.take() == "fine\n"
    finally:
        os.close(w)
        out.thread.join(timeout=5)


def test_what_comes_after_a_stopped_process_was_read_is_counted_not_kept_again() -> None:
    """``rest`` is the last take of a stopped process: bytes still on their way are dropped and
    counted, never kept as a second helping of output."""
    r, w = os.pipe()
    out = CappedOutput(r, 1024)
    try:
        os.write(w, b"a" * 2000)
        out.settle()
        first = out.rest(timeout=0.0)  # the process is over; its writer (here: w) is not closed yet
        assert first.startswith("a" * 1024) and "976 more bytes" in first
        os.write(w, b"b" * 500)
        out.settle()
        assert out.take() == "\n[... 500 more bytes of output dropped]\n"
    finally:
        os.close(w)
        out.thread.join(timeout=5)
