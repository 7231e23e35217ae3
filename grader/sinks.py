"""Student text made safe for each place it is written: one small function per sink.

Everything a submission controls (file and folder names, file contents, exception messages,
printed output, returned values, notebook metadata) is hostile. Before such text reaches a
sink it passes the sink's function here; the writers call them, nothing else escapes by hand.

==================  =========================================================================
``terminal(s)``     a plain ``str`` for a terminal: C0/C1 controls (ESC, so every ANSI/OSC
                    sequence), DEL, bidi overrides, surrogates and non-characters become
                    visible escapes such as ``\\x1b``; tab and line feed stay. Print it as
                    ``rich.text.Text(terminal(s))`` (never as markup).
``terminal_markup`` ``terminal(s)`` with rich markup escaped, for the rare f-string passed to
                    ``console.print`` with ``markup=True``.
``tsv_field(s)``    one field of a tab-separated line (``grader ledger``): backslash, tab, line
                    feed and CR written ``\\\\ \\t \\n \\r``, the rest as ``terminal``.
``csv_cell(v)``     a gradebook cell: a string whose first non-blank character could start a
                    formula (``= + - @``, their full-width forms, tab, CR) gets a leading
                    ``'`` (OWASP's advice for CSV injection); controls become visible escapes.
                    Numbers, bools and None pass unchanged, so scores stay numbers.
``markdown(s)``     inline Markdown (GitHub-flavoured, tables included): a backslash only
                    where Markdown would read a character as markup (emphasis, code, links,
                    autolinks, tags, entities, math, a table-cell break, a block marker at
                    the start), so ``f(float32[1, 3])`` stays readable raw; line breaks as
                    spaces.
``html(s)``         HTML text or attribute value: ``& < > " '`` escaped, controls visible.
``xml(s)``          XML 1.0 text: characters XML 1.0 cannot hold (most C0 controls,
                    surrogates, U+FFFE/U+FFFF) become visible escapes; ``ElementTree``
                    escapes the markup characters itself.
``unicode(s)``      YAML/JSON text: valid Unicode (a lone surrogate, which cannot be encoded
                    as UTF-8, becomes the visible escape ``\\ud800``).
``clean(data)``     ``unicode`` applied to every string of a plain-data tree, keys included.
``file_name(s)``    one path component (a zip member's folder, a file the grader names after a
                    student): controls, DEL, C1, bidi and invisible characters dropped, path
                    separators and the characters Windows forbids made spaces; at most
                    :data:`NAME_MAX` UTF-8 bytes, cut at a character.
``cap(s, n)``       at most ``n`` UTF-8 bytes: longer text is cut at a character boundary and
                    ends with the marker ``… [cut 123 bytes]`` (the marker is inside ``n``).
``cap_data(d, n)``  ``cap`` applied to every string of a plain-data tree.
``bound(d, …)``     a plain-data tree kept from a student's return (plot data, evidence),
                    bounded in count and size: a list or dict longer than ``items``, or past
                    ``scalars`` values in all, or nested deeper than ``depth``, is left out
                    whole (``None``: a cut series would draw a lie); strings ``cap``-ped.
==================  =========================================================================

Sizes where student text enters: :data:`VALUE_MAX` per feedback value, message or note,
:data:`REPORT_MAX` per report crossing from a worker. ``docs/security.md`` lists every sink.

Example::

    import csv
    from grader.sinks import csv_cell

    writer = csv.writer(f)
    writer.writerow([csv_cell(v) for v in (name, student_id, score)])
"""

from __future__ import annotations

import html as _html
import re
from collections.abc import Mapping
from typing import overload

__all__ = ["VALUE_MAX", "REPORT_MAX", "terminal", "terminal_markup", "tsv_field", "csv_cell", "markdown",
           "html", "jinja_finalize", "xml", "unicode", "clean", "file_name", "cap", "cap_data", "bound", "visible"]

#: Bytes kept of one string that came from a submission (a feedback value, a message, a note).
VALUE_MAX = 8 * 1024
#: Bytes of one name written by :func:`file_name` (file systems allow 255; room for a suffix).
NAME_MAX = 200
#: Bytes of one report as a worker sends it; a larger reply is refused (the submission errs).
REPORT_MAX = 32 * 1024 * 1024

# Characters never shown raw anywhere: C0 controls but tab and line feed, DEL, C1 controls,
# bidi embeddings/overrides/isolates (they reorder what a reader sees), line/paragraph
# separators, surrogates, the BOM and U+FFFE/U+FFFF.
_INVISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2028\u2029"
                        "\u2066-\u2069\ud800-\udfff\ufeff\ufffe\uffff]")
# What XML 1.0 cannot hold (tab, LF and CR it can), plus what we never show raw.
_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
# Markdown's markup characters, escaped wherever they appear: emphasis and strikethrough
# (* ~), code (`), tags and autolinks (<), entities (&), table cells (|), math ($), mentions
# and e-mail autolinks (@). The others are escaped only where they could be markup (below).
_MD_ALWAYS = frozenset("*`~<&|$@")
_ASCII_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
# At the start of the text: a heading, quote, list item or thematic break, a link definition
# or task box ([), or an ordered list's "1." / "1)".
_MD_EMOJI = re.compile(r":[\w+-]+:")
_MD_LEADING = re.compile(r"[#>+\-=\[]|\d{1,9}(?=[.)])")
_FORMULA_FIRST = frozenset("=+-@\t\r\n\uff1d\uff0b\uff0d\uff20")


def _escape(m: re.Match[str]) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def visible(s: str) -> str:
    """``s`` with every control, bidi, surrogate and non-character written as ``\\xNN`` /
    ``\\uNNNN`` (tab and line feed kept). The common step of the sinks below."""
    return _INVISIBLE.sub(_escape, s) if _INVISIBLE.search(s) else s


def terminal(s: object) -> str:
    """``s`` as plain text for a terminal: no escape sequence or control character survives.

    Carriage return is shown too (it would let a line overwrite itself). Print the result as
    ``Text(...)`` or with ``markup=False``: it is not markup.
    """
    return visible(str(s))


_TSV = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def tsv_field(s: object) -> str:
    r"""One field of a tab-separated line (``grader ledger``): a backslash, tab, line feed or
    carriage return written ``\\``, ``\t``, ``\n``, ``\r``, then as :func:`terminal`, so each
    record stays one line of the same columns and no control sequence reaches the terminal."""
    return visible(str(s).translate(_TSV))


def terminal_markup(s: object) -> str:
    """``terminal(s)`` safe inside a rich markup string (``[`` escaped)."""
    from rich.markup import escape

    return escape(terminal(s))


def csv_cell(value: object) -> str | int | float | None:
    """One gradebook cell: strings neutralised, numbers/bools/None unchanged.

    >>> csv_cell("=HYPERLINK(\\"x\\")")
    '\\'=HYPERLINK("x")'
    >>> csv_cell(" @SUM(A1)")
    "' @SUM(A1)"
    >>> csv_cell(-3.5)
    -3.5
    """
    if value is None or isinstance(value, (bool, int, float)):
        return value
    s = visible(str(value).replace("\r\n", "\n").replace("\r", "\n"))
    head = s.lstrip(" \u3000")[:1]
    if head in _FORMULA_FIRST or s[:1] in _FORMULA_FIRST:
        return "'" + s
    return s


def markdown(s: object) -> str:
    r"""``s`` as inline Markdown text: shown verbatim, never a link, tag, table cell break or
    heading; a backslash is added only before a character Markdown could read as markup.

    ``head_scores(float32[1, 3])`` comes back unchanged; ``*x* [a](http://b) | _y_``
    comes back as ``\*x\* [a\](http\://b) \| \_y\_``.
    """
    s = visible(str(s)).replace("\r", " ").replace("\n", " ").lstrip(" \t")
    out: list[str] = []
    lead = _MD_LEADING.match(s)
    if lead and lead.group().isdigit():  # "1. x" -> "1\. x"
        out += [lead.group(), "\\" + s[lead.end()]]
        s = s[lead.end() + 1:]
    elif lead:  # "# x" -> "\# x"
        out.append("\\" + s[0])
        s = s[1:]
    prev = out[-1][-1] if out else ""
    for i, c in enumerate(s):
        after = s[i + 1] if i + 1 < len(s) else ""
        if c in _MD_ALWAYS:
            esc = True
        elif c == "\\":  # it escapes the punctuation after it (at the end: our closing markup)
            esc = not after or after in _ASCII_PUNCT
        elif c == "_":  # intraword "a_b" is never emphasis
            esc = not (prev.isalnum() and after.isalnum())
        elif c == "]":  # "](" inline link, "][" reference, "]:" definition
            esc = after in ("(", "[", ":")
        elif c == "[":  # "![" image, "[^" footnote
            esc = prev == "!" or after == "^"
        elif c == ":":  # "http://" (GitHub links it bare) and ":emoji:"; "head: 768", "a.py::t" stay text
            esc = s.startswith("//", i + 1) or bool(_MD_EMOJI.match(s, i))
        elif c == ".":  # "www." autolinks
            esc = s[max(0, i - 3):i].lower() == "www"
        else:
            esc = False
        out.append("\\" + c if esc else c)
        prev = c
    return "".join(out)


def jinja_finalize(value: object) -> object:
    """Jinja's ``finalize`` hook: strings shown with :func:`visible` escapes; the template's
    autoescaping then does what :func:`html` does."""
    return visible(value) if isinstance(value, str) and type(value) is str else value


def html(s: object) -> str:
    """``s`` as HTML text or a quoted attribute value."""
    return _html.escape(visible(str(s)), quote=True)


def xml(s: object) -> str:
    """``s`` holding only characters XML 1.0 allows (markup characters left to the writer)."""
    text = str(s)
    return _XML_BAD.sub(_escape, text) if _XML_BAD.search(text) else text


def unicode(s: object) -> str:
    """``s`` as valid Unicode: a lone surrogate becomes the visible escape ``\\udXXX``."""
    text = str(s)
    return _SURROGATE.sub(_escape, text) if _SURROGATE.search(text) else text


@overload
def clean(data: str) -> str: ...
@overload
def clean(data: Mapping[str, object]) -> dict[str, object]: ...
@overload
def clean(data: object) -> object: ...
def clean(data: object) -> object:
    """:func:`unicode` applied to every string in ``data`` (dicts, lists, tuples), keys too."""
    if isinstance(data, str):
        return unicode(data)
    if isinstance(data, dict):
        return {clean(k): clean(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [clean(v) for v in data]
    return data


_NAME_GONE = re.compile(_INVISIBLE.pattern[:-1] + "\u00ad\u200b-\u200d\u2060-\u2064]+")
_NAME_SPACE = re.compile("[\t\n\r/\\\\:*?\"<>|]+")


def file_name(s: object, limit: int = NAME_MAX) -> str:
    """``s`` as one path component: nothing invisible or reordering (dropped), no separator or
    character Windows forbids (a space), not ``.``/``..``.

    >>> file_name("Eve\u202egnp.exe/../x")
    'Evegnp.exe .. x'
    """
    name = " ".join(_NAME_SPACE.sub(" ", _NAME_GONE.sub("", str(s).replace("\t", " "))).split()).strip(" .")
    data = name.encode("utf-8")
    if len(data) > limit:
        name = data[:limit].decode("utf-8", "ignore").rstrip(" .")
    return name


def cap(s: str, limit: int = VALUE_MAX) -> str:
    """``s`` cut to at most ``limit`` UTF-8 bytes, ending ``… [cut N bytes]`` when cut."""
    if len(s) * 4 <= limit:  # (no UTF-8 character takes more than 4 bytes)
        return s
    data = s.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return s
    marker = f"… [cut {len(data):d} bytes]"  # as long as the final marker can be
    keep = max(0, limit - len(marker.encode()))
    head = data[:keep].decode("utf-8", "ignore")  # a character cut in two is dropped whole
    kept = len(head.encode("utf-8", "surrogatepass"))
    return f"{head}… [cut {len(data) - kept} bytes]"


@overload
def cap_data(data: str, limit: int = VALUE_MAX) -> str: ...
@overload
def cap_data(data: Mapping[str, object], limit: int = VALUE_MAX) -> dict[str, object]: ...
@overload
def cap_data(data: object, limit: int = VALUE_MAX) -> object: ...
def cap_data(data: object, limit: int = VALUE_MAX) -> object:
    """:func:`cap` applied to every string in ``data`` (dicts, lists, tuples), keys too."""
    if isinstance(data, str):
        return cap(data, limit)
    if isinstance(data, dict):
        return {cap_data(k, limit): cap_data(v, limit) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [cap_data(v, limit) for v in data]
    return data


#: What :func:`bound` keeps of a report's plot data: items per list, values in all, depth.
PLOT_ITEMS, PLOT_SCALARS, PLOT_DEPTH = 1024, 16_384, 6
#: ... and about this many bytes of it as JSON.
PLOT_BYTES = 512 * 1024
#: ... and of one mistake's evidence.
EVIDENCE_ITEMS, EVIDENCE_SCALARS, EVIDENCE_DEPTH, EVIDENCE_BYTES = 64, 256, 4, 16 * 1024
#: ... and of an unrecognised failure's behaviour signature (``evidence.probes``, see
#: :mod:`grader.kit.signature`: function -> calls -> record -> values).
SIGNATURE_ITEMS, SIGNATURE_SCALARS, SIGNATURE_DEPTH, SIGNATURE_BYTES = 64, 2048, 5, 64 * 1024


def bound(data: object, *, items: int = PLOT_ITEMS, scalars: int = PLOT_SCALARS, depth: int = PLOT_DEPTH,
          string: int = 1024, size: int = PLOT_BYTES) -> tuple[object, list[str]]:
    """``data`` (plain data: dicts, lists, tuples, str, numbers, bool, None) bounded; returns
    ``(kept, left_out)``, ``left_out`` naming each part replaced by ``None`` (``a.b[2]``).

    A container with more than ``items`` entries, nested deeper than ``depth``, or reached after
    ``scalars`` values or about ``size`` bytes (as JSON) were kept, is left out whole; any other
    object is left out too (plain data only). Strings are :func:`cap`-ped to ``string`` bytes,
    dict keys to 256.
    """
    left_out: list[str] = []
    budget = [scalars]
    room = [size]

    def walk(value: object, where: str, level: int) -> object:
        if value is None or isinstance(value, (bool, int, float, str)):
            if isinstance(value, str):
                value = cap(value, string)
            cost = len(value.encode("utf-8", "surrogatepass")) + 2 if isinstance(value, str) else 24
            if budget[0] <= 0 or room[0] < cost:
                left_out.append(where or "(all)")
                return None
            budget[0] -= 1
            room[0] -= cost
            if isinstance(value, str):
                return value
            if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
                left_out.append(where or "(all)")
                return None
            return value
        if isinstance(value, (list, tuple, dict)):
            if level >= depth or len(value) > items or len(value) > budget[0] or room[0] < 2 * len(value):
                left_out.append(where or "(all)")
                return None
            room[0] -= 2 * len(value)
            if isinstance(value, dict):
                return {cap(str(k), 256): walk(v, f"{where}.{k}" if where else str(k), level + 1)
                        for k, v in value.items()}
            return [walk(v, f"{where}[{i}]", level + 1) for i, v in enumerate(value)]
        left_out.append(where or "(all)")
        return None

    kept = walk(data, "", 0)
    return kept, left_out
