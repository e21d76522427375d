"""The one reading path for user files (JSON lines, JSON, YAML): limits, and errors that say `file:line: field: what`.

Every file a user hands the command line (data sets, reward cases, match pairs, judge files, run folders, training
configs) is read here, so that one set of rules holds everywhere and a bad file stops with a message, never a
traceback:

- Text is UTF-8 (a byte-order mark is skipped); other bytes are refused with the line and column.
- A file is a regular file: a FIFO (which would wait for a writer), a device (`/dev/zero`, endless) or a socket is
  refused before it is opened.
- One JSON-lines record is at most `MAX_LINE_BYTES`, a JSON or YAML document at most `MAX_DOCUMENT_BYTES`; a longer
  one is refused after reading at most that much (memory stays bounded whatever the file holds).
- Values nest at most `MAX_DEPTH` levels deep (Python's readers raise RecursionError near 1,000; deep values also
  break everything downstream that walks them).
- Numbers are finite (`NaN`, `Infinity` and `1e400` are refused) and integers lie within +/-`MAX_INT` (a
  400-digit integer overflows float conversions later; a 5,000-digit one makes `json` raise its digit-limit error).
- Strings hold no lone surrogates (`"\\ud800"` decodes but cannot be written back as UTF-8).
- YAML expands to at most `MAX_VALUES` values once aliases are followed (a "billion laughs" file is refused).

Errors are `DataError` for data and `ConfigError` for configuration (`kind=`), worded
`{file}:{line}: field '{field}': {problem}`; the line is left out where a document gives none.

Written by hand because the standard readers lack these limits: `json` accepts NaN and Infinity and raises
RecursionError, ValueError or UnicodeDecodeError on hostile input, and PyYAML does the same; the checks here run in C
(`json` hooks) or over containers only, so a well-formed file costs little more than `json.loads`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mobile_r1.core.errors import DataError, MobileR1Error

MAX_LINE_BYTES = 16 * 2**20  # one JSON-lines record
MAX_DOCUMENT_BYTES = 16 * 2**20  # one JSON or YAML document
MAX_DEPTH = 64  # levels of nested objects and arrays
MAX_INT = 2**63 - 1  # the largest integer magnitude a number may have
MAX_VALUES = 1_000_000  # values a YAML document may expand to (aliases counted each time they are used)
BOM = b"\xef\xbb\xbf"
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


@dataclass(frozen=True, slots=True)
class Where:
    """A record's place: the file and its 1-based line (None when unknown); `kind` is the error class to raise."""

    path: Path
    line: int | None = None
    kind: type[MobileR1Error] = field(default=DataError, compare=False)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}" if self.line is not None else str(self.path)

    def error(self, field: str, problem: str) -> MobileR1Error:
        """An error naming this file, line and field."""
        return self.kind(f"{self}: field '{field}': {problem}")

    def problem(self, problem: str) -> MobileR1Error:
        """An error naming this file and line (no single field is to blame)."""
        return self.kind(f"{self}: {problem}")


# ----- bytes to text ---------------------------------------------------------------------------------------------
def decode(raw: bytes, where: Where) -> str:
    """UTF-8 text of `raw`, or an error naming the first undecodable byte (its line and column)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        head = raw[: exc.start]
        line = (where.line or 1) + head.count(b"\n")
        column = len(head[head.rfind(b"\n") + 1 :].decode("utf-8", "replace")) + 1
        at = Where(where.path, line, where.kind)
        raise at.problem(
            f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {column}); save the file as UTF-8"
        ) from None


def read_document(path: str | Path, *, kind: type[MobileR1Error] = DataError, max_bytes: int = MAX_DOCUMENT_BYTES) -> str:
    """The whole text of a (small) file: at most `max_bytes`, UTF-8, a byte-order mark skipped."""
    path = Path(path)
    where = Where(path, None, kind)
    try:
        if path.exists() and not path.is_dir() and not path.is_file():  # opening a FIFO waits for a writer
            raise where.problem("is not a regular file (a FIFO, a device or a socket); give a file")
        with open(path, "rb") as stream:
            raw = stream.read(max_bytes + 1)
    except FileNotFoundError:
        raise where.problem("no such file") from None
    except IsADirectoryError:
        raise where.problem("is a folder; give a file") from None
    except OSError as exc:
        raise where.problem(f"cannot read ({exc.strerror})") from None
    if len(raw) > max_bytes:
        raise where.problem(f"larger than {_size(max_bytes)}, the most a document may hold")
    return decode(raw[len(BOM) :] if raw.startswith(BOM) else raw, Where(path, 1, kind))


# ----- JSON -------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _BadNumber:
    """Stands in for a number the reader refuses, so that the walk can name its field."""

    text: str
    why: str


class _Numbers:
    """`json.loads` hooks that mark out-of-range numbers instead of raising (the walk then names their field)."""

    __slots__ = ("bad",)

    def __init__(self) -> None:
        self.bad = False

    def integer(self, text: str) -> int | _BadNumber:
        digits = len(text) - text.startswith("-")
        value = int(text) if digits <= 19 else None  # never convert a long digit string (quadratic, and limited)
        if value is None or abs(value) > MAX_INT:
            self.bad = True
            return _BadNumber(_short(text), f"out of range (integers may not exceed {MAX_INT:,} in magnitude)")
        return value

    def real(self, text: str) -> float | _BadNumber:
        value = float(text)
        if math.isinf(value):
            self.bad = True
            return _BadNumber(_short(text), "too large to be a finite number")
        return value

    def constant(self, text: str) -> _BadNumber:
        self.bad = True
        return _BadNumber(text, "not a finite number (NaN and Infinity are not JSON)")


def loads(text: str, where: Where, *, max_depth: int = MAX_DEPTH) -> Any:
    """Decode one JSON value under the reader's rules; `where` names it in errors (its line: the text's first line)."""
    numbers = _Numbers()
    try:
        value = json.loads(text, parse_int=numbers.integer, parse_float=numbers.real, parse_constant=numbers.constant)
    except json.JSONDecodeError as exc:
        at = Where(where.path, (where.line or 1) + exc.lineno - 1, where.kind) if where.line or exc.lineno > 1 else where
        raise at.problem(f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise where.problem(f"values nested deeper than {max_depth} levels; flatten the record") from None
    if numbers.bad or not _shallow(value, max_depth) or (_SURROGATE_ESCAPE.search(text) and _has_surrogate(value)):
        check_tree(value, where, max_depth=max_depth)
    return value


def read_jsonl(
    path: str | Path, *, kind: type[MobileR1Error] = DataError, max_line_bytes: int = MAX_LINE_BYTES
) -> Iterator[tuple[Where, Any]]:
    """Yield `(where, value)` for every non-blank line of a JSON-lines file, each line read and checked on its own.

    A line longer than `max_line_bytes` is refused after reading that much of it, so a huge record never sits in
    memory whole.
    """
    path = Path(path)
    if not path.is_file():
        raise Where(path, None, kind).problem("no such file; give the path of a .jsonl file")
    try:
        stream = open(path, "rb")
    except OSError as exc:
        raise Where(path, None, kind).problem(f"cannot read ({exc.strerror})") from None
    with stream:
        number = 0
        while True:
            raw = stream.readline(max_line_bytes + 1)
            if not raw:
                return
            number += 1
            where = Where(path, number, kind)
            if len(raw) > max_line_bytes and not (len(raw) == max_line_bytes + 1 and raw.endswith(b"\n")):
                raise where.problem(
                    f"the line is longer than {_size(max_line_bytes)}, the most one record may hold; "
                    "a record this long is not a step of a data set (split it or drop it)"
                )
            if number == 1 and raw.startswith(BOM):
                raw = raw[len(BOM) :]
            text = decode(raw, where).rstrip("\r\n")
            if not text.strip():
                continue
            yield where, loads(text, where)


def read_json(path: str | Path, *, kind: type[MobileR1Error] = DataError) -> Any:
    """One JSON document (a run's `run.json`, a view file, ...) under the reader's rules."""
    path = Path(path)
    return loads(read_document(path, kind=kind), Where(path, 1, kind))


# ----- YAML -------------------------------------------------------------------------------------------------------
def read_yaml(path: str | Path, *, kind: type[MobileR1Error] = DataError, max_bytes: int = MAX_DOCUMENT_BYTES) -> Any:
    """One YAML document (`yaml.safe_load`) under the reader's rules; errors give the line of the offending value."""
    path = Path(path)
    return loads_yaml(read_document(path, kind=kind, max_bytes=max_bytes), Where(path, None, kind))


def loads_yaml(text: str, where: Where) -> Any:
    """One YAML document from text (a command-line value, a file's contents) under the reader's rules; `where`
    names it in errors (its path, and its kind of error)."""
    import yaml

    path, kind = where.path, where.kind
    where = Where(path, None, kind)
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        value = yaml.SafeLoader("").construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        raise where.problem(f"not valid YAML ({exc})") from None
    except RecursionError:
        raise where.problem(f"values nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # an integer beyond Python's digit limit
        raise where.problem(f"a number is out of range ({str(exc).split(';')[0]})") from None
    try:
        _walk(value, MAX_DEPTH, MAX_VALUES)
    except _Located as bad:
        if not bad.keys:
            raise where.problem(bad.problem) from None
        line = _yaml_line(node, bad.keys)
        raise Where(path, line, kind).error(bad.field, bad.problem) from None
    return value


def _yaml_line(node: Any, keys: list[Any]) -> int | None:
    """The 1-based line of the YAML node at `keys` (mapping keys and list indexes), or None."""
    import yaml

    for key in keys:
        if isinstance(node, yaml.MappingNode):
            node = next((v for k, v in node.value if getattr(k, "value", None) == str(key)), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
        else:
            node = None
        if node is None:
            return None
    return node.start_mark.line + 1 if node is not None else None


# ----- the checks --------------------------------------------------------------------------------------------------
class _Located(Exception):
    """A rule broken at `keys` (used to find a YAML line before the error is raised)."""

    def __init__(self, keys: list[Any], problem: str) -> None:
        super().__init__(problem)
        self.keys = keys
        self.problem = problem

    @property
    def field(self) -> str:
        return field_name(self.keys)


def field_name(keys: list[Any]) -> str:
    """`label.arguments.coordinate[0]` for the keys ["label", "arguments", "coordinate", 0] (long paths shortened)."""
    out = ""
    for key in keys:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else str(key))
    return out if len(out) <= 100 else f"{out[:60]}...{out[-30:]}"


def check_tree(value: Any, where: Where, *, max_depth: int = MAX_DEPTH, max_values: int | None = None) -> None:
    """Raise `where.error(field, ...)` for the first value that breaks a rule (depth, number range, surrogates).

    `max_values` bounds the values visited, aliases counted each time (YAML), so the walk itself stays bounded.
    """
    try:
        _walk(value, max_depth, max_values)
    except _Located as bad:
        if not bad.keys:
            raise where.problem(bad.problem) from None
        raise where.error(bad.field, bad.problem) from None


def _walk(value: Any, max_depth: int, max_values: int | None) -> None:
    # Each entry: (value, link to the parent's entry, key in the parent, depth); the field path is built from the
    # links only when a rule is broken.
    stack: list[tuple[Any, Any, Any, int]] = [(value, None, None, 0)]
    seen = 0
    while stack:
        entry = stack.pop()
        item, _, _, depth = entry
        seen += 1
        if max_values is not None and seen > max_values:
            raise _Located([], f"expands to more than {max_values:,} values (aliases counted each time)")
        kind = type(item)
        if kind is dict:
            if depth >= max_depth:
                raise _Located(_keys(entry), f"nested deeper than {max_depth} levels; flatten the record")
            for key, child in item.items():
                if type(key) is not str or _SURROGATE_RE.search(key):
                    stack.append((key, entry, f"<key {ascii(key)[:20]}>", depth + 1))
                stack.append((child, entry, key if type(key) is str and not _SURROGATE_RE.search(key) else "<key>",
                              depth + 1))
        elif kind is list:
            if depth >= max_depth:
                raise _Located(_keys(entry), f"nested deeper than {max_depth} levels; flatten the record")
            for index in range(len(item) - 1, -1, -1):
                stack.append((item[index], entry, index, depth + 1))
        elif kind is str:
            if _SURROGATE_RE.search(item):
                raise _Located(_keys(entry), "holds a lone surrogate (\\ud800-\\udfff), which is not text")
        elif kind is _BadNumber:
            raise _Located(_keys(entry), f"{item.text} is {item.why}")
        elif kind is float:
            if not math.isfinite(item):
                raise _Located(_keys(entry), f"{item} is not a finite number")
        elif kind is int:
            if abs(item) > MAX_INT:
                raise _Located(_keys(entry), f"{_short(str(item))} is out of range (integers may not exceed {MAX_INT:,})")


_SURROGATE_RE = re.compile("[\ud800-\udfff]")


def _keys(entry: tuple[Any, Any, Any, int]) -> list[Any]:
    keys: list[Any] = []
    while entry is not None and entry[1] is not None:
        keys.append(entry[2])
        entry = entry[1]
    return keys[::-1]


def _shallow(value: Any, max_depth: int) -> bool:
    """Whether `value` nests at most `max_depth` levels (a level-by-level pass over containers only)."""
    level = [value] if type(value) in (dict, list) else []
    depth = 0
    while level:
        depth += 1
        if depth > max_depth:
            return False
        below: list[Any] = []
        for item in level:
            children = item.values() if type(item) is dict else item
            below.extend(child for child in children if type(child) in (dict, list))
        level = below
    return True


def _has_surrogate(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            if _SURROGATE_RE.search(item):
                return True
        elif kind is dict:
            stack.extend(item.keys())
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
    return False


def _short(text: str) -> str:
    return text if len(text) <= 24 else f"{text[:12]}...({len(text)} characters)"


def _size(n: int) -> str:
    return f"{n / 2**20:g} MiB" if n >= 2**20 else f"{n:,} bytes"


__all__ = [
    "MAX_DEPTH",
    "MAX_DOCUMENT_BYTES",
    "MAX_INT",
    "MAX_LINE_BYTES",
    "MAX_VALUES",
    "Where",
    "check_tree",
    "decode",
    "field_name",
    "loads",
    "loads_yaml",
    "read_document",
    "read_json",
    "read_jsonl",
    "read_yaml",
]
