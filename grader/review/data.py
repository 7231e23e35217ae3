"""What the review app reads from a batch's output folder: the reports, the ledger, the groups of
the queue, each submission's code and the comments on it.

Nothing here writes (:mod:`grader.review.actions` does). :class:`Batch` reads every report once
and again only when its file changed, and the ledger again only when it grew, so a page costs a
few ``stat`` calls, not a read of the class.

The queue is grouped by what went wrong (:meth:`Batch.groups`): each catalogue mistake, each
unknown-mistake cluster (:mod:`grader.insight.unknown_mistakes`), each flagged similar pair
(``similarity.csv``), the adjustments that need review, then everyone else.

Every submission is named in the app's URLs by a key (:meth:`Batch.key_of`), an HMAC of its report
name under the app's secret: no student's name in an address, and none a page can guess; in a
blind review (``--blind``, or a batch graded ``--anonymous``) the pages show a pseudonym until a
reveal line of the ledger names the student.

Example::

    batch = Batch(Path("out"), rubric, secret=b"…", blind=False)
    batch.groups("ja")[0].members          # report names
    batch.page("alice").code               # the files, line by line
"""

from __future__ import annotations

import difflib
import hashlib
import hmac
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.i18n.messages import label
from grader.report import ledger
from grader.report.model import ReportDict

if TYPE_CHECKING:
    from grader.ingest.submission.model import Submission
    from grader.spec.rubric.model import Rubric

__all__ = ["Batch", "Comment", "File", "Group", "anchor", "comments_of", "lines_hash", "shown_output"]

#: the most lines a shown file keeps (a longer one says how many were left out)
MAX_LINES = 4000
#: the largest notebook read for its outputs (bytes)
MAX_NOTEBOOK = 20 * 1024 * 1024
#: output kinds shown as images (as ``data:`` addresses, in an ``img``: never a script)
IMAGES = ("image/png", "image/jpeg", "image/gif")


def lines_hash(lines: list[str]) -> str:
    """The hash a comment keeps of the lines it is on (their text, ends of line ignored)."""
    return hashlib.sha256("\n".join(line.rstrip() for line in lines).encode("utf-8")).hexdigest()[:16]


@dataclass
class Group:
    """One group of the queue: ``kind`` is mistake, cluster, similar, review or rest."""

    key: str
    kind: str
    title: str
    members: list[str] = field(default_factory=list)
    detail: str = ""


@dataclass
class File:
    """One file (or notebook cell) of a submission as shown: its label and numbered lines."""

    label: str
    lines: list[tuple[int, str]]
    outputs: list[dict[str, str]] = field(default_factory=list)
    cut: int = 0


@dataclass
class Comment:
    """A comment of the ledger on lines of a file, with where it stands now: ``here`` (the lines
    hold what they held), ``moved`` (re-anchored: the same lines found at ``start``..``end``) or
    ``outdated`` (the lines are no longer in the file)."""

    n: int
    file: str
    start: int
    end: int
    text: str
    by: str
    at: str
    state: str
    was: tuple[int, int]
    lines: list[str]


def anchor(note: dict[str, Any], files: dict[str, list[str]]) -> tuple[str, int, int]:
    """Where a comment's lines are now: (state, start, end); never silently moved."""
    start, end = int(note.get("start", 0)), int(note.get("end", 0))
    want = str(note.get("hash", ""))
    lines = files.get(str(note.get("file", "")))
    if lines is None:
        return "outdated", start, end
    if 1 <= start <= end <= len(lines) and lines_hash(lines[start - 1:end]) == want:
        return "here", start, end
    size = end - start + 1
    found = [i for i in range(1, len(lines) - size + 2) if lines_hash(lines[i - 1:i - 1 + size]) == want]
    if found:  # the nearest place the same lines are
        best = min(found, key=lambda i: abs(i - start))
        return "moved", best, best + size - 1
    return "outdated", start, end


def comments_of(entries: list[ledger.Entry], name: str, files: dict[str, list[str]]) -> list[Comment]:
    """The standing comments on ``name`` (not undone), each anchored to the files as they are."""
    undone = {e.target for e in entries if e.op == "undo" and e.submission == name}
    out = []
    for e in entries:
        if e.op != "comment" or e.submission != name or e.n in undone or not isinstance(e.note, dict):
            continue
        state, start, end = anchor(e.note, files)
        out.append(Comment(e.n, str(e.note.get("file", "")), start, end, str(e.note.get("text", "")), e.by, e.at,
                           state, (int(e.note.get("start", 0)), int(e.note.get("end", 0))),
                           [str(x) for x in e.note.get("lines") or []]))
    return out


class Batch:
    """A batch's output folder as the review app reads it."""

    def __init__(self, outdir: Path, rubric: Rubric, *, secret: bytes, blind: bool = False,
                 submissions: dict[str, Submission] | None = None) -> None:
        from grader.ingest.anonymous import is_anonymous

        self.outdir, self.rubric, self.secret = Path(outdir), rubric, secret
        self.anonymous = is_anonymous(self.outdir)
        self.blind = blind or self.anonymous
        self.reports: dict[str, ReportDict] = {}
        self._stamps: dict[str, tuple[int, int]] = {}
        self._keys: dict[str, str] = {}
        self._ledger_stamp: tuple[int, int, int, int] | None = None
        self._entries: list[ledger.Entry] = []
        self._groups: dict[str, list[Group]] = {}
        self._submissions = submissions
        self.refresh()

    # ----------------------------------------------------------------------------- reading
    def refresh(self) -> None:
        """Reports read again where their file changed; the ledger where it grew."""
        from grader.report.outdir import read_record, reports_now

        paths, _ = reports_now(self.outdir)
        seen = set()
        changed = False
        for path in paths:
            name = path.name[: -len(".yaml")]
            seen.add(name)
            try:
                st = path.stat()
            except OSError:
                continue
            stamp = (st.st_mtime_ns, st.st_size)
            if self._stamps.get(name) != stamp:
                data = read_record(path)
                if data is not None:
                    self.reports[name], self._stamps[name] = data, stamp
                    changed = True
        for gone in set(self.reports) - seen:
            del self.reports[gone]
            self._stamps.pop(gone, None)
            changed = True
        for name in self.reports:
            if name not in self._keys:
                self._keys[name] = hmac.new(self.secret, name.encode(), hashlib.sha256).hexdigest()[:16]
        self._by_key = {k: n for n, k in self._keys.items() if n in self.reports}
        if self._read_ledger() or changed:
            self._groups = {}

    def _read_ledger(self) -> bool:
        stamps = []
        for file in (ledger.LEDGER, ledger.HEAD):
            try:
                st = (self.outdir / file).stat()
                stamps += [st.st_mtime_ns, st.st_size]
            except FileNotFoundError:
                stamps += [0, 0]
        stamp = (stamps[0], stamps[1], stamps[2], stamps[3])
        if stamp == self._ledger_stamp:
            return False
        self._entries = ledger.read(self.outdir)
        self._ledger_stamp = stamp
        return True

    @property
    def entries(self) -> list[ledger.Entry]:
        return self._entries

    def key_of(self, name: str) -> str:
        return self._keys[name]

    def name_of(self, key: str) -> str | None:
        return self._by_key.get(key)

    def head_of(self, name: str) -> int:
        """The last ledger line about ``name`` (0: none): what a page is rendered from."""
        return max((e.n for e in self._entries if e.submission == name), default=0)

    def revealed(self, name: str) -> bool:
        return any(e.op == "reveal" and e.submission == name for e in self._entries)

    def pseudonym(self, name: str) -> str:
        return name if self.anonymous else f"S-{self._keys[name][:6]}"

    def shown_name(self, name: str, lang: str) -> str:
        """Who, as the reviewer may see them: the pseudonym in a blind review until revealed."""
        if self.blind and not self.revealed(name):
            return self.pseudonym(name)
        data = self.reports[name]
        who = data.get("student") or {}
        if self.anonymous:
            real = self.identity(name)
            return f"{real} ({name})" if real else name
        person = str(who.get("name") or "")
        return f"{person} ({name})" if person and person != name else name

    def identity(self, name: str) -> str:
        """In a batch graded --anonymous, who the id stands for (identities.csv), or ""."""
        from grader.ingest.anonymous import Identities

        try:
            row = Identities.load(self.outdir).rows.get(name) or {}
        except (OSError, ValueError, KeyError):  # (an unreadable file reveals nothing)
            return ""
        return str(row.get("name") or row.get("student_id") or "")

    # ----------------------------------------------------------------------------- the queue
    def groups(self, lang: str) -> list[Group]:
        """The queue's groups, in the order of the module docstring (cached until a file changes)."""
        if lang not in self._groups:
            self._groups[lang] = self._make_groups(lang)
        return self._groups[lang]

    def _make_groups(self, lang: str) -> list[Group]:
        from grader.insight.similarity import read_similarity
        from grader.insight.unknown_mistakes import clusters, describe
        from grader.kit.signature import UNRECOGNISED
        from grader.report.model import GradeReport

        out: list[Group] = []
        mistakes: dict[str, Group] = {}
        for name in sorted(self.reports):
            for m in self.reports[name].get("mistakes", []):
                mid = str(m.get("id", ""))
                if not mid or mid == UNRECOGNISED:
                    continue
                group = mistakes.setdefault(mid, Group(f"m-{_slug(mid)}", "mistake", mid))
                if name not in group.members:
                    group.members.append(name)
                    if not group.detail:
                        message = m.get("message") or {}
                        group.detail = str(message.get(lang) or message.get("en") or "")
        out += sorted(mistakes.values(), key=lambda g: (-len(g.members), g.title))
        unknown = [GradeReport.from_dict(d) for d in self.reports.values()
                   if any(m.get("id") == UNRECOGNISED for m in d.get("mistakes", []))]
        for c in clusters(unknown):
            d = describe(c, lang)
            out.append(Group(f"c-{c.number}", "cluster", label("review_cluster", lang, n=c.number),
                             list(dict.fromkeys(m.submission for m in c.members)), d.get("head", "")))
        for i, row in enumerate(read_similarity(self.outdir), 1):
            pair = [row.get("submission_a", ""), row.get("submission_b", "")]
            pair = [p for p in pair if p in self.reports]
            if len(pair) == 2:
                out.append(Group(f"p-{i}", "similar", label("review_similar", lang, n=i), pair,
                                 label("review_similar_score", lang, score=row.get("code_score", ""))))
        review = [n for n in sorted(self.reports) if ledger.review_of(self.reports[n])]
        if review:
            out.append(Group("needs-review", "review", label("review_needs_review", lang), review))
        grouped = {n for g in out for n in g.members}
        rest = [n for n in sorted(self.reports) if n not in grouped]
        if rest:
            out.append(Group("rest", "rest", label("review_everyone_else", lang), rest))
        return out

    def group(self, key: str, lang: str) -> Group | None:
        return next((g for g in self.groups(lang) if g.key == key), None)

    def reviewed(self, name: str, group: str) -> bool:
        """Whether a review line of the ledger says ``name`` was reviewed in ``group``."""
        return any(e.submission == name and e.op == "review" and (e.note or {}).get("group") == group
                   for e in self._entries)

    # ----------------------------------------------------------------------------- manual rubric items
    def item_lines(self, name: str, item: str) -> list[ledger.Entry]:
        """The standing adjustments of ``name`` that a manual item made (not undone), in order."""
        undone = {e.target for e in self._entries if e.op == "undo" and e.submission == name}
        return [e for e in self._entries if e.op == "adjust" and e.submission == name and e.n not in undone
                and isinstance(e.note, dict) and e.note.get("item") == item]

    def item_points(self, name: str, item: str) -> float | None:
        """What item ``item`` gives ``name`` now (its latest line says it: grader.report.ledger counts an
        item once), or None: not given."""
        lines = self.item_lines(name, item)
        if not lines or (lines[-1].note or {}).get("off"):
            return None
        return float((lines[-1].note or {}).get("points", lines[-1].points or 0.0))

    def item_worth(self, item: str) -> float:
        """An item's points now: the last change of its points in the ledger, else the rubric's."""
        for e in reversed(self._entries):
            if isinstance(e.note, dict) and e.note.get("item") == item and e.note.get("repoint"):
                return float(e.note.get("points", 0.0))
        return next((float(m.points) for m in self.rubric.manual if m.id == item), 0.0)

    def with_item(self, item: str) -> list[str]:
        """The students the item is given to now."""
        return [n for n in sorted(self.reports) if self.item_points(n, item) is not None]

    # ----------------------------------------------------------------------------- one submission
    def submission(self, name: str) -> Submission | None:
        if self._submissions is None:
            self._submissions = self._load_submissions()
        return self._submissions.get(name)

    def _load_submissions(self) -> dict[str, Submission]:
        from grader.errors import UsageError
        from grader.insight.similarity import source_of, submissions_in

        try:
            return dict(submissions_in(source_of(self.outdir), self.outdir, self.rubric))
        except (UsageError, OSError):
            return {}

    def files(self, name: str) -> list[File]:
        """The submission's files as shown: each module's code (a notebook cell by cell, with its
        outputs: text as text, images as images, anything else as its text)."""
        sub = self.submission(name)
        if sub is None:
            return []
        out = []
        for module in sub.modules:
            for chunk in module.chunks:
                lines = chunk.code.split("\n")
                cut = max(0, len(lines) - MAX_LINES)
                # a notebook's cells by number only: its file name may name the student (a blind review)
                label = "cell " + chunk.label.rpartition(", cell ")[2] if sub.kind == "notebook" else chunk.label
                out.append(File(label, [(chunk.first_line + i, t) for i, t in enumerate(lines[:MAX_LINES])],
                                cut=cut))
        if sub.kind == "notebook":
            return _notebook(Path(sub.path), out)
        return out

    def reference(self, name: str) -> list[tuple[str, list[str], list[tuple[str, str]]]]:
        """(file, the reference's lines, the diff of the student's against it) for each code part."""
        from grader.spec.assignment import assignment_of

        folder = self.rubric.reference
        if folder is None:
            return []
        mine = {f.label: [t for _, t in f.lines] for f in self.files(name)}
        out = []
        for part, filename in assignment_of(self.rubric).part_files.items():
            path = Path(folder) / filename
            try:
                theirs = path.read_text(encoding="utf-8").split("\n")
            except OSError:
                continue
            # a notebook: its code cells, in order, stand for every part's file
            cells = [line for k, v in mine.items() if k.startswith("cell ") and not k.endswith(")") for line in v]
            student = mine.get(filename) or next((v for k, v in mine.items() if k.startswith(part)), cells)
            diff = [(("add" if d.startswith("+") else "del" if d.startswith("-") else "ctx"), d)
                    for d in difflib.unified_diff(theirs, student, "reference/" + filename, "student/" + filename,
                                                  lineterm="", n=2)]
            out.append((filename, theirs, diff))
        return out


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in text)[:80]


def _notebook(path: Path, code: list[File]) -> list[File]:
    """A notebook cell by cell, as the student wrote it: each code cell (as the grader read it)
    with its outputs, and each Markdown or raw cell as its text, in the notebook's order."""
    try:
        if path.stat().st_size > MAX_NOTEBOOK:
            return code
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return code
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        return code
    by_number = {f.label.rpartition("cell ")[2]: f for f in code}
    out: list[File] = []
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict):
            continue
        mine = by_number.pop(str(number), None)
        if mine is not None:
            for output in cell.get("outputs") or []:
                if isinstance(output, dict):
                    mine.outputs.extend(shown_output(output))
            out.append(mine)
        elif cell.get("cell_type") in ("markdown", "raw"):
            text = _text(cell.get("source", "")).replace("\r\n", "\n")
            if text.strip():
                lines = text.split("\n")[:MAX_LINES]
                out.append(File(f"cell {number} ({cell.get('cell_type')})", list(enumerate(lines, 1))))
    return out + list(by_number.values())


def _text(value: object) -> str:
    if isinstance(value, list):
        return "".join(str(v) for v in value)
    return str(value)


def shown_output(output: dict[str, Any]) -> list[dict[str, str]]:
    """One output as shown: ``{"kind": "text"|"image", ...}``; HTML, SVG, scripts and widgets as text."""
    kind = output.get("output_type")
    if kind == "stream":
        return [{"kind": "text", "mime": str(output.get("name", "stream")), "text": _text(output.get("text", ""))[:20000]}]
    if kind == "error":
        return [{"kind": "text", "mime": "error",
                 "text": f"{output.get('ename', '')}: {output.get('evalue', '')}"[:20000]}]
    data = output.get("data") if isinstance(output.get("data"), dict) else {}
    out = []
    for mime, value in (data or {}).items():
        mime = str(mime)
        if mime in IMAGES and isinstance(value, str):
            raw = "".join(value.split())
            if raw and all(c.isalnum() or c in "+/=" for c in raw):
                out.append({"kind": "image", "mime": mime, "src": f"data:{mime};base64,{raw}"})
                continue
        out.append({"kind": "text", "mime": mime, "text": _text(value)[:20000]})
    return out
