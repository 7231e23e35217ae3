"""One home per sentence: every sentence and label the grader writes has its Japanese beside it,
in the table of the area of the code that says it (grader/i18n/<area>.py)."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import pkgutil
import re
import string
import subprocess
import sys
from collections import defaultdict
from functools import lru_cache
from pathlib import Path

import pytest

from grader import i18n
from grader.i18n import messages
from grader.i18n.entry import M
from grader.ingest.lms import reason
from grader.report import text as _text


_SLOTS = string.Formatter()


def _slots(text: str) -> set[str]:
    return {name for _, name, _, _ in _SLOTS.parse(text) if name}


@pytest.mark.parametrize("key", sorted(messages.MESSAGES))
def test_every_keyed_sentence_renders_in_both_languages(key: str) -> None:
    """Each key says its sentence in English and in Japanese with the same slots, and the English,
    once kept (a report's record, a process boundary), reads back to the same Japanese."""
    entry = messages.MESSAGES[key]
    assert entry.en.strip() and entry.ja.strip(), key
    assert _slots(entry.en) == _slots(entry.ja), key
    slots = {name: f"<{name}>" for name in _slots(entry.en)}
    ja, en = messages.say(key, "ja", **slots), messages.say(key, "en", **slots)
    assert en == str(messages.said(key, **slots)) == entry.en.format(**slots)
    if entry.en != entry.ja:
        assert ja != en
    assert not re.search(r"[A-Za-z]{4,} [a-z]{3,} [a-z]{3,}", _COMMAND.sub("", re.sub(r"<\w+>", "", ja))), ja
    assert messages.translate(messages.said(key, **slots), "ja") == ja
    assert messages.translate(en, "ja") == ja, "the kept English reads back to another sentence"


def test_a_keyed_sentence_is_written_as_plain_text_in_yaml_and_json() -> None:
    import json

    import yaml

    note = messages.said("skipped", name="x.py", problem=messages.said("symbolic_link_file"))
    for dump in (yaml.safe_dump, lambda d: yaml.dump(d, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper))):
        assert yaml.safe_load(dump({"notes": [note]})) == {"notes": [str(note)]}
    assert json.loads(json.dumps({"notes": [note]})) == {"notes": [str(note)]}


def test_no_two_keys_say_the_same_english() -> None:
    english = [m.en for m in messages.MESSAGES.values()]
    assert sorted(e for e in set(english) if english.count(e) > 1) == []


def test_a_reason_is_in_the_rubrics_languages() -> None:
    assert reason("missing", ("ja", "en"), files="a.py") == "未提出のファイル: a.py / missing: a.py"
    assert reason("missing", ("en",), files="a.py") == "missing: a.py"


def test_a_keyed_sentence_keeps_its_key_through_a_pickle_and_an_exception() -> None:
    import pickle

    from grader.errors import UsageError

    note = messages.said("skipped", name="x.py", problem=messages.said("symbolic_link_file"))
    back = pickle.loads(pickle.dumps(note))
    assert isinstance(back, messages.Said) and back == note and back.key == "skipped"
    assert messages.error_text(UsageError(note), "ja") == "x.py を読み飛ばしました: シンボリックリンクで、ファイルではありません"


# --- the tables: one module of grader/i18n/ per area of the code ----------------------------------


#: What a table module may hold: sentences said by key, words and headings, other programs' sentences.
_KINDS = ("MESSAGES", "LABELS", "FOREIGN")


def _tables(kind: str) -> dict[str, dict[str, M]]:
    """Each module of grader/i18n/ holding a table named ``kind``: its name -> that table (the
    machinery's merged tables left out)."""
    found = {}
    for info in sorted(pkgutil.iter_modules(i18n.__path__), key=lambda info: info.name):
        module = importlib.import_module(f"grader.i18n.{info.name}")
        if info.name != "messages" and hasattr(module, kind):
            found[info.name] = getattr(module, kind)
    return found


def _without_japanese(tables: dict[str, dict[str, M]]) -> list[str]:
    """``table.key`` of each entry of ``tables`` (a name -> its table) that lacks a language, or
    whose English and Japanese have different ``{slots}``."""
    return [f"{name}.{key}" for name, table in tables.items() for key, m in table.items()
            if not m.en.strip() or not m.ja.strip() or _slots(m.en) != _slots(m.ja)]


def test_every_entry_of_every_table_has_both_languages_with_the_same_slots() -> None:
    """Every key of every table module (sentences, labels, other programs' sentences) has its
    English and its Japanese, with the same slots."""
    tables = {f"{name}.{kind}": table for kind in _KINDS for name, table in _tables(kind).items()}
    assert len(tables) >= 14 and sum(map(len, tables.values())) >= 600
    assert _without_japanese(tables) == []


def test_an_entry_without_japanese_is_caught() -> None:
    """The check above can fail: an empty Japanese, and a Japanese that lost a slot."""
    planted = {"spec.MESSAGES": {"no_ja": M("a sentence with {x}", " "), "lost": M("{x} and {y}", "{x} だけ"),
                                 "fine": M("{x} is fine", "{x} は問題ありません")}}
    assert _without_japanese(planted) == ["spec.MESSAGES.no_ja", "spec.MESSAGES.lost"]


def test_the_merged_tables_are_those_of_every_table_module() -> None:
    """grader.i18n.messages merges the tables of every module of grader/i18n/ that holds one, and
    nothing else: a new table module not merged would leave its sentences unsaid."""
    merged = {module.__name__.rpartition(".")[2] for module in messages.TABLES}
    assert merged == set(_tables("MESSAGES")) | set(_tables("LABELS"))
    for kind in ("MESSAGES", "LABELS"):
        assert getattr(messages, kind) == {key: m for table in _tables(kind).values() for key, m in table.items()}
    assert messages.FOREIGN == _tables("FOREIGN")["foreign"]


def _defined_twice(tables: dict[str, dict[str, M]]) -> dict[str, list[str]]:
    """Each key more than one of ``tables`` (a name -> its table) defines -> those tables."""
    homes = defaultdict(list)
    for name, table in tables.items():
        for key in table:
            homes[key].append(name)
    return {key: names for key, names in homes.items() if len(names) > 1}


def test_no_key_is_defined_in_two_tables() -> None:
    """A sentence's key is defined once, in one module's MESSAGES or in FOREIGN (the table reads
    both back); a label's once, in one module's LABELS."""
    sentences = {**{f"{name}.MESSAGES": t for name, t in _tables("MESSAGES").items()},
                 **{f"{name}.FOREIGN": t for name, t in _tables("FOREIGN").items()}}
    assert _defined_twice(sentences) == {}
    assert _defined_twice(_tables("LABELS")) == {}


def test_a_key_defined_twice_is_caught() -> None:
    """The check above can fail, and the machinery refuses to merge such tables."""
    ingest, cli = {"skipped": M("skipped", "読み飛ばし")}, {"zip": M("zip", "zip"), "skipped": M("x", "x")}
    assert _defined_twice({"ingest": ingest, "cli": cli}) == {"skipped": ["ingest", "cli"]}
    with pytest.raises(RuntimeError, match="grader/i18n/ingest.py and in grader/i18n/cli.py"):
        messages.merge({"ingest": ingest, "cli": cli})
    assert messages.merge({"ingest": ingest, "zip": {"zip": M("zip", "zip")}}) == {**ingest, "zip": M("zip", "zip")}


def test_every_label_has_both_languages() -> None:
    labels = _text.LABELS
    assert [key for key, words in labels.items() if set(words) != {"en", "ja"} or not all(words.values())] == []
    plots = _text.PLOT_WORDS  # language first
    assert set(plots["en"]) == set(plots["ja"]) and all(plots["ja"].values())


def test_one_word_per_concept_in_japanese() -> None:
    """A part is 小問, a mistake 間違い and a rubric ルーブリック wherever the grader names them: the
    labels of every writer (reports, terminal, summary, similarity page, CI summary) and every sentence."""
    from grader.report.terminal import WORDS
    from grader.outputs.summary import TEXT

    assert WORDS["ja"]["part"] == TEXT["ja"]["part"] == _text.LABELS["part"]["ja"] == messages.label("part", "ja") == "小問"
    labels = " ".join(m.ja for m in messages.LABELS.values())
    sentences = " ".join(m.ja for m in messages.MESSAGES.values())
    assert "課題ごと" not in labels  # per part is 小問ごと; 課題 is the assignment
    for other in ("ミス", "誤り", "採点基準"):
        assert other not in labels and other not in sentences, other


def test_every_label_is_kept_once() -> None:
    """The writers' words come from messages.LABELS: no two keys hold the same words, and the
    tables the writers index (report, summary, similarity page, clusters, flags, CI summary)
    are views of it."""
    from grader.insight import unknown_mistakes as clusters
    from grader.insight import item_analysis as items
    from grader.outputs import similarity_page
    from grader.outputs import summary
    from grader.report import markdown

    pairs = [(m.en, m.ja) for m in messages.LABELS.values()]
    assert sorted(p for p in set(pairs) if pairs.count(p) > 1) == []
    known = set(pairs)
    views = [*(((w["en"], w["ja"]) for w in _text.LABELS.values())),
             *(((w["en"], w["ja"]) for w in items.FLAGS.values())),
             *(((summary.TEXT["en"][k], summary.TEXT["ja"][k]) for k in summary.TEXT["en"])),
             *(((similarity_page.TEXT["en"][k], similarity_page.TEXT["ja"][k]) for k in similarity_page.TEXT["en"])),
             *(((clusters._WORDS["en"][k], clusters._WORDS["ja"][k]) for k in clusters._WORDS["en"])),
             (markdown._RAN["en"], markdown._RAN["ja"])]
    assert [v for v in views if v not in known] == []


def test_batch_reasons_read_in_japanese() -> None:
    """What discovery writes for an entry it cannot grade is shown in Japanese in a Japanese page."""
    said = messages.translate("not graded: " + reason("no_work", ("en",), files="masking.py"), "ja")
    assert said == "採点していません: masking.py・answers.yaml・ノートブック・zip のどれも含まれていません"


# --- every sentence the grader raises has Japanese ---------------------------------------------


_GRADER = Path(messages.__file__).parent.parent
#: Builtin exceptions that only ever mean "the grader is broken", never shown as a user's error.
_INTERNAL = {"AssertionError", "NotImplementedError", "TypeError", "RuntimeError", "KeyError", "AttributeError",
             "OSError", "PermissionError"}
#: Sentences that never reach a user, each with why.
_NEVER_SHOWN: dict[str, str] = {
    "kit/asserts.py": "_fail(expected, actual, en, ja) carries its own Japanese; the first argument is a description",
    "sandbox/backends.py": "the level is validated by sandbox/level.py before a backend is chosen",
    "report/redact.py": "the audience is chosen by the grader's own writers, never typed by a user",
}
_ENGLISH = re.compile(r"[A-Za-z]{3,} [a-z]{2,} [a-z]{2,}")
_COMMAND = re.compile(r"\bgrader(?: [a-z]+){1,2}")  # command names stay as they are typed


def _template(node: ast.expr) -> str | None:
    """The sentence an expression raises, each formatted value as ``{slotN}``; None if not a literal."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else f"{{slot{i}}}" for i, v in enumerate(node.values))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _template(node.left), _template(node.right)
        return None if left is None or right is None else left + right
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format"
            and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str)):
        return node.func.value.value
    return None


def _raised(source: str) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            func = node.exc.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            text = _template(node.exc.args[0])
            if name not in _INTERNAL and text is not None:
                found.append((node.lineno, text))
    return found


def _left_in_english(source: str) -> list[str]:
    out = []
    for line, text in _raised(source):
        sample = re.sub(r"\{[^{}]*\}", "X", text)
        ja = messages.translate(sample, "ja")
        if _ENGLISH.search(_COMMAND.sub("", ja.replace("X", ""))):
            out.append(f"{line}: {text}")
    return out


def test_every_raised_sentence_has_japanese() -> None:
    left = {}
    for path in sorted(_GRADER.rglob("*.py")):
        rel = path.relative_to(_GRADER).as_posix()
        if rel in _NEVER_SHOWN:
            continue
        found = _left_in_english(path.read_text(encoding="utf-8"))
        if found:
            left[rel] = found
    assert left == {}


def test_an_untranslated_raise_is_caught() -> None:
    """The scan above can fail: a planted raise with no Japanese is found, f-string and ``+`` alike."""
    planted = ('raise UsageError(f"{path}: this sentence has no " + "Japanese at all")\n'
               'raise UsageError(f"{out}: no reports in {out}/reports; run grader batch with --out {out} first")\n')
    assert _left_in_english(planted) == ['1: {slot0}: this sentence has no Japanese at all']


def test_the_command_line_shows_a_usage_error_in_japanese(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    done = subprocess.run([sys.executable, "-m", "grader", "check", str(missing), "--lang", "ja"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "エラー" in done.stderr and "そのようなファイルやフォルダはありません" in done.stderr, done.stderr
    assert "no such file" not in done.stderr


# --- sentences inside sentences ------------------------------------------------------------------


REFUSAL = ("refusing to grade at the rlimits level: student code would run as root, and the unprivileged user "
           "nobody cannot read Python's own files in /opt/py/lib/python3.11. Install Python, torch and the grader "
           "where every user can read them (a system Python, not one inside a private home folder, or point "
           "GRADER_WORKER_PYTHON at such an interpreter with the same torch), or make the namespace sandbox work "
           "(bubblewrap with user namespaces)")


def test_a_sentence_with_its_own_brackets_is_whole_inside_another() -> None:
    """The wrapper's slot ends where the refusal's brackets have closed, not at its first "(":
    every sentence of the four is Japanese and each stays whole."""
    text = (f"a grading worker stopped: the sandbox did not start: {REFUSAL} (its log: out/.logs/worker-0.log) "
            "(0 finished reports kept in out; fix the cause, then run again: grader batch src --out out --resume)")
    said = messages.translate(text, "ja")
    assert said == (
        "採点用プロセスが停止しました: サンドボックスが起動しませんでした: " + messages.translate(REFUSAL, "ja")
        + "（ログ: out/.logs/worker-0.log）（終わったレポート 0 件は out に残してあります。原因を直してから、"
        "もう一度実行してください: grader batch src --out out --resume）")
    assert messages.translate(REFUSAL, "ja").startswith("rlimits レベルでは採点しません")
    assert not _ENGLISH.search(_COMMAND.sub("", said)), said


def test_a_slot_whose_brackets_never_close_still_translates() -> None:
    """Text with a bracket left open (student text, a traceback) matches as before."""
    said = messages.translate("skipped x.py: it is a symbolic link, not a file (", "ja")
    assert said == "x.py を読み飛ばしました: it is a symbolic link, not a file ("
    assert messages.translate("ignored a(b in the zip", "ja") == "zip の中の a(b は使いませんでした"


def test_a_rubric_error_says_its_problem_and_its_fix_each_in_japanese() -> None:
    from grader.errors import RubricError

    exc = RubricError("rubrics/r.yaml", "parts[1].file", "'softmx.py' is in neither ex nor sol",
                      "did you mean 'softmax.py'? write file: softmax.py")
    assert str(exc) == ("rubrics/r.yaml: parts[1].file: 'softmx.py' is in neither ex nor sol; did you mean "
                        "'softmax.py'? write file: softmax.py")
    assert messages.error_text(exc, "ja") == (
        "rubrics/r.yaml: parts[1].file: 'softmx.py' は ex にも sol にもありません。'softmax.py' のことですか。"
        "file: softmax.py と書いてください")
    assert messages.error_text(exc, "en") == str(exc)
    # a problem with no Japanese: the message as a whole, as before
    plain = RubricError("r.yaml", "", "unknown key 'pasrts'", "did you mean 'parts'?")
    assert messages.error_text(plain, "ja") == messages.translate(str(plain), "ja")


def test_the_batch_warnings_read_in_japanese() -> None:
    """Lines the batch prints that a test run cannot easily bring about."""
    for text in ("warning: the similarity stage failed (MemoryError: out of memory); run it again with: grader "
                 "similarity out",
                 "warning: cannot render the report (ValueError: x); html reports skipped",
                 "interrupted: 3 of 9 graded and kept in out; finish with: grader batch src --out out --resume"):
        said = messages.translate(text, "ja")
        assert said != text and not _ENGLISH.search(_COMMAND.sub("", said).replace("MemoryError: out of memory", "")
                                                    .replace("cannot render the report (ValueError: x)", "")), said


def _keys_said(source: str) -> list[tuple[int, object]]:
    """(line, first argument) of every ``say`` / ``said`` / ``reason`` / ``in_both`` call whose key is a
    literal (``in_both`` is a check's feedback in both languages)."""
    found: list[tuple[int, object]] = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and node.args
                and (node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", ""))
                in ("say", "said", "reason", "in_both")):
            first = node.args[0]
            options = [first.body, first.orelse] if isinstance(first, ast.IfExp) else [first]
            found += [(node.lineno, o.value) for o in options if isinstance(o, ast.Constant)]
    return found


def test_every_key_said_is_a_key() -> None:
    """``say("key", lang, ...)`` and ``said("key", ...)`` name a key of MESSAGES."""
    said = [(path.name, line, key) for path in sorted(_GRADER.rglob("*.py"))
            for line, key in _keys_said(path.read_text(encoding="utf-8"))]
    assert len(said) >= 200
    assert [s for s in said if s[2] not in messages.MESSAGES] == []


#: Files that run in the sandbox, where the grader package cannot be imported: the English they
#: send back is still a sentence of the table, read back to its key.
_SANDBOXED = ("sandbox/zygote.py", "sandbox/wire.py")


def _norm(text: str) -> str:
    return " ".join(re.sub(r"\{[^{}]*\}", "{}", text).split())


def _spelled_out(source: str) -> list[str]:
    """Sentences of MESSAGES that ``source`` spells out (a literal or an f-string with the same fixed
    words) where it should say their key; docstrings are not sentences said."""
    english = {_norm(m.en): key for key, m in messages.MESSAGES.items() if len(_norm(m.en).split()) >= 2}
    tree = ast.parse(source)
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and n.body and isinstance(n.body[0], ast.Expr)}
    found = []
    for node in ast.walk(tree):
        text = None if id(node) in docs else _template(node)
        if text is not None and _norm(text) in english:
            found.append(f"{node.lineno}: {english[_norm(text)]}")
    return found


def test_every_sentence_is_said_by_its_key() -> None:
    """No module spells out a sentence MESSAGES keeps: it says the key (one home per sentence)."""
    left = {}
    for path in sorted(_GRADER.rglob("*.py")):
        rel = path.relative_to(_GRADER).as_posix()
        if (not rel.startswith("i18n/") and rel not in _SANDBOXED
                and (found := _spelled_out(path.read_text(encoding="utf-8")))):
            left[rel] = found
    assert left == {}


def test_a_sentence_spelled_out_is_caught() -> None:
    assert _spelled_out('notes.append(f"skipped {name}: {why}")\n') == ["1: skipped"]
    assert _spelled_out('notes.append(said("skipped", name=name, problem=why))\n') == []


def _keys_named(source: str) -> set[str]:
    """Every key ``source`` names: the literal first argument of a ``say``/``said``/``reason``
    call, or the literal key of a ``(key, {slots})`` flag (as grader/ingest/discovery.py passes on)."""
    named = {key for _, key in _keys_said(source) if isinstance(key, str)}
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Tuple) and len(node.elts) == 2 and isinstance(node.elts[0], ast.Constant)
                and isinstance(node.elts[0].value, str) and isinstance(node.elts[1], ast.Dict)):
            named.add(node.elts[0].value)
    return named


def _never_said(keys: set[str], sources: dict[str, str]) -> list[str]:
    """The ``keys`` no module of ``sources`` (path -> text) names, but for the sentences only the
    sandboxed files write: they run where ``grader`` cannot be imported and spell them out."""
    named: set[str] = set()
    sandboxed: set[str] = set()
    for rel, source in sources.items():
        if rel in _SANDBOXED:
            sandboxed |= {found.split(": ", 1)[1] for found in _spelled_out(source)}
        elif not rel.startswith("i18n/"):
            named |= _keys_named(source)
    return sorted(keys - named - sandboxed)


@lru_cache(maxsize=1)
def _sources() -> dict[str, str]:
    """Every module of grader/: its path under grader/ -> its text."""
    return {path.relative_to(_GRADER).as_posix(): path.read_text(encoding="utf-8")
            for path in sorted(_GRADER.rglob("*.py"))}


def test_every_key_is_said_somewhere() -> None:
    """Each key of MESSAGES is said by some module (a sentence nothing says is dead, or its origin
    still builds it in pieces); what other programs write is FOREIGN, read back only."""
    assert _never_said(set(messages.MESSAGES), _sources()) == []
    assert not set(messages.MESSAGES) & set(messages.FOREIGN)
    assert messages.translate("No such file or directory", "ja") == "そのようなファイルやフォルダはありません"


def test_a_key_never_said_is_caught() -> None:
    """The check above can fail: a key built in pieces is not said, a flag or an IfExp is, and a
    sentence only the sandbox spells out is allowed."""
    sources = {
        "a.py": 'text = "skipped " + name\nflags = [("empty", {})]\n',
        "b.py": 'note = said("over_limit" if big else "zip", limit=n)\n',
        "sandbox/wire.py": 'raise ValueError(f"{name} is not JSON")\n',
    }
    keys = {"skipped", "empty", "over_limit", "zip", "json"}
    assert _never_said(keys, sources) == ["skipped"]
    assert _never_said(keys, {**sources, "sandbox/wire.py": ""}) == ["json", "skipped"]


def test_the_sandboxed_files_send_sentences_of_the_table() -> None:
    """What the zygote and the wire send back in English reads in Japanese."""
    for rel in _SANDBOXED:
        raised = _left_in_english((_GRADER / rel).read_text(encoding="utf-8"))
        assert raised == [], rel


# --- each label said somewhere -------------------------------------------------------------------


#: What says a label by key: grader.i18n.messages' ``label``, ``pair``, ``both``, ``by_lang`` and
#: ``by_name``, and the writers' own ``label``/``_label`` over their views of LABELS.
_LABEL_CALLS = {"label", "_label", "pair", "both", "by_lang", "by_name"}


def _labels_named(source: str, keys: set[str]) -> set[str]:
    """The ``keys`` that ``source`` names as labels: a literal that reaches the first argument of a
    label call, directly or through ``a if c else b``, a dict's values, a tuple's items, a call's
    arguments or a name bound to any of these (an assignment, a ``for``); and each key that an
    f-string's fixed start begins (``f"gbflag_{flag}"`` names every ``gbflag_`` key)."""
    tree = ast.parse(source)
    bound: dict[str, list[ast.expr]] = defaultdict(list)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, (ast.For, ast.comprehension)):
            targets, value = [node.target], node.iter
        else:
            continue
        for target in targets:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    bound[name.id].append(value)
    words: set[str] = set()
    starts: set[str] = set()

    def reach(expr: ast.expr, depth: int = 0) -> None:
        if depth > 3:
            return
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            words.add(expr.value)
        elif isinstance(expr, ast.JoinedStr) and expr.values and isinstance(expr.values[0], ast.Constant):
            starts.add(str(expr.values[0].value))
        elif isinstance(expr, ast.Name):
            for value in bound.get(expr.id, []):
                reach(value, depth + 1)
        elif isinstance(expr, ast.IfExp):
            reach(expr.body, depth)
            reach(expr.orelse, depth)
        elif isinstance(expr, ast.Dict):
            for value in expr.values:
                reach(value, depth)
        elif isinstance(expr, (ast.Tuple, ast.List, ast.Set)):
            for item in expr.elts:
                reach(item, depth)
        elif isinstance(expr, ast.Call):  # _KIND_NAMES.get(kind, "kind_any")
            reach(expr.func, depth)
            for arg in expr.args:
                reach(arg, depth)
        elif isinstance(expr, (ast.Attribute, ast.Subscript)):
            reach(expr.value, depth)

    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            if (func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")) in _LABEL_CALLS:
                reach(node.args[0])
    return {key for key in keys if key in words or any(start and key.startswith(start) for start in starts)}


def _label_sayers(sources: dict[str, str]) -> dict[str, set[str]]:
    """Each key of LABELS -> the modules of ``sources`` (path -> text) that name it."""
    sayers: dict[str, set[str]] = defaultdict(set)
    for rel, source in sources.items():
        if not rel.startswith("i18n/"):
            for key in _labels_named(source, set(messages.LABELS)):
                sayers[key].add(rel)
    return sayers


def test_every_label_is_said_somewhere() -> None:
    """Each key of LABELS is said by some module (through a writer's view of LABELS counts)."""
    assert sorted(set(messages.LABELS) - set(_label_sayers(_sources()))) == []


def test_a_label_never_said_is_caught() -> None:
    """The check above can fail: a label is said through a view, a name bound to a dict, a fallback
    and an f-string's start; a key that is only a dict's key, or compared, is not said."""
    keys = {"score", "kind_f", "kind_any", "gbflag_empty", "part", "status", "seed"}
    source = ('WORDS = by_name({"part": "score"})\n'
              'KINDS = {"f": "kind_f"}\n'
              'kind = KINDS.get(k, "kind_any")\n'
              'text = label(kind, "en") + label(f"gbflag_{flag}", "ja")\n'
              'if status == "status": pair("seed" if x == "seed" else "score")\n')
    assert sorted(keys - _labels_named(source, keys)) == ["part", "status"]


# --- each sentence in the table of the area that says it --------------------------------------------


@lru_cache(maxsize=1)
def _layers() -> list[tuple[str, ...]]:
    """The layers of grader/, bottom first, as the layer test lists them (one list for the order)."""
    spec = importlib.util.spec_from_file_location("layer_rules", _GRADER.parent / "tests" / "fitness" / "test_layers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up while it is made
    spec.loader.exec_module(module)
    layers: list[tuple[str, ...]] = module.LAYERS
    return layers


def _areas() -> list[str]:
    """The areas of the code by their dotted names, bottom first (peers in the order listed)."""
    return [name for layer in _layers() for name in layer]


def _area_of(rel: str) -> str:
    """The area (a subpackage, or a top-level module) whose code ``rel`` (a path under grader/) is."""
    dotted = "grader." + rel.removesuffix(".py").replace("/", ".")
    dotted = dotted.removesuffix(".__init__")
    return max((area for area in _areas() if dotted == area or dotted.startswith(area + ".")), key=len)


def _table_of(area: str) -> str:
    """The name of the table module that keeps what ``area`` (dotted) says: grader.ingest -> ingest."""
    return area.rpartition(".")[2]


def _misplaced(tables: dict[str, dict[str, M]], sayers: dict[str, set[str]]) -> list[str]:
    """``table.key: areas`` of each key of ``tables`` (a table module's name -> its table) that is
    not in the table of the lowest area whose code says it (``sayers``: key -> paths under grader/)."""
    areas = _areas()
    out = []
    for name, table in tables.items():
        for key in table:
            saying = sorted({_area_of(rel) for rel in sayers.get(key, ())}, key=areas.index)
            if not saying or _table_of(saying[0]) != name:
                out.append(f"{name}.{key}: {', '.join(_table_of(area) for area in saying) or 'said nowhere'}")
    return out


def _sentence_sayers(sources: dict[str, str]) -> dict[str, set[str]]:
    """Each key of MESSAGES -> the modules of ``sources`` (path -> text) that say it (the sandboxed
    files spell their sentences out)."""
    sayers: dict[str, set[str]] = defaultdict(set)
    for rel, source in sources.items():
        if rel in _SANDBOXED:
            named = {found.split(": ", 1)[1] for found in _spelled_out(source)}
        elif not rel.startswith("i18n/"):
            named = _keys_named(source)
        else:
            continue
        for key in named:
            sayers[key].add(rel)
    return sayers


def test_each_table_holds_only_what_its_area_says() -> None:
    """grader/i18n/<area>.py holds the keys code of grader/<area>/ says (or grader/<area>.py, for a
    module at the top); a key that code of two areas says is in the lower one's table (the order
    of tests/fitness/test_layers.py, peers as listed there)."""
    sources = _sources()
    assert _misplaced(_tables("MESSAGES"), _sentence_sayers(sources)) == []
    assert _misplaced(_tables("LABELS"), _label_sayers(sources)) == []


def test_a_key_in_another_area_s_table_is_caught() -> None:
    """The check above can fail: a key said only by grader/cli/ kept in the sandbox's table, and a
    key said by grader/workflows/ and grader/cli/ kept in the higher one's."""
    sayers = {"usage_missing": {"cli/__init__.py"}, "give_one_points_set": {"workflows/adjust.py", "cli/__init__.py"},
              "line": {"sandbox/worker.py"}, "lang_use_one": {"notebook.py"}}
    planted = {"sandbox": {"usage_missing": M("a", "あ"), "line": M("b", "い")},
               "cli": {"give_one_points_set": M("c", "う"), "said_nowhere": M("d", "え")},
               "notebook": {"lang_use_one": M("e", "お")}}
    assert _misplaced(planted, sayers) == ["sandbox.usage_missing: cli", "cli.give_one_points_set: workflows, cli",
                                           "cli.said_nowhere: said nowhere"]
