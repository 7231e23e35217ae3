"""Maintenance tools run by course staff (``python -m grader.prepare.<name>``), not by students."""
