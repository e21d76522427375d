"""Reading JSON-lines files record by record, with errors that name the file, the line and the field."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from mobile_r1.core.actions import Action
from mobile_r1.core.errors import ActionError, DataError


@dataclass(frozen=True, slots=True)
class Where:
    """A record's place: the file and its 1-based line number."""

    path: Path
    line: int

    def error(self, field: str, problem: str) -> DataError:
        """A DataError naming this file, line and field."""
        return DataError(f"{self.path}:{self.line}: field '{field}': {problem}")


def iter_jsonl(path: str | Path) -> Iterator[tuple[Where, dict[str, Any]]]:
    """Yield (where, record) for every non-blank line; a line that is not a JSON object raises DataError."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"{path}: no such file; give the path of a .jsonl file")
    with open(path, encoding="utf-8") as stream:
        for number, text in enumerate(stream, start=1):
            if not text.strip():
                continue
            where = Where(path, number)
            try:
                record = json.loads(text)
            except json.JSONDecodeError as exc:
                raise DataError(f"{path}:{number}: not valid JSON ({exc.msg} at column {exc.colno})") from None
            if not isinstance(record, dict):
                raise DataError(f"{path}:{number}: each line must be a JSON object, got {type(record).__name__}")
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
    except ActionError as exc:
        raise where.error(field, str(exc)) from None


def parse_size(value: Any, where: Where, field: str) -> tuple[int, int]:
    """A positive [W, H] pair."""
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 for v in value)
    ):
        raise where.error(field, f"must be [width, height] with positive numbers, got {value!r}")
    return (int(value[0]), int(value[1]))


def parse_box(value: Any, where: Where, field: str) -> tuple[int, int, int, int] | None:
    """A box [x1, y1, x2, y2]; None (or [-1, -1, -1, -1]) means "no box"."""
    if value is None:
        return None
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 4
        or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
    ):
        raise where.error(field, f"must be [x1, y1, x2, y2] or null, got {value!r}")
    if all(v == -1 for v in value):
        return None
    return tuple(int(round(v)) for v in value)  # type: ignore[return-value]
