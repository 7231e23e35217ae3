"""Unknown mistakes grouped: failing functions no catalogue id explains, by what they return.

Every report with an ``unrecognised`` mistake carries the behaviour signature its probes saw
(``evidence.probes``: per function, each probe call and what came back, bounded; see
:func:`grader.kit.probes.signature_of`). Each part's unrecognised failure of a submission is one
unknown mistake, where it starts: the first function of that part (in probe order) whose values no
catalogue id explains; the part's later unrecognised functions are where the same mistake spreads
(a later function calling the student's own wrong earlier one), listed but not
compared. The clusters group those mistakes: two are in one cluster when they start in the same
function and it answered the same probe inputs with the same values (to 1e-3,
:func:`grader.kit.probes.same_signature`) and the same exception types, whatever else the two
submissions get wrong; where the function left no probe values, the failed tests of its part and
the exception types decide. So two students returning identical values share a cluster, and a
student with unknown mistakes in two parts is in two clusters.

``write_clusters(reports, outdir)`` writes ``OUTDIR/unrecognised-clusters.csv`` (``cluster``,
``submission``, ``signature``): one row per unknown mistake, the largest cluster first.

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

__all__ = ["CLUSTERS_FILE", "Cluster", "Signature", "clusters", "describe", "read_reports", "signatures",
           "write_clusters"]

#: The file in a batch's output folder.
CLUSTERS_FILE = "unrecognised-clusters.csv"
#: Tests named in a cluster's description (the csv names them all).
_TESTS_SHOWN = 4


@dataclass(frozen=True)
class Signature:
    """What one unknown mistake of one submission did (one part's unrecognised failure).

    Args:
        submission: the report's name (the gradebook's ``submission`` column).
        who: the submission as the instructor knows it (LMS name and id where known).
        parts: (part, function) of each unrecognised function of the part, in probe order: the
            first is where the mistake starts.
        probes: function -> its probe calls (``call``, ``values`` / ``text`` / ``raised``, ...).
        failed: ids of the tests of its part that failed or errored, sorted.
        raised: exception types the first function raised (its probes, the mistake's evidence), sorted.
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
        """The same unknown mistake: the same first function, answering alike (the module docstring)."""
        if self.functions[:1] != other.functions[:1]:
            return False
        func = self.functions[0]
        mine, theirs = self.probes.get(func) or [], other.probes.get(func) or []
        if mine or theirs:
            return same_signature(mine, theirs) and self.raised == other.raised
        return self.failed == other.failed and self.raised == other.raised

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
        """The function where the members' mistake starts (one)."""
        return self.representative.functions[:1]

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


def signatures(report: GradeReport) -> list[Signature]:
    """One signature per unknown mistake of the report (a part's unrecognised failure), in report order."""
    out: list[Signature] = []
    who = _who(report)
    for m in report.mistakes:
        if m.id != UNRECOGNISED:
            continue
        ev = m.evidence if isinstance(m.evidence, dict) else {}
        logged = ev.get("probes") if isinstance(ev.get("probes"), dict) else {}
        funcs = list(dict.fromkeys(str(f) for f in ev.get("functions") or [])) or [m.file or m.part]
        probes: dict[str, list[dict[str, Any]]] = {}
        for func in funcs:
            calls = logged.get(func) if isinstance(logged, dict) else None
            if isinstance(calls, list) and calls:
                probes[func] = [c for c in calls if isinstance(c, dict)]
        raised = {str(c["raised"]) for c in probes.get(funcs[0], []) if c.get("raised")}
        if ev.get("raised"):
            raised.add(str(ev["raised"]))
        failed = tuple(sorted(t.id for t in report.tests
                              if t.part == m.part and t.status in (Status.FAILED, Status.ERROR)))
        out.append(Signature(report.submission, who, tuple((m.part, f) for f in funcs), probes, failed,
                             tuple(sorted(raised))))
    return out


def clusters(reports: Iterable[GradeReport]) -> list[Cluster]:
    """Group the unknown mistakes of the reports; largest cluster first, ties by function and name."""
    groups: list[list[Signature]] = []
    # Two signatures alike share their first function and what it raised: each is compared with
    # the groups of its own kind only, not with every group of the class.
    kinds: dict[tuple[tuple[str, ...], tuple[str, ...]], list[list[Signature]]] = {}
    every = [sig for report in reports for sig in signatures(report)]
    for sig in sorted(every, key=lambda s: (s.submission, s.functions[:1])):
        kind = kinds.setdefault((sig.functions[:1], sig.raised), [])
        home = next((g for g in kind if g[0].same(sig)), None)
        if home is None:
            groups.append([sig])
            kind.append(groups[-1])
        else:
            home.append(sig)
    groups.sort(key=lambda g: (-len(g), g[0].functions[:1], g[0].submission))
    return [Cluster(i, g) for i, g in enumerate(groups, 1)]


def _number(x: Any) -> str:
    return f"{x:.4g}" if isinstance(x, float) else str(x)


def _shown(call: dict[str, Any]) -> str:
    """``call → value`` for one probe record (student values are shown, not trusted); a dict's
    keys are shown with its values."""
    if call.get("raised"):
        got = f"raised {call['raised']}"
    elif isinstance(call.get("values"), list):
        vals = [_number(v) for v in call["values"][:4]]
        more = ", …" if int(call.get("n") or 0) > 4 else ""
        keys = call.get("keys")
        if isinstance(keys, list) and keys:
            got = "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(keys, vals)) + more + "}"
        else:
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
    """``OUTDIR/unrecognised-clusters.csv``: one row per unknown mistake (a submission with two is
    in two clusters), cells through the csv sink."""
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
