"""The shared reading path: every hostile file gives `file:line: field: what` as a project error, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from mobile_r1.core.errors import ConfigError, DataError
from mobile_r1.core.reading import MAX_DEPTH, read_json, read_jsonl, read_yaml


def lines(tmp_path: Path, data: bytes, name: str = "data.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def error_of(path: Path, **options: object) -> str:
    with pytest.raises(DataError) as info:
        list(read_jsonl(path, **options))  # type: ignore[arg-type]
    return str(info.value)


def test_good_lines_come_back_with_their_line_numbers(tmp_path: Path) -> None:
    path = lines(tmp_path, b'\xef\xbb\xbf{"a": 1}\n\n{"b": [1, 2.5, "\\ud83d\\ude00"]}\n')
    assert [(w.line, v) for w, v in read_jsonl(path)] == [(1, {"a": 1}), (3, {"b": [1, 2.5, "\U0001f600"]})]


def test_bytes_that_are_not_utf8_name_the_line_and_column(tmp_path: Path) -> None:
    path = lines(tmp_path, b'{"a": 1}\n{"b": "caf\xe9"}\n')
    assert error_of(path) == f"{path}:2: not UTF-8 text (byte 0xe9 at column 11); save the file as UTF-8"


def test_json_nested_100000_deep_is_refused(tmp_path: Path) -> None:
    path = lines(tmp_path, b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n")
    assert f"{path}:1: values nested deeper than {MAX_DEPTH} levels" in error_of(path)


def test_nesting_just_past_the_limit_names_the_field(tmp_path: Path) -> None:
    path = lines(tmp_path, b'{"a": ' + b"[" * MAX_DEPTH + b"]" * MAX_DEPTH + b"}\n")
    message = error_of(path)
    assert f"{path}:1: field 'a[0][0]" in message and "nested deeper" in message


@pytest.mark.parametrize(
    "number, field, problem",
    [
        (b"9" * 400, "x.y[1]", "out of range"),
        (b"-" + b"9" * 5000, "x.y[1]", "out of range"),
        (b"1e400", "x.y[1]", "too large to be a finite number"),
        (b"Infinity", "x.y[1]", "not a finite number"),
        (b"NaN", "x.y[1]", "not a finite number"),
    ],
)
def test_numbers_out_of_range_name_their_field(tmp_path: Path, number: bytes, field: str, problem: str) -> None:
    path = lines(tmp_path, b'{"ok": 1}\n{"x": {"y": [1, ' + number + b"]}}\n")
    message = error_of(path)
    assert message.startswith(f"{path}:2: field '{field}': ") and problem in message
    assert len(message) < 300  # a 5,000-digit number is not printed whole


def test_large_but_ordinary_integers_pass(tmp_path: Path) -> None:
    path = lines(tmp_path, b'{"id": 9223372036854775807, "t": -1700000000000}\n')
    assert [v for _, v in read_jsonl(path)] == [{"id": 2**63 - 1, "t": -1700000000000}]


def test_a_lone_surrogate_is_not_text(tmp_path: Path) -> None:
    path = lines(tmp_path, b'{"label": {"text": "\\ud800x"}}\n')
    assert "field 'label.text': holds a lone surrogate" in error_of(path)


def test_a_line_longer_than_the_limit_is_refused_without_reading_it_whole(tmp_path: Path) -> None:
    path = lines(tmp_path, b'{"a": "' + b"x" * 5000 + b'"}\n{"b": 1}\n')
    message = error_of(path, max_line_bytes=1000)
    assert message.startswith(f"{path}:1: the line is longer than 1,000 bytes")
    assert [v for _, v in read_jsonl(path, max_line_bytes=5010)][1] == {"b": 1}


def test_invalid_json_names_the_line(tmp_path: Path) -> None:
    path = lines(tmp_path, b'{"a": 1}\n{"a": \n')
    assert error_of(path) == f"{path}:2: not valid JSON (Expecting value at column 7)"


def test_missing_file(tmp_path: Path) -> None:
    assert "no such file" in error_of(tmp_path / "none.jsonl")


# ----- JSON and YAML documents ----------------------------------------------------------------------------------
def test_json_document_errors(tmp_path: Path) -> None:
    path = lines(tmp_path, b'{\n  "agent": "x",\n  "n": NaN\n}\n', "run.json")
    with pytest.raises(DataError, match="field 'n': NaN is not a finite number"):
        read_json(path)
    with pytest.raises(DataError, match="is a folder"):
        read_json(tmp_path)


def yaml_error(tmp_path: Path, text: bytes) -> str:
    path = lines(tmp_path, text, "config.yaml")
    with pytest.raises(ConfigError) as info:
        read_yaml(path, kind=ConfigError)
    return str(info.value)


def test_yaml_non_finite_value_names_its_line_and_field(tmp_path: Path) -> None:
    message = yaml_error(tmp_path, b"model:\n  name: tiny-lm\noptim:\n  lr: .inf\n")
    assert message == f"{tmp_path / 'config.yaml'}:4: field 'optim.lr': inf is not a finite number"


@pytest.mark.slow
@pytest.mark.parametrize(
    "text, problem",
    [
        (b"a: \xff\n", "not UTF-8 text"),
        (b"a: [1, " + b"9" * 5000 + b"]\n", "a number is out of range"),
        (b"a: " + b"[" * 100_000 + b"]" * 100_000 + b"\n", "nested deeper"),
        (b"a: [1\n", "not valid YAML"),
        (b"a: .nan\n", "not a finite number"),
        (b"a: " + b"9" * 30 + b"\n", "out of range"),
    ],
)
def test_yaml_hostile_documents(tmp_path: Path, text: bytes, problem: str) -> None:
    assert problem in yaml_error(tmp_path, text)


def test_yaml_aliases_that_expand_without_bound_are_refused(tmp_path: Path) -> None:
    rows = ["a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    for prev, name in zip("abcdef", "bcdefg"):
        rows.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 10) + "]")
    message = yaml_error(tmp_path, ("\n".join(rows) + "\n").encode())
    assert "expands to more than 1,000,000 values" in message
