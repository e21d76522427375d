"""Training stages are found by one registry: the built-in ones by name, a third-party stage in a package of its own
(reached as `--stage package.module:Name`, or by registering its name) without touching mobile_r1.train."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from mobile_r1.cli.main import main
from mobile_r1.core.errors import ConfigError
from mobile_r1.train.config import TrainConfig
from mobile_r1.train.registry import STAGES, default_curriculum, register_stage, stage_class

# A stage outside mobile_r1: one optimizer step per run-loop step on the language-model loss of a fixed sentence.
WARMUP = '''
"""A third-party training stage: language-model warm-up on one sentence."""
import torch

from mobile_r1.train.data import PromptSettings
from mobile_r1.train.stage import StageRunner, config_policy, optimizer_step


class Warmup(StageRunner):
    name = "warmup"
    title = "after the warm-up"
    order = 5

    @classmethod
    def build(cls, config, accelerator, *, resume=False, sampler=None):
        return cls(config_policy(config, accelerator, PromptSettings(observation_mode="text")), config.run.max_steps)

    def __init__(self, policy, steps):
        self.policy, self.total_steps = policy, steps
        self.ids = torch.tensor([policy.tokenizer("tap the blue button", add_special_tokens=False).input_ids])

    def attach(self, optimizer, scheduler):
        self.optimizer, self.scheduler = optimizer, scheduler

    def step(self, step):
        ids = self.ids.to(self.policy.device)
        loss = self.policy.model(input_ids=ids, labels=ids).loss
        loss.backward()
        optimizer_step(self.optimizer, 1.0)
        self.scheduler.step()
        return {"loss": float(loss.detach())}
'''


@pytest.fixture
def third_party(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The package `h49_stages` on the path, with the stage in `h49_stages.warmup`."""
    package = tmp_path / "pkgs" / "h49_stages"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "warmup.py").write_text(WARMUP)
    monkeypatch.syspath_prepend(str(tmp_path / "pkgs"))
    return "h49_stages.warmup:Warmup"


def _config(tmp_path: Path, out: str) -> Path:
    path = tmp_path / f"{out}.yaml"
    path.write_text(yaml.safe_dump({"model": {"name": "tiny-lm"}, "optim": {"lr": 1.0e-2, "scheduler": "constant"},
                                    "run": {"output_dir": str(tmp_path / out), "max_steps": 3, "tensorboard": False}}))
    return path


def _losses(run_dir: Path) -> list[float]:
    records = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert {r["stage"] for r in records} == {"warmup"}
    return [r["loss"] for r in records if r["kind"] == "train"]


def test_the_built_in_stages_are_registered_by_their_own_modules() -> None:
    assert default_curriculum() == ["sft", "action-grpo", "task-grpo"]
    assert [stage_class(name).name for name in default_curriculum()] == default_curriculum()
    assert [stage_class(name).order for name in default_curriculum()] == sorted(
        stage_class(name).order for name in default_curriculum())
    assert stage_class("task-grpo").__module__ == "mobile_r1.train.task_stage"
    with pytest.raises(ConfigError, match="unknown stage 'rl'"):
        stage_class("rl")


def test_a_third_party_stage_trains_from_the_shell_by_its_module_path(
        third_party: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", "--config", str(_config(tmp_path, "run")), "--stage", third_party]) == 0
    assert "warmup: 3 steps" in capsys.readouterr().err
    losses = _losses(tmp_path / "run")
    assert len(losses) == 3 and losses[2] < losses[0]  # it trained: the sentence got likelier
    assert (tmp_path / "run" / "final" / "model.safetensors").is_file()
    assert main(["train", "--config", str(_config(tmp_path, "bad")), "--stage", "h49_stages.warmup:Nope"]) == 2
    assert "has no attribute 'Nope'" in capsys.readouterr().err


def test_a_registered_third_party_stage_is_found_by_name_everywhere(third_party: str, tmp_path: Path) -> None:
    import importlib

    from mobile_r1.train.run import train

    warmup = getattr(importlib.import_module("h49_stages.warmup"), "Warmup")
    register_stage(warmup)
    assert "warmup" in STAGES and stage_class("warmup") is warmup
    result = train(_config(tmp_path, "named"), "warmup", progress=False)
    assert result.steps == 3 and len(_losses(result.run_dir)) == 3
    # a config may name it, and orders the curriculum by the stages' own order
    config = TrainConfig.model_validate({"curriculum": {"stages": ["warmup", "sft"], "stage_lr": {"warmup": 0.1}}})
    assert config.curriculum.stages == ["warmup", "sft"]
    with pytest.raises(ValueError, match="unknown stage 'warmpu'"):
        TrainConfig.model_validate({"curriculum": {"stages": ["warmpu"]}})
