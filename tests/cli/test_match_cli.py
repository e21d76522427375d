"""`mobile-r1 match`: per-pair JSON, the summary with the preset name, misses for invalid predictions, bad records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mobile_r1.cli.main import main


def write(path: Path, records: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records), encoding="utf-8")
    return path


PAIRS = [
    {"pred": {"action": "click", "coordinate": [500, 1000]}, "label": {"action": "click", "coordinate": [505, 1000]}, "bbox": None, "screen_size": [1000, 2000]},
    {"pred": {"action": "click", "coordinate": [900, 1900]}, "label": {"action": "click", "coordinate": [100, 100]}, "bbox": [-1, -1, -1, -1], "screen_size": [1000, 2000]},
    {"pred": {"name": "mobile_use", "arguments": {"action": "call_user", "content": "which one?"}}, "label": {"action": "call_user", "content": "ask"}, "screen_size": [1000, 2000]},
    {"pred": {"action": "teleport"}, "label": {"action": "type", "text": "hi"}, "bbox": None, "screen_size": [1000, 2000]},
    {"pred": None, "label": {"action": "system_button", "button": "Back"}, "screen_size": [1000, 2000]},
]


def test_match_prints_pairs_then_summary(tmp_path: Path, capsys) -> None:
    path = write(tmp_path / "pairs.jsonl", PAIRS)
    assert main(["match", "--preset", "qwen-ac", "--input", str(path)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[:5] == [
        {"type_match": True, "grounding": True, "exact": True},
        {"type_match": True, "grounding": False, "exact": False},
        {"type_match": True, "grounding": None, "exact": True},
        {"type_match": False, "grounding": None, "exact": False},  # an invalid prediction is a miss
        {"type_match": False, "grounding": None, "exact": False},
    ]
    summary = lines[5]["summary"]
    assert summary["preset"] == "qwen-ac" and summary["steps"] == 5
    assert summary["type"] == pytest.approx(3 / 5)
    assert summary["grounding"] == pytest.approx(1 / 2)
    assert summary["step_sr"] == pytest.approx(2 / 5)
    assert summary["per_type"]["click"]["steps"] == 2
    assert summary["inquiry"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0, "tp": 1, "fp": 0, "fn": 0}


def test_presets_differ(tmp_path: Path, capsys) -> None:
    # 140 px right on a 1000 px wide screen: aitw accepts (<= 0.14), gui-r1 does not (< 0.14)
    pair = {"pred": {"action": "click", "coordinate": [640, 1000]}, "label": {"action": "click", "coordinate": [500, 1000]}, "screen_size": [1000, 2000]}
    path = write(tmp_path / "p.jsonl", [pair])
    results = {}
    for preset in ("aitw", "gui-r1"):
        assert main(["match", "-p", preset, "-i", str(path)]) == 0
        out = capsys.readouterr().out.splitlines()
        results[preset] = json.loads(out[0])["exact"]
        assert json.loads(out[-1])["summary"]["preset"] == preset
    assert results == {"aitw": True, "gui-r1": False}


@pytest.mark.parametrize(
    "record, field",
    [
        ({"pred": None, "label": {"action": "fly"}, "screen_size": [1, 1]}, "label"),
        ({"pred": None, "screen_size": [1, 1]}, "label"),
        ({"pred": None, "label": {"action": "wait"}}, "screen_size"),
        ({"pred": None, "label": {"action": "wait"}, "screen_size": [0, 5]}, "screen_size"),
        ({"pred": None, "label": {"action": "wait"}, "screen_size": [5, 5], "bbox": [1, 2]}, "bbox"),
    ],
)
def test_malformed_record_errors_with_line_and_field(tmp_path: Path, capsys, record: dict, field: str) -> None:
    path = write(tmp_path / "pairs.jsonl", [PAIRS[0], record])
    assert main(["match", "--preset", "aitw", "--input", str(path)]) == 2
    err = capsys.readouterr().err
    assert "pairs.jsonl:2" in err and f"'{field}'" in err and "Traceback" not in err


def test_unknown_preset(tmp_path: Path, capsys) -> None:
    path = write(tmp_path / "pairs.jsonl", PAIRS[:1])
    assert main(["match", "--preset", "strict", "--input", str(path)]) == 2
    assert "gui-r1" in capsys.readouterr().err
