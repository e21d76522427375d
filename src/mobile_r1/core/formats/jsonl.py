"""Reading JSON-lines files record by record, with errors that name the file, the line and the field.

The lines are read by `mobile_r1.core.reading` (encoding, size, nesting and number limits); this module adds the
record-level helpers the loaders share.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Iterator

from mobile_r1.core.actions import Action
from mobile_r1.core.errors import ActionError
from mobile_r1.core.geometry import MAX_COORDINATE
from mobile_r1.core.reading import Where, read_jsonl

__all__ = ["Where", "first_record", "iter_jsonl", "parse_action", "parse_box", "parse_size", "require"]


def iter_jsonl(path: str | Path) -> Iterator[tuple[Where, dict[str, Any]]]:
    """Yield (where, record) for every non-blank line; a line that is not a JSON object raises DataError."""
    for where, record in read_jsonl(path):
        if not isinstance(record, dict):
            raise where.problem(f"each line must be a JSON object, got {type(record).__name__}")
        yield where, record


def first_record(path: str | Path) -> dict[str, Any] | None:
    """The first JSON object of a JSONL file (None for an empty file)."""
    for _, record in iter_jsonl(path):
        return record
    return None


def require(record: dict[str, Any], key: str, where: Where, kind: type | tuple[type, ...] = object) -> Any:
    """`record[key]`, raising a DataError naming the field when it is missing or of the wrong type."""
    if key not in record or record[key] is None:
        raise where.error(key, "missing")
    value = record[key]
    kinds = _as_tuple(kind)
    if kind is not object:
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            names = " or ".join(t.__name__ for t in kinds)
            raise where.error(key, f"must be {names}, got {value!r}")
    return value


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def parse_action(value: Any, where: Where, field: str) -> Action:
    """An Action from a tool-call object or string (`{"name": ..., "arguments": {...}}`) or a bare argument object."""
    try:
        if isinstance(value, str):
            return Action.from_json(value)
        if isinstance(value, dict) and "arguments" in value and "action" not in value:
            value = value["arguments"]
        return Action.from_arguments(value)
    except (ActionError, RecursionError) as exc:
        raise where.error(field, str(exc) or "nested too deeply") from None


def _number(v: Any) -> bool:
    """A finite int or float within the coordinate range (bool is not a number here)."""
    return (
        isinstance(v, (int, float))
        and not isinstance(v, bool)
        and (abs(v) <= MAX_COORDINATE if isinstance(v, int) else math.isfinite(v) and abs(v) <= MAX_COORDINATE)
    )


def parse_size(value: Any, where: Where, field: str) -> tuple[int, int]:
    """A [W, H] pair of whole pixels, each from 1 to `MAX_COORDINATE`."""
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or not all(_number(v) and v >= 1 for v in value)
    ):
        raise where.error(
            field, f"must be [width, height] in pixels, each from 1 to {MAX_COORDINATE:,}, got {_show(value)}"
        )
    return (int(value[0]), int(value[1]))


def parse_box(value: Any, where: Where, field: str) -> tuple[int, int, int, int] | None:
    """A box [x1, y1, x2, y2] of finite numbers within +/-`MAX_COORDINATE`; None (or [-1, -1, -1, -1]) means "no box"."""
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or len(value) != 4 or not all(_number(v) for v in value):
        raise where.error(
            field, f"must be [x1, y1, x2, y2] (finite numbers within +/-{MAX_COORDINATE:,}) or null, got {_show(value)}"
        )
    if all(v == -1 for v in value):
        return None
    return tuple(int(round(v)) for v in value)  # type: ignore[return-value]


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
