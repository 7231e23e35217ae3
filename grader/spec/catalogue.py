"""The mistake-catalogue format: an assignment's ``mistakes.yaml`` → frozen records → messages.

Each assignment's rubric names its catalogue (``plugin.catalogue``). The YAML file holds, for
every stable mistake id, the functions it applies to, how it is recognised, and a Japanese and
an English message template whose ``{slots}`` are filled with the evidence of one student's
run. The assignment's probes (:mod:`grader.kit.probes`) decide *whether* a mistake is present;
this module only knows what to *say*. The framework's own entries (``not-implemented``,
``unrecognised``) are in ``grader/framework.yaml`` and come with every catalogue.

Example::

    entry = catalogue(Path("suites/chapter09/plugin/mistakes.yaml"))["not-implemented"]
    entry.render({"file": "part1.py", "functions": "double", "count": 1})
    # {"en": "part1.py: double still raise NotImplementedError (1 function(s)): ...", "ja": "..."}
"""

from __future__ import annotations

import difflib
import functools
import re
import math
import string
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Mapping
from typing import TYPE_CHECKING, TypedDict


from grader.i18n.messages import said
from grader.package_data import PACKAGE_DIR
import grader.safeyaml as safeyaml

if TYPE_CHECKING:
    from grader.spec.rubric.model import Rubric

__all__ = ["FRAMEWORK_FILE", "Entry", "RecordedSignature", "catalogue", "mistake_ids"]

#: What the grader itself names for any assignment (``not-implemented``, ``unrecognised``).
FRAMEWORK_FILE = PACKAGE_DIR / "framework.yaml"
_LANGS = ("en", "ja")
# A folded YAML scalar turns each line break into a space; Japanese has no spaces between
# words, so a space between two Japanese characters (kana, kanji, full-width punctuation) is
# a line break to drop. Spaces next to ASCII or symbols such as √ stay.
_CJK = "\u3000-\u30ff\u4e00-\u9fff\uff00-\uffef"
_JA_PUNCT = "\u3000-\u303f\uff01-\uff0f\uff1a-\uff20"  # 、。「」（）： and the like
_JA_FOLD = re.compile(f"(?<=[{_CJK}]) (?=[{_CJK}])|(?<=[{_JA_PUNCT}]) | (?=[{_JA_PUNCT}])")


class RecordedSignature(TypedDict):
    """An entry's ``signature:``: a function's recorded behaviour, as an unrecognised failure's
    report keeps it (:mod:`grader.kit.signature`), written by ``grader catalogue draft``."""

    function: str
    probes: list[dict[str, object]]  # each a recorded call: {"call": ..., and what it gave}


@dataclass(frozen=True, slots=True)
class Entry:
    """One mistake of the catalogue."""

    id: str = field(metadata={"help": "stable kebab-case id, e.g. returns-input"})
    title: dict[str, str] = field(metadata={"help": "short name, en and ja"})
    applies_to: tuple[str, ...] = field(metadata={"help": "part.function names that can show it"})
    recognised_by: str = field(metadata={"help": "how diagnosis recognises it, for instructors"})
    messages: dict[str, dict[str, str]] = field(
        metadata={"help": "variant -> {en, ja} templates; 'default' unless evidence names one"}
    )
    evidence: tuple[str, ...] = field(default=(), metadata={"help": "evidence keys the messages use"})
    note: bool = field(default=False, metadata={"help": "a plain statement, not a mistake"})
    signature: RecordedSignature | None = field(default=None, metadata={
        "help": "recognised by recorded behaviour: {function, probes} as an unrecognised failure's "
                "report keeps it (written by grader catalogue draft)"})
    draft: bool = field(default=False, metadata={
        "help": "written by grader catalogue draft and not yet worded; grader validate refuses it"})

    def render(self, evidence: Mapping[str, object]) -> dict[str, str]:
        """Fill this entry's templates with ``evidence``; returns ``{"en": ..., "ja": ...}``.

        The template is ``messages[evidence["variant"]]`` when the evidence names a variant,
        else ``messages["default"]``. An evidence value ``{"en": ..., "ja": ...}`` fills its
        slot with the text in the template's language. A missing slot is shown as ``?`` rather than failing:
        a message with a gap is better than losing the mistake.
        """
        variant = str(evidence.get("variant", "default"))
        templates = self.messages.get(variant) or self.messages["default"]
        out = {}
        for lang in _LANGS:
            # A slot whose value is {"en": ..., "ja": ...} is words, given in each language.
            slots = _Slots({k: v[lang] if isinstance(v, dict) and lang in v else v for k, v in evidence.items()})
            try:
                out[lang] = _TRUE_NUMBERS.vformat(templates[lang], (), slots)
            except (ValueError, TypeError):
                out[lang] = templates[lang]
        return out


class _TrueNumbers(string.Formatter):
    """Fills a slot as ``format`` does, except that a number never reads as another claim: a
    nonzero value that its format spec would round to zero (``-1e-12`` as ``-0`` or
    ``-0.0000``) is shown with two significant digits instead, and a negative zero as 0."""

    def format_field(self, value: object, format_spec: str) -> str:
        text = str(super().format_field(value, format_spec))
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not format_spec:
            return text
        x = float(value)
        if x == 0.0:
            return str(super().format_field(0.0, format_spec)) if math.copysign(1.0, x) < 0 else text
        try:
            reads_zero = float(text.replace("−", "-")) == 0.0
        except ValueError:
            return text
        return f"{x:.2g}" if reads_zero and math.isfinite(x) else text


_TRUE_NUMBERS = _TrueNumbers()


class _Slots(dict[str, object]):
    """Evidence for ``vformat``: unknown slots become ``?`` and keep their format spec harmless."""

    def __missing__(self, key: str) -> _Missing:
        return _Missing()


class _Missing:
    def __format__(self, spec: str) -> str:
        return "?"


def _text(value: object, where: str, name: str) -> dict[str, str]:
    if not isinstance(value, dict) or any(not isinstance(value.get(k), str) for k in _LANGS):
        raise ValueError(said("needs_en_ja_strings", path=name, key=where))
    return {"en": value["en"].strip(), "ja": _JA_FOLD.sub("", value["ja"].strip())}


def _entry(mid: str, data: object, name: str) -> Entry:
    if not isinstance(data, dict):
        raise ValueError(f"{name}: {mid}: needs title, applies_to, recognised_by and message")
    raw = data.get("message")
    if isinstance(raw, dict) and set(raw) >= set(_LANGS) and all(isinstance(raw[k], str) for k in _LANGS):
        messages = {"default": _text(raw, f"{mid}.message", name)}
    elif isinstance(raw, dict) and raw:
        messages = {str(k): _text(v, f"{mid}.message.{k}", name) for k, v in raw.items()}
        messages.setdefault("default", next(iter(messages.values())))
    else:
        raise ValueError(said("message_needs_en_ja", path=name, key=mid))
    evidence = data.get("evidence") or ""
    return Entry(
        id=mid,
        title=_text(data.get("title"), f"{mid}.title", name),
        applies_to=tuple(str(f) for f in data.get("applies_to") or ()),
        recognised_by=" ".join(str(data.get("recognised_by", "")).split()),
        messages=messages,
        evidence=tuple(s.strip() for s in str(evidence).split(",") if s.strip()),
        note=bool(data.get("note", False)),
        signature=_signature(data.get("signature"), f"{mid}.signature", name),
        draft=bool(data.get("draft", False)),
    )


def _signature(value: object, where: str, name: str) -> RecordedSignature | None:
    if value is None:
        return None
    if (not isinstance(value, dict) or not isinstance(value.get("function"), str)
            or not isinstance(value.get("probes"), list) or not value["probes"]
            or not all(isinstance(c, dict) and isinstance(c.get("call"), str) for c in value["probes"])):
        raise ValueError(said("needs_function_name_probes", name=name, where=where))
    return {"function": value["function"], "probes": value["probes"]}


@functools.cache
def catalogue(file: Path | None = None) -> dict[str, Entry]:
    """All entries of an assignment's catalogue file, in file order, loaded once.

    Without a file: the framework's own entries only (an assignment with no catalogue).

    An assignment's catalogue need not repeat what the framework names itself
    (``grader/framework.yaml``: ``not-implemented``, ``unrecognised``): those entries are added
    after its own unless it words them itself.

    Raises:
        ValueError: the file is not a ``mistakes:`` mapping of complete entries (names the file
            and the entry).
    """
    path = Path(file) if file is not None else FRAMEWORK_FILE
    data = safeyaml.load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("mistakes"), dict):
        raise ValueError(said("top_level_must_mistakes", path=path.name))
    entries = {str(mid): _entry(str(mid), body, path.name) for mid, body in data["mistakes"].items()}
    if path != FRAMEWORK_FILE:
        for mid, entry in catalogue(FRAMEWORK_FILE).items():
            entries.setdefault(mid, entry)
    return entries


def mistake_ids(file: Path | None = None) -> list[str]:
    """The ids that name mistakes (notes such as ``unrecognised`` excluded), in file order."""
    return [mid for mid, entry in catalogue(file).items() if not entry.note]


def check_rubric(rubric: Rubric) -> None:
    """Every id under the rubric's ``mistakes:`` must be in its assignment's catalogue.

    Raises:
        RubricError: naming the rubric file, the key path (``mistakes.<id>``) and the
            nearest id of the catalogue.
    """
    from grader.errors import RubricError

    file = rubric.plugin.catalogue
    known = mistake_ids(file)
    for options in rubric.mistakes:
        if options.id in known:
            continue
        nearest = difflib.get_close_matches(options.id, known, n=1, cutoff=0.0)
        raise RubricError(
            str(rubric.file),
            f"mistakes.{options.id}",
            f"{options.id!r} is not an id of the mistake catalogue ({Path(file or FRAMEWORK_FILE).name})",
            f"did you mean {nearest[0]!r}?" if nearest else "the catalogue names no mistake yet",
        )
