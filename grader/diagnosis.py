"""Outcomes + probe values → recognised mistakes (see the assignment contract's ids)."""

from __future__ import annotations

from typing import Any

from grader.report.model import Mistake


def diagnose(run: Any, session: Any, reference: Any, rubric: Any) -> list[Mistake]:
    """Name the known mistakes this submission shows. Minimal: untouched stubs."""
    mistakes: list[Mistake] = []
    stub_parts = sorted({
        t.part for t in run.outcomes
        if t.feedback.get("en", "").startswith("Not implemented yet")
    })
    for part in stub_parts:
        mistakes.append(Mistake(
            id="not-implemented",
            part=part,
            message={
                "en": f"{part}.py still raises NotImplementedError: the stub has not been filled in.",
                "ja": f"{part}.py はまだ NotImplementedError を送出しています。スタブを実装してください。",
            },
            evidence={"part": part},
        ))
    return mistakes
