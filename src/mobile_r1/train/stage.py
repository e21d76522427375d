"""What a training stage gives the one run loop (`train.run.train`): its steps, one optimizer step, an evaluation.

Stage 1 (`sft.SFTRunner`), stage 2 (`action_grpo.ActionGRPORunner`) and stage 3 (`task_stage.TaskGRPORunner`)
subclass `StageRunner` and register themselves by name (`train.registry.register_stage`); the loop finds them in the
registry and owns everything else (run directory, metrics, checkpoints, resume, processes). A new stage is one file:

    @register_stage
    class Distill(StageRunner):
        name, title, order = "distill", "after distillation", 25
        @classmethod
        def build(cls, config, accelerator, *, resume=False, sampler=None): ...   # load its policy and data
        def attach(self, optimizer, scheduler): ...
        def step(self, step): ...                                                 # one optimizer step; its metrics

A stage never imports the run loop (a contract in pyproject.toml): what it shares with the other stages is here.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import torch
from accelerate import Accelerator
from accelerate.utils import broadcast_object_list
from torch.optim.lr_scheduler import LRScheduler

from mobile_r1.core.files import write_json
from mobile_r1.models.policy import LoraSettings, Policy, load_policy
from mobile_r1.train.config import TrainConfig
from mobile_r1.train.data import PromptSettings, check_policy_fits

if TYPE_CHECKING:
    from mobile_r1.train.rollout import Sampler

log = logging.getLogger(__name__)


def optimizer_step(optimizer: torch.optim.Optimizer, grad_norm: float) -> bool:
    """Apply the gradients unless their norm is not finite; either way clear them. Returns whether it stepped.

    One overflowing micro-batch (seen in bfloat16 on a GPU) would otherwise turn every trained weight into NaN, and
    the run would go on producing nothing; the step is skipped instead, counted in the metrics as `nonfinite_grad`.
    The learning-rate schedule still advances, so the run keeps its length and a resumed run the same schedule.
    """
    finite = math.isfinite(grad_norm)
    if finite:
        optimizer.step()
    else:
        log.warning("gradient norm is %s: optimizer step skipped (the weights are unchanged)", grad_norm)
    optimizer.zero_grad(set_to_none=True)
    return finite


def fingerprint(what: object) -> str:
    """A hash of `what` (JSON values): what a choice a stage makes at its start depends on."""
    return hashlib.sha256(json.dumps(what, sort_keys=True, default=str).encode("utf-8")).hexdigest()


def read_start_record(path: Path, fingerprint: str, resume: bool, accelerator: Accelerator) -> dict[str, Any] | None:
    """The record of a choice made from a stage's starting weights (stage 2's `skip_solved`, stage 3's `select`), read
    back by a resumed run when `path` was written for the same `fingerprint`; None otherwise (make the choice again).
    The main process reads it and every process takes its answer."""
    record = None
    if accelerator.is_main_process and resume and path.exists():
        saved = json.loads(path.read_text(encoding="utf-8"))
        record = saved if saved.get("fingerprint") == fingerprint else None
    if accelerator.num_processes > 1:
        record = broadcast_object_list([record])[0]
    return record


def write_start_record(path: Path, record: dict[str, Any], fingerprint: str) -> None:
    """Write `record` with its `fingerprint` to `path`, whole or not at all: a resumed run may read it back."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json(path, {**record, "fingerprint": fingerprint})


def config_policy(config: TrainConfig, accelerator: Accelerator, settings: PromptSettings) -> Policy:
    """The policy a training config names (model, dtype, LoRA, gradient checkpointing) on this process's device,
    checked to read the prompts `settings` describe."""
    lora = config.model.lora
    policy = load_policy(
        config.model.name,
        dtype=config.model.dtype,
        lora=LoraSettings(lora.r, lora.alpha, lora.dropout, lora.target_modules) if lora else None,
        gradient_checkpointing=config.model.gradient_checkpointing,
        device=str(accelerator.device),
    )
    check_policy_fits(policy, settings)
    return policy


class StageRunner:
    """One stage for the run loop. `total_steps` run-loop steps; `updates_per_step` optimizer steps in each.

    Class attributes describe the stage to the run loop and the curriculum: `name` (what `--stage` and configs call
    it), `title` (how a comparison names the model after it), `order` (where it runs in a curriculum: lower first)
    and `labelled_data` (it trains on the episodes of `data.train`).
    """

    name: ClassVar[str] = "stage"
    title: ClassVar[str] = ""
    order: ClassVar[int] = 100
    labelled_data: ClassVar[bool] = False
    policy: Policy
    total_steps: int = 0
    updates_per_step: int = 1

    @classmethod
    def check(cls, config: TrainConfig) -> None:
        """Fail early, before a model loads, on settings this stage cannot run with (nothing by default)."""

    @classmethod
    def build(cls, config: TrainConfig, accelerator: Accelerator, *, resume: bool = False,
              sampler: Sampler | None = None) -> StageRunner:
        """The stage ready to train: its policy loaded (`config_policy`) and its data read. `resume` says the run
        continues from a checkpoint (a choice made from the starting weights may be read back); `sampler` replaces the
        policy's sampling where the stage samples episodes (tests script the model's outputs)."""
        raise NotImplementedError

    @classmethod
    def training_instructions(cls, config: TrainConfig) -> set[str]:
        """The task instructions this stage trains on besides `data.train`'s episodes (what in-distribution
        evaluation episodes must not repeat)."""
        return set()

    def attach(self, optimizer: torch.optim.Optimizer, scheduler: LRScheduler) -> None:
        """Take the optimizer and scheduler the loop built (after `accelerator.prepare`)."""
        raise NotImplementedError

    def step(self, step: int) -> dict[str, float]:
        """Run-loop step `step` (0-based): train, and return what was measured."""
        raise NotImplementedError

    @property
    def has_eval(self) -> bool:
        """Whether `evaluate` has anything to score (held-out steps or episodes)."""
        return False

    def evaluate(self) -> dict[str, float]:
        return {}

    def record(self, run_dir: Path, step: int) -> None:
        """After step `step` (1-based count of steps done), on the main process: write the stage's own records."""

    def truncate(self, run_dir: Path, step: int) -> None:
        """On resume from step `step`: drop the stage's own records of later steps (they are played again)."""

    def close(self) -> None:
        """Release what the stage holds (a pool of phone workers); the loop calls it when the stage ends or fails."""


__all__ = ["StageRunner", "config_policy", "fingerprint", "optimizer_step", "read_start_record", "write_start_record"]
