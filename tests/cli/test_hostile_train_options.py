"""Hostile `mobile-r1 train` options: seeds out of numpy's range, `--set` values nested deep or expanding without
end, a model that is not there, a run folder that cannot be made. Each is a message and exit 2, and no run folder is
left behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from mobile_r1.cli.main import main

BOMB = "[" + ", ".join(f"&a{i} [" + ", ".join([f"*a{i - 1}" if i else "1"] * 10) + "]" for i in range(7)) + "]"


def _config(tmp_path: Path) -> Path:
    data = tmp_path / "episodes.jsonl"
    data.write_text("", encoding="utf-8")  # only its existence is checked before the run starts
    path = tmp_path / "c.yaml"
    path.write_text(f"model:\n  name: tiny-lm\ndata:\n  train: [{data}]\nrun:\n  max_steps: 1\n", encoding="utf-8")
    return path


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str], *expected: str) -> str:
    assert main(argv) == 2
    captured = capsys.readouterr()
    err = " ".join(captured.err.split())
    assert "Traceback" not in captured.err + captured.out
    for fragment in expected:
        assert fragment in err, err
    return err


@pytest.mark.parametrize("value, problem", [("-1", "greater than or equal to 0"),
                                            (str(2**32), "less than or equal to 4294967295")])
def test_a_seed_outside_numpys_range_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str,
                                                problem: str) -> None:
    run = tmp_path / "run"
    _refused(["train", "-c", str(_config(tmp_path)), "--stage", "sft", "-o", str(run), "--set", f"run.seed={value}"],
             capsys, "run.seed", problem)
    assert not run.exists()


@pytest.mark.parametrize("value, problem", [("[" * 100_000, "--set optim.lr: values nested deeper than 64 levels"),
                                            (BOMB, "--set optim.lr: expands to more than 1,000,000 values")])
def test_a_set_value_nested_deep_or_expanding_without_end_is_refused(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str], value: str,
                                                                     problem: str) -> None:
    run = tmp_path / "run"
    _refused(["train", "-c", str(_config(tmp_path)), "--stage", "sft", "-o", str(run), "--set", f"optim.lr={value}"],
             capsys, problem)
    assert not run.exists()


@pytest.mark.parametrize("stage", [["--stage", "sft"], []])
def test_a_model_folder_without_a_model_is_refused_before_the_run_folder_is_made(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], stage: list[str]) -> None:
    run = tmp_path / "run"
    _refused(["train", "-c", str(_config(tmp_path)), *stage, "-o", str(run), "--set", "model.name=/etc"], capsys,
             "model.name: /etc is not a model folder (it holds no config.json")
    assert not run.exists()


@pytest.mark.parametrize("stage", [["--stage", "sft"], []])
def test_a_run_folder_that_cannot_be_made_is_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                       stage: list[str]) -> None:
    config = _config(tmp_path)
    _refused(["train", "-c", str(config), *stage, "-o", "/proc/mobile-r1-run"], capsys,
             "cannot make the run folder /proc/mobile-r1-run")
    taken = tmp_path / "taken"
    taken.write_text("a file", encoding="utf-8")
    _refused(["train", "-c", str(config), *stage, "-o", str(taken)], capsys, f"the run folder {taken} is a file")
    assert taken.read_text(encoding="utf-8") == "a file"


def test_eval_refuses_a_run_folder_that_cannot_be_made(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    taken = tmp_path / "taken"
    taken.write_text("a file", encoding="utf-8")
    _refused(["eval", "--agent", "random", "--episodes", "1", "--out", str(taken)], capsys,
             f"the run folder {taken} is a file")
    _refused(["eval", "--agent", "random", "--episodes", "1", "--out", "/proc/mobile-r1-run"], capsys,
             "cannot make the run folder /proc/mobile-r1-run")
