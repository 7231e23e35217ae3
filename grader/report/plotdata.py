"""The numbers behind the HTML report's plots, gathered after the tests.

:func:`collect_plot_data` calls the student's functions through the sandbox session (plain
data back, as for the tests) on fixed inputs, and computes the reference values here with
torch, on the trusted side. A function that is missing, raises or times out leaves its series
as ``None``; the page then plots what there is.

Example::

    report.plots = collect_plot_data(session)
    report.plots["variance"]["d_k"]      # [1, 4, 16, 64, 256, 1024]
"""

from __future__ import annotations

import math
from typing import Any

D_K = 64
DIMS = [1, 4, 16, 64, 256, 1024]
N_SAMPLES = 4000
SEED = 7


def _floats(value: Any) -> list[float] | None:
    try:
        import numpy as np

        arr = np.asarray(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        return None
    if arr.size == 0:
        return None
    return [float(x) if math.isfinite(float(x)) else float("nan") for x in arr]


def _float(value: Any) -> float | None:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _try(session: Any, part: str, func: str, *args: Any) -> Any:
    try:
        return session.call(part, func, list(args), {})
    except Exception:  # noqa: BLE001 - whatever the student's code did, the plot goes on without it
        return None


def collect_plot_data(session: Any) -> dict[str, Any]:
    """Student and reference values for the softmax and variance plots.

    Args:
        session: an open :class:`grader.sandbox.worker.SubmissionSession` (or anything with
            ``call(part, func, args, kwargs)``).

    Returns:
        ``{"softmax": {"d_k", "scores", "student_unscaled", "student_scaled",
        "reference_unscaled", "reference_scaled"}, "variance": {"d_k", "student", "scaled",
        "reference", "reference_scaled"}}``; plain lists of floats (or ``None``).
    """
    import torch

    gen = torch.Generator().manual_seed(SEED)
    # Raw q.k scores for d_k = 64 have a standard deviation of about 8: softmax saturates.
    scores = (torch.randn(8, generator=gen, dtype=torch.float64) * math.sqrt(D_K)).to(torch.float32)
    scaled_ref = scores / math.sqrt(D_K)
    student_scaled_in = _try(session, "scaling", "scale_scores", scores, D_K)
    scaled_in = scaled_ref
    if student_scaled_in is not None and _floats(student_scaled_in) is not None:
        values = _floats(student_scaled_in)
        if values is not None and len(values) == scores.numel():
            scaled_in = torch.tensor(values, dtype=torch.float32)
    softmax = {
        "d_k": D_K,
        "scores": [float(x) for x in scores],
        "student_unscaled": _floats(_try(session, "softmax", "softmax", scores)),
        "student_scaled": _floats(_try(session, "softmax", "softmax", scaled_in)),
        "reference_unscaled": [float(x) for x in torch.softmax(scores, dim=-1)],
        "reference_scaled": [float(x) for x in torch.softmax(scaled_ref, dim=-1)],
    }
    ref_gen = torch.Generator().manual_seed(SEED)
    reference, reference_scaled = [], []
    for d in DIMS:
        q = torch.randn(N_SAMPLES, d, generator=ref_gen, dtype=torch.float64)
        k = torch.randn(N_SAMPLES, d, generator=ref_gen, dtype=torch.float64)
        dots = (q * k).sum(dim=1)
        reference.append(float(dots.var()))
        reference_scaled.append(float((dots / math.sqrt(d)).var()))
    variance = {
        "d_k": list(DIMS),
        "student": [_float(_try(session, "variance", "dot_product_variance", d, N_SAMPLES, SEED)) for d in DIMS],
        "scaled": [_float(_try(session, "variance", "scaled_dot_product_variance", d, N_SAMPLES, SEED)) for d in DIMS],
        "reference": reference,
        "reference_scaled": reference_scaled,
    }
    return {"softmax": softmax, "variance": variance}
