"""Maintenance tools run by course staff (``python -m grader.tools.<name>``), not by students."""
