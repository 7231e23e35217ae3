"""Which submissions look alike: code fingerprints and shared unusual behaviour, in groups.

``grader similarity OUT`` (and ``grader batch … --similarity``) compares every pair of
submissions of one assignment and writes ``OUT/similarity.csv`` and the pages
``OUT/similarity.{ja,en}.html``: the pairs to look at first, most similar first, in groups.

**Code evidence.** Each submission's code (its ``.py`` files, a notebook's code cells, either
inside a zip) is parsed with :mod:`ast` and each function is written out as a stream of
tokens in which the student's own names become one placeholder, docstrings, comments and
layout are gone, and the assignment's API (the functions the rubric names, ``torch``,
``math``, attributes, literals) stays. So renaming, reordering functions, editing comments
and moving between ``.py`` and a notebook change nothing. Overlapping runs of
:data:`K` tokens are hashed and winnowed (the smallest hash of every :data:`WINDOW`
consecutive runs is kept, Schleimer et al. 2003). Fingerprints of the handed-out stubs are
removed (base code). What honest students write alike weighs little: each kept fingerprint
weighs ``log(COMMON / df)`` for the ``df`` submissions that have it, counting the class and the
course's own correct styles (the validate corpus, ``plugin.fixtures``, each style's own files),
and nothing from :data:`COMMON` on. ``code_score`` is the weight two submissions share over the
geometric mean of their weights (0..1).

**Behaviour evidence.** From the reports, what no known mistake explains: the same wrong value
on the same test input (the batch seeds every student's inputs alike) in a part where no
catalogue mistake was named, the same unrecognised probe values, the same exception text, the
same errors. A recognised mistake is no evidence (many students make it on their own), nor are
printed lines (honest students print the same examples). Each shared feature weighs
``log(COMMON / df)``; ``behaviour_score`` is ``S / (S + 2 log COMMON)`` for the shared weight
``S``: one feature only two students share gives 0.28, a correct submission (no failure) shares
none.

**Flagged pairs.** ``code_score >= CODE_FLAG``, or ``code_score >= CODE_WITH_BEHAVIOUR`` with
``behaviour_score >= BEHAVIOUR_FLAG``. No weight depends on the size of the class, only on how
many submissions have that fingerprint or feature: a student who shares none of a pair's code
and behaviour changes nothing about the pair, so no flag appears or disappears because an
unrelated student joined (one who writes the same lines does lower their weight: that is what
the weight says). A pair the folder's ``similarity.csv`` already flags stays flagged while its
scores stay within ``HOLD`` of the flag (``held``, and its evidence says so): students who join
later and write the same lines move the weights a little, and a flag the instructor has seen
does not vanish for that. Flagged pairs joined by a submission form a group (a ring). The pairs below
the flag are there too (``grader similarity OUT --top N``, ``--threshold X``, ``--pair A B``).
Nothing here says anyone copied: the page says which pairs to look at first.

**Variant evidence.** In a batch with per-student variants, a pair is also flagged when one of the
two handed in quiz answers or a recorded experiment table that fit the other's variant and not
their own (:mod:`grader.insight.variant_copies`); its evidence says so first, with the values that match.
"""

from __future__ import annotations

import ast
import bisect
import builtins
import csv
import hashlib
import io
import json
import keyword
import math
import re
import tokenize
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from grader import sinks
from grader.i18n.messages import said
from grader.kit.signature import UNRECOGNISED
from grader.report.files import write_atomic
from grader.report.model import GradeReport, Status

if TYPE_CHECKING:
    from grader.ingest.submission.model import Submission
    from grader.spec.rubric.model import Rubric

__all__ = [
    "BEHAVIOUR_FLAG", "CODE_FLAG", "CODE_WITH_BEHAVIOUR", "HOLD", "SIMILARITY_FILE", "Coded", "Pair", "Similarity",
    "behaviour_features", "code_of", "compare", "flagged_in", "named", "shown", "write_similarity",
]

#: Tokens per fingerprint and the winnowing window.
K, WINDOW = 10, 3
#: A fingerprint (or a behaviour feature) this many submissions have, the class and the course's
#: correct styles together, is what honest students write alike: it weighs nothing; below, it
#: weighs ``log(COMMON / df)``. A number, not a share of the class: a pair's weights depend on who
#: shares their code, never on how many others there are.
COMMON = 20
#: Flag thresholds (documented in the README).
CODE_FLAG, CODE_WITH_BEHAVIOUR, BEHAVIOUR_FLAG = 0.6, 0.45, 0.3
#: how far below the flag a pair flagged before may fall and stay flagged (held)
HOLD = 0.05
#: Output file names in the batch folder.
SIMILARITY_FILE = "similarity.csv"
#: Regions shown side by side per pair on the page.
_REGIONS = 24
#: Bounds on what one submission contributes: characters of code read.
_CODE_MAX = 512 * 1024

_MODULES = frozenset({"torch", "math", "np", "numpy", "F", "nn", "functional", "numbers", "random", "statistics"})
_BUILTINS = frozenset(dir(builtins))


# --------------------------------------------------------------------------- code


@dataclass
class Coded:
    """One submission's code as fingerprints, with where each came from.

    Args:
        name: the report's name (the gradebook's ``submission`` column).
        who: as the instructor knows it.
        sources: chunk label -> its source lines (for the page).
        prints: fingerprint -> (chunk label, first line, last line) of the tokens it covers.
        functions: chunk label -> [(function name, first line, last line)].
    """

    name: str
    who: str = ""
    #: characters of code the submission has, and how many of them were read (``_CODE_MAX``)
    size: int = 0
    read: int = 0
    sources: dict[str, list[str]] = field(default_factory=dict)
    prints: dict[int, list[tuple[str, int, int]]] = field(default_factory=dict)
    functions: dict[str, list[tuple[str, int, int]]] = field(default_factory=dict)


class _Tokens(ast.NodeVisitor):
    """A function's AST as a flat token stream, each token with its source line."""

    def __init__(self, api: frozenset[str]) -> None:
        self.api = api
        self.out: list[tuple[str, int]] = []
        self.line = 0

    def emit(self, tok: str) -> None:
        self.out.append((tok, self.line))

    def generic_visit(self, node: ast.AST) -> None:
        self.line = getattr(node, "lineno", self.line)
        if isinstance(node, (ast.expr_context, ast.Load)):
            return
        self.emit(type(node).__name__)
        if isinstance(node, ast.Name):
            self.emit(node.id if node.id in self.api or node.id in _MODULES or node.id in _BUILTINS else "V")
        elif isinstance(node, ast.Attribute):
            self.emit("." + node.attr)
        elif isinstance(node, ast.Constant):
            self.emit(_constant(node.value))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.emit(node.name if node.name in self.api else "V")
            node.body = _without_docstring(node.body)
        elif isinstance(node, ast.keyword):
            self.emit(f"{node.arg}=")
        for child in ast.iter_child_nodes(node):
            self.visit(child)


def _constant(value: object) -> str:
    if isinstance(value, str):
        return "s" + hashlib.blake2b(value.encode("utf-8", "replace"), digest_size=6).hexdigest()
    return repr(value)[:40]


def _without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return body[1:] or [ast.Pass()]
    return body


def _fallback_tokens(code: str, api: frozenset[str]) -> list[tuple[str, int]]:
    """Tokens of code that does not parse: names outside the API become one placeholder."""
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                            tokenize.ENDMARKER):
                continue
            text = tok.string
            if tok.type == tokenize.NAME and not (text in api or text in _MODULES or text in _BUILTINS
                                                  or keyword.iskeyword(text)):
                text = "V"
            out.append((text, tok.start[0]))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return out


def _units(code: str, api: frozenset[str]) -> list[tuple[str, int, int, list[tuple[str, int]]]]:
    """(function name, first line, last line, tokens) per top-level unit of one chunk.

    Each function is its own unit, so reordering functions changes no fingerprint; the rest
    of the chunk (imports, constants, loose statements) is one more unit.
    """
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        toks = _fallback_tokens(code, api)
        return [("", 1, max((t[1] for t in toks), default=1), toks)] if toks else []
    units = []
    loose: list[tuple[str, int]] = []
    for node in tree.body:
        visitor = _Tokens(api)
        try:
            visitor.visit(node)
        except RecursionError:
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            units.append((node.name, node.lineno, getattr(node, "end_lineno", node.lineno) or node.lineno,
                          visitor.out))
        elif not isinstance(node, (ast.Import, ast.ImportFrom)):
            loose += visitor.out
    if loose:
        units.append(("", loose[0][1], loose[-1][1], loose))
    return units


def _winnow(tokens: list[tuple[str, int]]) -> list[tuple[int, int, int]]:
    """(hash, first line, last line) of the winnowed K-token runs."""
    if len(tokens) < K:
        if not tokens:
            return []
        grams = [("\x1f".join(t for t, _ in tokens), tokens[0][1], tokens[-1][1])]
    else:
        grams = [("\x1f".join(t for t, _ in tokens[i:i + K]), tokens[i][1], tokens[i + K - 1][1])
                 for i in range(len(tokens) - K + 1)]
    hashes = [(int.from_bytes(hashlib.blake2b(g.encode(), digest_size=8).digest(), "big"), a, b) for g, a, b in grams]
    if len(hashes) <= WINDOW:
        return hashes
    kept: dict[int, tuple[int, int, int]] = {}
    for i in range(len(hashes) - WINDOW + 1):
        low = min(hashes[i:i + WINDOW], key=lambda h: h[0])
        kept[low[0]] = low
    return list(kept.values())


def _cut(code: str, budget: int) -> str:
    """``code`` up to ``budget`` characters, cut before the last top-level ``def``, ``class`` or
    decorator that starts within them (so what is read still parses, function by function), else
    at a line's end; all of it when it fits."""
    if len(code) <= budget:
        return code
    head = code[:max(0, budget)]
    last = None
    for last in _TOP_LEVEL.finditer(head):
        pass
    if last is not None:
        return head[:last.start() + 1]
    return head[:head.rfind("\n") + 1]


_TOP_LEVEL = re.compile(r"\n(?=(?:async[ \t]+def|def|class)[ \t]|@)")


def code_of(name: str, submission: Submission, api: Iterable[str], who: str = "") -> Coded:
    """Fingerprints of one submission (a :class:`grader.ingest.submission.model.Submission`)."""
    names = frozenset(api)
    coded = Coded(name, who or name)
    coded.size = sum(len(chunk.code) for module in getattr(submission, "modules", ()) for chunk in module.chunks)
    budget = _CODE_MAX
    for module in getattr(submission, "modules", ()):
        for chunk in module.chunks:
            code = _cut(chunk.code, budget)
            budget -= len(code)
            coded.read += len(code)
            if not code.strip():
                if len(code) < len(chunk.code):
                    return coded
                continue
            label = chunk.label
            coded.sources[label] = code.splitlines()
            for fname, first, last, toks in _units(code, names):
                if fname:
                    coded.functions.setdefault(label, []).append((fname, first, last))
                for h, a, b in _winnow(toks):
                    coded.prints.setdefault(h, []).append((label, a, b))
            if budget <= 0 or len(code) < len(chunk.code):
                return coded
    return coded


# --------------------------------------------------------------------------- behaviour


def behaviour_features(report: GradeReport) -> set[str]:
    """What a report shows that no known mistake explains (see the module docstring)."""
    out: set[str] = set()
    explained = {m.part for m in report.mistakes if m.id not in (UNRECOGNISED, "not-implemented")}
    for t in report.tests:
        if t.status in (Status.FAILED, Status.ERROR, Status.TIMEOUT) and t.part not in explained:
            out.add(f"test {t.id} → {(t.actual or t.status.value)[:200]}")
    for m in report.mistakes:
        ev = m.evidence if isinstance(m.evidence, dict) else {}
        if m.id != UNRECOGNISED:
            continue
        for func, calls in (ev.get("probes") or {}).items() if isinstance(ev.get("probes"), dict) else ():
            for c in calls if isinstance(calls, list) else ():
                out.add("probe " + json.dumps(c, sort_keys=True, default=str)[:400])
        if ev.get("raised_message"):
            out.add(f"raised {ev.get('raised')}: {str(ev['raised_message'])[:200]}")
    for e in report.errors[:20]:
        out.add("error " + e[:300])
    return out


def behaviour_score(shared: float) -> float:
    """``S / (S + 2 log COMMON)`` for the weight ``S`` of the features two submissions share."""
    return shared / (shared + 2 * math.log(COMMON)) if shared > 0 else 0.0


def weight_of_count(df: int) -> float:
    """A fingerprint's or a feature's weight when ``df`` submissions have it (see :data:`COMMON`)."""
    return max(0.0, math.log(COMMON / df)) if df > 0 else 0.0


# --------------------------------------------------------------------------- comparing


@dataclass
class Pair:
    """One flagged pair, ``a`` before ``b`` by name."""

    a: str
    b: str
    code_score: float
    behaviour_score: float
    group: int = 0
    shared_behaviour: list[str] = field(default_factory=list)
    #: chunk label -> lines of a / of b that matching fingerprints cover
    lines_a: dict[str, set[int]] = field(default_factory=dict)
    lines_b: dict[str, set[int]] = field(default_factory=dict)
    #: flagged before (the folder's similarity.csv) and now below the flag by less than HOLD
    held: bool = False
    #: matching regions found for the page (:func:`side_by_side`), of which it shows ``_REGIONS``
    regions: int = 0
    #: quiz answers of one of the two that fit the other's variant, not their own
    #: (grader.insight.variant_copies): its words, first in the evidence
    variant_evidence: str = ""

    @property
    def rank(self) -> float:
        return self.code_score + 0.25 * self.behaviour_score + (1.0 if self.variant_evidence else 0.0)

    def evidence(self, coded: dict[str, Coded]) -> str:
        """Plain words for the csv: which functions match, which behaviour is shared."""
        funcs = _matched_functions(coded.get(self.a), self.lines_a)
        bits = [f"code: {', '.join(funcs) or '-'}"]
        if self.variant_evidence:
            bits.insert(0, self.variant_evidence)
        if self.held:
            bits.insert(0, f"held: flagged before, now within {HOLD} below the flag")
        if self.shared_behaviour:
            bits.append("behaviour: " + "; ".join(self.shared_behaviour[:3]))
        return sinks.cap(" | ".join(bits), 2000)


class _Spans:
    """A chunk's functions (top-level, so they never overlap), to find the one holding a line in
    ``log`` of their number: a page or a csv line about a pair costs what its lines do, never
    their product with the functions (10,000 helpers in a file)."""

    def __init__(self, functions: Sequence[tuple[str, int, int]]) -> None:
        self.functions = list(functions)
        self.order = sorted(range(len(self.functions)), key=lambda i: self.functions[i][1])
        self.starts = [self.functions[i][1] for i in self.order]

    def at(self, line: int) -> int | None:
        """The index (in the chunk's list) of the function holding ``line``, if one does."""
        k = bisect.bisect_right(self.starts, line) - 1
        if k < 0:
            return None
        index = self.order[k]
        return index if line <= self.functions[index][2] else None

    def holding(self, lines: Iterable[int]) -> set[int]:
        """The indices of the functions holding any of ``lines``."""
        return {i for i in (self.at(n) for n in lines) if i is not None}


def _matched_functions(c: Coded | None, lines: dict[str, set[int]]) -> list[str]:
    if c is None:
        return []
    out = []
    for label, ls in lines.items():
        functions = c.functions.get(label, [])
        hit = _Spans(functions).holding(ls)
        out += [fname for i, (fname, _, _) in enumerate(functions) if i in hit]
    return list(dict.fromkeys(out))


@dataclass
class Similarity:
    """The flagged pairs, their groups, what the page shows of each submission, and the scores of
    every other pair (:meth:`score`, :meth:`nearest`)."""

    pairs: list[Pair]
    coded: dict[str, Coded]
    compared: int
    against: str = ""
    #: (a, b) -> code score of every pair sharing a weighted fingerprint, a before b
    codes: dict[tuple[str, str], float] = field(default_factory=dict)
    #: submission -> its behaviour features (:func:`behaviour_features`), and each feature's count
    features: dict[str, set[str]] = field(default_factory=dict)
    feature_counts: dict[str, int] = field(default_factory=dict)

    @property
    def capped(self) -> list[str]:
        """What the comparison left out, one sentence each (:func:`grader.i18n.messages.said`): code
        past ``_CODE_MAX`` in a submission, matching regions past ``_REGIONS`` on the page (known
        once :func:`side_by_side` has run for the pair)."""
        out = [said("similarity_code_capped", who=c.who, most=_CODE_MAX // 1024, size=math.ceil(c.size / 1024))
               for c in self.coded.values() if c.read < c.size]
        who = {n: c.who for n, c in self.coded.items()}
        out += [said("similarity_regions_capped", a=who.get(p.a, p.a), b=who.get(p.b, p.b), shown=_REGIONS,
                     n=p.regions) for p in self.pairs if p.regions > _REGIONS]
        return out

    @property
    def groups(self) -> dict[int, list[str]]:
        """Each group's members, by name (a blind batch's: by pseudonym)."""
        out: dict[int, set[str]] = {}
        for p in self.pairs:
            out.setdefault(p.group, set()).update((p.a, p.b))
        return {g: sorted(members) for g, members in out.items()}

    def score(self, x: str, y: str) -> Pair:
        """The pair of ``x`` and ``y`` with its scores, flagged or not (``group`` 0 when not)."""
        a, b = (x, y) if x < y else (y, x)
        flagged = next((p for p in self.pairs if (p.a, p.b) == (a, b)), None)
        if flagged is not None:
            return flagged
        both = _shared_features(self.features.get(a, set()), self.features.get(b, set()), self.feature_counts)
        weight = sum(weight_of_count(self.feature_counts.get(f, 0)) for f in both)
        return Pair(a, b, shown(self.codes.get((a, b), 0.0), CODE_FLAG), shown(behaviour_score(weight), BEHAVIOUR_FLAG),
                    shared_behaviour=both[:10])

    def nearest(self, *, top: int | None = None, threshold: float | None = None) -> list[Pair]:
        """The pairs below the flag, most similar first: the ``top`` first, or those whose code score
        is at least ``threshold`` (both: those of the first ``top`` at or above it)."""
        flagged = {(p.a, p.b) for p in self.pairs}
        below = [self.score(a, b) for (a, b), code in self.codes.items()
                 if (a, b) not in flagged and (threshold is None or code >= threshold - 5e-4)]
        below.sort(key=lambda p: (-p.rank, p.a, p.b))
        return below if top is None else below[:top]


def named(result: Similarity, text: str) -> str:
    """The submission ``text`` names: its report's name, else the student's id or name as the
    gradebook shows it (``Name (id)``).

    Raises:
        UsageError: no submission or more than one answers to ``text``.
    """
    from grader.errors import UsageError

    if text in result.coded:
        return text
    found = [name for name, c in result.coded.items()
             if c.who == text or (c.who.endswith(")") and text in (c.who[:c.who.rfind(" (")], _id_of(c.who)))]
    if len(found) == 1:
        return found[0]
    if not found:
        raise UsageError(said("similarity_no_such_submission", name=text))
    raise UsageError(said("similarity_ambiguous_submission", name=text, found=", ".join(sorted(found))))


def _id_of(who: str) -> str:
    """The id of ``Name (id)``."""
    at = who.rfind(" (")
    return who[at + 2:-1] if at >= 0 else ""


def _shared_features(x: set[str], y: set[str], counts: dict[str, int]) -> list[str]:
    """The features both have that weigh something, the rarest first."""
    return sorted((f for f in x & y if weight_of_count(counts.get(f, 0)) > 0), key=lambda f: (counts.get(f, 0), f))


def compare(coded: Sequence[Coded], reports: dict[str, GradeReport], base: Iterable[Coded] = (),
            old: Sequence[Coded] = (), old_reports: dict[str, GradeReport] | None = None,
            background: Sequence[Coded] = (), flagged_before: Collection[frozenset[str]] = ()) -> Similarity:
    """Every pair of ``coded`` (and each of them against ``old``, a previous term's); flagged pairs,
    and every pair's code score. ``background`` is the course's correct styles: they count in how
    many submissions have a fingerprint (what honest students write alike), never as a pair.
    ``flagged_before``: the pairs flagged by the last comparison of the same folder (held while
    within ``HOLD`` of the flag)."""
    everyone = list(coded) + list(old)
    current = {c.name for c in coded}
    base_prints = set().union(*(b.prints for b in base)) if base else set()
    df: Counter[int] = Counter()
    for c in [*everyone, *background]:
        df.update(h for h in c.prints if h not in base_prints)
    weight = {h: weight_of_count(d) for h, d in df.items()}

    def weight_of(h: int) -> float:
        return weight.get(h, 0.0)

    totals = {c.name: sum(weight_of(h) for h in c.prints) for c in everyone}
    shared: dict[tuple[str, str], float] = defaultdict(float)
    index: dict[int, list[str]] = defaultdict(list)
    for c in everyone:
        for h in c.prints:
            if weight_of(h) > 0:
                index[h].append(c.name)
    for h, names in index.items():
        if len(names) < 2:
            continue
        w = weight_of(h)
        for i, x in enumerate(names):
            for y in names[i + 1:]:
                if x not in current and y not in current:
                    continue  # two old submissions: not this term's question
                key = (x, y) if x < y else (y, x)
                shared[key] += w
    all_reports = {**(old_reports or {}), **reports}
    feats = {name: behaviour_features(r) for name, r in all_reports.items()}
    counts: Counter[str] = Counter()
    for fs in feats.values():
        counts.update(fs)
    by_name = {c.name: c for c in everyone}
    pairs = []
    codes = {}
    for (x, y), s in shared.items():
        denom = math.sqrt(totals[x] * totals[y]) or 1.0
        code = min(1.0, s / denom)
        codes[(x, y)] = code
        slack = HOLD if frozenset((x, y)) in flagged_before else 0.0
        if code < CODE_WITH_BEHAVIOUR - slack:
            continue
        both = _shared_features(feats.get(x, set()), feats.get(y, set()), counts)
        behaviour = behaviour_score(sum(weight_of_count(counts[f]) for f in both))
        flag = code >= CODE_FLAG or (code >= CODE_WITH_BEHAVIOUR and behaviour >= BEHAVIOUR_FLAG)
        held = bool(slack) and (code >= CODE_FLAG - slack
                                or (code >= CODE_WITH_BEHAVIOUR - slack and behaviour >= BEHAVIOUR_FLAG - slack))
        if flag or held:
            pair = Pair(x, y, shown(code, CODE_FLAG), shown(behaviour, BEHAVIOUR_FLAG), shared_behaviour=both[:10],
                        held=not flag)
            _mark_lines(pair, by_name[x], by_name[y], weight_of)
            pairs.append(pair)
    pairs.sort(key=lambda p: (-p.rank, p.a, p.b))
    _number_groups(pairs)
    return Similarity(pairs, by_name, len(coded), codes=codes, features=feats, feature_counts=dict(counts))


def _mark_lines(pair: Pair, a: Coded, b: Coded, weight_of: Callable[[int], float]) -> None:
    for h in a.prints.keys() & b.prints.keys():
        if weight_of(h) <= 0:
            continue
        for label, first, last in a.prints[h]:
            pair.lines_a.setdefault(label, set()).update(range(first, last + 1))
        for label, first, last in b.prints[h]:
            pair.lines_b.setdefault(label, set()).update(range(first, last + 1))


def _number_groups(pairs: list[Pair]) -> None:
    """Connected flagged pairs share a group number; groups numbered by their best pair."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for p in pairs:
        parent[find(p.a)] = find(p.b)
    numbers: dict[str, int] = {}
    for p in pairs:  # most similar first: group 1 holds the best pair
        root = find(p.a)
        numbers.setdefault(root, len(numbers) + 1)
        p.group = numbers[root]


# --------------------------------------------------------------------------- output


def shown(score: float, flag: float) -> float:
    """``score`` to three decimals as the csv, the page and the terminal show it, never rounded up
    to the flag it is below (0.5996 is 0.599 against a flag of 0.6, not 0.6)."""
    out = round(score, 3)
    return math.floor(score * 1000) / 1000 if score < flag <= out else out


def flagged_in(outdir: str | Path) -> set[frozenset[str]]:
    """The pairs ``OUTDIR/similarity.csv`` flags (none when there is no such file, or it cannot
    be read)."""
    try:
        text = (Path(outdir) / SIMILARITY_FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return set()
    return {frozenset((r.get("submission_a") or "", r.get("submission_b") or ""))
            for r in csv.DictReader(io.StringIO(text))}


def write_similarity(result: Similarity, outdir: str | Path) -> Path:
    """``OUTDIR/similarity.csv``: exactly the flagged pairs, most similar first."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["submission_a", "submission_b", "group", "code_score", "behaviour_score", "evidence"])
    for p in result.pairs:
        writer.writerow([sinks.csv_cell(p.a), sinks.csv_cell(p.b), p.group, p.code_score, p.behaviour_score,
                         sinks.csv_cell(p.evidence(result.coded))])
    return write_atomic(Path(outdir) / SIMILARITY_FILE, buf.getvalue())


def read_similarity(outdir: str | Path) -> list[dict[str, str]]:
    """The rows of ``OUTDIR/similarity.csv`` (none when it is absent)."""
    path = Path(outdir) / SIMILARITY_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    return list(csv.DictReader(io.StringIO(text)))


def side_by_side(pair: Pair, coded: dict[str, Coded]) -> list[dict[str, Any]]:
    """For the page: per matching region, A's and B's lines with the matched ones marked.

    Each region is a function (or a chunk's loose code) of A with matching lines, beside the
    function of B where most of that function's shared fingerprints are. Lines are raw
    student text: the page's sink escapes them.
    """
    a, b = coded[pair.a], coded[pair.b]
    shared = a.prints.keys() & b.prints.keys()
    # Per shared fingerprint, once per pair: where A has it (chunk label -> [(line, order)]) and
    # which of B's functions hold it (one vote per print of it there). A region's votes are then
    # counted over its own fingerprints, in the order of ``shared``, so a tie goes as before.
    a_at: dict[str, list[tuple[int, int]]] = {}
    hashes = list(shared)
    for order, h in enumerate(hashes):
        for lab, x, _ in a.prints[h]:
            a_at.setdefault(lab, []).append((x, order))
    b_keys: dict[int, list[tuple[str, str, int, int]]] = {}
    b_spans: dict[str, _Spans] = {}

    def spans_of(lab: str) -> _Spans:
        found = b_spans.get(lab)
        if found is None:
            found = b_spans[lab] = _Spans(b.functions.get(lab, []))
        return found

    def keys_of(order: int) -> list[tuple[str, str, int, int]]:
        found = b_keys.get(order)
        if found is None:
            found = b_keys[order] = []
            for lab, x, _ in b.prints[hashes[order]]:
                spans = spans_of(lab)
                at = spans.at(x)
                if at is not None:
                    name, f, g = spans.functions[at]
                    found.append((lab, name, f, g))
        return found

    regions: list[dict[str, Any]] = []
    matched = 0  # regions with matching lines, shown or not
    for label, lines in sorted(pair.lines_a.items()):
        functions = a.functions.get(label, []) or [("", 1, len(a.sources.get(label, [])))]
        spans = _Spans(functions)
        hit = spans.holding(lines)
        orders: dict[int, set[int]] = {}
        for x, order in a_at.get(label, []):
            at = spans.at(x)
            if at in hit:
                orders.setdefault(at, set()).add(order)
        for index, (fname, first, last) in enumerate(functions):
            if index not in hit:
                continue
            matched += 1
            if len(regions) >= _REGIONS:
                continue  # (counted: the page says how many it leaves out)
            votes: dict[tuple[str, str, int, int], int] = {}
            for order in sorted(orders.get(index, ())):
                for key in keys_of(order):
                    votes[key] = votes.get(key, 0) + 1
            right: list[tuple[int, str, bool]] = []
            right_label = ""
            if votes:
                right_label, _, f, g = max(votes, key=lambda k: (votes[k], k[1] == fname))
                right = _lines(b, right_label, f, g, pair.lines_b.get(right_label, set()))
            regions.append({"function": fname, "a_label": label, "a": _lines(a, label, first, last, lines),
                            "b_label": right_label, "b": right})
    # code outside functions (constants, loose statements, notebook cells of calls) that matches
    loose_a = _loose(a, pair.lines_a)
    loose_b = _loose(b, pair.lines_b)
    if loose_a and loose_b:
        (la, ls_a), (lb, ls_b) = max(loose_a.items(), key=lambda kv: len(kv[1])), max(loose_b.items(),
                                                                                         key=lambda kv: len(kv[1]))
        regions.insert(0, {"function": "", "a_label": la, "a": _lines(a, la, min(ls_a), max(ls_a), ls_a),
                           "b_label": lb, "b": _lines(b, lb, min(ls_b), max(ls_b), ls_b)})
        matched += 1
    pair.regions = matched
    return regions[:_REGIONS]


def _loose(c: Coded, marked: dict[str, set[int]]) -> dict[str, set[int]]:
    """Marked lines outside every function, per chunk."""
    out = {}
    for label, lines in marked.items():
        spans = _Spans(c.functions.get(label, []))
        rest = {n for n in lines if spans.at(n) is None}
        if rest:
            out[label] = rest
    return out


def _lines(c: Coded, label: str, first: int, last: int, marked: set[int]) -> list[tuple[int, str, bool]]:
    src = c.sources.get(label, [])
    last = min(last, first + 60, len(src))
    return [(n, src[n - 1][:200], n in marked) for n in range(first, last + 1)]


# --------------------------------------------------------------------------- the stage

#: Where a batch notes the source it graded, so ``grader similarity OUT`` finds the code again.
SOURCE_NOTE = Path(".sources") / "source.json"



def submissions_in(source: str, outdir: Path, rubric: Rubric) -> list[tuple[str, Submission]]:
    """(report name, Submission) of every submission in ``source``, named as the batch named them."""
    from grader.spec.assignment import assignment_of

    from grader.ingest import anonymous

    found = anonymous.find(source, outdir, assignment_of(rubric), anonymous=anonymous.is_anonymous(outdir))
    return [(f.submission.name, f.submission) for f in found.found]


def source_of(outdir: Path) -> str:
    from grader.errors import UsageError

    try:
        return str(json.loads((outdir / SOURCE_NOTE).read_text(encoding="utf-8"))["source"])
    except (OSError, ValueError, KeyError, TypeError):
        raise UsageError(said("no_note_submissions_graded", outdir=outdir, note=SOURCE_NOTE)) from None


def note_source(outdir: str | Path, source: str) -> None:
    """Remember where a batch's submissions came from (for a later ``grader similarity OUT``)."""
    write_atomic(Path(outdir) / SOURCE_NOTE, json.dumps({"source": str(Path(source).resolve())}))


def base_code(rubric: Rubric, api: Iterable[str]) -> list[Coded]:
    """The handed-out stubs (the ``.py`` files and the notebook) as fingerprints: the base code."""
    from grader.spec.assignment import assignment_of
    from grader.ingest.submission.load import load_submission

    out = []
    folder = Path(rubric.exercises)
    api = list(api)
    out.append(code_of("(handout)", load_submission(folder, assignment_of(rubric)), api))
    notebook = assignment_of(rubric).notebook
    if notebook and (folder / notebook).is_file():
        out.append(code_of("(handout notebook)", load_submission(folder / notebook), api))
    return out


def background_code(rubric: Rubric, api: Iterable[str]) -> list[Coded]:
    """The course's correct styles (its validate corpus) as fingerprints, each style's own files
    only (not the reference a style is laid over for ``grader validate``: a copy of the reference
    stays evidence). None when the rubric has no corpus."""
    from grader.spec.assignment import assignment_of
    from grader.ingest.corpus import load_corpus
    from grader.ingest.submission.load import load_submission

    folder = assignment_of(rubric).fixtures
    api = list(api)
    out = []
    for style in load_corpus(folder) if folder is not None else []:
        try:
            if style.is_dir():
                files = sorted(style.glob("*.py"))
                chunks = [_Chunk(f.name, f.read_text(encoding="utf-8", errors="replace")) for f in files]
                out.append(code_of(f"(correct style {style.name})", cast("Submission", _Styled([_Module(chunks)])), api))
            elif style.suffix == ".py":
                text = style.read_text(encoding="utf-8", errors="replace")
                own = _Styled([_Module([_Chunk(style.name, text)])])
                out.append(code_of(f"(correct style {style.name})", cast("Submission", own), api))
            else:
                out.append(code_of(f"(correct style {style.name})", load_submission(style), api))
        except (OSError, ValueError):
            continue  # (grader validate says what is wrong with a style)
    return out


@dataclass
class _Chunk:
    label: str
    code: str


@dataclass
class _Module:
    chunks: list[_Chunk]


@dataclass
class _Styled:
    """A correct style's own files, read as :func:`code_of` reads a submission."""

    modules: list[_Module]


def compute(outdir: str | Path, rubric: Rubric, *, source: str | None = None,
        submissions: Sequence[tuple[str, Submission]] | None = None, reports: Sequence[GradeReport] | None = None,
        against: str | None = None, against_source: str | None = None) -> Similarity:
    """Compare a finished batch's submissions; write ``similarity.csv`` (the pages:
    :func:`grader.outputs.similarity_page.run`).

    Args:
        outdir: the batch's output folder (reports, gradebook).
        rubric: the assignment's rubric (its API names and stubs).
        source: the submissions as given to the batch; by default the batch's note of it.
        submissions: (report name, Submission) pairs already read (the batch passes them).
        reports: the batch's reports; by default read from ``outdir/reports``.
        against: a previous term's batch folder to compare with as well.
        against_source: that batch's submissions; by default its note of them.
    """
    from grader.spec.assignment import assignment_of
    from grader.insight.unknown_mistakes import read_reports

    out = Path(outdir)
    api = [f for funcs in assignment_of(rubric).all_functions.values() for f in funcs]
    reps = {r.submission: r for r in (reports if reports is not None else read_reports(out))}
    if source and not (out / SOURCE_NOTE).exists():
        note_source(out, source)
    subs = list(submissions) if submissions is not None else submissions_in(source or source_of(out), out, rubric)
    coded = [code_of(name, sub, api, _who(reps.get(name), name)) for name, sub in subs if name in reps]
    old: list[Coded] = []
    old_reports: dict[str, GradeReport] = {}
    if against:
        old_dir = Path(against)
        label = old_dir.name
        for r in read_reports(old_dir):
            old_reports[f"{label}/{r.submission}"] = r
        from grader.ingest import anonymous
        from grader.spec.assignment import assignment_of
        from grader.errors import UsageError

        if anonymous.is_anonymous(out) and not anonymous.is_anonymous(old_dir):
            raise UsageError(said("similarity_against_names", out=out, old=old_dir))
        # found as that batch found them: into its own folder, or (blind) outside both, by its ids
        found = anonymous.find(against_source or source_of(old_dir), old_dir, assignment_of(rubric),
                               anonymous=anonymous.is_anonymous(old_dir))
        for name, sub in ((f.submission.name, f.submission) for f in found.found):
            key = f"{label}/{name}"
            if key in old_reports:
                old.append(code_of(key, sub, api, key))
    result = compare(coded, reps, base_code(rubric, api), old, old_reports, background_code(rubric, api),
                     flagged_before=flagged_in(out))
    _add_variant_copies(result, rubric, [(name, reps[name], sub.answers) for name, sub in subs if name in reps])
    result.against = against or ""
    _scrub_names(result, [out, *([Path(against)] if against else [])])
    write_similarity(result, out)
    return result


def _add_variant_copies(result: Similarity, rubric: Rubric, entries: list[tuple[str, GradeReport, str | None]]) -> None:
    """Flag each pair whose one's answers fit the other's variant and not their own, saying so."""
    from grader.insight.variant_copies import variant_copies

    copies = variant_copies(rubric, entries)
    if not copies:
        return
    for copy in copies:
        a, b = sorted((copy.copier, copy.source))
        pair = result.score(a, b)
        pair.variant_evidence = "; ".join(filter(None, [pair.variant_evidence, copy.evidence()]))
        if pair not in result.pairs:
            result.pairs.append(pair)
    result.pairs.sort(key=lambda p: (-p.rank, p.a, p.b))
    _number_groups(result.pairs)


def _scrub_names(result: Similarity, folders: list[Path]) -> None:
    """In a blind folder, every name and id its students' code and behaviour show (a comment
    signed with a name, a string holding an id) become ``[name]`` and ``[id]`` on the page and in
    similarity.csv (:class:`grader.ingest.anonymous.Names`); the scores were computed before."""
    from grader.ingest.anonymous import names_of

    known = [n for n in (names_of(folder) for folder in folders) if n]
    if not known or not names_of(folders[0]):
        return

    def scrub(text: str) -> str:
        for names in known:
            text = names(text)
        return text

    for c in result.coded.values():
        c.who = scrub(c.who)
        c.sources = {label: [scrub(line) for line in lines] for label, lines in c.sources.items()}
        c.functions = {label: [(scrub(f), a, b) for f, a, b in spans] for label, spans in c.functions.items()}
    for pair in result.pairs:
        pair.shared_behaviour = [scrub(b) for b in pair.shared_behaviour]


def _who(report: GradeReport | None, name: str) -> str:
    who = (report.student if report else None) or {}
    n, sid = str(who.get("name") or ""), str(who.get("id") or "")
    return f"{n} ({sid})" if n and sid else name
