"""`mobile-r1 reward` through the CLI entry point: output records, output files and error messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mobile_r1.cli.main import main


def call(arguments: dict[str, Any]) -> str:
    return f"<think>t</think>\n<tool_call>\n{json.dumps({'name': 'mobile_use', 'arguments': arguments})}\n</tool_call>"


def case(completion: str, arguments: dict[str, Any], bbox: Any = None) -> dict[str, Any]:
    return {
        "completion": completion,
        "label": {"name": "mobile_use", "arguments": arguments},
        "bbox": bbox,
        "image_size": [1000, 2000],
        "model_image_size": [500, 1000],
    }


CASES = [
    case(call({"action": "click", "coordinate": [125, 250]}), {"action": "click", "coordinate": [125, 250]}, [200, 400, 300, 600]),
    case(call({"action": "click", "coordinate": [400, 900]}), {"action": "click", "coordinate": [125, 250]}, [200, 400, 300, 600]),
    case("no format", {"action": "wait"}, [-1, -1, -1, -1]),
    case(call({"action": "call_user", "content": "pay now ?"}), {"action": "call_user", "content": "pay now ?"}),
]


def write(tmp_path: Path, records: list[Any], name: str = "cases.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records), encoding="utf-8")
    return path


def test_scores_each_line_in_order(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, CASES)
    assert main(["reward", "--preset", "inquire-mobile", "--input", str(path)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines == [
        {"format": 1.0, "accuracy": 2.0, "total": 3.0, "type": 1.0, "argument": 1.0},
        {"format": 1.0, "accuracy": 1.0, "total": 2.0, "type": 1.0, "argument": 0.0},
        {"format": -1.0, "accuracy": 0.0, "total": -1.0, "type": 0.0, "argument": 0.0},
        {"format": 1.0, "accuracy": 1.0, "total": 2.0, "type": 1.0, "argument": 0.0},  # three tokens: BLEU 0
    ]


def test_fixed_preset_scores_short_identical_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, CASES[3:])
    assert main(["reward", "-p", "inquire-mobile-fixed", "-i", str(path)]) == 0
    (line,) = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert line["argument"] == pytest.approx(1.0) and line["total"] == pytest.approx(3.0)


def test_output_file_and_blank_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, [CASES[0], "", CASES[1]])
    out = tmp_path / "scores.jsonl"
    assert main(["reward", "--preset", "ui-r1", "--input", str(path), "--output", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "2 completions scored with ui-r1" in " ".join(captured.err.split())
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert records == [
        {"format": 1.0, "accuracy": 2.0, "total": 3.0, "type": 1.0, "coordinate": 1.0},
        {"format": 1.0, "accuracy": 1.0, "total": 2.0, "type": 1.0, "coordinate": 0.0},
    ]


def test_bad_json_line_names_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, [CASES[0], CASES[1], '{"completion": "x", ', CASES[2]])
    out = tmp_path / "scores.jsonl"
    assert main(["reward", "--preset", "gui-r1", "--input", str(path), "--output", str(out)]) == 2
    err = " ".join(capsys.readouterr().err.split())  # the console wraps long lines
    assert f"{path}:3: not valid JSON" in err
    assert "Traceback" not in err
    assert not out.exists()  # every line is checked before anything is written


@pytest.mark.parametrize(
    "change, field",
    [
        ({"bbox": [1, 2, 3]}, "'bbox'"),
        ({"image_size": [1000]}, "'image_size'"),
        ({"model_image_size": None}, "'model_image_size'"),
        ({"label": {"name": "mobile_use", "arguments": {"action": "teleport"}}}, "'label.arguments'"),
        ({"completion": 7}, "'completion'"),
    ],
)
def test_bad_field_names_the_line_and_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict[str, Any], field: str
) -> None:
    path = write(tmp_path, [CASES[0], {**CASES[1], **change}])
    assert main(["reward", "--preset", "mobile-r1", "--input", str(path)]) == 2
    captured = capsys.readouterr()
    err = " ".join(captured.err.split())
    assert f"{path}:2: " in err and field in err
    assert captured.out == ""


def test_missing_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = dict(CASES[0])
    del record["label"]
    path = write(tmp_path, [record])
    assert main(["reward", "--preset", "mobile-r1", "--input", str(path)]) == 2
    assert f"{path}:1: missing field 'label'" in " ".join(capsys.readouterr().err.split())


def test_unknown_preset_lists_the_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, CASES)
    assert main(["reward", "--preset", "inquire", "--input", str(path)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "unknown reward preset 'inquire'" in err
    assert "inquire-mobile, inquire-mobile-fixed, mobile-r1, gui-r1, ui-r1" in err


def test_missing_input_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reward", "--preset", "ui-r1", "--input", str(tmp_path / "nope.jsonl")]) == 2
    assert "nope.jsonl: no such file" in " ".join(capsys.readouterr().err.split())


def test_help_lists_presets(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reward", "--help"]) == 0
    assert "inquire-mobile-fixed" in capsys.readouterr().out
