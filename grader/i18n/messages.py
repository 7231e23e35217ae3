"""The grader's sentences in both languages, each kept once under a key.

Every sentence the grader writes for a person (a report's notes and problems, a warning, a
command-line error, a reason in a gradebook row) is an entry of :data:`MESSAGES`: its key, its
English with ``{slots}`` where the words vary, and its Japanese with the same slots. The entries
sit beside the code that says them: one table module of this folder per area of the code
(grader/i18n/ingest.py holds what grader/ingest/ says, and so on; grader/i18n/__init__.py lists
them), merged here into :data:`MESSAGES` and :data:`LABELS`, a key defined twice refused. A
sentence that two areas say is kept in the lower one's table. Code says a sentence by its key,
from this module, and never spells it out:

- :func:`said` gives the English, for what is kept in English (a report's record, an exception's
  message, a gradebook's reason column); the text it returns remembers its key and slots.
- :func:`say` gives the sentence in one language at once, for a line that is shown and not kept.
- :func:`translate` shows kept text in a language. Text that :func:`said` made is rendered from its
  key; English read back from a record (a report on disk, a message that crossed a process) is
  read back to its key by the same table, since every English sentence the grader writes comes
  from it. A slot's own text is translated too when it is one of these sentences ("skipped x.py:
  {problem}"). Text that is none of them (a student's own words) is shown as it is.

The sandbox's own files (``grader/sandbox/zygote.py`` and ``grader/sandbox/wire.py``) run where the
``grader`` package is not importable; the few English sentences they send back are entries of
grader/i18n/sandbox.py all the same, read back by the table.

What other programs write and the grader passes on inside its own sentences (the OS's "No such
file or directory", PyYAML's "mapping values are not allowed here") is kept apart in
:data:`FOREIGN` (grader/i18n/foreign.py): never said, only read back, so that it is shown in
Japanese too.

Example::

    note = said("skipped", name="scaling.py", problem=said("symbolic_link_file"))
    str(note)              # 'skipped scaling.py: it is a symbolic link, not a file'
    translate(note, "ja")  # 'scaling.py を読み飛ばしました: シンボリックリンクで、ファイルではありません'
    say("not_graded", "ja", why="no report")
"""

from __future__ import annotations

import re
from functools import lru_cache
from types import ModuleType
from typing import TypedDict

from grader.i18n import cli, engines, grading, ingest, insight, kit, notebook, outputs, prepare, report, sandbox, spec
from grader.i18n import lms, workflows
from grader.i18n import review
from grader.i18n.entry import M
from grader.i18n.foreign import FOREIGN

__all__ = ["FOREIGN", "LABELS", "MESSAGES", "M", "TABLES", "Both", "Said", "both", "by_lang", "by_name", "error_text",
           "in_both", "label", "merge", "one_language", "pair", "said", "say", "table", "translate"]


#: The tables, one module of this folder per area of the code, bottom layer first (the order of
#: tests/fitness/test_layers.py). Each holds ``MESSAGES`` (and ``LABELS`` where it has labels) for
#: the sentences its area's code says; a sentence two areas say is kept in the lower one's table.
TABLES: tuple[ModuleType, ...] = (sandbox, kit, spec, report, ingest, grading, insight, outputs, engines, lms,
                                  workflows, prepare, review, cli, notebook)


def merge(tables: dict[str, dict[str, M]]) -> dict[str, M]:
    """The ``tables`` (a table module's name -> its table) as one, in order.

    Raises:
        RuntimeError: two of them define the same key (each key is kept once).
    """
    merged: dict[str, M] = {}
    home: dict[str, str] = {}
    for name, table in tables.items():
        for key, entry in table.items():
            if key in home:
                raise RuntimeError(f"the key {key!r} is in grader/i18n/{home[key]}.py and in grader/i18n/{name}.py")
            merged[key], home[key] = entry, name
    return merged


def _tables(kind: str) -> dict[str, dict[str, M]]:
    """The tables named ``kind`` (``MESSAGES`` or ``LABELS``) of :data:`TABLES`, by module name."""
    return {module.__name__.rpartition(".")[2]: getattr(module, kind) for module in TABLES if hasattr(module, kind)}


#: key -> the sentence in English and in Japanese: every table's ``MESSAGES``.
MESSAGES: dict[str, M] = merge(_tables("MESSAGES"))

#: key -> a word, a heading or a line of a page, in English and in Japanese: what the writers
#: (the reports, the terminal, the class summary and similarity pages, the gradebook page, the CI
#: summary) put around the grader's sentences. Never read back from text (a word such as "Test"
#: must not turn a student's file name into Japanese): say each by its key, with :func:`label`.
LABELS: dict[str, M] = merge(_tables("LABELS"))


def both(key: str, langs: tuple[str, ...] = ("en", "ja"), /, **slots: object) -> str:
    """The label ``key`` in each of ``langs``, joined by " / " (for a page both kinds of reader see)."""
    return " / ".join(dict.fromkeys(label(key, lang, **slots) for lang in langs))


def label(key: str, lang: str, /, **slots: object) -> str:
    """The label ``key`` in ``lang`` (English for a language with no words of its own), with
    ``slots`` filled in when given."""
    words = LABELS[key]
    text = words.ja if lang == "ja" else words.en
    return text.format(**slots) if slots else text


def by_lang(names: dict[str, str]) -> dict[str, dict[str, str]]:
    """``{lang: {name: label}}`` for a writer that picks its words by language first and calls
    them by its own ``names`` (name -> key of :data:`LABELS`)."""
    return {lang: {name: label(key, lang) for name, key in names.items()} for lang in ("en", "ja")}


def pair(key: str) -> dict[str, str]:
    """The label ``key`` as ``{"en": …, "ja": …}``."""
    return {"en": LABELS[key].en, "ja": LABELS[key].ja}


def by_name(names: dict[str, str]) -> dict[str, dict[str, str]]:
    """``{name: {"en": …, "ja": …}}`` for a writer that picks its words by name first."""
    return {name: {"en": LABELS[key].en, "ja": LABELS[key].ja} for name, key in names.items()}


_SLOT = re.compile(r"\\\{(\w+)\\\}")


class Said(str):
    """The English of one keyed sentence (what :func:`said` returns), remembering its key and its
    slots so that :func:`translate` renders it from the key. Anything that copies it as plain text
    (formatting it into other text, JSON, a process boundary) keeps the English only."""

    key: str
    slots: dict[str, object]

    def __new__(cls, key: str, slots: dict[str, object]) -> Said:
        self = super().__new__(cls, MESSAGES[key].en.format(**slots))
        self.key, self.slots = key, slots
        return self

    def __reduce__(self) -> tuple[type[Said], tuple[str, dict[str, object]]]:
        return Said, (self.key, self.slots)


def _represent_as_text() -> None:
    """Let PyYAML's safe dumpers write a :class:`Said` as the text it is (they take only exact
    ``str`` otherwise): a note said by key may go into any YAML the grader writes."""
    import yaml

    for dumper in {yaml.SafeDumper, getattr(yaml, "CSafeDumper", yaml.SafeDumper)}:
        dumper.add_representer(Said, lambda dumper, text: dumper.represent_str(str(text)))


_represent_as_text()


class Both(TypedDict):
    """A sentence in both languages, as the ``en`` and ``ja`` of a check's failure take it."""

    en: str
    ja: str


def in_both(key: str, /, **slots: object) -> Both:
    """The sentence ``key`` in English and in Japanese at once (``**in_both(key, ...)`` fills the
    ``en`` and ``ja`` of :func:`grader.kit.asserts.require` and the quiz checks). The slots are put
    in as given in both (values and names from the check, never sentences to translate), but a
    slot that is itself a sentence (:func:`said`) is said in each language."""
    words = MESSAGES[key]
    ja = {k: translate(v, "ja") if isinstance(v, Said) else v for k, v in slots.items()}
    return Both(en=words.en.format(**slots), ja=words.ja.format(**ja))


def said(key: str, /, **slots: object) -> str:
    """The sentence ``key`` in English with ``slots`` filled in; a slot may be another sentence.
    The text is a :class:`Said`: it remembers the key and the slots.

    Raises:
        KeyError: ``key`` is not a key of :data:`MESSAGES`.
    """
    return Said(key, slots)


def say(key: str, lang: str, /, **slots: object) -> str:
    """The sentence ``key`` in ``lang`` with ``slots`` filled in: its Japanese for ``ja``, else its
    English. A slot that is a sentence (keyed, an error, or English the table knows) is shown in
    ``lang`` too; a number is put in as it is."""
    if lang != "ja":
        return MESSAGES[key].en.format(**slots)
    return MESSAGES[key].ja.format(**{name: _slot(v, lang) for name, v in slots.items()})


def _slot(value: object, lang: str) -> object:
    if isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, BaseException):
        return error_text(value, lang)
    return translate(value if isinstance(value, str) else str(value), lang)


def table() -> dict[str, str]:
    """Every English sentence of :data:`MESSAGES` and :data:`FOREIGN` -> its Japanese."""
    return {m.en: m.ja for m in (*MESSAGES.values(), *FOREIGN.values())}


#: A slot's text where it may end in more than one place: its brackets close inside it (nested
#: up to four deep), as a sentence's or a value's do.
_NESTED = r"[^()]"
for _ in range(3):
    _NESTED = rf"[^()]|\((?:{_NESTED})*\)"
_BALANCED = rf"(?:[^()]|\((?:{_NESTED})*\))+?"


@lru_cache(maxsize=1)
def _templates() -> list[tuple[str, tuple[str, ...], bool, bool, str]]:
    """Each English sentence with what a text must hold to be it, longest first: (English, its
    fixed words in order, whether it starts and whether it ends with fixed words, Japanese)."""
    sentences = table()
    out = []
    # Longer sentences first: "skipped {name}: {problem}" must not swallow a more exact one.
    for en in sorted(sentences, key=lambda t: (-len(_SLOT.sub("", re.escape(t))), t)):
        pieces = [piece for piece in re.split(r"\{\w+\}", en)]
        out.append((en, tuple(p for p in pieces if p), bool(pieces[0]), bool(pieces[-1]), sentences[en]))
    return out


@lru_cache(maxsize=None)
def _pattern(en: str, balanced: bool) -> re.Pattern[str]:
    """The English sentence ``en`` as a pattern that reads its slots back; ``balanced``: each slot's
    brackets close inside it (:data:`_BALANCED`), else a slot is any text. Compiled when first
    needed (all of them at once take about 0.3 s)."""
    seen: set[str] = set()

    def slot(m: re.Match[str]) -> str:
        name = m.group(1)
        if name in seen:
            return f"(?P={name})"
        seen.add(name)
        return f"(?P<{name}>{_BALANCED if balanced else '.+?'})"

    return re.compile(_SLOT.sub(slot, re.escape(en)), re.S)


def _could_be(text: str, fixed: tuple[str, ...], starts: bool, ends: bool) -> bool:
    """Whether ``text`` holds a sentence's fixed words in order (a cheap test before its pattern)."""
    if starts and not text.startswith(fixed[0]) or ends and not text.endswith(fixed[-1]):
        return False
    at = 0
    for words in fixed:
        at = text.find(words, at)
        if at < 0:
            return False
        at += len(words)
    return True


def translate(text: str, lang: str) -> str:
    """``text`` in ``lang``.

    Text :func:`said` made is rendered from its key, each slot translated the same way. Other
    text is read back to its key by the table: where a slot could end in more than one place,
    the first place where every slot's brackets close inside it wins, so ``{failure} ({n}
    finished reports kept in …)`` takes a whole refusal with its own brackets as ``{failure}``.
    Text that is no sentence of the table is returned as it is.

    Only ``ja`` translates; any other language gets ``text`` back unchanged.
    """
    if lang != "ja" or not text:
        return text
    if isinstance(text, Said):
        return say(text.key, lang, **text.slots)
    return _japanese(text)


def one_language(cell: str, lang: str) -> str:
    """Reasons joined by `` | `` (a gradebook's errors cell), each ``ja / en`` where the course has
    both languages, in ``lang`` alone: of a reason in both, the one in ``lang``; any other reason
    translated."""
    parts = []
    for part in cell.split(" | "):
        ja, slash, en = part.partition(" / ")
        if slash and " / " not in en and translate(en, "ja") == ja:
            parts.append(ja if lang == "ja" else en)
        else:
            parts.append(translate(part, lang))
    return " | ".join(parts)


def error_text(exc: BaseException, lang: str) -> str:
    """What the error ``exc`` says, in ``lang``.

    A rubric error is where, what is wrong and the fix (``file: key: problem; fix``): the
    problem and the fix are each translated on their own, as a slot at the end of the problem
    would take the fix in with it. Any other error is :func:`translate` of its message (its
    one argument, when that is a keyed sentence).
    """
    from grader.errors import RubricError

    if lang != "ja":
        return str(exc)
    if not isinstance(exc, RubricError):
        first = exc.args[0] if len(exc.args) == 1 else None
        return translate(first if isinstance(first, Said) and str(first) == str(exc) else str(exc), lang)
    problem = translate(exc.problem, lang)
    if problem == exc.problem:
        return translate(str(exc), lang)
    where = f"{exc.file}: {exc.yaml_path}: " if exc.yaml_path else f"{exc.file}: "
    fix = translate(exc.fix, lang)
    return where + problem + (("" if problem.endswith("。") else "。") + fix if fix else "")


@lru_cache(maxsize=4096)
def _japanese(text: str) -> str:
    for balanced in (True, False):
        for en, fixed, starts, ends, ja in _templates():
            if fixed and not _could_be(text, fixed, starts, ends):
                continue
            m = _pattern(en, balanced).fullmatch(text)
            if m:
                return ja.format(**{k: _japanese(v) for k, v in m.groupdict().items()})
    return text
