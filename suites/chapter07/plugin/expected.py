"""Chapter 7's public expected values: the worked examples the public tests check without a reference.

Written to ``suites/chapter07/public/expected.json`` by ``python -m grader.prepare.expected``; the
quiz entries carry each question's id and answer type only, never the answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

CHOICES = ["a", "b", "c", "d"]


def _t(values: Sequence[Any]) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float64)


def build(reference: Any) -> dict[str, Any]:
    """The public expected values, computed with the loaded reference (``reference.scaling`` ...)."""
    scaling, softmax = reference.scaling, reference.softmax
    key = reference.answers_key or {}

    sizes = [(768, 12), (4096, 32), (512, 8)]
    scores = [40.0, -24.0, 10.0, 8.0, 6.0]
    chapter_scores = [12.0, 9.0, 6.0, 3.0]
    p = [0.5, 0.3, 0.2]
    return {
        "_generated_by": "python -m grader.prepare.expected (from the reference solution; do not edit)",
        "head_dim": [
            {"d_model": m, "n_heads": h, "expected": scaling.head_dim(m, h)} for m, h in sizes
        ],
        "scaling_factor": [
            {"d_model": m, "n_heads": h, "expected": scaling.scaling_factor(m, h)} for m, h in sizes
        ],
        "scale_scores": {
            "scores": scores,
            "d_k": 64,
            "expected": scaling.scale_scores(_t(scores), 64),
        },
        "softmax": {"x": [10.0, 8.0, 6.0], "expected": softmax.softmax(_t([10.0, 8.0, 6.0]))},
        "compare_saturation": {
            "scores": chapter_scores,
            "d_k": 64,
            "expected": softmax.compare_saturation(_t(chapter_scores), 64),
        },
        "softmax_jacobian": {"p": p, "expected": softmax.softmax_jacobian(_t(p))},
        "quiz": [
            {"id": str(qid), "type": spec["type"], **({"choices": CHOICES} if spec["type"] == "choice" else {})}
            for qid, spec in key.items()
        ],
    }
