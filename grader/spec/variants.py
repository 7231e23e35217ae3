"""Per-student variants: the rubric's ``variants:`` section, the course secret, who gets which.

A rubric may declare parameters with pools of values; every combination that keeps each
``integer_ratios`` entry an integer is a *candidate*. ``grader variants check`` proves candidates
(:mod:`grader.prepare.variants`) and freezes the issued ones in a table beside the rubric
(``<assignment>.variants.json``, never shipped to students); a student's variant is then picked
from that frozen table by HMAC-SHA256 of the course secret, the assignment id and the student's
LMS id, so the same student always gets the same variant, and a generator edited after release
changes no issued variant (the frozen table wins, and a changed generator is said).

The course secret is a file outside the course repository and every batch output:
``GRADER_SECRET_FILE`` or ``~/.config/grader/secret``, created on first use with mode 0600 (and
said), refused when anyone but its owner may read it.

Example (a rubric)::

    variants:
      params:
        d_model: [256, 384, 512, 768]
        n_heads: [4, 8, 12]
        temperature: [0.5, 2.0]
      integer_ratios: {d_k: [d_model, n_heads]}   # d_k = d_model / n_heads, an integer
      distinct: {d_k: 3}                           # the issued table holds >= 3 distinct d_k
      issue: 24                                    # how many variants to issue
      quiz:                                        # numeric quiz answers, per variant
        head-dim: {answer: d_model / n_heads, tolerance: 0}
"""

from __future__ import annotations

import ast
import hashlib
import hmac
import itertools
import json
import math
import os
import secrets
import stat
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from grader.errors import GraderError, RubricError
from grader.i18n.messages import said
from grader.spec.rubric.checks import describe

__all__ = [
    "FROZEN_SUFFIX",
    "PERSONAL_SUFFIX",
    "ROSTER_SUFFIX",
    "SECRET_ENV",
    "QuizFormula",
    "Variant",
    "VariantError",
    "VariantSpec",
    "candidates",
    "course_secret",
    "evaluate",
    "frozen_path",
    "issued_table",
    "load_frozen",
    "personal_variant",
    "pick",
    "read_variants",
    "student_variant",
    "table_hash",
    "variant_for",
    "write_frozen",
]

SECRET_ENV = "GRADER_SECRET_FILE"
FROZEN_SUFFIX = ".variants.json"
#: beside the rubric of a student's personal release: that student's own variant, and nothing else
PERSONAL_SUFFIX = ".my-variant.json"
#: beside the rubric of a Gradescope autograder: each roster student's variant, by LMS id
ROSTER_SUFFIX = ".roster-variants.json"
_KEYS = ("params", "integer_ratios", "distinct", "issue", "quiz")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")

Value = int | float | str | tuple[int, ...]


class VariantError(GraderError):
    """A variant cannot be derived: the secret, the frozen table or the student's id."""


@dataclass(frozen=True)
class QuizFormula:
    """A numeric quiz answer computed from a variant: ``answer`` an expression of its values."""

    question: str
    answer: str
    tolerance: float = 0.0


@dataclass(frozen=True)
class VariantSpec:
    """The rubric's ``variants:`` section as read (see the module's example)."""

    params: tuple[tuple[str, tuple[Value, ...]], ...]
    integer_ratios: tuple[tuple[str, str, str], ...] = ()
    distinct: tuple[tuple[str, int], ...] = ()
    issue: int = 24
    quiz: tuple[QuizFormula, ...] = ()

    def fingerprint(self) -> str:
        """sha256 of the generator: what decides the candidates, in a canonical form."""
        data = {"params": [[n, [_plain(v) for v in pool]] for n, pool in self.params],
                "integer_ratios": [list(r) for r in self.integer_ratios],
                "distinct": [list(d) for d in self.distinct], "issue": self.issue,
                "quiz": [[q.question, q.answer, q.tolerance] for q in self.quiz]}
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class Variant:
    """One student's numbers: the drawn parameters and the derived ones (``d_k``).

    ``id`` is ``v`` and 8 hex digits of the sha256 of the parameters: the same numbers have the
    same id in every table, so an id in a report always names the same numbers.
    """

    values: Mapping[str, Value] = field(default_factory=dict)

    @property
    def id(self) -> str:  # noqa: A003 - the report's word
        return "v" + hashlib.sha256(_canonical(self.values).encode()).hexdigest()[:8]

    def as_data(self) -> dict[str, object]:
        """Plain data (JSON): ``{"id": ..., "values": {...}}`` (lists for tuples)."""
        return {"id": self.id, "values": {k: _plain(v) for k, v in self.values.items()}}

    def quiz_key(self, spec: VariantSpec) -> dict[str, dict[str, object]]:
        """The numeric answers of this variant's quiz, in the answer key's shape."""
        return {q.question: {"type": "numeric", "answer": evaluate(q.answer, self.values),
                             "tolerance": q.tolerance} for q in spec.quiz}

    @classmethod
    def from_data(cls, data: object) -> Variant:
        if not isinstance(data, dict) or not isinstance(data.get("values"), dict):
            raise VariantError(said("variant_data_bad", got=describe(data)))
        values: dict[str, Value] = {}
        for key, value in data["values"].items():
            values[str(key)] = _value(value)
        variant = cls(values)
        if "id" in data and data["id"] != variant.id:
            raise VariantError(said("variant_id_mismatch", id=str(data["id"])[:40], expected=variant.id))
        return variant


def _plain(value: Value) -> object:
    return list(value) if isinstance(value, tuple) else value


def _value(raw: object) -> Value:
    if isinstance(raw, bool):
        raise VariantError(said("variant_data_bad", got=describe(raw)))
    if isinstance(raw, (int, float, str)):
        return raw
    if isinstance(raw, list) and raw and all(isinstance(x, int) and not isinstance(x, bool) for x in raw):
        return tuple(raw)
    raise VariantError(said("variant_data_bad", got=describe(raw)))


def _canonical(values: Mapping[str, Value]) -> str:
    return json.dumps({k: _plain(v) for k, v in values.items()}, sort_keys=True)


# --------------------------------------------------------------------------- the rubric section


def read_variants(value: object, fail: Callable[[str, str, str], RubricError]) -> VariantSpec:
    """The ``variants:`` section -> :class:`VariantSpec`; ``fail(path, problem, fix)`` words an error."""
    example = "variants: {params: {d_model: [256, 512], n_heads: [4, 8]}, integer_ratios: {d_k: [d_model, n_heads]}}"
    if not isinstance(value, dict):
        raise fail("variants", said("variants_mapping", got=describe(value)), said("variants_write_like", example=example))
    for key in value:
        if key not in _KEYS:
            raise fail("variants", said("variants_unknown_key", key=str(key)[:40]), said("variants_keys", keys=", ".join(_KEYS)))
    raw_params = value.get("params")
    if not isinstance(raw_params, dict) or not raw_params:
        raise fail("variants.params", said("variants_params_needed", got=describe(raw_params)),
                   said("variants_write_like", example="params: {d_model: [256, 512], n_heads: [4, 8]}"))
    params: list[tuple[str, tuple[Value, ...]]] = []
    for name, pool in raw_params.items():
        path = f"variants.params.{name}"
        _check_name(name, path, fail)
        if not isinstance(pool, list) or not pool:
            raise fail(path, said("variants_pool_list", got=describe(pool)), said("variants_write_like", example=f"{name}: [256, 512]"))
        values: list[Value] = []
        for i, raw in enumerate(pool):
            try:
                v = _value(raw)
            except VariantError:
                raise fail(f"{path}[{i}]", said("variants_pool_value", got=describe(raw)),
                           said("variants_write_like", example=f"{name}: [256, 512]")) from None
            if isinstance(v, float) and not math.isfinite(v):
                raise fail(f"{path}[{i}]", said("variants_pool_value", got=describe(raw)), said("variants_write_like", example=f"{name}: [0.5, 2.0]"))
            if v in values:
                raise fail(f"{path}[{i}]", said("variants_pool_twice", value=str(raw)), said("variants_keep_once"))
            values.append(v)
        params.append((str(name), tuple(values)))
    names = [n for n, _ in params]
    ratios: list[tuple[str, str, str]] = []
    raw_ratios = value.get("integer_ratios") or {}
    if not isinstance(raw_ratios, dict):
        raise fail("variants.integer_ratios", said("variants_mapping", got=describe(raw_ratios)),
                   said("variants_write_like", example="integer_ratios: {d_k: [d_model, n_heads]}"))
    for name, pair in raw_ratios.items():
        path = f"variants.integer_ratios.{name}"
        _check_name(name, path, fail)
        if (not isinstance(pair, list) or len(pair) != 2 or not all(isinstance(p, str) and p in names for p in pair)):
            raise fail(path, said("variants_ratio_pair", got=describe(pair), names=", ".join(names)),
                       said("variants_write_like", example=f"{name}: [d_model, n_heads]"))
        if name in names:
            raise fail(path, said("variants_ratio_clash", name=str(name)), said("variants_rename_ratio"))
        ratios.append((str(name), str(pair[0]), str(pair[1])))
    known = names + [r[0] for r in ratios]
    distinct: list[tuple[str, int]] = []
    raw_distinct = value.get("distinct") or {}
    if not isinstance(raw_distinct, dict):
        raise fail("variants.distinct", said("variants_mapping", got=describe(raw_distinct)), said("variants_write_like", example="distinct: {d_k: 3}"))
    for name, count in raw_distinct.items():
        path = f"variants.distinct.{name}"
        if name not in known:
            raise fail(path, said("variants_unknown_name", name=str(name)[:40], names=", ".join(known)), said("variants_name_declared"))
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise fail(path, said("variants_whole_number", got=describe(count)), said("variants_write_like", example=f"{name}: 3"))
        distinct.append((str(name), count))
    issue = value.get("issue", 24)
    if not isinstance(issue, int) or isinstance(issue, bool) or issue < 1:
        raise fail("variants.issue", said("variants_whole_number", got=describe(issue)), said("variants_write_like", example="issue: 24"))
    quiz: list[QuizFormula] = []
    raw_quiz = value.get("quiz") or {}
    if not isinstance(raw_quiz, dict):
        raise fail("variants.quiz", said("variants_mapping", got=describe(raw_quiz)),
                   said("variants_write_like", example="quiz: {head-dim: {answer: d_model / n_heads, tolerance: 0}}"))
    sample = {n: pool[0] for n, pool in params}
    sample.update({r: 1 for r, _, _ in ratios})
    for qid, entry in raw_quiz.items():
        path = f"variants.quiz.{qid}"
        if not isinstance(entry, dict) or not isinstance(entry.get("answer"), str) or set(entry) - {"answer", "tolerance"}:
            raise fail(path, said("variants_quiz_entry", got=describe(entry)),
                       said("variants_write_like", example=f"{qid}: {{answer: d_model / n_heads, tolerance: 0}}"))
        tol = entry.get("tolerance", 0)
        if not isinstance(tol, (int, float)) or isinstance(tol, bool) or not math.isfinite(tol) or tol < 0:
            raise fail(f"{path}.tolerance", said("variants_tolerance", got=describe(tol)), said("variants_write_like", example="tolerance: 0.02"))
        try:
            evaluate(entry["answer"], sample)
        except VariantError as exc:
            raise fail(f"{path}.answer", str(exc), said("variants_formula_fix", names=", ".join(known))) from None
        quiz.append(QuizFormula(str(qid), entry["answer"], float(tol)))
    return VariantSpec(tuple(params), tuple(ratios), tuple(distinct), issue, tuple(quiz))


def _check_name(name: object, path: str, fail: Callable[[str, str, str], RubricError]) -> None:
    if not isinstance(name, str) or not name or not set(name) <= _NAME_CHARS or name[0].isdigit():
        raise fail(path, said("variants_bad_name", got=describe(name)), said("variants_name_rule"))


# --------------------------------------------------------------------------- formulas


_FUNCS: dict[str, Callable[[float], float]] = {"sqrt": math.sqrt}


def evaluate(formula: str, values: Mapping[str, Value]) -> float:
    """The number ``formula`` gives with ``values``: + - * / **, parentheses, sqrt(), names."""
    try:
        tree = ast.parse(formula, mode="eval")
    except SyntaxError:
        raise VariantError(said("variants_formula_bad", formula=formula[:80])) from None

    def walk(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return float(node.value)
        if isinstance(node, ast.Name):
            v = values.get(node.id)
            if isinstance(v, (int, float)):
                return float(v)
            raise VariantError(said("variants_formula_name", formula=formula[:80], name=node.id[:40]))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -walk(node.operand)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)):
            a, b = walk(node.left), walk(node.right)
            try:
                if isinstance(node.op, ast.Add):
                    return a + b
                if isinstance(node.op, ast.Sub):
                    return a - b
                if isinstance(node.op, ast.Mult):
                    return a * b
                if isinstance(node.op, ast.Div):
                    return a / b
                if abs(b) > 8:
                    raise OverflowError
                return float(a**b)
            except (ZeroDivisionError, OverflowError, ValueError):
                raise VariantError(said("variants_formula_bad", formula=formula[:80])) from None
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS
                and len(node.args) == 1 and not node.keywords):
            try:
                return _FUNCS[node.func.id](walk(node.args[0]))
            except ValueError:
                raise VariantError(said("variants_formula_bad", formula=formula[:80])) from None
        raise VariantError(said("variants_formula_bad", formula=formula[:80]))

    return walk(tree)


# --------------------------------------------------------------------------- candidates and the table


def candidates(spec: VariantSpec, assignment: str) -> list[Variant]:
    """Every combination of the pools whose ratios are integers, in a fixed order of their own.

    The order is the sha256 of the assignment id and each candidate's numbers, so that the first
    ``issue`` candidates mix every pool rather than walking the last one; it depends on no secret.
    """
    names = [n for n, _ in spec.params]
    found: list[Variant] = []
    for combo in itertools.product(*(pool for _, pool in spec.params)):
        values: dict[str, Value] = dict(zip(names, combo))
        ok = True
        for name, top, bottom in spec.integer_ratios:
            a, b = values[top], values[bottom]
            if not (isinstance(a, int) and isinstance(b, int) and b > 0 and a > 0 and a % b == 0):
                ok = False
                break
            values[name] = a // b
        if ok:
            found.append(Variant(values))
    return sorted(found, key=lambda v: hashlib.sha256(f"{assignment}\x1f{_canonical(v.values)}".encode()).hexdigest())


def issued_table(spec: VariantSpec, assignment: str, proven: Callable[[Variant], bool] | None = None) -> list[Variant]:
    """The first ``issue`` candidates (``proven`` ones only, when given), meeting ``distinct``.

    Raises:
        VariantError: fewer candidates than ``issue``, or too few distinct values of a name.
    """
    table: list[Variant] = []
    for variant in candidates(spec, assignment):
        if len(table) == spec.issue:
            break
        if proven is None or proven(variant):
            table.append(variant)
    if len(table) < spec.issue:
        raise VariantError(said("variants_too_few", found=len(table), issue=spec.issue))
    for name, count in spec.distinct:
        seen = {json.dumps(_plain(v.values[name])) for v in table}
        if len(seen) < count:
            raise VariantError(said("variants_not_distinct", name=name, found=len(seen), count=count))
    return table


def table_hash(table: list[Variant]) -> str:
    """sha256 of the issued table, in order: what the ledger records."""
    return hashlib.sha256(json.dumps([v.as_data() for v in table], sort_keys=True).encode()).hexdigest()


def frozen_path(rubric_file: Path, assignment: str) -> Path:
    """Where the issued table is frozen: beside the rubric, ``<assignment>.variants.json``."""
    return rubric_file.parent / f"{assignment}{FROZEN_SUFFIX}"


def write_frozen(path: Path, spec: VariantSpec, table: list[Variant], assignment: str) -> dict[str, object]:
    """Write the frozen table (atomically) and return what was written."""
    data: dict[str, object] = {"assignment": assignment, "generator": spec.fingerprint(),
                               "hash": table_hash(table), "variants": [v.as_data() for v in table]}
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return data


def load_frozen(path: Path, assignment: str) -> tuple[list[Variant], str]:
    """The issued table frozen at ``path`` and its generator's fingerprint.

    Raises:
        VariantError: missing (run ``grader variants check``), unreadable, or its hash wrong.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise VariantError(said("variants_not_frozen", path=str(path))) from None
    except (OSError, ValueError) as exc:
        raise VariantError(said("variants_frozen_unreadable", path=str(path), why=str(exc)[:200])) from None
    if not isinstance(data, dict) or not isinstance(data.get("variants"), list) or data.get("assignment") != assignment:
        raise VariantError(said("variants_frozen_unreadable", path=str(path), why="not a variants table of " + assignment))
    table = [Variant.from_data(v) for v in data["variants"]]
    if not table or table_hash(table) != data.get("hash"):
        raise VariantError(said("variants_frozen_edited", path=str(path)))
    return table, str(data.get("generator", ""))


# --------------------------------------------------------------------------- the secret and the draw


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except ValueError:
        return False
    return True


def _repo_root(start: Path) -> Path | None:
    for folder in (start.resolve(), *start.resolve().parents):
        if (folder / ".git").exists():
            return folder
    return None


def course_secret(*, course: Path | None = None, outdirs: tuple[Path, ...] = (),
                  tell: Callable[[str], None] | None = None) -> bytes:
    """The course secret: ``GRADER_SECRET_FILE`` or ``~/.config/grader/secret``, made on first use.

    Args:
        course: a folder of the course (the rubric's): the secret may not be inside its repository.
        outdirs: batch output folders: the secret may not be inside any of them.
        tell: how to say that the secret was created (where, and to keep a copy).

    Raises:
        VariantError: the file is inside the course repository or an output folder, may be read
            by others than its owner, is empty, or cannot be read or created.
    """
    env = os.environ.get(SECRET_ENV, "").strip()
    path = Path(env).expanduser() if env else Path.home() / ".config" / "grader" / "secret"
    root = _repo_root(course) if course is not None else None
    for folder in ((root,) if root is not None else ()) + tuple(outdirs):
        if _inside(path, folder):
            raise VariantError(said("secret_inside", path=str(path), folder=str(folder), env=SECRET_ENV))
    if not path.exists():
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="ascii") as handle:
                handle.write(secrets.token_hex(32) + "\n")
        except OSError as exc:
            raise VariantError(said("secret_cannot_create", path=str(path), why=exc.strerror or str(exc))) from None
        if tell is not None:
            tell(said("secret_created", path=str(path)))
    try:
        mode = path.stat().st_mode
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise VariantError(said("secret_too_open", path=str(path), mode=f"{stat.S_IMODE(mode):o}"))
        text = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise VariantError(said("secret_cannot_read", path=str(path), why=exc.strerror or str(exc))) from None
    if len(text) < 16:
        raise VariantError(said("secret_too_short", path=str(path)))
    return text.encode("utf-8")


def pick(secret: bytes, assignment: str, lms_id: str, size: int) -> int:
    """The index a student's HMAC-SHA256 picks in a table of ``size`` (ids compared NFKC-folded)."""
    key = unicodedata.normalize("NFKC", lms_id).strip()
    if not key:
        raise VariantError(said("variant_no_lms_id"))
    digest = hmac.new(secret, f"{assignment}\x1f{key}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") % size


def variant_for(table: list[Variant], secret: bytes, assignment: str, lms_id: str) -> Variant:
    """The student's variant in the frozen table."""
    return table[pick(secret, assignment, lms_id, len(table))]


def personal_variant(rubric_file: Path, assignment: str) -> dict[str, object] | None:
    """The variant of a student's personal release (``<assignment>.my-variant.json`` beside its
    rubric) as plain data, its id checked; None where there is none (the instructor's course).

    Raises:
        VariantError: the file is there but is not one variant.
    """
    path = rubric_file.parent / f"{assignment}{PERSONAL_SUFFIX}"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise VariantError(said("variants_frozen_unreadable", path=str(path), why=str(exc)[:200])) from None
    return Variant.from_data(data).as_data()


def student_variant(rubric_file: Path, assignment: str, student: str, *,
                    tell: Callable[[str], None] | None = None) -> dict[str, object]:
    """One student's variant (plain data) for ``grader grade --student``: from the roster file of a
    Gradescope autograder when there is one beside the rubric, else from the frozen table and the
    course secret.

    Raises:
        VariantError: the student is not in the roster, or no table is frozen, or the secret refused.
    """
    roster = rubric_file.parent / f"{assignment}{ROSTER_SUFFIX}"
    if roster.exists():
        try:
            data = json.loads(roster.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise VariantError(said("variants_frozen_unreadable", path=str(roster), why=str(exc)[:200])) from None
        key = unicodedata.normalize("NFKC", student).strip()
        if not isinstance(data, dict) or key not in data:
            raise VariantError(said("variant_not_in_roster", student=key[:80] or "-", path=roster.name))
        return Variant.from_data(data[key]).as_data()
    table, _ = load_frozen(frozen_path(rubric_file, assignment), assignment)
    return variant_for(table, course_secret(course=rubric_file.parent, tell=tell), assignment, student).as_data()
