"""grader.report.fastyaml: every report and every awkward value reads back as itself."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.report.outdir import read_report, report_yaml
import grader.safeyaml as safeyaml
from grader.report import fastyaml
from grader.report.model import GradeReport
from grader.report.yaml_json import render_yaml


LOADER = safeyaml.LOADER
LOADERS = sorted({LOADER, yaml.SafeLoader}, key=lambda c: c.__name__)
SURROGATE = re.compile("[\ud800-\udfff]")


def same(a: Any, b: Any) -> bool:
    """Equal, of the same types, in the same key order; nan equals nan, -0.0 differs from 0.0."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def round_trips(data: Any, loader: type = LOADER) -> str:
    text = fastyaml.dump(data)
    text.encode("utf-8")  # writable as UTF-8 (no lone surrogate left raw)
    back = yaml.load(text, Loader=loader)  # noqa: S506 - safe loaders only
    assert same(back, data), f"{data!r} was written as\n{text}\nand read back as {back!r}"
    return text


def placements(x: Any) -> list[Any]:
    """``x`` as a document, a value, an item, in nested and compact positions and as a key."""
    out = [x, {"k": x}, [x], {"k": [x]}, [{"k": x}], [[x]], {"k": {"j": x}}, {"a": 1, "k": x, "z": [x, x]},
           [{"a": [x], "b": {"c": x}}]]
    if not isinstance(x, (float, dict, list)):  # nan is no usable key
        out += [{x: 1}, {x: x}, [{x: [x]}], {"k": {x: {x: None}}}]
    return out


# --------------------------------------------------------------------------- real reports

SEED = 1234


@pytest.fixture(scope="module")
def example_reports(root, rubric) -> dict[str, GradeReport]:
    """Every bundled example submission, graded once."""
    from grader.grading.runner import grade
    from grader.ingest.submission.load import load_submission

    paths = sorted(p for p in (root / "examples" / "submissions").iterdir() if not p.name.startswith("."))
    subs = [load_submission(p) for p in paths]
    return {s.name: r for s, r in zip(subs, grade(rubric, subs, seed=SEED))}


@pytest.mark.slow
def test_every_example_report_round_trips_through_both_writers(example_reports, tmp_path):
    assert len(example_reports) >= 5
    for name, report in example_reports.items():
        data = report.to_dict()
        for loader in LOADERS:
            text = round_trips(data, loader)
        assert text.count("\n") > 1000, name  # a real report, ~1,300 lines
        assert report_yaml(data) == report_yaml(report) == render_yaml(report) == text
        path = tmp_path / f"{name}.yaml"
        path.write_text(report_yaml(data), encoding="utf-8")
        again = read_report(path)
        assert again is not None and again.to_dict() == data


class _OldStyle(yaml.SafeDumper):
    """The writer the reports had before fastyaml, without its line width."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


_OldStyle.add_representer(
    str, lambda d, v: d.represent_scalar("tag:yaml.org,2002:str", v, style="|" if "\n" in v else None))


@pytest.mark.slow
def test_example_reports_look_as_pyyaml_wrote_them_minus_line_folding(example_reports):
    """Same quoting, indentation and literal blocks; long strings are simply not folded at 100 columns."""
    literal = 0
    for name, report in example_reports.items():
        data = report.to_dict()
        text = fastyaml.dump(data)
        assert text == yaml.dump(data, Dumper=_OldStyle, allow_unicode=True, sort_keys=False, width=math.inf), name
        assert "\\u" not in text and ("ヘッド" in text or "未実装" in text)
        literal += len(re.findall(r"[:-] \|[-+]?\n", text))
    assert literal >= 1  # at least one multi-line string shown as a literal block


# --------------------------------------------------------------------------- awkward values

ADVERSARIAL_STRINGS = [
    # read as other types by YAML 1.1 or 1.2
    "yes", "No", "YES", "on", "Off", "y", "N", "true", "False", "~", "null", "Null", "NULL", "1e3", "1E3",
    "0x1F", "0o17", "0b101", "012", "08", "1_000", "0", "-0", "+1", "-1", ".5", "1.", "1.0", "-1.5e+3",
    "1e-05", ".inf", "-.inf", "+.INF", ".nan", ".NaN", "2026-11-29", "2001-12-14t21:59:43.10-05:00",
    "2001-12-14 21:59:43.10 -5", "12:30:00", "190:20:30.15", "-12:30", "=", "<<",
    # indicators and structure
    " lead", "trail ", " ", "  ", "-", "--", "- x", "-x", "--- x", "---", "...", "... x", "?", "? x", "?x",
    ":", ":x", "a:", "a: b", "a:b", "a #b", "a#b", "#", "# c", "&a", "*a", "!a", "!!str", "|", "|-", "|x",
    ">", "> x", "'", "'a'", "it's", '"', '"a"', "%", "%YAML 1.1", "@", "`", "{", "}", "[", "]", ",",
    "{a: 1}", "[1, 2]", "a, b", "a,b", "\\", "\\n", "a\\u00e9",
    "a[b]", "a{b}", "a]", "a}", "a!b", "a&b", "a*b", "a|b", "a>b", "a%b", "a@b", "a`b", "a'b", 'a"b', "a-b",
    "a?b", "a? b", "a- b", "a -b", "a ,b", "a, ", "a ]", "a:\\b", "http://x.org/a#b", "C:\\dir",
    # whitespace and control characters
    "\t", "a\tb", "\ta", "a\t", "\r", "a\rb", "a\r\nb", "\x00", "a\x00b", "\x01\x07\x08\x0b\x0c\x1b\x1f",
    "\x7f", "\x80", "\x85", "a\x85b", "\x9f", "\xa0", "\xa0a\xa0", "a  b", "\u2028", "a\u2028b", "\u2029",
    "\ufeff", "\ufeffa", "a\ufeff", "\ufffe", "\uffff", "\u3000a\u3000",
    # text
    "", "x" * 5000, "word " * 1000, "日本語", "ヘッド次元と √d_k によるスケーリング", "😀", "é", "ß",
    # multi-line
    "a\nb", "a\nb\n", "a\nb\n\n", "a\n\nb", "\n", "\n\n", "\na", "a\n", " a\nb", "a \nb", "a\nb ",
    "a\n b\n  c\n", "a\n\tb", "a\n#b\n- c\n? d\n: e\n", "a\n---\nb", "a\n...\nb", "---\na", "x: 1\ny: [2]",
    "1\n2", "yes\nno", "日本語\nです\n", "a\n\u2028b", "a\n\x85b", "a\n\x00b", "a\n\ufeffb", "a\r\nb\r\n",
    "Traceback (most recent call last):\n  File \"softmax.py\", line 3\n    return x / 0\nZeroDivisionError\n",
]
FLOATS = [math.nan, math.inf, -math.inf, -0.0, 0.0, 1e-05, 1e16, 1.5e300, 5e-324, 123456789.0, 0.1, -2.5, 1e22]
OTHERS = [0, -1, 1, 10**30, -(10**30), 2**64, True, False, None, {}, [], [[]], [{}], {"k": {}}, {"k": []},
          [[], {}, [[{}]]], {"": ""}, {"a": {"b": {"c": {}}}}]


@pytest.mark.parametrize("x", ADVERSARIAL_STRINGS + FLOATS + OTHERS, ids=repr)
def test_adversarial_values_round_trip_everywhere(x):
    for data in placements(x):
        for loader in LOADERS:
            round_trips(data, loader)


@pytest.mark.parametrize("s", ["yes", "No", "on", "~", "null", "1e3", "0x1F", "012", "1_000", ".inf", "2026-11-29",
                               "12:30:00", "=", "<<", "y", "0o17", "123", "1.5"])
def test_strings_that_look_like_other_types_are_quoted(s):
    assert fastyaml.dump({"k": s}) in (f"k: '{s}'\n", f'k: "{s}"\n')
    assert fastyaml.dump({s: 1}) in (f"'{s}': 1\n", f'"{s}": 1\n')


def test_layout_matches_pyyaml_block_style():
    data = {
        "name": "alice", "ja": "日本語の説明", "score": 4.0, "max": 119, "ok": True, "none": None,
        "tiny": 1e-05, "huge": 1e16, "bad": [math.inf, -math.inf], "empty_map": {}, "empty_list": [],
        "tests": [{"id": "public/test_scaling.py::test_head_dim[768-12]", "status": "passed",
                   "title": {"en": "a: b", "ja": "it's", "x": "'q'"}}, [1, [2]], [], {}],
        "note": "line one\nline two\n", "trim": "no newline\nat the end", "keep": "two\n\n",
        "tab": "a\tb\nc", "nested": {"deep": {"list": ["x", {"y": None}]}},
    }
    assert fastyaml.dump(data) == """\
name: alice
ja: 日本語の説明
score: 4.0
max: 119
ok: true
none: null
tiny: 1.0e-05
huge: 1.0e+16
bad:
- .inf
- -.inf
empty_map: {}
empty_list: []
tests:
- id: public/test_scaling.py::test_head_dim[768-12]
  status: passed
  title:
    en: 'a: b'
    ja: it's
    x: '''q'''
- - 1
  - - 2
- []
- {}
note: |
  line one
  line two
trim: |-
  no newline
  at the end
keep: |+
  two

tab: "a\\tb\\nc"
nested:
  deep:
    list:
    - x
    - 'y': null
"""
    round_trips(data)


def test_scalars_at_the_top_level():
    assert fastyaml.dump("plain") == "plain\n"
    assert fastyaml.dump("a\nb") == "|-\n  a\n  b\n"
    assert fastyaml.dump({}) == "{}\n"
    assert fastyaml.dump([]) == "[]\n"
    assert fastyaml.dump(None) == "null\n"
    assert fastyaml.dump(float("nan")) == ".nan\n"


def test_escapes_are_yaml_escapes_not_raw_line_breaks():
    """JSON leaves U+0085, U+2028, U+2029, C1 controls and the BOM raw; YAML would read them differently."""
    for ch in "\x85\u2028\u2029\x7f\x9f\ufeff\ufffe\uffff":
        text = fastyaml.dump({"k": f"a{ch}b"})
        assert ch not in text
        assert text == f'k: "a\\u{ord(ch):04x}b"\n'
    assert fastyaml.dump({"k": "a\x00\t\r\nb"}) == 'k: "a\\u0000\\t\\r\\nb"\n'


def test_long_keys_use_explicit_key_syntax():
    """PyYAML reads implicit keys of at most 1024 characters; longer ones are written ``? key``."""
    key = "k" * 1500
    data = {key: [1, {"a": "b"}], "short": {key: "x\ny"}, "e": {key: {}}}
    text = round_trips(data)
    assert text.startswith(f"? {key}\n: - 1\n")
    for loader in LOADERS:
        round_trips(data, loader)
        for k in ("日" * 1000, "😀" * 1000, "a" * 1000, "'" * 499, "\x00" * 200, "a" * 1001, "日" * 1100):
            round_trips({k: {k: [k]}}, loader)


def test_lone_surrogates_are_escaped_and_only_the_python_loader_reads_them():
    """Data from JSON can hold a lone surrogate ("\\ud800"). It is written as a YAML escape, so the
    text stays valid UTF-8; PyYAML's SafeLoader reads it back, libyaml refuses the escape."""
    data = {"actual": "x\ud800y", "k\udfff": ["\udc00"], "m": "a\ud83d\nb"}
    text = round_trips(data, yaml.SafeLoader)
    assert SURROGATE.search(text) is None
    assert '"x\\ud800y"' in text and '"a\\ud83d\\nb"' in text
    if LOADER is not yaml.SafeLoader:
        with pytest.raises(yaml.YAMLError):
            yaml.load(text, Loader=LOADER)  # noqa: S506


def test_objects_that_are_not_plain_data_are_refused():
    for bad in (object(), (1, 2), {1, 2}, b"bytes", {(1, 2): 3}):
        with pytest.raises(TypeError):
            fastyaml.dump({"k": bad})


def test_enum_and_other_subclasses_are_written_as_their_base_value():
    from grader.report.model import Status

    assert yaml.load(fastyaml.dump({"s": Status.PASSED, "d": {"x": 1}}), Loader=LOADER) == {"s": "passed", "d": {"x": 1}}


def test_every_pyyaml_resolver_start_is_covered():
    """fastyaml checks the resolvers' patterns only for strings starting with one of these characters;
    the other starts PyYAML keys resolvers by ('!', '&', '*') can never begin a plain scalar here."""
    starts = {c for c in yaml.resolver.Resolver.yaml_implicit_resolvers if c}
    assert starts - fastyaml._RESOLVED_FIRST <= set("!&*")
    for c in "!&*":
        assert fastyaml.dump(c) != f"{c}\n"


# --------------------------------------------------------------------------- properties

# Characters that matter to YAML, weighted so that short strings hit them often.
_YAML_CHARS = list("-?:,[]{}#&*!|>'\"%@` \t\n\r._0123456789eExXoObB+~yYnNtTfFlL<=\\/")
_YAML_CHARS += ["\x00", "\x07", "\x1b", "\x7f", "\x85", "\x9f", "\xa0", "\u2028", "\u2029", "\ufeff",
                "\ufffe", "\uffff", "\u3000", "日", "本", "😀"]
texts = st.one_of(
    st.text(),
    st.text(alphabet=st.sampled_from(_YAML_CHARS), max_size=12),
    st.sampled_from(ADVERSARIAL_STRINGS),
    st.builds(lambda a, b, c: f"{a}{b}{c}", st.sampled_from(ADVERSARIAL_STRINGS), st.text(max_size=3),
              st.sampled_from(ADVERSARIAL_STRINGS)),
)
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), texts)
keys = st.one_of(texts, st.integers(), st.booleans(), st.none())


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.lists(children, max_size=5), st.dictionaries(keys, children, max_size=5))


plain_data = st.recursive(scalars, _containers, max_leaves=30)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plain_data)
def test_property_any_plain_data_round_trips(data):
    round_trips(data, LOADER)


@settings(max_examples=150, deadline=None)
@given(plain_data)
def test_property_the_python_loader_agrees(data):
    round_trips(data, yaml.SafeLoader)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=()), max_size=20))
def test_property_any_code_point_round_trips_with_the_python_loader(s):
    """Lone surrogates included (escaped); the libyaml loader too when there is none."""
    round_trips({"k": s, s: [s]}, yaml.SafeLoader)
    if not SURROGATE.search(s):
        round_trips({"k": s, s: [s]}, LOADER)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("0123456789-+.:_eExXoObB ~tTZ:yYnN<=")), min_size=1, max_size=12))
def test_property_a_plain_string_is_one_the_resolver_reads_as_str(s):
    text = fastyaml.dump(s)
    resolved = yaml.resolver.Resolver().resolve(yaml.ScalarNode, s, (True, False))
    if text == f"{s}\n":
        assert resolved == "tag:yaml.org,2002:str"
    assert yaml.load(text, Loader=LOADER) == s  # noqa: S506


def test_reports_written_by_batch_are_read_back(tmp_path: Path):
    report = GradeReport(assignment="chapter07", submission="yes", score=1.0, max_score=2.0, tests=[], parts=[],
                         mistakes=[], sandbox={}, errors=["line one\nline two", "0x1F"], seed=1,
                         graded_at="2026-11-29T00:00:00+00:00", output="printed: yes\n")
    path = tmp_path / "r.yaml"
    path.write_text(report_yaml(report), encoding="utf-8")
    again = read_report(path)
    assert again is not None and again.to_dict() == report.to_dict()
