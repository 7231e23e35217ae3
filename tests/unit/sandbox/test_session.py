"""The Session protocol (grader/sandbox/session.py): the session the worker gives out meets it."""

from __future__ import annotations


def test_the_sandbox_session_meets_its_protocol() -> None:
    """The session the worker gives out has every member the Session protocol names."""
    from grader.sandbox.session import Session
    from grader.sandbox.child import SubmissionSession

    members = [n for n in ("call", "module_for", "load_error", "close") if not callable(getattr(SubmissionSession, n, None))]
    assert members == []
    assert set(Session.__annotations__) == {"kind", "load_report", "events", "enforced"}
