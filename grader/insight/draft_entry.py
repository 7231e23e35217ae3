"""``grader catalogue draft OUT --cluster N``: a catalogue entry and a mutant from a cluster.

A cluster of :mod:`grader.insight.unknown_mistakes` is a wrong answer many students share that no catalogue
id explains. This writes, into the assignment's plug-in:

- a draft entry at the end of its catalogue (``mistakes.yaml``), marked ``draft: true``, whose
  ``signature:`` is the behaviour of the cluster's representative (:mod:`grader.kit.signature`):
  the diagnosis names the id whenever that function answers the probes the same way;
- a mutant ``<mutants>/<id>/from-cluster-<N>.py``: the representative's function (with its
  imports and the helpers it calls), appended to the reference as every mutant is.

``grader validate`` refuses the entry while it is a draft; once the instructor has worded
its title and messages and deleted ``draft: true``, validate proves that the mutant is named,
and the next batch names the id instead of ``unrecognised``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from grader.errors import UsageError
from grader.i18n.messages import label, said, say
import grader.safeyaml as safeyaml

if TYPE_CHECKING:
    from grader.spec.rubric.model import Rubric

__all__ = ["Drafted", "draft_entry"]

_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


@dataclass(frozen=True)
class Drafted:
    """What was written."""

    id: str
    catalogue: Path
    mutant: Path | None
    function: str
    size: int


def _function_source(code: str, func: str) -> str | None:
    """``func``'s definition in ``code`` with the module's imports and the helpers it calls."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError):
        return None
    defs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if func not in defs:
        return None
    wanted, todo = [func], [defs[func]]
    while todo:
        node = todo.pop()
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and sub.id in defs and sub.id not in wanted:
                wanted.append(sub.id)
                todo.append(defs[sub.id])
    imports = [ast.get_source_segment(code, n) for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    bodies = [ast.get_source_segment(code, defs[name]) for name in reversed(wanted)]
    return "\n".join(s for s in imports if s) + "\n\n\n" + "\n\n\n".join(b for b in bodies if b) + "\n"


def _code_of(outdir: Path, rubric: Rubric, name: str, func: str) -> str | None:
    from grader.insight.similarity import source_of, submissions_in

    try:
        source = source_of(outdir)
    except UsageError:
        return None
    for sub_name, sub in submissions_in(source, outdir, rubric):
        if sub_name != name:
            continue
        for module in sub.modules:
            for chunk in module.chunks:
                found = _function_source(chunk.code, func)
                if found:
                    return found
    return None


def draft_entry(outdir: str | Path, rubric: Rubric, number: int, mid: str | None = None) -> Drafted:
    """Write the draft entry and mutant for cluster ``number`` of the batch in ``outdir``.

    Raises:
        UsageError: no such cluster, a bad or taken id, or an assignment without a catalogue.
    """
    from grader.spec.assignment import assignment_of
    from grader.insight.unknown_mistakes import clusters, read_reports

    out = Path(outdir)
    groups = clusters(read_reports(out))
    chosen = next((c for c in groups if c.number == number), None)
    if chosen is None:
        have = ", ".join(str(c.number) for c in groups) or "none"
        raise UsageError(f"{out}: no cluster {number} (clusters: {have}; see {out / 'unrecognised-clusters.csv'})")
    mid = mid or f"new-mistake-{number}"
    if not _ID.match(mid):
        raise UsageError(said("id_id_lower_case", id=f"{mid!r}"))
    a = assignment_of(rubric)
    file = getattr(rubric.plugin, "catalogue", None)
    if file is None:
        raise UsageError(said("plugin_catalogue_assignment_has", path=rubric.file))
    file = Path(file)
    if mid in a.catalogue():
        raise UsageError(said("mistakes_id_taken_pass", path=file, id=mid))
    rep = chosen.representative
    func = next((f for f in rep.functions if rep.probes.get(f)), None)
    if func is None:
        raise UsageError(said("cluster_functions_left_no", number=number))
    part = next(p for p, f in rep.parts if f == func)
    _append(file, mid, number, chosen.size, part, func, rep.probes[func], out.name)
    mutant = None
    code = _code_of(out, rubric, rep.submission, func)
    if a.mutants is not None and code is not None:
        mutant = Path(a.mutants) / mid / f"from-cluster-{number}.py"
        mutant.parent.mkdir(parents=True, exist_ok=True)
        mutant.write_text(
            f"# mistake: {mid}\n# file: {a.part_files.get(part, part + '.py')}\n"
            f"# mutant: DRAFT {func} as cluster {number} wrote it (its first submission); read it before "
            "grader validate runs it\n\n" + code, encoding="utf-8")
    from grader.spec.catalogue import catalogue

    catalogue.cache_clear()
    return Drafted(mid, file, mutant, func, chosen.size)


def _append(file: Path, mid: str, number: int, size: int, part: str, func: str,
            probes: list[dict[str, Any]], batch: str) -> None:
    entry = {
        "draft": True,
        "title": {lang: label("draft_title", lang, func=func, number=number) for lang in ("en", "ja")},
        "applies_to": [f"{part}.{func}"],
        "recognised_by": (f"{func} answers the probe inputs exactly as the {size} submission(s) of cluster "
                          f"{number} did (the signature below, to 1e-3)."),
        "evidence": "call",
        # the message keeps its {call} slot: the catalogue fills it in with the evidence
        "message": {"default": {lang: say("draft_message", lang, call="{call}") for lang in ("en", "ja")}},
        "signature": {"function": func, "probes": probes},
    }
    from grader import sinks

    # The probe values are the student's (strings capped when recorded): valid Unicode for YAML.
    text = yaml.safe_dump(sinks.clean({mid: entry}), allow_unicode=True, sort_keys=False, width=100, default_flow_style=None)
    block = "\n".join("  " + line if line else line for line in text.splitlines())
    old = file.read_text(encoding="utf-8")
    head = (f"\n  # DRAFT from cluster {number} of {batch} ({size} submission(s)), written by grader catalogue"
            " draft.\n  # Word the title and message (ja and en), then delete `draft: true`; grader validate"
            " checks it.\n")
    new = old.rstrip("\n") + "\n" + head + block + "\n"
    data = safeyaml.load(new)
    if not isinstance(data, dict) or mid not in (data.get("mistakes") or {}):
        raise UsageError(said("cannot_add_mistakes_must", path=file))
    file.write_text(new, encoding="utf-8")
