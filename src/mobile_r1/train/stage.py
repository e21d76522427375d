"""What a training stage gives the one run loop (`train.run.train`): its steps, one optimizer step, an evaluation.

Stage 1 (`sft.SFTRunner`), stage 2 (`action_grpo.ActionGRPORunner`) and stage 3 (`task_grpo.TaskGRPORunner`)
subclass `StageRunner`; the loop owns everything else (run directory, metrics, checkpoints, resume, processes).
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
from pathlib import Path
from typing import Any

import torch

from mobile_r1.core.files import write_json

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


def fingerprint(what: Any) -> str:
    """A hash of `what` (JSON values): what a choice a stage makes at its start depends on."""
    return hashlib.sha256(json.dumps(what, sort_keys=True, default=str).encode("utf-8")).hexdigest()


def read_start_record(path: Path, fingerprint: str, resume: bool, accelerator: Any) -> dict[str, Any] | None:
    """The record of a choice made from a stage's starting weights (stage 2's `skip_solved`, stage 3's `select`), read
    back by a resumed run when `path` was written for the same `fingerprint`; None otherwise (make the choice again).
    The main process reads it and every process takes its answer."""
    record = None
    if accelerator.is_main_process and resume and path.exists():
        saved = json.loads(path.read_text(encoding="utf-8"))
        record = saved if saved.get("fingerprint") == fingerprint else None
    if accelerator.num_processes > 1:
        from accelerate.utils import broadcast_object_list

        record = broadcast_object_list([record])[0]
    return record


def write_start_record(path: Path, record: dict[str, Any], fingerprint: str) -> None:
    """Write `record` with its `fingerprint` to `path`, whole or not at all: a resumed run may read it back."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json(path, {**record, "fingerprint": fingerprint})


class StageRunner:
    """One stage for the run loop. `total_steps` run-loop steps; `updates_per_step` optimizer steps in each."""

    name: str = "stage"
    total_steps: int = 0
    updates_per_step: int = 1

    def attach(self, optimizer: torch.optim.Optimizer, scheduler: Any) -> None:
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


__all__ = ["StageRunner"]
