"""`mobile-r1 train` through the CLI: one process, two processes (DDP over gloo; torchrun or accelerate launch), clean errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mobile_r1.agents import make_agent
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


@pytest.mark.slow
def test_cli_trains_and_refuses_to_overwrite(
    tmp_path: Path, episodes: list[Episode], capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _write(tmp_path, episodes, "one")
    monkeypatch.chdir(tmp_path)
    assert main(["train", "--config", str(config), "--stage", "sft"]) == 0
    err = capsys.readouterr().err
    assert "sft: 4 steps" in err
    assert "sft: 4/4 (elapsed " in err  # not a terminal: progress as lines, the last when the stage is done
    assert (tmp_path / "one" / "final" / "model.safetensors").is_file()
    card = json.loads((tmp_path / "one" / "card.json").read_text())  # what the run's numbers depend on
    assert card["kind"] == "train sft" and card["seed"] == 0 and card["packages"]["torch"]
    assert card["machine"]["processor"] and card["machine"]["torch_threads"] >= 1 and "OMP_WAIT_POLICY" in card["threads"]
    assert main(["train", "--config", str(config), "--stage", "sft"]) == 2
    assert "already holds a run" in capsys.readouterr().err
    assert main(["train", "--config", str(config), "--stage", "rl"]) == 2
    err = capsys.readouterr().err
    assert "unknown stage 'rl'; known: action-grpo, sft, task-grpo" in err and "Traceback" not in err


# `accelerate launch --cpu` starts a single process (its simple launcher); `--multi_gpu` is the flag that starts
# N processes through torch.distributed.run, and the run loop then picks gloo on CPU by itself.
LAUNCHERS = {
    "torchrun": ["-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2"],
    "accelerate": ["-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2", "--num_machines", "1",
                   "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port", "0"],
}


@pytest.mark.slow
def test_two_processes_train_like_one(tmp_path: Path, episodes: list[Episode]) -> None:
    """DDP over gloo on CPU, launched by torchrun and by accelerate launch: each process takes half of every batch;
    the updates equal one process's."""
    from mobile_r1.train.run import train

    train(_write(tmp_path, episodes, "single"), "sft", progress=False)  # also builds the preset the processes read
    one = _train_records(tmp_path / "single")
    assert [r["processes"] for r in one] == [1.0] * 4
    for launcher, args in LAUNCHERS.items():
        config = _write(tmp_path, episodes, launcher)
        proc = subprocess.run(
            [sys.executable, *args, "-m", "mobile_r1.cli.main", "train", "--config", str(config), "--stage", "sft"],
            cwd=tmp_path, capture_output=True, text=True, timeout=300, env={**os.environ, "OMP_NUM_THREADS": "1"},
        )
        assert proc.returncode == 0, (launcher, proc.stderr[-3000:])
        assert proc.stderr.count("sft: 4 steps") == 1, launcher  # only the main process reports
        two = _train_records(tmp_path / launcher)
        assert [r["processes"] for r in two] == [2.0] * 4, launcher
        for a, b in zip(one, two):
            assert b["loss"] == pytest.approx(a["loss"], abs=1e-4), launcher
            assert b["tokens"] == a["tokens"], launcher


@pytest.mark.slow
def test_trained_model_is_evaluated_with_its_training_prompts(
    tmp_path: Path, episodes: list[Episode], capsys: pytest.CaptureFixture
) -> None:
    config = _write(tmp_path, episodes, "run")
    assert main(["train", "--config", str(config), "--stage", "sft"]) == 0
    final = tmp_path / "run" / "final"
    view = json.loads((final / "prompt_view.json").read_text())
    assert view == {"dialect": "inquire", "observation_mode": "text", "frame": "qwen", "prescale": 1.0,
                    "min_pixels": 3136, "max_pixels": 1003520, "history_window": 1}
    data = tmp_path / "data" / "episodes.jsonl"

    def offline(name: str, *flags: str) -> list[str]:
        out = tmp_path / f"{name}.jsonl"
        assert main(["eval-offline", "--agent", f"hf:{final}", "--data", str(data), "--option", "max_new_tokens=12",
                     "--option", "temperature=1.0", "--out", str(out), *flags]) == 0
        return [r["model_text"] for r in map(json.loads, out.read_text().splitlines()) if "model_text" in r]

    implied = offline("implied")
    explicit = offline("explicit", "--dialect", "inquire", "--observation", "text", "--option", "frame=qwen",
                       "--option", "history_window=1")
    assert implied and implied == explicit  # sampled with the same seed: the same prompts give the same texts
    assert make_agent(f"hf:{final}").view.options() == view
    (final / "prompt_view.json").unlink()  # without it: the qwen2.5vl dialect, the screen frame, every past step
    assert offline("plain") != implied
    capsys.readouterr()
