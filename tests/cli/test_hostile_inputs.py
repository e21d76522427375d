"""Hostile input files through the `mobile-r1` commands: each gives `file:line: field: what` and exit 2, never a
traceback, and nothing silently accepted (non-finite values, absurd sizes, empty files)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mobile_r1.cli.main import main

PAIR = {"pred": {"action": "click", "coordinate": [500, 1000]}, "label": {"action": "click", "coordinate": [505, 1000]},
        "bbox": [400, 900, 600, 1100], "screen_size": [1000, 2000]}
CASE = {"completion": '<think>t</think><tool_call>{"name": "mobile_use", "arguments": {"action": "wait"}}</tool_call>',
        "label": {"name": "mobile_use", "arguments": {"action": "wait"}}, "bbox": None, "image_size": [1000, 2000],
        "model_image_size": [500, 1000]}
TRAJECTORY = {"app_name": "Notes", "instruction": "Open notes", "image_width": 1080, "image_height": 2400,
              "trajectory": [{"action": {"name": "mobile_use", "arguments": {"action": "click", "coordinate": [100, 200]}},
                              "bbox": [0, 0, 300, 300], "thought": "t", "subtask": "s"}]}
JUDGE = {"reason": "ok", "reward": 0.5, "status": "success", "inquiry": "success"}


def write(path: Path, data: bytes | list[Any]) -> Path:
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in data), encoding="utf-8")
    return path


def fails(argv: list[str], capsys: pytest.CaptureFixture[str], *expected: str) -> str:
    """Run the command: exit 2, no traceback, and the (unwrapped) error holds every `expected` fragment."""
    assert main(argv) == 2
    captured = capsys.readouterr()
    err = " ".join(captured.err.split())
    assert "Traceback" not in captured.err + captured.out
    for fragment in expected:
        assert fragment in err, err
    return err


def commands(path: Path) -> dict[str, list[str]]:
    return {
        "reward": ["reward", "--preset", "inquire-mobile", "--input", str(path)],
        "match": ["match", "--input", str(path)],
        "data stats": ["data", "stats", str(path), "--format", "mobile-r1"],
        "rescore": ["rescore", str(path)],
    }


GOOD = {"reward": CASE, "match": PAIR, "data stats": TRAJECTORY, "rescore": JUDGE}


@pytest.mark.parametrize("command", list(GOOD))
def test_bytes_that_are_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    good = json.dumps(GOOD[command]).encode()
    path = write(tmp_path / "in.jsonl", good + b"\n" + good[:-1] + b', "note": "caf\xe9"}\n')
    fails(commands(path)[command], capsys, f"{path}:2: not UTF-8 text (byte 0xe9")


def test_a_train_config_that_is_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "c.yaml", b"model:\n  name: tiny-lm\n# caf\xe9\n")
    fails(["train", "--config", str(path), "--stage", "sft"], capsys, f"{path}:3: not UTF-8 text")


@pytest.mark.parametrize("command", list(GOOD))
def test_json_nested_100000_deep(tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    path = write(tmp_path / "in.jsonl", [GOOD[command], '{"x": ' + "[" * 100_000 + "]" * 100_000 + "}"])
    fails(commands(path)[command], capsys, f"{path}:2: values nested deeper than")


def test_a_type_text_longer_than_a_record_may_be_is_refused_by_reward(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """One 17 MB `type` text (the 200 MB probe made `mobile-r1 reward` grow past 22 GB): refused, named, exit 2."""
    long_case = json.dumps(CASE)[:-1] + ', "note": "' + "word " * (17 * 2**20 // 5) + '"}'
    path = write(tmp_path / "in.jsonl", [CASE, long_case, CASE])
    fails(commands(path)["reward"], capsys, f"{path}:2: the line is longer than 16 MiB")


@pytest.mark.parametrize("digits", [400, 5000])
def test_huge_integers_in_reward_cases(tmp_path: Path, capsys: pytest.CaptureFixture[str], digits: int) -> None:
    path = write(tmp_path / "in.jsonl", [json.dumps(CASE)[:-1] + ', "bbox": [1, 2, ' + "9" * digits + ", 4]}"])
    fails(commands(path)["reward"], capsys, f"{path}:1: field 'bbox[2]': ", "out of range")


@pytest.mark.parametrize("field, value", [("bbox", "[1, 2, Infinity, 4]"), ("bbox", "[NaN, 2, 3, 4]"),
                                          ("screen_size", "[Infinity, 2000]"), ("screen_size", "[1000, NaN]")])
def test_non_finite_boxes_and_sizes_in_match(tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str,
                                             value: str) -> None:
    path = write(tmp_path / "in.jsonl", [json.dumps(PAIR)[:-1] + f', "{field}": {value}}}'])
    fails(commands(path)["match"], capsys, f"{path}:1: field '{field}[", "not a finite number")


@pytest.mark.parametrize("change", [{"image_width": "Infinity"}, {"trajectory": [{**TRAJECTORY["trajectory"][0],
                                                                                  "bbox": "[0, 0, NaN, 300]"}]}])
def test_non_finite_boxes_and_sizes_in_data_stats(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  change: dict[str, Any]) -> None:
    text = json.dumps({**TRAJECTORY, **change}).replace('"Infinity"', "Infinity").replace('"[0, 0, NaN, 300]"',
                                                                                           "[0, 0, NaN, 300]")
    path = write(tmp_path / "in.jsonl", [text])
    fails(commands(path)["data stats"], capsys, f"{path}:1: field '", "not a finite number")


@pytest.mark.parametrize("size", [[10**400, 1], [0.5, 0.5], [0, 100], [1e9, 2000]])
def test_absurd_screen_sizes_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], size: list[Any]) -> None:
    path = write(tmp_path / "in.jsonl", [{**PAIR, "screen_size": size}])
    fails(commands(path)["match"], capsys, f"{path}:1: field 'screen_size")


def test_brackets_in_error_messages_survive(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "in.jsonl", [{**PAIR, "bbox": [1, 2, 3]}])
    fails(commands(path)["match"], capsys, "must be [x1, y1, x2, y2] (finite numbers", "or null, got [1, 2, 3]")


@pytest.mark.parametrize("pred", [
    '{"action": "click", "coordinate": [' + "9" * 5000 + ", 1]}",  # a digit string beyond Python's int limit
    "[" * 5000 + "]" * 5000,  # deeper than json can decode
    {"action": "click", "coordinate": [1, 2, 3]},
    '{"action": "click", "coordinate": [' + "9" * 400 + ", 1]}",  # an integer no float can hold
])
def test_an_invalid_prediction_is_a_miss(tmp_path: Path, capsys: pytest.CaptureFixture[str], pred: Any) -> None:
    path = write(tmp_path / "in.jsonl", [PAIR, {**PAIR, "pred": pred}])
    assert main(commands(path)["match"]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert out[1] == {"type_match": False, "grounding": None, "exact": False}
    assert out[2]["summary"]["steps"] == 2


@pytest.mark.parametrize("reward, shown", [("Infinity", "Infinity"), ("-5", "-5"), ('"high"', '"high"'),
                                           ("7", "7")])
def test_rescore_refuses_rewards_out_of_range(tmp_path: Path, capsys: pytest.CaptureFixture[str], reward: str,
                                              shown: str) -> None:
    path = write(tmp_path / "eval_m_en.jsonl", [JUDGE, json.dumps(JUDGE).replace("0.5", reward)])
    if reward == "Infinity":
        fails(commands(path)["rescore"], capsys, f"{path}:2: field 'reward': Infinity is not a finite number")
    else:
        fails(commands(path)["rescore"], capsys, f"{path}:2: field 'reward': must be the judge's score", shown)


@pytest.mark.parametrize("command", list(GOOD))
def test_empty_input_files_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    path = write(tmp_path / "eval_m_en.jsonl", b"\n\n")
    err = fails(commands(path)[command], capsys, str(path))
    assert "no " in err or "empty" in err


def test_infinite_learning_rate_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "c.yaml", b"model:\n  name: tiny-lm\noptim:\n  lr: .inf\n")
    fails(["train", "--config", str(path), "--stage", "sft"], capsys, f"{path}:4: field 'optim.lr': inf is not a finite")


@pytest.mark.parametrize("section, value", [("lr: 1.0e+308", "optim.lr"), ("lr: 5.0", "optim.lr")])
def test_absurd_learning_rates_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], section: str,
                                           value: str) -> None:
    path = write(tmp_path / "c.yaml", f"model:\n  name: tiny-lm\noptim:\n  {section}\n".encode())
    fails(["train", "--config", str(path), "--stage", "sft"], capsys, f"{path}: {value}: Input should be less than")


@pytest.mark.parametrize("option, problem", [("temperature=NaN", "not a finite number"),
                                             ("temperature=" + "9" * 400, "out of range")])
def test_agent_options_out_of_range_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str,
                                                problem: str) -> None:
    run = tmp_path / "run"
    fails(["eval", "--agent", "random", "--option", option, "--out", str(run)], capsys, "--option: field '", problem)
    assert not run.exists()
