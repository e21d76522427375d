"""Hypothesis strategies for the fuzz harness: hostile JSON values, records mutated from good ones, and damaged files.

Shared by the core and CLI fuzz tests (`test_fuzz_inputs.py`, `tests/cli/test_fuzz_cli.py`). A fuzzed file is a good
record of the format with one field replaced, dropped or added, serialised (NaN and Infinity written as JavaScript
does), then possibly damaged at the byte level: cut short, a non-UTF-8 byte inserted, nested deep, or emptied.
`FUZZ_EXAMPLES=N` (default 60) runs N examples per test, for a longer search than the suite's.
"""

from __future__ import annotations

import json
import os
from datetime import timedelta
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

# The harness's own time bound per input: generous for a busy machine, far below what a backtracking pattern or an
# unbounded read costs on these inputs.
FUZZ = settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "60")), deadline=timedelta(seconds=2), derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([10**400, -(10**400), 2**63, -1, 0, 10**19]),
    st.floats(),  # NaN and the infinities included
    st.sampled_from([1e308, -1e308, 0.5, 1e-320]),
    st.text(max_size=20),
    st.sampled_from(["", "\ud800", "<tool_call>", "../../etc/passwd", "/etc/passwd", "[x1, y1]", "click", "success"]),
)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                           max_size=4), max_leaves=12)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            out += _paths(child, prefix + (key,))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            out += _paths(child, prefix + (index,))
    return out


def _replace(value: Any, path: tuple[Any, ...], new: Any, drop: bool) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        copy = dict(value)
        if drop and not rest:
            copy.pop(head, None)
        else:
            copy[head] = _replace(value[head], rest, new, drop)
        return copy
    copy = list(value)
    if drop and not rest:
        del copy[head]
    else:
        copy[head] = _replace(value[head], rest, new, drop)
    return copy


@st.composite
def mutated(draw: st.DrawFn, record: Any) -> Any:
    """`record` with one value replaced by a hostile one, or dropped, or a hostile key added."""
    paths = _paths(record)
    path = paths[draw(st.integers(0, len(paths) - 1))]
    how = draw(st.sampled_from(["replace", "replace", "drop", "add", "nest"]))
    if how == "drop" and path:
        return _replace(record, path, None, drop=True)
    if how == "add" and isinstance(record, dict):
        return {**record, draw(st.text(max_size=8)): draw(VALUES)}
    if how == "nest":
        nested: list[Any] = []
        for _ in range(draw(st.integers(10, 500))):  # json.dumps itself recurses: deeper nesting is made as bytes
            nested = [nested]
        return _replace(record, path, nested, drop=False)
    return _replace(record, path, draw(VALUES), drop=False)


@st.composite
def damaged_lines(draw: st.DrawFn, record: Any) -> bytes:
    """A JSON-lines file of a good record and a mutated one, possibly damaged at the byte level."""
    lines = [json.dumps(record).encode(), json.dumps(draw(mutated(record))).encode()]
    how = draw(st.sampled_from(["none", "none", "cut", "byte", "deep", "empty", "surrogate", "digits"]))
    if how == "cut":
        line = lines[1]
        lines[1] = line[: draw(st.integers(0, max(0, len(line) - 1)))]
    elif how == "byte":
        line = lines[1]
        at = draw(st.integers(0, len(line)))
        lines[1] = line[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\x00", b"\xed\xa0\x80"])) + line[at:]
    elif how == "deep":
        depth = draw(st.integers(1000, 100_000))
        lines[1] = b'{"x": ' + b"[" * depth + b"]" * depth + b"}"
    elif how == "empty":
        lines = [b"", b"  "]
    elif how == "surrogate":
        lines[1] = lines[1].replace(b'"', b'"\\udc00', 1)
    elif how == "digits":
        lines[1] = lines[1].replace(b"1", b"9" * draw(st.sampled_from([30, 400, 5000])), 1)
    return b"\n".join(lines) + b"\n"


def reply_texts() -> st.SearchStrategy[str]:
    """Model replies: tag soup of the fragments every dialect reacts to, some long runs, up to about 32 KB."""
    fragments = st.sampled_from(["<think>", "</think>", "<action>", "</action>", "<tool_call>", "</tool_call>", "```",
                                 "```json", "{", "}", "[", "]", '"', "'", "\\", ":", ",", " ", "\n", "Action:",
                                 "Thought:", "click(", ")", "start_box='", "(1,2)", "9" * 30, "\\ud800", "点",
                                 '{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [1, 2]}}'])
    runs = st.tuples(fragments, st.integers(1, 2000)).map(lambda t: t[0] * t[1])
    return st.lists(st.one_of(fragments, runs, st.text(max_size=30)), max_size=40).map(lambda parts: "".join(parts)[:32_768])
