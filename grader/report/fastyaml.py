"""A small YAML emitter for the report's plain data (dict, list, str, int, float, bool, None).

``dump(data)`` writes block-style YAML the way the reports have always looked with PyYAML
(``sort_keys=False``, ``allow_unicode=True``, multi-line strings as literal blocks): mapping keys
in insertion order, ``- `` items at their parent key's indentation, ``{}`` / ``[]`` for empty
containers, Japanese text as is; the text PyYAML writes with no line width, long strings being
left on one line rather than folded at 100 columns. It skips PyYAML's representer and serializer,
which run in Python even with libyaml's emitter and cost several milliseconds for a report of
~2,800 nodes (``bench/yaml_speed.py``).

Every scalar is written in a style that reads back as the same value under YAML 1.1 (PyYAML's
``SafeLoader`` and libyaml's ``CSafeLoader``):

* a string is plain only when it is made of ordinary printable characters, does not start with
  an indicator, has no ``": "``, ``" #"``, leading or trailing space, and would not be read as
  another type: PyYAML's implicit resolvers (copied below), YAML 1.2 core-schema numbers,
  ``y``/``n``. Otherwise it is single-quoted when it has no character that needs an escape
  (control characters, tab and line breaks included), else double-quoted: JSON's escapes plus
  ``\\uXXXX`` for the characters JSON leaves raw but YAML reads differently (C1 controls and
  U+0085, U+2028, U+2029, BOM, U+FFFE/U+FFFF, lone surrogates);
* a string with line breaks is a literal block (``|``, ``|-`` or ``|+``) when its text allows it
  (no tab or other special character, no trailing space on a line, first line neither empty nor
  indented); otherwise it is double-quoted too;
* floats as PyYAML writes them (``.inf``, ``-.inf``, ``.nan``; ``1.0e-05`` rather than ``1e-05``,
  which YAML 1.1 would read as a string).

Known limit: a lone surrogate (possible in data that came through JSON as ``"\\ud800"``) is
written as the escape ``"\\ud800"``. PyYAML's pure-Python ``SafeLoader`` reads it back;
libyaml's loader refuses surrogate escapes, as it refuses such characters anywhere.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

__all__ = ["dump"]

# Characters never written raw: C0 and C1 controls (U+0085 included), DEL, YAML 1.1's extra line
# breaks, the BOM, non-characters U+FFFE/U+FFFF and surrogates.
_BAD = "\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\ud800-\\udfff\\ufeff\\ufffe\\uffff"
# Plain scalar: no indicator first, no space or ':' last, no document-end marker first. ": " and
# " #" are checked separately.
_PLAIN = re.compile(f"(?!\\.\\.\\.)[^{_BAD} \\-?:,\\[\\]{{}}#&*!|>'\"%@`](?:[^{_BAD}]*[^{_BAD} :])?")
# Literal block: none of those characters (tab included) but the line feed.
_LITERAL_BAD = re.compile("[" + _BAD.replace("\\x00-\\x1f", "\\x00-\\x09\\x0b-\\x1f") + "]")
# Single-quoted: none of those characters (line feed and tab included); no escapes, '' for '.
_SINGLE_BAD = re.compile(f"[{_BAD}]")
# Characters json.dumps(ensure_ascii=False) leaves raw that must be escaped in YAML.
_JSON_RAW = re.compile("[\\x7f-\\x9f\\u2028\\u2029\\ud800-\\udfff\\ufeff\\ufffe\\uffff]")

# Strings that read back as something else. First PyYAML's implicit resolvers (yaml/resolver.py,
# YAML 1.1: bool, float, int, merge, null, timestamp, value), verbatim; then, for other readers,
# YAML 1.1's y/n booleans and YAML 1.2 core-schema numbers.
_NOT_STR = re.compile(r"""(?:
    yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF
  | [-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
  | \.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
  | [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
  | [-+]?\.(?:inf|Inf|INF)
  | \.(?:nan|NaN|NAN)
  | [-+]?0b[0-1_]+
  | [-+]?0[0-7_]+
  | [-+]?(?:0|[1-9][0-9_]*)
  | [-+]?0x[0-9a-fA-F_]+
  | [-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+
  | <<
  | ~ | null|Null|NULL
  | [0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
  | [0-9][0-9][0-9][0-9] -[0-9][0-9]? -[0-9][0-9]?
     (?:[Tt]|[ \t]+)[0-9][0-9]?
     :[0-9][0-9] :[0-9][0-9] (?:\.[0-9]*)?
     (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?
  | =
  | y|Y|n|N
  | [-+]?[0-9]+ | 0o[0-7]+ | 0x[0-9a-fA-F]+
  | [-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?
)""", re.X)
# First characters of every string _NOT_STR can match (PyYAML keys its resolvers the same way).
_RESOLVED_FIRST = frozenset("yYnNtTfFoO-+0123456789.<~=")
# PyYAML reads a simple (implicit) key of at most 1024 characters; longer ones are written "? key".
_MAX_KEY = 1000
# Keys and short strings recur from report to report (part ids, titles, statuses): their scalar
# form is remembered, up to a bound.
_SEEN: dict[str, str] = {}
_SEEN_MAX = 10000


def _quoted(s: str) -> str:
    q = json.dumps(s, ensure_ascii=False)
    if _JSON_RAW.search(q):
        q = _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", q)
    return q


def _str(s: str) -> str:
    """A string as a one-line scalar: plain when that reads back as the same string."""
    text = _SEEN.get(s)
    if text is None:
        if (_PLAIN.fullmatch(s) and ": " not in s and " #" not in s
                and not (s[0] in _RESOLVED_FIRST and _NOT_STR.fullmatch(s))):
            text = s
        elif not _SINGLE_BAD.search(s):
            text = "'" + s.replace("'", "''") + "'"
        else:
            text = _quoted(s)
        if len(_SEEN) < _SEEN_MAX and len(s) <= 120:
            _SEEN[s] = text
    return text


def _float(x: float) -> str:
    if x != x:
        return ".nan"
    if x in (math.inf, -math.inf):
        return ".inf" if x > 0 else "-.inf"
    r = repr(x).lower()
    if "." not in r and "e" in r:  # 1e-05 is a string to YAML 1.1; 1.0e-05 a float
        r = r.replace("e", ".0e", 1)
    return r


def _scalar(v: Any) -> str:
    """Any non-container as a one-line scalar."""
    t = type(v)
    if t is str:
        return _str(v)
    if v is None:
        return "null"
    if t is bool:
        return "true" if v else "false"
    if t is int:
        return str(v)
    if t is float:
        return _float(v)
    # Subclasses: str/int enums and the like, written as their base value.
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return _str(str.__str__(v))
    if isinstance(v, int):
        return int.__repr__(v)
    if isinstance(v, float):
        return _float(float(v))
    raise TypeError(f"cannot write {type(v).__name__} as YAML: {v!r}")


def _literal(s: str) -> str | None:
    """The header (``|``, ``|-``, ``|+``) of a multi-line string's literal block, or None."""
    if (s[0] in " \n" or " \n" in s or s[-1] == " " or _LITERAL_BAD.search(s)):
        return None
    if s[-1] != "\n":
        return "|-"
    return "|+" if s.endswith("\n\n") else "|"


def _lines(s: str, ind: str, out: list[str]) -> None:
    lines = s.split("\n")
    if s[-1] == "\n":
        lines.pop()
    out.append("".join(f"{ind}{line}\n" if line else "\n" for line in lines))


def _map(d: dict[Any, Any], lead: str, ind: str, out: list[str]) -> None:
    """A non-empty mapping; ``lead`` starts its first line, ``ind`` the others."""
    child = ind + "  "
    for k, v in d.items():
        key = _str(k) if type(k) is str else _scalar(k)
        if len(key) > _MAX_KEY:
            out.append(f"{lead}? {key}\n")
            _value(v, f"{ind}: ", child, out)
        else:  # a nested mapping indents under its key; a sequence's "- " stays at the key's column
            _value(v, f"{lead}{key}: ", child, out, dict_at=child, list_at=ind)
        lead = ind


def _seq(items: list[Any], lead: str, ind: str, out: list[str]) -> None:
    """A non-empty sequence; ``lead`` starts its first line, ``ind`` the others."""
    child = ind + "  "
    for v in items:
        _value(v, lead + "- ", child, out)
        lead = ind


def _value(v: Any, prefix: str, ind: str, out: list[str],
           dict_at: str | None = None, list_at: str | None = None) -> None:
    """A node after ``prefix`` (``key: ``, ``- `` or ``: ``); ``ind`` indents what follows.

    A non-empty container starts on the prefix's own line (compact, as after ``- ``) unless
    ``dict_at`` / ``list_at`` say where its lines begin instead (after ``key:``).
    """
    t = type(v)
    if t is str:
        if "\n" in v and (header := _literal(v)):
            out.append(f"{prefix}{header}\n")
            _lines(v, ind, out)
        else:
            out.append(f"{prefix}{_str(v)}\n")
    elif t is dict or t is list or isinstance(v, (dict, list)):
        is_dict = isinstance(v, dict)
        if not v:
            out.append(f"{prefix}{{}}\n" if is_dict else f"{prefix}[]\n")
        elif dict_at is None or list_at is None:
            (_map if is_dict else _seq)(v, prefix, ind, out)
        else:
            out.append(f"{prefix[:-1]}\n")
            if is_dict:
                _map(v, dict_at, dict_at, out)
            else:
                _seq(v, list_at, list_at, out)
    else:
        out.append(f"{prefix}{_scalar(v)}\n")


def dump(data: Any) -> str:
    """``data`` as a YAML document (block style, keys in insertion order, UTF-8 text as is).

    Takes dicts (keys: str, int, float, bool or None), lists, str, int, float, bool and None,
    subclasses included (written as their base value); raises TypeError for anything else,
    tuples included. Shared or repeated objects are written out in full each time: no anchors.
    """
    out: list[str] = []
    if isinstance(data, (dict, list)) and data:
        if isinstance(data, dict):
            _map(data, "", "", out)
        else:
            _seq(data, "", "", out)
    else:
        _value(data, "", "  ", out)
    return "".join(out)
