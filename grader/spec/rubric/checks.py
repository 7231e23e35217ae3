"""The checks a rubric's YAML passes, one value at a time, and the words its errors use.

:class:`Reader` walks the parsed YAML while tracking the key path. Each primitive takes a value
as the YAML parser gave it (any type at all: a rubric is the instructor's input, read once at
this edge) and returns it as the type the rubric needs, or raises a :class:`RubricError` naming
the file, the key path and the fix::

    rubrics/chapter07.yaml: limits.per_call_s: must be a number > 0 (got '10s', a str);
    write per_call_s: 10

The section readers that build the dataclasses (:mod:`grader.spec.rubric.load`) are written
with these primitives; the helpers below word the values for the messages.

Example::

    reader = Reader("rubrics/r.yaml", Path("rubrics").absolute())
    reader.number("10pt", "points.default", low=0, low_open=True, example=1)
    # RubricError: rubrics/r.yaml: points.default: must be a number > 0 (got '10pt', a str); write default: 10
"""

from __future__ import annotations

import difflib
import math
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TypeGuard

from grader.errors import RubricError

__all__ = [
    "Reader",
    "describe",
    "fmt",
    "join",
    "kebab",
    "key_repr",
    "leaf",
    "nearest",
    "section",
    "show",
]


class Reader:
    """Walks the parsed YAML of one rubric file, tracking the key path, and checks its values.

    Args:
        file: the rubric file as the user named it (messages quote it).
        base: the folder holding it: paths inside the rubric are relative to it.
    """

    def __init__(self, file: str, base: Path) -> None:
        self.file = file
        self.base = base

    def fail(self, path: str, problem: str, fix: str = "") -> RubricError:
        return RubricError(self.file, path, problem, fix)

    def mapping(self, value: object, path: str, keys: tuple[str, ...], example: str) -> dict[str, object]:
        if not isinstance(value, dict):
            what = "must be a mapping" if path else "the top level must be a mapping"
            raise self.fail(path, f"{what} (got {describe(value)})", f"write {example}")
        for key in value:
            if key not in keys:
                close = difflib.get_close_matches(str(key), keys, n=1, cutoff=0.5)
                fix = (
                    f"did you mean {close[0]!r}?" if close else f"valid keys are: {', '.join(keys)}"
                )
                raise self.fail(path, f"unknown key {key_repr(key)}", fix)
        return value

    def require(self, data: Mapping[str, object], key: str, path: str, example: str) -> object:
        if key not in data:
            raise self.fail(join(path, key), "required key is missing", f"add {example}")
        return data[key]

    def string(
        self,
        value: object,
        path: str,
        example: str,
        pattern: re.Pattern[str] | None = None,
        rule: str = "",
    ) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(
                path,
                f"must be a non-empty string (got {describe(value)})",
                f"write {leaf(path)}: {example}",
            )
        if pattern is not None and not pattern.fullmatch(value):
            raise self.fail(
                path, f"must be {rule} (got {describe(value)})", f"write {leaf(path)}: {example}"
            )
        return value

    def number(
        self,
        value: object,
        path: str,
        *,
        low: float,
        low_open: bool = False,
        high: float | None = None,
        integer: bool = False,
        example: float,
    ) -> float:
        def fits(x: object) -> TypeGuard[float]:
            return (
                isinstance(x, (int, float))
                and not isinstance(x, bool)
                and math.isfinite(x)
                and (x > low if low_open else x >= low)
                and (high is None or x <= high)
                and (not integer or float(x).is_integer())
            )

        if fits(value):
            return int(value) if integer else float(value)
        kind = "a whole number" if integer else "a number"
        if high is not None:
            rule = f"{kind} from {fmt(low)} to {fmt(high)}"
        else:
            rule = f"{kind} {'>' if low_open else '>='} {fmt(low)}"
        # Suggest the digits the author meant ('10pt' -> 10) when they would be valid.
        found = re.search(r"[-+]?\d+(?:\.\d+)?", value) if isinstance(value, str) else None
        meant = float(found.group()) if found else None
        suggestion = meant if meant is not None and fits(meant) else example
        raise self.fail(
            path,
            f"must be {rule} (got {describe(value)})",
            f"write {leaf(path)}: {fmt(suggestion)}",
        )

    def boolean(self, value: object, path: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(
                path,
                f"must be true or false (got {describe(value)})",
                f"write {leaf(path)}: false",
            )
        return value

    def choice(self, value: object, path: str, options: tuple[str, ...]) -> str:
        if isinstance(value, str) and value in options:
            return value
        close = (
            difflib.get_close_matches(str(value), options, n=1, cutoff=0.5)
            if isinstance(value, str)
            else []
        )
        fix = f"did you mean {close[0]!r}?" if close else f"write one of: {', '.join(options)}"
        raise self.fail(path, f"must be one of {', '.join(options)} (got {describe(value)})", fix)

    def names(
        self,
        value: object,
        path: str,
        options: tuple[str, ...],
        example: str,
        extra: tuple[str, ...] = (),
    ) -> tuple[str, ...]:
        """One name or a non-empty list of names from ``options``; duplicates are dropped."""
        if isinstance(value, str):
            return (self.choice(value, path, options + extra),)
        if not isinstance(value, list) or not value:
            raise self.fail(
                path,
                f"must be one of {', '.join(options + extra)} or a non-empty list "
                f"of them (got {describe(value)})",
                f"write {leaf(path)}: {example}",
            )
        return tuple(
            dict.fromkeys(self.choice(v, f"{path}[{i}]", options) for i, v in enumerate(value))
        )

    def path_text(self, value: object, path: str, example: str) -> str:
        """A string naming a file or folder (no NUL: no system call takes one)."""
        raw = self.string(value, path, example)
        if "\x00" in raw:
            raise self.fail(path, f"a path cannot hold a NUL character (got {raw!r})", f"write a path, e.g. {example}")
        return raw

    def folder(self, value: object, path: str, example: str, what: str) -> Path:
        raw = self.path_text(value, path, example)
        resolved = (self.base / raw).resolve()
        if resolved.is_dir():
            return resolved
        shown = show(resolved)
        if resolved.exists():
            raise self.fail(
                path, f"{shown} is a file, not a folder", f"point {leaf(path)} at a folder"
            )
        raise self.fail(
            path,
            f"folder not found: {shown} ({raw!r} from the rubric's folder {show(self.base)})",
            f"create {shown}/ {what}, or correct the path",
        )


# --- message helpers ---------------------------------------------------------------------


def section(data: Mapping[str, object], key: str) -> object:
    """An optional section; written but left empty (``limits:``) means all defaults."""
    value = data.get(key)
    return {} if value is None else value


def join(path: str, key: str) -> str:
    """The key path of ``key`` under ``path``: ``suites.public`` + ``path``."""
    return f"{path}.{key}" if path else key


def leaf(path: str) -> str:
    """The last key of a YAML path: ``parts[2].points`` -> ``points``."""
    return re.sub(r"\[\d+\]$", "", path.rsplit(".", 1)[-1])


def key_repr(key: object) -> str:
    """A mapping's key as the file says it."""
    # YAML 1.1 turns bare yes/no/on/off keys into booleans: show what the file says.
    return f"{key!r} (read as a boolean; quote it)" if isinstance(key, bool) else repr(str(key))


def describe(value: object) -> str:
    """The value and its type the way a YAML author reads them: ``'10pt', a str``."""
    if value is None:
        return "nothing (an empty value)"
    if isinstance(value, bool):
        return f"{str(value).lower()}, a boolean"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"{shown!r}, a str"
    if isinstance(value, int):
        return f"{value}, an int"
    if isinstance(value, float):
        return f"{value!r}, a float"
    if isinstance(value, list):
        return f"a list of {len(value)} item{'s' * (len(value) != 1)}"
    if isinstance(value, dict):
        return "a mapping"
    return f"{value!r}, a {type(value).__name__}"


def fmt(number: float) -> str:
    """A number as an author writes it: ``10``, not ``10.0``."""
    return str(int(number)) if float(number).is_integer() else str(number)


def kebab(name: str) -> str:
    """``name`` made a kebab-case id, for the fix of a wrongly written one."""
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "-", name)
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "mistake-id"


def show(path: Path) -> str:
    """``path`` relative to the working folder (never absolute: messages name no machine's folders)."""
    here = Path.cwd().resolve()
    try:
        return path.relative_to(here).as_posix() or "."
    except ValueError:
        try:
            return Path(os.path.relpath(path, here)).as_posix()
        except ValueError:  # another drive (Windows): the name from the rubric's folder is all we say
            return path.name


def nearest(name: str, folder: Path, suffix: str = "") -> str:
    """The name in ``folder`` closest to ``name`` ("" when none is close)."""
    try:
        names = [p.name for p in folder.iterdir() if not suffix or p.name.endswith(suffix)]
    except OSError:
        return ""
    hit = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
    return hit[0] if hit else ""
