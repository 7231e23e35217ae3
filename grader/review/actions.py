"""What a reviewer's actions write: each one a line of the batch's ledger, under its lock.

Every action names the ledger head the page was rendered from (the last line about that student,
:meth:`grader.review.data.Batch.head_of`). If another reviewer has written a line about the same
student since, the action is refused with :class:`Conflict`, which carries both versions (the
lines written since, and what this reviewer meant to write), so that nothing is overwritten
silently; the page shows both and lets the reviewer send theirs again against the new head.

The actions: a score change (``adjust``: points or a set score, of the total or a part, through
:func:`grader.workflows.adjust.adjust`, so every view is written again), a comment on lines of a
file (``comment``), taking back an adjustment or a comment (``undo``), a group's members confirmed
in one action (``review`` lines, or ``confirm`` lines for adjustments that need review), and a
blind review's student revealed (``reveal``).

Example::

    comment(out, rubric, "alice", head=3, file="scaling.py", start=4, end=5, text="why 8?", by="tanaka",
            lines=["...", "..."])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.errors import UsageError
from grader.i18n.messages import said
from grader.report import ledger
from grader.review.data import lines_hash
from grader.workflows import adjust as adjusting

if TYPE_CHECKING:
    from grader.review.data import Batch
    from grader.spec.rubric.model import ManualItem, Rubric

__all__ = ["Conflict", "adjust", "comment", "confirm_group", "item_preview", "repoint_item", "reveal", "toggle_item",
           "undo"]

#: the longest comment kept (characters)
MAX_COMMENT = 4000


@dataclass
class Conflict(Exception):
    """Someone else wrote about this student after the page was rendered: their lines, and ours."""

    name: str
    head: int
    theirs: list[ledger.Entry] = field(default_factory=list)
    mine: dict[str, Any] = field(default_factory=dict)


def _check(outdir: Path, name: str, head: int, mine: dict[str, Any]) -> None:
    """Raises :class:`Conflict` when the ledger holds a line about ``name`` after ``head``; the
    caller holds the folder's lock."""
    entries = ledger.read(outdir)
    theirs = [e for e in entries if e.submission == name and e.n > head]
    if theirs:
        raise Conflict(name, max(e.n for e in theirs), theirs, mine)


def _reason(reason: str) -> str:
    reason = reason.strip()
    if not reason:
        raise UsageError(said("reason_required_say_why"))
    return reason


def adjust(outdir: Path, rubric: Rubric, name: str, *, head: int, part: str | None, points: float | None,
           set_to: float | None, reason: str, by: str, lang: str) -> ledger.Entry:
    """A score change, as ``grader adjust`` makes it (every view written again)."""
    with ledger.locked(outdir):
        _check(outdir, name, head, {"op": "adjust", "part": part, "points": points, "set": set_to, "reason": reason})
        return adjusting.adjust(outdir, rubric, name, part=part, points=points, set_to=set_to,
                                reason=_reason(reason), by=by, lang=lang)


def comment(outdir: Path, rubric: Rubric, name: str, *, head: int, file: str, start: int, end: int, text: str,
            by: str, lines: list[str], lang: str) -> ledger.Entry:
    """A comment on lines ``start``..``end`` of ``file`` (``lines``: the file as the reviewer saw it)."""
    text = adjusting.blind_reason(outdir, text.strip()[:MAX_COMMENT])  # (a blind folder keeps no name)
    if not text:
        raise UsageError(said("review_comment_empty"))
    if not 1 <= start <= end <= len(lines):
        raise UsageError(said("review_comment_lines", file=file, start=start, end=end, n=len(lines)))
    shown = lines[start - 1:end]
    note = {"file": file, "start": start, "end": end, "hash": lines_hash(shown), "lines": shown, "text": text}
    with ledger.locked(outdir):
        _check(outdir, name, head, {"op": "comment", **note})
        entry = ledger.append(outdir, op="comment", submission=name, student=_student(outdir, name),
                              reason=said("review_comment_reason", file=file, start=start, end=end), by=by, note=note)
        adjusting.refresh(outdir, rubric, lang, only={name})
        return entry


def undo(outdir: Path, rubric: Rubric, name: str, *, head: int, n: int, reason: str, by: str,
         lang: str) -> ledger.Entry:
    """Takes back adjustment or comment ``n`` of ``name`` (it stays in the ledger)."""
    with ledger.locked(outdir):
        _check(outdir, name, head, {"op": "undo", "target": n, "reason": reason})
        entries = ledger.read(outdir)
        target = next((e for e in entries if e.n == n and e.submission == name), None)
        if target is not None and target.op == "comment":
            if any(e.op == "undo" and e.target == n for e in entries):
                raise UsageError(said("review_already_undone", n=n))
            entry = ledger.append(outdir, op="undo", submission=name, student=_student(outdir, name), target=n,
                                  reason=adjusting.blind_reason(outdir, _reason(reason)), by=by)
            adjusting.refresh(outdir, rubric, lang, only={name})
            return entry
        return adjusting.undo(outdir, rubric, name, n, reason=_reason(reason), by=by, lang=lang)


def confirm_group(outdir: Path, rubric: Rubric, names: list[str], *, group: str, title: str, by: str,
                  heads: dict[str, int], lang: str) -> list[ledger.Entry]:
    """Every member of a group reviewed in one action: a ``review`` line each (the score stands),
    or, in the group of adjustments that need review, a ``confirm`` line for each of them.

    A member someone wrote about since the group's page was rendered is a :class:`Conflict` (for
    the first such member), and nothing is written."""
    from grader.report.outdir import read_record, report_path

    with ledger.locked(outdir):
        for name in names:
            _check(outdir, name, heads.get(name, 0), {"op": "review", "group": group})
        out = []
        for name in names:
            if group == "needs-review":
                data = read_record(report_path(outdir, name))
                for line in ledger.review_of(data) if data is not None else []:
                    out.append(adjusting.confirm(outdir, rubric, name, int(line["n"]), by=by, lang=lang,
                                                 reason=said("review_group_confirmed", group=title)))
            else:
                out.append(ledger.append(outdir, op="review", submission=name, student=_student(outdir, name),
                                         reason=said("review_group_confirmed", group=title), by=by,
                                         note={"group": group}))
        return out


def toggle_item(batch: Batch, name: str, item: ManualItem, *, head: int, by: str, lang: str) -> ledger.Entry:
    """A manual rubric item ticked for ``name`` (an adjustment of its points, of its part or the
    total), or unticked (an adjustment taking back what it gives): one ledger line either way."""
    outdir, rubric = batch.outdir, batch.rubric
    with ledger.locked(outdir):
        _check(outdir, name, head, {"op": "item", "item": item.id})
        batch.refresh()
        now = batch.item_points(name, item.id)
        if now is None:
            worth = batch.item_worth(item.id)
            return adjusting.adjust(outdir, rubric, name, part=item.part, points=worth, set_to=None, by=by, lang=lang,
                                    reason=said("review_item_given", item=item.title.en, points=f"{worth:+g}"),
                                    note={"item": item.id, "points": worth})
        return adjusting.adjust(outdir, rubric, name, part=item.part, points=-now, set_to=None, by=by, lang=lang,
                                reason=said("review_item_taken", item=item.title.en), note={"item": item.id, "off": True})


def item_preview(batch: Batch, item: ManualItem, points: float) -> list[dict[str, Any]]:
    """For each student the item is given to: its points now and then, their final score now and
    then (the ledger applied with the change as it would be written)."""
    rows = []
    last = max((e.n for e in batch.entries), default=0)
    for name in batch.with_item(item.id):
        now = batch.item_points(name, item.id) or 0.0
        data = batch.reports[name]
        auto = ledger.apply(dict(data), [], batch.rubric)  # type: ignore[arg-type]
        change = ledger.Entry(n=last + 1, op="adjust", submission=name, part=item.part, points=points - now,
                              against=ledger.automatic_of(auto, item.part), note={"item": item.id, "points": points})
        after = ledger.apply(dict(auto), ledger.for_submission([*batch.entries, change], name), batch.rubric)  # type: ignore[arg-type]
        rows.append({"name": name, "head": batch.head_of(name), "was": now, "now": points,
                     "score": float(data["score"]), "after": float(after["score"])})
    return rows


def repoint_item(batch: Batch, item: ManualItem, points: float, *, heads: dict[str, int], by: str,
                 lang: str) -> list[ledger.Entry]:
    """The item's points changed for every student it is given to: one ledger line each (the
    difference), after the preview; a student changed since the preview is a :class:`Conflict`
    and nothing is written."""
    outdir, rubric = batch.outdir, batch.rubric
    with ledger.locked(outdir):
        batch.refresh()
        names = batch.with_item(item.id)
        for name in names:
            _check(outdir, name, heads.get(name, 0), {"op": "item", "item": item.id,
                                                                                  "points": points})
        out = []
        for name in names:
            now = batch.item_points(name, item.id) or 0.0
            out.append(adjusting.adjust(outdir, rubric, name, part=item.part, points=points - now, set_to=None, by=by,
                                        lang=lang, note={"item": item.id, "points": points, "repoint": True},
                                        reason=said("review_item_repointed", item=item.title.en, was=f"{now:+g}",
                                                    now=f"{points:+g}")))
        return out


def reveal(outdir: Path, name: str, *, pseudonym: str, reason: str, by: str) -> ledger.Entry:
    """A blind review's student revealed, deliberately: a line of the ledger says who and why."""
    with ledger.locked(outdir):
        return ledger.append(outdir, op="reveal", submission=name, student=_student(outdir, name),
                             reason=adjusting.blind_reason(outdir, _reason(reason)), by=by, note={"pseudonym": pseudonym})


def _student(outdir: Path, name: str) -> str:
    from grader.report.outdir import read_record, report_path

    data = read_record(report_path(outdir, name))
    return "" if data is None else str((data.get("student") or {}).get("id", ""))
