"""Unknown mistakes grouped: submissions whose failures match no catalogue id, by behaviour.

Every report with an ``unrecognised`` mistake carries the behaviour signature its probes saw
(``evidence.probes``: per function, each probe call and what came back, bounded; see
:func:`grader.kit.probes.signature_of`). Two submissions are in one cluster when the same
functions are unrecognised and every one of them answered the same probe inputs with the
same values (to 1e-3, :func:`grader.kit.probes.same_signature`) and the same exception types;
where a function left no probe values, the failed tests and the exception types decide.

``write_clusters(reports, outdir)`` writes ``OUTDIR/unrecognised-clusters.csv`` (``cluster``,
``submission``, ``signature``): every such submission exactly once, the largest cluster first.

Example::

    groups = clusters(reports)
    groups[0].size, groups[0].functions, describe(groups[0], "ja")
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader import sinks
from grader.i18n.messages import said
from grader.kit.signature import UNRECOGNISED, same_signature
from grader.report.files import write_atomic
from grader.report.model import GradeReport, Status
from grader.i18n.messages import by_lang

__all__ = ["CLUSTERS_FILE", "Cluster", "Signature", "clusters", "describe", "read_reports", "signature",
           "write_clusters"]

#: The file in a batch's output folder.
CLUSTERS_FILE = "unrecognised-clusters.csv"
#: Tests named in a cluster's description (the csv names them all).
_TESTS_SHOWN = 4


@dataclass(frozen=True)
class Signature:
    """What one submission's unrecognised failures did.

    Args:
        submission: the report's name (the gradebook's ``submission`` column).
        who: the submission as the instructor knows it (LMS name and id where known).
        parts: (part, function) of each unrecognised function, in report order.
        probes: function -> its probe calls (``call``, ``values`` / ``text`` / ``raised``, ...).
        failed: ids of the tests that failed or errored, sorted.
        raised: exception types seen (probes and the mistakes' evidence), sorted.
    """

    submission: str
    who: str
    parts: tuple[tuple[str, str], ...]
    probes: dict[str, list[dict[str, Any]]]
    failed: tuple[str, ...]
    raised: tuple[str, ...]

    @property
    def functions(self) -> tuple[str, ...]:
        return tuple(f for _, f in self.parts)

    def same(self, other: Signature) -> bool:
        """The same behaviour (see the module docstring).

        The first unrecognised function (in probe order) must be the same; functions both
        have must answer alike; a function only one of them has is where the same mistake
        spread further (one student's later function calls their earlier one, another's
        does not), so it does not split them.
        """
        if not self.functions or not other.functions or self.functions[0] != other.functions[0]:
            return False
        common = [f for f in self.functions if f in other.functions]
        probed = [f for f in common if self.probes.get(f) or other.probes.get(f)]
        if not all(same_signature(self.probes.get(f) or [], other.probes.get(f) or []) for f in probed):
            return False
        return bool(probed) or (self.failed == other.failed and self.raised == other.raised)

    def text(self) -> str:
        """One line for the csv: each function's first probe and value, the failed tests."""
        bits = []
        for func in self.functions:
            calls = self.probes.get(func) or []
            bits.append(f"{func}: " + ("; ".join(_shown(c) for c in calls[:2]) if calls else "-"))
        bits.append("raised: " + ", ".join(self.raised) if self.raised else "")
        bits.append("fails: " + ", ".join(self.failed))
        return sinks.cap(" | ".join(b for b in bits if b), 2000)


@dataclass
class Cluster:
    """Submissions with the same unrecognised behaviour; ``number`` counts from 1, largest first."""

    number: int
    members: list[Signature] = field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.members)

    @property
    def representative(self) -> Signature:
        return self.members[0]

    @property
    def functions(self) -> tuple[str, ...]:
        return self.representative.functions

    @property
    def failed(self) -> tuple[str, ...]:
        """Tests every member fails."""
        common = set(self.members[0].failed)
        for m in self.members[1:]:
            common &= set(m.failed)
        return tuple(sorted(common))


def _who(report: GradeReport) -> str:
    who = report.student or {}
    name, sid = str(who.get("name") or ""), str(who.get("id") or "")
    return f"{name} ({sid})" if name and sid else report.submission


def signature(report: GradeReport) -> Signature | None:
    """The behaviour signature of a report with an unrecognised mistake, else None."""
    unknown = [m for m in report.mistakes if m.id == UNRECOGNISED]
    if not unknown:
        return None
    parts: list[tuple[str, str]] = []
    probes: dict[str, list[dict[str, Any]]] = {}
    raised: set[str] = set()
    for m in unknown:
        ev = m.evidence if isinstance(m.evidence, dict) else {}
        funcs = [str(f) for f in ev.get("functions") or []] or [m.file or m.part]
        parts += [(m.part, f) for f in funcs]
        logged = ev.get("probes")
        for func, calls in (logged.items() if isinstance(logged, dict) else ()):
            if isinstance(calls, list):
                probes[str(func)] = [c for c in calls if isinstance(c, dict)]
                raised |= {str(c["raised"]) for c in probes[str(func)] if c.get("raised")}
        if ev.get("raised"):
            raised.add(str(ev["raised"]))
    failed = sorted(t.id for t in report.tests if t.status in (Status.FAILED, Status.ERROR))
    return Signature(report.submission, _who(report), tuple(parts), probes, tuple(failed), tuple(sorted(raised)))


def clusters(reports: Iterable[GradeReport]) -> list[Cluster]:
    """Group the reports with unrecognised mistakes; largest cluster first, ties by name."""
    groups: list[list[Signature]] = []
    for sig in sorted(filter(None, map(signature, reports)), key=lambda s: s.submission):
        home = next((g for g in groups if g[0].same(sig)), None)
        if home is None:
            groups.append([sig])
        else:
            home.append(sig)
    groups.sort(key=lambda g: (-len(g), g[0].submission))
    return [Cluster(i, g) for i, g in enumerate(groups, 1)]


def _number(x: Any) -> str:
    return f"{x:.4g}" if isinstance(x, float) else str(x)


def _shown(call: dict[str, Any]) -> str:
    """``call → value`` for one probe record (student values are shown, not trusted)."""
    if call.get("raised"):
        got = f"raised {call['raised']}"
    elif isinstance(call.get("values"), list):
        vals = [_number(v) for v in call["values"][:4]]
        more = ", …" if int(call.get("n") or 0) > 4 else ""
        got = f"[{', '.join(vals)}{more}]" if call.get("shape") else (vals[0] if vals else "?")
    else:
        got = str(call.get("text", "?"))
    return f"{call.get('call', '?')} → {got}"


_WORDS = by_lang({
    "size": "cluster_size", "one": "cluster_one", "same": "cluster_same", "probe": "cluster_probe",
    "probe1": "cluster_probe1", "raised": "cluster_raised", "example": "summary_cluster_example",
    "tests": "summary_cluster_tests", "none": "summary_none",
})


def describe(cluster: Cluster, lang: str) -> dict[str, str]:
    """The cluster in words, for the summary's first screen (student text is raw here: the
    page's sink escapes it). Keys: ``head``, ``probe``, ``example``, ``tests``."""
    w = _WORDS[lang]
    rep = cluster.representative
    funcs = ", ".join(f"{f}" for f in cluster.functions)
    first = next((rep.probes[f] for f in cluster.functions if rep.probes.get(f)), [])
    probe = ""
    if first:
        probe = (w["probe"].format(probe=_shown(first[0]), more=len(first) - 1) if len(first) > 1
                 else w["probe1"].format(probe=_shown(first[0])))
    if rep.raised:
        probe = (probe + "; " if probe else "") + w["raised"].format(raised=", ".join(rep.raised))
    failed = cluster.failed
    tests = ", ".join(failed[:_TESTS_SHOWN]) + (f", … (+{len(failed) - _TESTS_SHOWN})" if len(failed) > _TESTS_SHOWN else "")
    return {
        "head": (w["size"].format(n=cluster.size) if cluster.size != 1 else w["one"]) + ": "
        + w["same"].format(funcs=funcs),
        "probe": probe,
        "example": rep.who,
        "tests": tests or w["none"],
    }


def write_clusters(groups: list[Cluster], outdir: str | Path) -> Path:
    """``OUTDIR/unrecognised-clusters.csv``: one row per submission, cells through the csv sink."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["cluster", "submission", "signature"])
    for group in groups:
        for member in group.members:
            writer.writerow([group.number, sinks.csv_cell(member.submission), sinks.csv_cell(member.text())])
    return write_atomic(Path(outdir) / CLUSTERS_FILE, buf.getvalue())


def read_reports(outdir: str | Path) -> list[GradeReport]:
    """Every YAML report of the entries in a batch's last run, by name.

    Raises:
        UsageError: the folder holds no reports.
    """
    from grader.report.outdir import read_report, reports_now
    from grader.errors import UsageError

    folder = Path(outdir) / "reports"
    paths, _ = reports_now(Path(outdir))  # (not those of entries gone from SOURCE)
    if not paths:
        raise UsageError(said("no_reports_run_grader", dir=outdir, reports=folder, out=outdir))
    reports = []
    for path in paths:
        report = read_report(path)
        if report is not None:
            reports.append(report)
    return reports
