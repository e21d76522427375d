"""`mobile-r1 train` through the CLI: one process, two processes (DDP over gloo), and clean errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mobile_r1.cli.main import main
from mobile_r1.core.formats import save_episodes
from mobile_r1.core.records import Episode

SFT_CONFIG = """\
model: {{name: tiny-lm}}
data: {{train: [data], eval: [data], history_window: 1, eval_max_steps: 2}}
optim: {{lr: 3.0e-3}}
sft: {{epochs: 2, batch_size: 4, micro_batch_size: 1, eval_max_new_tokens: 16}}
run: {{output_dir: {out}, save_every: 2, tensorboard: false}}
"""


def _write(tmp_path: Path, episodes: list[Episode], out: str) -> Path:
    save_episodes(tmp_path / "data", episodes)
    path = tmp_path / f"{out}.yaml"
    path.write_text(SFT_CONFIG.format(out=tmp_path / out))
    return path


def _train_records(run_dir: Path) -> list[dict]:
    return [r for r in map(json.loads, (run_dir / "metrics.jsonl").read_text().splitlines()) if r["kind"] == "train"]


def test_cli_trains_and_refuses_to_overwrite(
    tmp_path: Path, episodes: list[Episode], capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _write(tmp_path, episodes, "one")
    monkeypatch.chdir(tmp_path)
    assert main(["train", "--config", str(config), "--stage", "sft"]) == 0
    assert "sft: 4 steps" in capsys.readouterr().err
    assert (tmp_path / "one" / "final" / "model.safetensors").is_file()
    assert main(["train", "--config", str(config), "--stage", "sft"]) == 2
    assert "already holds a run" in capsys.readouterr().err
    assert main(["train", "--config", str(config), "--stage", "rl"]) == 2
    err = capsys.readouterr().err
    assert "stage must be one of sft, action-grpo" in err and "Traceback" not in err


@pytest.mark.slow
def test_two_processes_train_like_one(tmp_path: Path, episodes: list[Episode]) -> None:
    """DDP over gloo on CPU: each process takes half of every batch; the updates equal one process's."""
    single = _write(tmp_path, episodes, "single")
    double = _write(tmp_path, episodes, "double")
    from mobile_r1.train.run import train

    train(single, "sft", progress=False)
    proc = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2", "-m", "mobile_r1.cli.main", "train",
         "--config", str(double), "--stage", "sft"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stderr.count("sft: 4 steps") == 1  # only the main process reports
    one, two = _train_records(tmp_path / "single"), _train_records(tmp_path / "double")
    assert [r["processes"] for r in two] == [2.0] * 4 and [r["processes"] for r in one] == [1.0] * 4
    for a, b in zip(one, two):
        assert b["loss"] == pytest.approx(a["loss"], abs=1e-4)
        assert b["tokens"] == a["tokens"]
