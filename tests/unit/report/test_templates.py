"""The pages' Jinja environment (grader/report/templates.py): made once, escaping every value."""

from __future__ import annotations

from grader.report.templates import environment


def test_one_environment_escapes_what_a_template_leaves_unescaped() -> None:
    env = environment()
    assert env is environment()
    page = env.from_string("<p>{{ name }}</p>").render(name="<script>alert(1)</script>")
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert env.globals["font_stack"] and env.get_template("report.html.j2") is not None
