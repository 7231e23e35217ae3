"""What one submission may use: the rubric's ``limits:``, applied by the sandbox.

One class for both sides of the boundary: the rubric reads it from YAML
(:func:`grader.spec.rubric.load.load_rubric`), the sandbox applies it (:mod:`grader.sandbox.worker`,
:mod:`grader.sandbox.spawn`), and its plain form (:meth:`Limits.to_dict`) is the limits frame the zygote receives before any
student code runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

__all__ = ["Limits"]


def _help(text: str) -> dict[str, str]:
    return {"help": text}


@dataclass(frozen=True, slots=True)
class Limits:
    """What one submission may use. All values are upper bounds.

    ================  ======================================================================
    per_call_s        wall-clock seconds for one call into student code
    per_submission_s  wall-clock seconds for the whole submission (all tests and probes)
    memory_mb         address space the worker may add on top of its size after import torch
    cpu_s             CPU seconds for the whole submission
    file_size_mb      largest file the student's code may write
    scratch_mb        total size of the private scratch folder
    output_kb         stdout + stderr kept from the student's code; the rest is cut
    processes         processes the student's code may run at once (1: no forking)
    ================  ======================================================================
    """

    per_call_s: float = field(default=10.0, metadata=_help("wall-clock seconds per call"))
    per_submission_s: float = field(
        default=120.0, metadata=_help("wall-clock seconds for the whole submission")
    )
    memory_mb: int = field(
        default=1024,
        metadata=_help("MiB of address space above the worker's size after import torch"),
    )
    cpu_s: float = field(default=60.0, metadata=_help("CPU seconds for the whole submission"))
    file_size_mb: int = field(
        default=16, metadata=_help("MiB: largest file student code may write")
    )
    scratch_mb: int = field(default=64, metadata=_help("MiB: total size of the scratch folder"))
    output_kb: int = field(default=256, metadata=_help("KiB of stdout + stderr kept"))
    processes: int = field(default=1, metadata=_help("processes student code may run at once"))

    @classmethod
    def of(cls, limits: Limits | Mapping[str, Any] | None) -> Limits:
        """``limits`` as a :class:`Limits`: None gives the defaults, a mapping its known keys
        (its values as YAML gave them: each field's own type is the check)."""
        if limits is None:
            return cls()
        if isinstance(limits, Limits):
            return cls(**asdict(limits)) if type(limits) is not cls else limits
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in limits.items() if k in known})

    def to_dict(self) -> dict[str, float]:
        """Plain data: the limits frame sent to the sandbox (every value a number)."""
        return asdict(self)
